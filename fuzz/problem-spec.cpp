//===- problem-spec.cpp - Fuzz target: problem.json parser and checks -----===//
//
// Any bytes as problem.json: a problem or a list of errors, never a crash;
// an accepted problem's shapes evaluate their sizes without overflow traps
// (UBSan) and describe themselves.
//
//===----------------------------------------------------------------------===//
#include "kopt/Spec/ProblemParser.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *Data,
                                      std::size_t Size) {
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  kopt::spec::ProblemLoadResult R =
      kopt::spec::parseProblemJson(Text, "/nonexistent/fuzz/problem.json");
  if (R.ok())
    for (const kopt::spec::Shape &S : R.Value->Shapes)
      (void)S.describe();
  return 0;
}
