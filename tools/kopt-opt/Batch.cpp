//===- Batch.cpp - Many pipelines in one kopt-opt process -----------------===//
#include "Batch.h"

#include "Output.h"

#include "kopt/Passes/BuiltinPasses.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace llvm;

namespace kopt {

namespace {
struct Job {
  std::string Input, Output, Passes, Remarks;
};

std::optional<Job> readJob(StringRef Line, std::string &Why) {
  Expected<json::Value> V = json::parse(Line);
  if (!V) {
    Why = toString(V.takeError());
    return std::nullopt;
  }
  const json::Object *O = V->getAsObject();
  Job J;
  auto Field = [&](StringRef Key, std::string &Into, bool Required) {
    std::optional<StringRef> S = O ? O->getString(Key) : std::nullopt;
    if (S)
      Into = S->str();
    return S || !Required;
  };
  if (!O || !Field("input", J.Input, true) ||
      !Field("output", J.Output, true) || !Field("passes", J.Passes, true) ||
      !Field("remarks", J.Remarks, false)) {
    Why = "a job is an object with strings 'input', 'output', 'passes' and "
          "optionally 'remarks'";
    return std::nullopt;
  }
  return J;
}

/// Runs one job; empty, or why it failed.
std::string runJob(const Job &J, const CudaFrontend &Frontend,
                   const PassManagerOptions &Options) {
  Expected<Pipeline> P = parsePipeline(J.Passes, builtinPasses());
  if (!P)
    return "invalid pipeline '" + J.Passes + "': " + toString(P.takeError());
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
      MemoryBuffer::getFile(J.Input, /*IsText=*/true);
  if (!Buffer)
    return "cannot read '" + J.Input + "': " + Buffer.getError().message();
  SmallString<256> Path(J.Input);
  sys::fs::make_absolute(Path);
  Expected<OptimizeResult> Result =
      runPipeline(Frontend, Path, (*Buffer)->getBuffer(), *P, Options);
  if (!Result)
    return "'" + J.Input +
           "' does not parse as CUDA: " + toString(Result.takeError());
  if (Result->InputKernels == 0)
    return "'" + J.Input + "' defines no CUDA kernel (__global__ function)";
  if (!J.Remarks.empty())
    if (Error E =
            writeOutput(J.Remarks, remarksDocument(Path, *P, Result->Remarks)))
      return toString(std::move(E));
  if (Error E = writeOutput(J.Output, Result->Code))
    return toString(std::move(E));
  return "";
}
} // namespace

int runBatch(StringRef File, const CudaFrontend &Frontend,
             PassManagerOptions Options) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
      MemoryBuffer::getFileOrSTDIN(File, /*IsText=*/true);
  if (!Buffer) {
    WithColor::error(errs(), "kopt-opt")
        << "cannot read the batch '" << File
        << "': " << Buffer.getError().message() << "\n";
    return 1;
  }
  std::vector<Job> Jobs;
  SmallVector<StringRef> Lines;
  (*Buffer)->getBuffer().split(Lines, '\n'); // keeps empty lines: line numbers
  for (auto [I, Line] : enumerate(Lines)) {
    if (Line.trim().empty())
      continue;
    std::string Why;
    std::optional<Job> J = readJob(Line, Why);
    if (!J) {
      WithColor::error(errs(), "kopt-opt")
          << File << ":" << I + 1 << ": not a job: " << Why << "\n";
      return 1;
    }
    Jobs.push_back(std::move(*J));
  }
  ParsedSource Reused;
  Options.Reuse = &Reused;
  for (auto [I, J] : enumerate(Jobs)) {
    std::string Error = runJob(J, Frontend, Options);
    json::Object Line{{"job", int64_t(I)}, {"ok", Error.empty()}};
    if (!Error.empty())
      Line["error"] = Error;
    outs() << json::Value(std::move(Line)) << "\n";
    outs().flush();
  }
  return 0;
}

} // namespace kopt
