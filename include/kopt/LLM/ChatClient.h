//===- ChatClient.h - An LLM provider's chat API, with retries --*- C++ -*-===//
//
// One client per search: requests go out through httpPost with a timeout;
// 408, 429, 5xx and transport failures are retried with exponential backoff
// and jitter, honouring Retry-After; at most MaxConcurrent requests are in
// flight; the tokens each reply reports are summed, and once BudgetTokens
// are spent no request goes out. The API key lives only in the request's
// headers: every text the client returns (errors, reply bodies) has it
// replaced by "[redacted]", and the recorded request is the body alone.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_LLM_CHATCLIENT_H
#define KOPT_LLM_CHATCLIENT_H

#include "kopt/LLM/Providers.h"

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>

namespace kopt::llm {

struct ClientOptions {
  Provider Kind = Provider::OpenAI;
  std::string Model;
  std::string BaseUrl; // empty: defaultBaseUrl(Kind)
  std::string ApiKey;  // from the environment only (optionsFromEnvironment)
  double TimeoutSeconds = 300;
  int MaxRetries = 4;
  double BackoffBaseSeconds = 1;
  double BackoffMaxSeconds = 60;
  /// A Retry-After longer than this ends the retries with an error.
  double MaxRetryAfterSeconds = 600;
  int MaxConcurrent = 2;
  std::uint64_t BudgetTokens = 0; // 0: no budget
  std::size_t MaxReplyBytes = 16 << 20;
  /// Waits between attempts (tests pass one that records and returns).
  std::function<void(double Seconds)> Sleep;
  /// Jitter in [0, 1) (tests pass a fixed one); default: random.
  std::function<double()> Jitter;
};

/// Options for \p ProviderName and \p Model: the key from the provider's
/// environment variable, the base URL from \p BaseUrlFlag, else
/// $KOPT_LLM_BASE_URL, else the provider's. Returns false with \p Error
/// (which never holds a key) when the provider is unknown or a remote API
/// has no key.
bool optionsFromEnvironment(const std::string &ProviderName,
                            const std::string &Model,
                            const std::string &BaseUrlFlag, ClientOptions &Out,
                            std::string &Error);

/// One request and its outcome, as the store records it (no key).
struct Exchange {
  std::string Provider;
  std::string Model;
  std::string Url;
  std::string RequestBody;
  long Status = 0;       // the last attempt's HTTP status (0: none)
  std::string ReplyBody; // the last attempt's body, redacted
  int Attempts = 0;
  std::string Text; // the assistant's text when ok
  TokenUsage Usage;
  std::string StopReason;
  std::string Error; // empty when ok
  bool BudgetSpent = false;
  bool ok() const { return Error.empty(); }
};

/// Delay before retry number \p Attempt (0-based): \p RetryAfter (seconds
/// or an HTTP date) when given, else min(Max, Base * 2^Attempt) scaled into
/// [50%, 100%) by \p Jitter. Negative when Retry-After exceeds \p Limit.
double retryDelaySeconds(int Attempt, const std::string &RetryAfter,
                         double Base, double Max, double Limit, double Jitter);

class ChatClient {
public:
  explicit ChatClient(ClientOptions Options);

  /// Sends \p Request (its Model is filled in from the options when
  /// empty), retrying as configured.
  Exchange complete(ChatRequest Request);

  /// Tokens spent so far (as the replies reported them).
  TokenUsage spent() const;
  bool budgetSpent() const;

  /// \p Text with the API key replaced.
  std::string redact(std::string Text) const;

private:
  ClientOptions O;
  mutable std::mutex Mutex;
  std::condition_variable Slots;
  int InFlight = 0;
  TokenUsage Spent;
};

} // namespace kopt::llm

#endif // KOPT_LLM_CHATCLIENT_H
