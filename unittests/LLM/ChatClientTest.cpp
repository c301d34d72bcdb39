//===- ChatClientTest.cpp - The real client against a loopback server ----===//
#include "FakeServer.h"

#include "kopt/LLM/ChatClient.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>

using namespace kopt::llm;
using kopt::llm::testing::FakeServer;

namespace {

const char *Key = "sk-test-SECRET-0123456789";

const std::string OpenAIReply =
    R"({"choices": [{"message": {"role": "assistant", "content": "```cuda\n__global__ void k() {}\n```"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 30}})";
const std::string AnthropicReply =
    R"({"content": [{"type": "text", "text": "part one, "}, {"type": "text", "text": "part two"}],
        "stop_reason": "end_turn", "usage": {"input_tokens": 70, "output_tokens": 20}})";

struct Recorder {
  std::vector<double> Sleeps;
};

ClientOptions options(Provider P, const std::string &Url, Recorder &R) {
  ClientOptions O;
  O.Kind = P;
  O.Model = "test-model";
  O.BaseUrl = Url;
  O.ApiKey = Key;
  O.TimeoutSeconds = 5;
  O.Sleep = [&R](double S) { R.Sleeps.push_back(S); };
  O.Jitter = [] { return 0.0; };
  return O;
}

ChatRequest request() {
  ChatRequest R;
  R.System = "You optimize CUDA kernels.";
  R.User = "Make this faster.";
  return R;
}

TEST(ChatClient, OpenAIRequestAndReply) {
  FakeServer S([](const std::string &) {
    return FakeServer::response(200, OpenAIReply);
  });
  Recorder R;
  ChatClient C(options(Provider::OpenAI, S.url(), R));
  Exchange X = C.complete(request());
  ASSERT_TRUE(X.ok()) << X.Error;
  EXPECT_EQ(X.Text, "```cuda\n__global__ void k() {}\n```");
  EXPECT_EQ(X.Usage.Input, 50u);
  EXPECT_EQ(X.Usage.Output, 30u);
  EXPECT_EQ(X.StopReason, "stop");
  EXPECT_EQ(X.Attempts, 1);
  EXPECT_EQ(C.spent().total(), 80u);
  auto Requests = S.requests();
  ASSERT_EQ(Requests.size(), 1u);
  EXPECT_NE(Requests[0].find("POST /v1/chat/completions"), std::string::npos);
  EXPECT_NE(Requests[0].find(std::string("Authorization: Bearer ") + Key),
            std::string::npos);
  EXPECT_NE(Requests[0].find("\"model\":\"test-model\""), std::string::npos);
  EXPECT_NE(Requests[0].find("\"role\":\"system\""), std::string::npos);
  // What is recorded holds no key.
  EXPECT_EQ(X.RequestBody.find(Key), std::string::npos);
}

TEST(ChatClient, AnthropicRequestAndReply) {
  FakeServer S([](const std::string &) {
    return FakeServer::response(200, AnthropicReply);
  });
  Recorder R;
  ChatClient C(options(Provider::Anthropic, S.url() + "/", R));
  Exchange X = C.complete(request());
  ASSERT_TRUE(X.ok()) << X.Error;
  EXPECT_EQ(X.Text, "part one, part two");
  EXPECT_EQ(X.Usage.total(), 90u);
  auto Requests = S.requests();
  ASSERT_EQ(Requests.size(), 1u);
  EXPECT_NE(Requests[0].find("POST /v1/messages"), std::string::npos);
  EXPECT_NE(Requests[0].find(std::string("x-api-key: ") + Key),
            std::string::npos);
  EXPECT_NE(Requests[0].find("anthropic-version: 2023-06-01"),
            std::string::npos);
  EXPECT_NE(Requests[0].find("\"system\":\"You optimize CUDA kernels.\""),
            std::string::npos);
}

TEST(ChatClient, RetriesOn429HonouringRetryAfter) {
  std::atomic<int> Calls{0};
  FakeServer S([&](const std::string &) {
    if (Calls++ == 0)
      return FakeServer::response(429, R"({"error": {"message": "slow down"}})",
                                  "Retry-After: 2\r\n");
    return FakeServer::response(200, OpenAIReply);
  });
  Recorder R;
  ChatClient C(options(Provider::OpenAI, S.url(), R));
  Exchange X = C.complete(request());
  ASSERT_TRUE(X.ok()) << X.Error;
  EXPECT_EQ(X.Attempts, 2);
  EXPECT_EQ(R.Sleeps, std::vector<double>{2.0});
}

