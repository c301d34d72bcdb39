//===- Http.h - One HTTP POST through libcurl -------------------*- C++ -*-===//
//
// The LLM client's transport: one blocking POST with a wall-clock limit and
// a cap on the reply's size. Nothing here logs; headers (which carry API
// keys) are never copied into the response or an error.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_LLM_HTTP_H
#define KOPT_LLM_HTTP_H

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kopt::llm {

struct HttpRequest {
  std::string Url;
  std::vector<std::pair<std::string, std::string>> Headers;
  std::string Body;
  double TimeoutSeconds = 120;
  double ConnectTimeoutSeconds = 10;
  std::size_t MaxReplyBytes = 16 << 20;
};

struct HttpResponse {
  /// The HTTP status; 0 when no response arrived (then Error says why).
  long Status = 0;
  std::string Body;
  /// Reply headers, names in lower case.
  std::map<std::string, std::string> Headers;
  std::string Error; // transport failure, timeout, reply too large
  bool TimedOut = false;
};

/// POSTs \p Request and waits for the whole reply (or the limit).
HttpResponse httpPost(const HttpRequest &Request);

} // namespace kopt::llm

#endif // KOPT_LLM_HTTP_H
