//===- Providers.cpp - Chat APIs' request and reply formats ---------------===//
#include "kopt/LLM/Providers.h"

#include <nlohmann/json.hpp>

namespace kopt::llm {

using nlohmann::json;

std::optional<Provider> parseProvider(const std::string &Name) {
  if (Name == "openai")
    return Provider::OpenAI;
  if (Name == "anthropic")
    return Provider::Anthropic;
  return std::nullopt;
}

const char *providerName(Provider P) {
  return P == Provider::OpenAI ? "openai" : "anthropic";
}

std::string defaultBaseUrl(Provider P) {
  return P == Provider::OpenAI ? "https://api.openai.com/v1"
                               : "https://api.anthropic.com/v1";
}

const char *apiKeyVariable(Provider P) {
  return P == Provider::OpenAI ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY";
}

std::string endpointUrl(Provider P, const std::string &BaseUrl) {
  std::string Base = BaseUrl;
  while (!Base.empty() && Base.back() == '/')
    Base.pop_back();
  return Base + (P == Provider::OpenAI ? "/chat/completions" : "/messages");
}

std::string requestBody(Provider P, const ChatRequest &R) {
  json Body = {{"model", R.Model}, {"max_tokens", R.MaxTokens}};
  if (P == Provider::OpenAI) {
    json Messages = json::array();
    if (!R.System.empty())
      Messages.push_back({{"role", "system"}, {"content", R.System}});
    Messages.push_back({{"role", "user"}, {"content", R.User}});
    Body["messages"] = Messages;
  } else {
    if (!R.System.empty())
      Body["system"] = R.System;
    Body["messages"] = json::array({{{"role", "user"}, {"content", R.User}}});
  }
  return Body.dump();
}

std::vector<std::pair<std::string, std::string>>
requestHeaders(Provider P, const std::string &ApiKey) {
  std::vector<std::pair<std::string, std::string>> H = {
      {"Content-Type", "application/json"}};
  if (P == Provider::OpenAI) {
    if (!ApiKey.empty())
      H.emplace_back("Authorization", "Bearer " + ApiKey);
  } else {
    H.emplace_back("anthropic-version", "2023-06-01");
    if (!ApiKey.empty())
      H.emplace_back("x-api-key", ApiKey);
  }
  return H;
}

namespace {
std::uint64_t count(const json &Usage, const char *Key) {
  auto It = Usage.find(Key);
  return It != Usage.end() && It->is_number_unsigned()
             ? It->get<std::uint64_t>()
             : 0;
}
} // namespace

ParsedReply parseReply(Provider P, const std::string &Body) {
  ParsedReply R;
  json J = json::parse(Body, nullptr, /*allow_exceptions=*/false);
  if (J.is_discarded() || !J.is_object()) {
    R.Error = "the reply is not a JSON object";
    return R;
  }
  if (P == Provider::OpenAI) {
    const json *Choices = J.contains("choices") ? &J["choices"] : nullptr;
    if (!Choices || !Choices->is_array() || Choices->empty() ||
        !(*Choices)[0].is_object()) {
      R.Error = "the reply has no choices";
      return R;
    }
    const json &First = (*Choices)[0];
    const json *Message =
        First.contains("message") ? &First["message"] : nullptr;
    if (!Message || !Message->is_object() || !Message->contains("content") ||
        !(*Message)["content"].is_string()) {
      R.Error = "the reply's first choice has no message content";
      return R;
    }
    R.Text = (*Message)["content"].get<std::string>();
    if (First.contains("finish_reason") && First["finish_reason"].is_string())
      R.StopReason = First["finish_reason"].get<std::string>();
    if (J.contains("usage") && J["usage"].is_object()) {
      R.Usage.Input = count(J["usage"], "prompt_tokens");
      R.Usage.Output = count(J["usage"], "completion_tokens");
    }
  } else {
    const json *Content = J.contains("content") ? &J["content"] : nullptr;
    if (!Content || !Content->is_array()) {
      R.Error = "the reply has no content";
      return R;
    }
    bool Any = false;
    for (const json &Block : *Content)
      if (Block.is_object() && Block.value("type", "") == "text" &&
          Block.contains("text") && Block["text"].is_string()) {
        R.Text += Block["text"].get<std::string>();
        Any = true;
      }
    if (!Any) {
      R.Error = "the reply has no text block";
      return R;
    }
    if (J.contains("stop_reason") && J["stop_reason"].is_string())
      R.StopReason = J["stop_reason"].get<std::string>();
    if (J.contains("usage") && J["usage"].is_object()) {
      R.Usage.Input = count(J["usage"], "input_tokens");
      R.Usage.Output = count(J["usage"], "output_tokens");
    }
  }
  R.Ok = true;
  return R;
}

std::string errorMessage(const std::string &Body) {
  json J = json::parse(Body, nullptr, /*allow_exceptions=*/false);
  if (J.is_object() && J.contains("error")) {
    const json &E = J["error"];
    if (E.is_object() && E.contains("message") && E["message"].is_string())
      return E["message"].get<std::string>();
    if (E.is_string())
      return E.get<std::string>();
  }
  return "";
}

} // namespace kopt::llm