TEST(ChatClient, RetriesOn5xxWithExponentialBackoffThenGivesUp) {
  FakeServer S([](const std::string &) {
    return FakeServer::response(503, "overloaded");
  });
  Recorder R;
  ClientOptions O = options(Provider::OpenAI, S.url(), R);
  O.MaxRetries = 3;
  ChatClient C(O);
  Exchange X = C.complete(request());
  EXPECT_FALSE(X.ok());
  EXPECT_EQ(X.Attempts, 4);
  EXPECT_EQ(X.Status, 503);
  EXPECT_NE(X.Error.find("HTTP 503: overloaded (after 4 attempts)"),
            std::string::npos)
      << X.Error;
  // Jitter 0 gives half of base * 2^attempt.
  EXPECT_EQ(R.Sleeps, (std::vector<double>{0.5, 1.0, 2.0}));
}

TEST(ChatClient, ClientErrorsAreNotRetriedAndNeverShowTheKey) {
  // The server echoes the request (and so the key) in its error message.
  FakeServer S([](const std::string &Request) {
    std::string Echo;
    for (char C : Request.substr(0, Request.find("\r\n\r\n")))
      if (C != '"' && C != '\\' && C != '\r' && C != '\n')
        Echo += C;
    return FakeServer::response(
        401, "{\"error\": {\"message\": \"bad key in: " + Echo + "\"}}");
  });
  Recorder R;
  ChatClient C(options(Provider::OpenAI, S.url(), R));
  Exchange X = C.complete(request());
  EXPECT_FALSE(X.ok());
  EXPECT_EQ(X.Attempts, 1);
  EXPECT_TRUE(R.Sleeps.empty());
  EXPECT_NE(X.Error.find("HTTP 401: bad key in"), std::string::npos);
  EXPECT_NE(X.Error.find("[redacted]"), std::string::npos);
  EXPECT_EQ(X.Error.find(Key), std::string::npos);
  EXPECT_EQ(X.ReplyBody.find(Key), std::string::npos);
}

TEST(ChatClient, MalformedAndEmptyRepliesAreErrors) {
  for (const std::string &Body :
       {std::string("{not json"), std::string(R"({"choices": []})"),
        std::string(R"({"choices": [{"message": {"content": null}}]})")}) {
    FakeServer S(
        [&](const std::string &) { return FakeServer::response(200, Body); });
    Recorder R;
    ChatClient C(options(Provider::OpenAI, S.url(), R));
    Exchange X = C.complete(request());
    EXPECT_FALSE(X.ok()) << Body;
    EXPECT_EQ(X.Error.rfind("unusable reply: ", 0), 0u) << X.Error;
    EXPECT_EQ(X.Attempts, 1);
  }
}

TEST(ChatClient, TruncatedBodyIsATransportError) {
  FakeServer S([](const std::string &) {
    std::string Full = FakeServer::response(200, OpenAIReply);
    return Full.substr(0, Full.size() - 20); // Content-Length promises more
  });
  Recorder R;
  ClientOptions O = options(Provider::OpenAI, S.url(), R);
  O.MaxRetries = 1;
  ChatClient C(O);
  Exchange X = C.complete(request());
  EXPECT_FALSE(X.ok());
  EXPECT_EQ(X.Status, 0);
  EXPECT_EQ(X.Attempts, 2); // a transport failure is retried
  EXPECT_NE(X.Error.find("after 2 attempts"), std::string::npos) << X.Error;
}

TEST(ChatClient, AServerThatNeverAnswersTimesOut) {
  FakeServer S([](const std::string &) { return FakeServer::Hang; });
  Recorder R;
  ClientOptions O = options(Provider::OpenAI, S.url(), R);
  O.TimeoutSeconds = 0.3;
  O.MaxRetries = 0;
  ChatClient C(O);
  auto Start = std::chrono::steady_clock::now();
  Exchange X = C.complete(request());
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  EXPECT_FALSE(X.ok());
  EXPECT_NE(X.Error.find("imed out"), std::string::npos) << X.Error;
  EXPECT_LT(Seconds, 5.0);
}

TEST(ChatClient, RepliesOverTheSizeCapAreRefused) {
  std::string Big(10 << 20, 'x');
  FakeServer S([&](const std::string &) {
    return FakeServer::response(200, "{\"pad\": \"" + Big + "\"}");
  });
  Recorder R;
  ClientOptions O = options(Provider::OpenAI, S.url(), R);
  O.MaxReplyBytes = 1 << 20;
  O.MaxRetries = 0;
  ChatClient C(O);
  Exchange X = C.complete(request());
  EXPECT_FALSE(X.ok());
  EXPECT_NE(X.Error.find("larger than 1048576 bytes"), std::string::npos)
      << X.Error;
}

