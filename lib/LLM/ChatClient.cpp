//===- ChatClient.cpp - An LLM provider's chat API, with retries ----------===//
#include "kopt/LLM/ChatClient.h"
#include "kopt/LLM/Http.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <random>
#include <thread>

namespace kopt::llm {

bool optionsFromEnvironment(const std::string &ProviderName,
                            const std::string &Model,
                            const std::string &BaseUrlFlag, ClientOptions &Out,
                            std::string &Error) {
  auto Kind = parseProvider(ProviderName);
  if (!Kind) {
    Error = "unknown LLM provider '" + ProviderName +
            "' (known: openai, anthropic)";
    return false;
  }
  if (Model.empty()) {
    Error = "an LLM model is needed (--llm-model)";
    return false;
  }
  Out.Kind = *Kind;
  Out.Model = Model;
  const char *EnvUrl = std::getenv("KOPT_LLM_BASE_URL");
  Out.BaseUrl = !BaseUrlFlag.empty() ? BaseUrlFlag
                : EnvUrl && *EnvUrl  ? std::string(EnvUrl)
                                     : defaultBaseUrl(*Kind);
  const char *Key = std::getenv(apiKeyVariable(*Kind));
  Out.ApiKey = Key ? Key : "";
  // A provider's own API needs a key; a local server may not.
  if (Out.ApiKey.empty() && Out.BaseUrl == defaultBaseUrl(*Kind)) {
    Error = std::string(apiKeyVariable(*Kind)) +
            " is not set (the key is "
            "read only from the environment)";
    return false;
  }
  return true;
}

namespace {
/// Seconds until an HTTP date ("Wed, 21 Oct 2015 07:28:00 GMT"); nullopt
/// when \p Text is not one.
std::optional<double> secondsUntilDate(const std::string &Text) {
  std::tm Tm{};
  const char *End = strptime(Text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &Tm);
  if (!End || *End)
    return std::nullopt;
  double Delta = std::difftime(timegm(&Tm), std::time(nullptr));
  return std::max(0.0, Delta);
}
} // namespace

double retryDelaySeconds(int Attempt, const std::string &RetryAfter,
                         double Base, double Max, double Limit, double Jitter) {
  if (!RetryAfter.empty()) {
    char *End = nullptr;
    double Seconds = std::strtod(RetryAfter.c_str(), &End);
    std::optional<double> Given;
    if (End && *End == '\0' && End != RetryAfter.c_str() && Seconds >= 0)
      Given = Seconds;
    else
      Given = secondsUntilDate(RetryAfter);
    if (Given)
      return *Given > Limit ? -1.0 : *Given;
  }
  double Exponential = std::min(Max, Base * std::pow(2.0, Attempt));
  return Exponential * (0.5 + 0.5 * Jitter);
}

ChatClient::ChatClient(ClientOptions Options) : O(std::move(Options)) {
  if (O.BaseUrl.empty())
    O.BaseUrl = defaultBaseUrl(O.Kind);
  if (!O.Sleep)
    O.Sleep = [](double S) {
      std::this_thread::sleep_for(std::chrono::duration<double>(S));
    };
  if (!O.Jitter)
    O.Jitter = [] {
      static thread_local std::mt19937_64 Gen(std::random_device{}());
      return std::uniform_real_distribution<double>(0.0, 1.0)(Gen);
    };
  if (O.MaxConcurrent < 1)
    O.MaxConcurrent = 1;
}

std::string ChatClient::redact(std::string Text) const {
  if (O.ApiKey.empty())
    return Text;
  for (std::size_t At; (At = Text.find(O.ApiKey)) != std::string::npos;)
    Text.replace(At, O.ApiKey.size(), "[redacted]");
  return Text;
}

TokenUsage ChatClient::spent() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return Spent;
}

bool ChatClient::budgetSpent() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return O.BudgetTokens && Spent.total() >= O.BudgetTokens;
}

namespace {
bool retryable(long Status) {
  return Status == 0 || Status == 408 || Status == 429 || Status >= 500;
}

std::string excerpt(const std::string &Text, std::size_t Max = 300) {
  return Text.size() <= Max ? Text : Text.substr(0, Max) + "...";
}
} // namespace

Exchange ChatClient::complete(ChatRequest Request) {
  if (Request.Model.empty())
    Request.Model = O.Model;
  Exchange X;
  X.Provider = providerName(O.Kind);
  X.Model = Request.Model;
  X.Url = endpointUrl(O.Kind, O.BaseUrl);
  X.RequestBody = requestBody(O.Kind, Request);
  if (budgetSpent()) {
    X.BudgetSpent = true;
    X.Error = "the token budget (" + std::to_string(O.BudgetTokens) +
              ") is spent: " + std::to_string(spent().total()) + " tokens";
    return X;
  }
  HttpRequest Http;
  Http.Url = X.Url;
  Http.Headers = requestHeaders(O.Kind, O.ApiKey);
  Http.Body = X.RequestBody;
  Http.TimeoutSeconds = O.TimeoutSeconds;
  Http.MaxReplyBytes = O.MaxReplyBytes;

  for (int Attempt = 0;; ++Attempt) {
    HttpResponse R;
    {
      std::unique_lock<std::mutex> Lock(Mutex);
      Slots.wait(Lock, [&] { return InFlight < O.MaxConcurrent; });
      ++InFlight;
    }
    R = httpPost(Http);
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      --InFlight;
    }
    Slots.notify_one();
    X.Attempts = Attempt + 1;
    X.Status = R.Status;
    X.ReplyBody = redact(R.Body);
    if (R.Status == 200) {
      ParsedReply P = parseReply(O.Kind, R.Body);
      {
        std::lock_guard<std::mutex> Lock(Mutex);
        Spent += P.Usage; // tokens were spent even if the text is unusable
      }
      X.Usage = P.Usage;
      X.StopReason = P.StopReason;
      if (!P.Ok) {
        X.Error = "unusable reply: " + P.Error;
        return X;
      }
      X.Text = redact(P.Text);
      X.Error.clear();
      return X;
    }
    std::string Why = R.Status ? "HTTP " + std::to_string(R.Status) +
                                     (errorMessage(R.Body).empty()
                                          ? ": " + excerpt(R.Body)
                                          : ": " + errorMessage(R.Body))
                               : R.Error;
    X.Error = redact(Why);
    if (!retryable(R.Status) || Attempt >= O.MaxRetries) {
      if (retryable(R.Status))
        X.Error += " (after " + std::to_string(X.Attempts) + " attempts)";
      return X;
    }
    auto RetryAfter = R.Headers.find("retry-after");
    double Delay = retryDelaySeconds(
        Attempt, RetryAfter == R.Headers.end() ? "" : RetryAfter->second,
        O.BackoffBaseSeconds, O.BackoffMaxSeconds, O.MaxRetryAfterSeconds,
        O.Jitter());
    if (Delay < 0) {
      X.Error += " (the server asks to retry after " + RetryAfter->second +
                 ", beyond " + std::to_string(int(O.MaxRetryAfterSeconds)) +
                 " s)";
      return X;
    }
    O.Sleep(Delay);
  }
}

} // namespace kopt::llm
