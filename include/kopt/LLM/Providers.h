//===- Providers.h - Chat APIs' request and reply formats -------*- C++ -*-===//
//
// The two wire formats kopt speaks: OpenAI-compatible chat completions
// (OpenAI, and local servers such as vLLM or llama.cpp's server) and
// Anthropic messages. Pure functions: no network, no environment.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_LLM_PROVIDERS_H
#define KOPT_LLM_PROVIDERS_H

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kopt::llm {

enum class Provider { OpenAI, Anthropic };

/// "openai" or "anthropic".
std::optional<Provider> parseProvider(const std::string &Name);
const char *providerName(Provider P);
/// https://api.openai.com/v1 or https://api.anthropic.com/v1.
std::string defaultBaseUrl(Provider P);
/// The only place a key is read from: OPENAI_API_KEY or ANTHROPIC_API_KEY.
const char *apiKeyVariable(Provider P);

struct ChatRequest {
  std::string Model;
  std::string System;
  std::string User;
  int MaxTokens = 8192;
};

struct TokenUsage {
  std::uint64_t Input = 0;
  std::uint64_t Output = 0;
  std::uint64_t total() const { return Input + Output; }
  TokenUsage &operator+=(const TokenUsage &O) {
    Input += O.Input;
    Output += O.Output;
    return *this;
  }
};

/// The endpoint for \p BaseUrl (a trailing slash is fine).
std::string endpointUrl(Provider P, const std::string &BaseUrl);
/// The request body (JSON). It never holds the key.
std::string requestBody(Provider P, const ChatRequest &R);
/// Headers, the key among them (empty key: no auth header, for local
/// servers that need none).
std::vector<std::pair<std::string, std::string>>
requestHeaders(Provider P, const std::string &ApiKey);

struct ParsedReply {
  bool Ok = false;
  std::string Text;       // the assistant's text
  TokenUsage Usage;       // as the reply states it
  std::string StopReason; // finish_reason / stop_reason
  std::string Error;      // why the body is not a usable reply
};

/// Reads a 200 reply's body.
ParsedReply parseReply(Provider P, const std::string &Body);

/// The error message a provider put in a non-200 body, if any.
std::string errorMessage(const std::string &Body);

} // namespace kopt::llm

#endif // KOPT_LLM_PROVIDERS_H