TEST(ChatClient, StopsAtTheTokenBudget) {
  FakeServer S([](const std::string &) {
    return FakeServer::response(200, OpenAIReply); // 80 tokens each
  });
  Recorder R;
  ClientOptions O = options(Provider::OpenAI, S.url(), R);
  O.BudgetTokens = 100;
  ChatClient C(O);
  EXPECT_TRUE(C.complete(request()).ok());
  EXPECT_TRUE(C.complete(request()).ok()); // 80 < 100 before it
  EXPECT_TRUE(C.budgetSpent());
  Exchange X = C.complete(request());
  EXPECT_FALSE(X.ok());
  EXPECT_TRUE(X.BudgetSpent);
  EXPECT_EQ(X.Attempts, 0);
  EXPECT_EQ(S.requests().size(), 2u); // the third never left
}

TEST(ChatClient, CapsConcurrentRequests) {
  for (int Cap : {1, 3}) {
    // Requests in the server's handler now and at most. With a cap of 3,
    // each handler waits (bounded) until all three requests are in: they
    // only all arrive if the client let them out together, whatever the
    // scheduling. With a cap of 1, a handler that overlapped another would
    // be counted.
    std::mutex M;
    std::condition_variable CV;
    int Inside = 0, Most = 0;
    FakeServer S([&](const std::string &) {
      std::unique_lock<std::mutex> Lock(M);
      Most = std::max(Most, ++Inside);
      CV.notify_all();
      if (Cap == 3)
        CV.wait_for(Lock, std::chrono::seconds(10), [&] { return Most >= 3; });
      else
        CV.wait_for(Lock, std::chrono::milliseconds(100), [] { return false; });
      --Inside;
      return FakeServer::response(200, OpenAIReply);
    });
    Recorder R;
    ClientOptions O = options(Provider::OpenAI, S.url(), R);
    O.MaxConcurrent = Cap;
    ChatClient C(O);
    std::vector<std::thread> Threads;
    for (int I = 0; I < 3; ++I)
      Threads.emplace_back([&] { C.complete(request()); });
    for (std::thread &T : Threads)
      T.join();
    EXPECT_EQ(Most, Cap);
    EXPECT_EQ(C.spent().total(), 240u);
  }
}

TEST(ChatClient, RetryDelays) {
  EXPECT_EQ(retryDelaySeconds(0, "7", 1, 60, 600, 0.0), 7.0);
  EXPECT_EQ(retryDelaySeconds(3, "", 1, 60, 600, 0.0), 4.0);
  EXPECT_DOUBLE_EQ(retryDelaySeconds(3, "", 1, 60, 600, 0.999999),
                   8.0 * 0.9999995);
  EXPECT_EQ(retryDelaySeconds(10, "", 1, 60, 600, 0.0), 30.0); // capped
  EXPECT_EQ(
      retryDelaySeconds(0, "Wed, 21 Oct 2015 07:28:00 GMT", 1, 60, 600, 0.0),
      0.0); // a date in the past
  EXPECT_LT(retryDelaySeconds(0, "3600", 1, 60, 600, 0.0), 0.0);
  // Garbage falls back to the exponential delay.
  EXPECT_EQ(retryDelaySeconds(1, "soon", 1, 60, 600, 0.0), 1.0);
}

TEST(ChatClient, OptionsComeFromTheEnvironment) {
  ClientOptions O;
  std::string Error;
  unsetenv("KOPT_LLM_BASE_URL");
  unsetenv("OPENAI_API_KEY");
  EXPECT_FALSE(optionsFromEnvironment("gemini", "m", "", O, Error));
  EXPECT_NE(Error.find("unknown LLM provider 'gemini'"), std::string::npos);
  EXPECT_FALSE(optionsFromEnvironment("openai", "m", "", O, Error));
  EXPECT_NE(Error.find("OPENAI_API_KEY is not set"), std::string::npos);
  // A local server needs no key.
  EXPECT_TRUE(
      optionsFromEnvironment("openai", "m", "http://127.0.0.1:1/v1", O, Error));
  setenv("KOPT_LLM_BASE_URL", "http://127.0.0.1:2/v1", 1);
  setenv("ANTHROPIC_API_KEY", Key, 1);
  EXPECT_TRUE(optionsFromEnvironment("anthropic", "claude", "", O, Error));
  EXPECT_EQ(O.BaseUrl, "http://127.0.0.1:2/v1");
  EXPECT_EQ(O.ApiKey, Key);
  EXPECT_TRUE(optionsFromEnvironment("anthropic", "claude",
                                     "http://127.0.0.1:3/v1", O, Error));
  EXPECT_EQ(O.BaseUrl, "http://127.0.0.1:3/v1"); // the flag wins
  unsetenv("KOPT_LLM_BASE_URL");
  unsetenv("ANTHROPIC_API_KEY");
}

} // namespace
