//===- Http.cpp - One HTTP POST through libcurl ---------------------------===//
#include "kopt/LLM/Http.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <mutex>

namespace kopt::llm {

namespace {

/// curl_global_init is not thread-safe; run it once.
void initializeCurl() {
  static std::once_flag Once;
  std::call_once(Once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Sink {
  HttpResponse *Response;
  std::size_t Max;
  bool TooLarge = false;
};

std::size_t writeBody(char *Data, std::size_t Size, std::size_t Count,
                      void *User) {
  auto *S = static_cast<Sink *>(User);
  std::size_t Bytes = Size * Count;
  if (S->Response->Body.size() + Bytes > S->Max) {
    S->TooLarge = true;
    return 0; // aborts the transfer
  }
  S->Response->Body.append(Data, Bytes);
  return Bytes;
}

std::size_t writeHeader(char *Data, std::size_t Size, std::size_t Count,
                        void *User) {
  auto *R = static_cast<HttpResponse *>(User);
  std::string Line(Data, Size * Count);
  std::size_t Colon = Line.find(':');
  if (Colon != std::string::npos) {
    std::string Name = Line.substr(0, Colon);
    std::transform(Name.begin(), Name.end(), Name.begin(),
                   [](unsigned char C) { return std::tolower(C); });
    std::string Value = Line.substr(Colon + 1);
    Value.erase(0, Value.find_first_not_of(" \t"));
    Value.erase(Value.find_last_not_of(" \t\r\n") + 1);
    R->Headers[Name] = Value;
  }
  return Size * Count;
}

} // namespace

HttpResponse httpPost(const HttpRequest &Request) {
  initializeCurl();
  HttpResponse Response;
  CURL *Curl = curl_easy_init();
  if (!Curl) {
    Response.Error = "cannot initialize libcurl";
    return Response;
  }
  curl_slist *Headers = nullptr;
  for (const auto &[Name, Value] : Request.Headers)
    Headers = curl_slist_append(Headers, (Name + ": " + Value).c_str());
  Sink S{&Response, Request.MaxReplyBytes};
  char ErrorText[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(Curl, CURLOPT_URL, Request.Url.c_str());
  curl_easy_setopt(Curl, CURLOPT_POST, 1L);
  curl_easy_setopt(Curl, CURLOPT_POSTFIELDS, Request.Body.data());
  curl_easy_setopt(Curl, CURLOPT_POSTFIELDSIZE_LARGE,
                   static_cast<curl_off_t>(Request.Body.size()));
  curl_easy_setopt(Curl, CURLOPT_HTTPHEADER, Headers);
  curl_easy_setopt(Curl, CURLOPT_WRITEFUNCTION, writeBody);
  curl_easy_setopt(Curl, CURLOPT_WRITEDATA, &S);
  curl_easy_setopt(Curl, CURLOPT_HEADERFUNCTION, writeHeader);
  curl_easy_setopt(Curl, CURLOPT_HEADERDATA, &Response);
  curl_easy_setopt(Curl, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(Request.TimeoutSeconds * 1000));
  curl_easy_setopt(Curl, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(Request.ConnectTimeoutSeconds * 1000));
  curl_easy_setopt(Curl, CURLOPT_NOSIGNAL, 1L); // safe in threads
  curl_easy_setopt(Curl, CURLOPT_ERRORBUFFER, ErrorText);
  curl_easy_setopt(Curl, CURLOPT_PROTOCOLS_STR, "http,https");
  CURLcode Code = curl_easy_perform(Curl);
  if (S.TooLarge) {
    Response.Error = "the reply is larger than " +
                     std::to_string(Request.MaxReplyBytes) + " bytes";
    Response.Status = 0;
  } else if (Code != CURLE_OK) {
    Response.TimedOut = Code == CURLE_OPERATION_TIMEDOUT;
    Response.Error = *ErrorText ? ErrorText : curl_easy_strerror(Code);
    Response.Status = 0;
  } else {
    curl_easy_getinfo(Curl, CURLINFO_RESPONSE_CODE, &Response.Status);
  }
  curl_slist_free_all(Headers);
  curl_easy_cleanup(Curl);
  return Response;
}

} // namespace kopt::llm
