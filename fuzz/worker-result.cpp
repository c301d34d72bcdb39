//===- worker-result.cpp - Fuzz target: an evaluation child's result ------===//
//
// The result file of a child that may have run a candidate's code: any
// bytes are trusted (with the nonce) or refused with a reason, never a
// crash.
//
//===----------------------------------------------------------------------===//
#include "kopt/Eval/WorkerResult.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *Data,
                                      std::size_t Size) {
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  kopt::eval::ProcessResult End;
  End.Started = true;
  End.ExitCode = Size % 3 == 0 ? 0 : 1;
  const std::string Nonce = "0123456789abcdef0123456789abcdef";
  for (bool Timing : {false, true})
    for (kopt::eval::WorkerKind Kind :
         {kopt::eval::WorkerKind::Evaluation,
          kopt::eval::WorkerKind::ReferenceCache}) {
      kopt::eval::WorkerResultCheck C =
          kopt::eval::checkWorkerResult(Text, Nonce, End, Timing, Kind);
      if (!C.Trusted && C.Problem.empty())
        std::abort();
    }
  return 0;
}
