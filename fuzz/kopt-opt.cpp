//===- kopt-opt.cpp - libFuzzer target: kopt-opt's passes in-process -----===//
//
// Mutated CUDA sources through kopt-opt's pipeline, in one process: the
// first byte picks the pipeline (`default`, kopt-opt -O, or one pass of the
// registry with its defaults), the rest is the source. No resource
// estimator (no nvcc): passes that would ask one refuse. The source parses
// with the preambles of the input before it (as kopt-opt --batch does), so
// the CUDA headers are paid once.
//
// Checked beyond "no crash, no hang, no sanitizer report": an input either
// fails to parse (an error, as kopt-opt reports it) or its output parses
// again, independently of the pass manager's own verification, and a pass
// that changed nothing returns its input.
//
//===----------------------------------------------------------------------===//

#include "kopt/Frontend/CudaFrontend.h"
#include "kopt/Pass/PassRegistry.h"
#include "kopt/Passes/BuiltinPasses.h"
#include "kopt/Pipeline/PassManager.h"
#include "kopt/Pipeline/Pipeline.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <memory>

using namespace kopt;

namespace {

struct Harness {
  std::unique_ptr<CudaFrontend> Frontend;
  std::vector<Pipeline> Pipelines;
  /// The last parse, whose preambles the next input reuses; the pass
  /// manager empties it when an input does not parse.
  ParsedSource Parsed;
};

Harness &harness() {
  static Harness H;
  return H;
}

[[noreturn]] void fail(const llvm::Twine &Why) {
  llvm::errs() << "fuzz-kopt-opt: " << Why << "\n";
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  Harness &H = harness();
  FrontendOptions FO;
  if (const char *Dir = std::getenv("KOPT_FUZZ_RESOURCE_DIR"))
    FO.ResourceDir = Dir;
  // A precompiled prefix makes the fresh parse after a broken input cheap.
  if (const char *Dir = std::getenv("KOPT_FUZZ_PCH_DIR"))
    FO.PrefixHeaderDir = Dir;
  H.Frontend = std::make_unique<CudaFrontend>(FO);
  std::vector<std::string> Texts = {"default"};
  for (const PassSpec &S : builtinPasses().passes())
    Texts.push_back(S.Name.str());
  for (const std::string &T : Texts) {
    llvm::Expected<Pipeline> P = parsePipeline(T, builtinPasses());
    if (!P)
      fail("pipeline '" + T + "': " + llvm::toString(P.takeError()));
    H.Pipelines.push_back(std::move(*P));
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size < 1)
    return 0;
  Harness &H = harness();
  const Pipeline &P = H.Pipelines[Data[0] % H.Pipelines.size()];
  std::string Code(reinterpret_cast<const char *>(Data + 1), Size - 1);
  PassManagerOptions Options;
  Options.Reuse = &H.Parsed;
  llvm::Expected<OptimizeResult> R =
      runPipeline(*H.Frontend, "/fuzz/input.cu", Code, P, Options);
  if (!R) {
    // The input does not parse: reported as an error, as kopt-opt does.
    // The pass manager emptied the reused source: the next input parses
    // afresh (with the precompiled prefix).
    llvm::consumeError(R.takeError());
    return 0;
  }
  bool Edited = false;
  for (const PassRun &Run : R->Runs)
    Edited |= Run.Edits > 0;
  if (!Edited && R->Code != Code)
    fail("no pass kept an edit, yet the output differs from the input");
  // The reused source holds the pipeline's output: parse it once more.
  if (R->Code != Code)
    if (llvm::Error E = H.Frontend->reparse(H.Parsed, R->Code))
      fail("the output of '" + P.str() +
           "' does not parse: " + llvm::toString(std::move(E)));
  return 0;
}
