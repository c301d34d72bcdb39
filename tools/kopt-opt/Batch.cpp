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
  /// "resume": the first Steps steps already ran; Code holds their output
  /// and ResumeRemarks their remarks document.
  int64_t Steps = 0;
  std::string Code, ResumeRemarks;
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
          "optionally 'remarks' and 'resume'";
    return std::nullopt;
  }
  if (const json::Value *R = O->get("resume")) {
    const json::Object *RO = R->getAsObject();
    std::optional<int64_t> Steps = RO ? RO->getInteger("steps") : std::nullopt;
    std::optional<StringRef> Code = RO ? RO->getString("code") : std::nullopt;
    std::optional<StringRef> Remarks =
        RO ? RO->getString("remarks") : std::nullopt;
    if (!Steps || *Steps < 1 || !Code || !Remarks) {
      Why = "'resume' is an object with 'steps' (at least 1), and strings "
            "'code' and 'remarks'";
      return std::nullopt;
    }
    J.Steps = *Steps;
    J.Code = Code->str();
    J.ResumeRemarks = Remarks->str();
  }
  return J;
}

/// The remarks of a resumed job's first steps, from the document of a run
/// of exactly those steps on the same input; empty, or why not.
std::string readResumed(const Job &J, StringRef Path, const Pipeline &Head,
                        json::Array &Out) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Text =
      MemoryBuffer::getFile(J.ResumeRemarks, /*IsText=*/true);
  if (!Text)
    return "cannot read '" + J.ResumeRemarks +
           "': " + Text.getError().message();
  Expected<json::Value> Doc = json::parse((*Text)->getBuffer());
  if (!Doc)
    return "'" + J.ResumeRemarks + "': " + toString(Doc.takeError());
  const json::Object *O = Doc->getAsObject();
  if (!O || O->getString("file") != Path ||
      O->getString("pipeline") != Head.str() || !O->getArray("remarks"))
    return "'" + J.ResumeRemarks + "' is not the remarks of '" + Head.str() +
           "' on '" + Path.str() + "'";
  Out = *O->getArray("remarks");
  return "";
}

/// Runs one job; empty, or why it failed. A resumed job runs only the
/// steps after the first J.Steps, on their output (parsed as the input's
/// text, as the pipeline reparses it between steps), and writes what the
/// whole pipeline would: the earlier steps' remarks, then its own.
std::string runJob(const Job &J, const CudaFrontend &Frontend,
                   const PassManagerOptions &Options) {
  Expected<Pipeline> P = parsePipeline(J.Passes, builtinPasses());
  if (!P)
    return "invalid pipeline '" + J.Passes + "': " + toString(P.takeError());
  if (J.Steps > (int64_t)P->Passes.size())
    return "cannot resume '" + J.Passes + "' after " + std::to_string(J.Steps) +
           " steps";
  Pipeline Head, Tail;
  Head.Passes.assign(P->Passes.begin(), P->Passes.begin() + J.Steps);
  Tail.Passes.assign(P->Passes.begin() + J.Steps, P->Passes.end());
  StringRef From = J.Steps ? StringRef(J.Code) : StringRef(J.Input);
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
      MemoryBuffer::getFile(From, /*IsText=*/true);
  if (!Buffer)
    return "cannot read '" + From.str() + "': " + Buffer.getError().message();
  SmallString<256> Path(J.Input);
  sys::fs::make_absolute(Path);
  json::Array Before;
  if (J.Steps)
    if (std::string Why = readResumed(J, Path, Head, Before); !Why.empty())
      return Why;
  Expected<OptimizeResult> Result =
      runPipeline(Frontend, Path, (*Buffer)->getBuffer(), Tail, Options);
  if (!Result)
    return "'" + J.Input +
           "' does not parse as CUDA: " + toString(Result.takeError());
  if (Result->InputKernels == 0)
    return "'" + J.Input + "' defines no CUDA kernel (__global__ function)";
  for (Remark &R : Result->Remarks)
    R.Step += J.Steps;
  if (!J.Remarks.empty())
    if (Error E =
            writeOutput(J.Remarks, remarksDocument(Path, *P, Result->Remarks,
                                                   std::move(Before))))
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
