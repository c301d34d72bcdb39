//===- capture-report.cpp - Fuzz target: a capture child's report ---------===//
//
// What a capture child writes is untrusted: any bytes are a report or an
// error, never a crash; an accepted report written back parses to the same
// report.
//
//===----------------------------------------------------------------------===//
#include "kopt/Eval/Capture.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *Data,
                                      std::size_t Size) {
  nlohmann::json J = nlohmann::json::parse(Data, Data + Size, nullptr,
                                           /*allow_exceptions=*/false);
  std::string Error;
  std::optional<kopt::eval::CaptureReport> R =
      kopt::eval::captureFromJson(J, Error);
  if (!R) {
    if (Error.empty())
      std::abort();
    return 0;
  }
  nlohmann::json Back = kopt::eval::captureToJson(*R);
  std::optional<kopt::eval::CaptureReport> Again =
      kopt::eval::captureFromJson(Back, Error);
  if (!Again || kopt::eval::captureToJson(*Again) != Back)
    std::abort();
  for (const kopt::eval::CapturedShape &S : R->Shapes)
    for (const kopt::eval::CapturedNode &N : S.Nodes)
      (void)kopt::eval::findRange(S, N.Destination);
  return 0;
}
