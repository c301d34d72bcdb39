//===- llm-reply.cpp - Fuzz target: an LLM's reply to a candidate source --===//
//
// Any reply: a candidate source or an error saying why, never a crash; the
// same bytes as a unified diff against a small kernel apply or are refused.
//
//===----------------------------------------------------------------------===//
#include "kopt/LLM/ReplyEdit.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {
const char *Original = R"(#include <cuda_runtime.h>

__global__ void axpby(const float *x, const float *y, float *out, float a,
                      float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i] + b * y[i];
}
)";
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *Data,
                                      std::size_t Size) {
  std::string Reply(reinterpret_cast<const char *>(Data), Size);
  kopt::llm::ReplyEdit E = kopt::llm::candidateFromReply(Reply, Original);
  if (E.ok() && E.Source.empty())
    std::abort(); // an accepted reply gives a source
  std::string Out, Error;
  if (!kopt::llm::applyUnifiedDiff(Original, Reply, Out, Error) &&
      Error.empty())
    std::abort(); // a refusal says why
  return 0;
}
