//===- WorkerResult.cpp - Whether a child's verdict can be trusted --------===//
#include "kopt/Eval/WorkerResult.h"

#include "kopt/Eval/Status.h"

#include <cstdio>
#include <fstream>
#include <random>

namespace kopt::eval {

using nlohmann::json;

namespace {
bool sampleArray(const json &Timing, const char *Key) {
  auto It = Timing.find(Key);
  return It != Timing.end() && It->is_array() && !It->empty();
}
} // namespace

WorkerResultCheck
checkWorkerResult(const std::optional<std::string> &ResultText,
                  const std::string &Nonce, const ProcessResult &End,
                  bool TimingExpected, WorkerKind Kind) {
  WorkerResultCheck C;
  if (!End.succeeded()) {
    C.Problem = "the evaluation process ended with " + End.describeEnd() +
                (ResultText ? " (its result file is not trusted: a clean "
                              "exit is required)"
                            : " without a verdict");
    return C;
  }
  if (!ResultText) {
    C.Problem = "the evaluation process exited without writing a verdict";
    return C;
  }
  json Result;
  try {
    Result = json::parse(*ResultText);
  } catch (const json::exception &) {
    C.Problem = "the evaluation process left an unreadable result file";
    return C;
  }
  if (!Result.is_object()) {
    C.Problem = "the evaluation process left a result that is not an object";
    return C;
  }
  auto NonceIt = Result.find("nonce");
  if (Nonce.empty() || NonceIt == Result.end() || !NonceIt->is_string() ||
      NonceIt->get<std::string>() != Nonce) {
    C.Problem = "the result file does not carry this evaluation's nonce (a "
                "stale or forged verdict): not trusted";
    return C;
  }
  auto StatusIt = Result.find("status");
  if (StatusIt == Result.end() || !StatusIt->is_string() ||
      !parseStatus(StatusIt->get<std::string>())) {
    C.Problem = "the result has no known status";
    return C;
  }
  auto MessagesIt = Result.find("messages");
  if (MessagesIt == Result.end() || !MessagesIt->is_array()) {
    C.Problem = "the result has no message list";
    return C;
  }
  for (const json &M : *MessagesIt)
    if (!M.is_string()) {
      C.Problem = "the result has a message that is not a string";
      return C;
    }
  if (StatusIt->get<std::string>() == "ok" &&
      Kind == WorkerKind::ReferenceCache) {
    auto Kept = Result.find("reference_cache");
    if (Kept == Result.end() || !Kept->is_object() ||
        !Kept->contains("entries_kept")) {
      C.Problem = "an ok result of the reference child without what it kept";
      return C;
    }
  } else if (StatusIt->get<std::string>() == "ok") {
    auto Correctness = Result.find("correctness");
    if (Correctness == Result.end() || !Correctness->is_object() ||
        !Correctness->contains("shapes")) {
      C.Problem = "an ok result without its correctness report";
      return C;
    }
    if (TimingExpected) {
      auto Timing = Result.find("timing");
      if (Timing == Result.end() || !Timing->is_object() ||
          !sampleArray(*Timing, "baseline_samples_ms") ||
          !sampleArray(*Timing, "candidate_samples_ms") ||
          (*Timing)["baseline_samples_ms"].size() !=
              (*Timing)["candidate_samples_ms"].size() ||
          !Timing->contains("candidate") ||
          !(*Timing)["candidate"].is_object() ||
          !Timing->contains("baseline") || !(*Timing)["baseline"].is_object() ||
          !Timing->contains("speedup") || !(*Timing)["speedup"].is_number() ||
          !Timing->contains("speedup_ci95") ||
          !(*Timing)["speedup_ci95"].is_array() ||
          (*Timing)["speedup_ci95"].size() != 2 ||
          !(*Timing)["speedup_ci95"][0].is_number() ||
          !(*Timing)["speedup_ci95"][1].is_number()) {
        C.Problem = "an ok result without a complete timing report";
        return C;
      }
    }
  }
  C.Trusted = true;
  C.Result = std::move(Result);
  return C;
}

std::string makeNonce() {
  std::random_device Random;
  std::string Text;
  char Digits[9];
  for (int I = 0; I < 4; ++I) {
    std::snprintf(Digits, sizeof(Digits), "%08x",
                  static_cast<unsigned>(Random()));
    Text += Digits;
  }
  return Text;
}

std::string readFileTail(const std::string &Path, std::size_t MaxBytes) {
  std::ifstream In(Path, std::ios::binary | std::ios::ate);
  if (!In)
    return "";
  std::streamoff Size = In.tellg();
  if (Size < 0)
    return "";
  std::streamoff Start = Size > static_cast<std::streamoff>(MaxBytes)
                             ? Size - static_cast<std::streamoff>(MaxBytes)
                             : 0;
  In.seekg(Start);
  std::string Text(static_cast<std::size_t>(Size - Start), '\0');
  In.read(Text.data(), static_cast<std::streamsize>(Text.size()));
  Text.resize(static_cast<std::size_t>(In.gcount()));
  return Text;
}

} // namespace kopt::eval
