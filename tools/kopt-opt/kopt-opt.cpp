//===- kopt-opt.cpp - The kopt optimizer driver ---------------------------===//
//
// kopt-opt FILE.cu -passes=PIPELINE [-o OUT] [--diff] [-i] [-- clang flags]
// kopt-opt FILE.cu -O  (the pipeline of the nearest .kopt.yaml, else default)
// kopt-opt --batch JOBS  (many pipelines in one process: Batch.h)
//
// Exit codes: 0 success, 1 input error (unreadable, unparsable or non-CUDA
// input; unwritable output), 2 usage error (bad options or pipeline).
//
//===----------------------------------------------------------------------===//

#include "Batch.h"
#include "Output.h"

#include "kopt/Analysis/KernelInfo.h"
#include "kopt/Driver/NvccResourceEstimator.h"
#include "kopt/Eval/DeviceProbe.h"
#include "kopt/Frontend/CompileFlags.h"
#include "kopt/Frontend/CudaFrontend.h"
#include "kopt/Passes/BuiltinPasses.h"
#include "kopt/Pipeline/PassManager.h"
#include "kopt/Pipeline/Pipeline.h"
#include "kopt/Support/UnifiedDiff.h"
#include "kopt/Tidy/Config.h"

#include "llvm/Pass.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace kopt;

namespace {

enum ExitCode { Success = 0, InputError = 1, UsageError = 2 };

cl::OptionCategory Category("kopt-opt options");

cl::opt<std::string> InputFile(cl::Positional, cl::desc("<input .cu file>"),
                               cl::cat(Category));
cl::opt<std::string>
    Passes("passes",
           cl::desc("Pass pipeline, e.g. "
                    "'launch-bounds,vectorize-loads{width=4}'"),
           cl::value_desc("pipeline"), cl::cat(Category));
cl::opt<bool> OptDefault("O",
                         cl::desc("Run the Pipeline of the nearest .kopt.yaml "
                                  "above the input, else 'default'"),
                         cl::cat(Category));
cl::opt<std::string> OutputFile("o", cl::desc("Output file ('-' for stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(Category));
cl::opt<bool> PrintDiff("diff",
                        cl::desc("Print a unified diff instead of the source"),
                        cl::cat(Category));
cl::opt<bool> InPlace("i", cl::desc("Rewrite the input file in place"),
                      cl::cat(Category));
cl::opt<bool> NoBackup("no-backup",
                       cl::desc("With -i, keep no FILE.orig backup"),
                       cl::cat(Category));
cl::opt<std::string> GpuArch("arch",
                             cl::desc("GPU arch kernel bodies are parsed for"),
                             cl::value_desc("sm_XX"), cl::init(""),
                             cl::cat(Category));
cl::opt<std::string>
    BuildDir("p", cl::desc("Build directory with compile_commands.json"),
             cl::value_desc("dir"), cl::cat(Category));
cl::opt<std::string>
    CudaPath("cuda-path",
             cl::desc("CUDA installation (default: $CUDA_PATH, "
                      "then /usr/local/cuda)"),
             cl::value_desc("dir"), cl::cat(Category));
cl::opt<std::string> ResourceDir(
    "resource-dir",
    cl::desc("Clang resource directory (default: next to kopt-opt, then the "
             "one it was built with)"),
    cl::value_desc("dir"), cl::cat(Category));
cl::opt<std::string>
    Nvcc("nvcc",
         cl::desc("nvcc that passes ask about registers and spills "
                  "(default: $KOPT_NVCC, $CUDA_PATH/bin, PATH, "
                  "/usr/local/cuda/bin)"),
         cl::value_desc("path"), cl::cat(Category));
cl::opt<std::string>
    PrintPasses("print-passes",
                cl::desc("List the passes and their parameters (=json: as "
                         "JSON, with the values a search tries)"),
                cl::value_desc("json"), cl::ValueOptional, cl::cat(Category));
cl::opt<bool> PrintPipeline(
    "print-pipeline",
    cl::desc("Print the pipeline in its complete canonical form and exit"),
    cl::cat(Category));
cl::opt<std::string> RemarksApplied(
    "Rpass", cl::desc("Print applied remarks of passes matching the regex"),
    cl::value_desc("regex"), cl::cat(Category));
cl::opt<std::string>
    RemarksMissed("Rpass-missed",
                  cl::desc("Print missed remarks of passes matching the regex"),
                  cl::value_desc("regex"), cl::cat(Category));
cl::opt<std::string> RemarksFile("remarks",
                                 cl::desc("Write all remarks as JSON"),
                                 cl::value_desc("file.json"),
                                 cl::cat(Category));
cl::opt<std::string> DumpRolledBack(
    "dump-rolled-back",
    cl::desc("Write each rolled-back candidate to FILE.<pass>.cu (debugging)"),
    cl::value_desc("file"), cl::Hidden, cl::cat(Category));
cl::opt<bool> Probe(
    "probe",
    cl::desc("Run each pass of the pipeline alone on the input and apply "
             "none of their edits: --remarks and -Rpass say what each would "
             "do there (kopt-search asks this before making children); no "
             "output is written"),
    cl::cat(Category));
cl::opt<std::string> Batch(
    "batch",
    cl::desc("Run the jobs of FILE, one JSON object a line: {\"input\", "
             "\"output\", \"passes\", \"remarks\"?}; jobs on one input "
             "parse the CUDA headers once; one JSON line a job on stdout"),
    cl::value_desc("file"), cl::cat(Category));
cl::opt<bool> Analyze("analyze",
                      cl::desc("Print the kernel analysis as JSON and exit"),
                      cl::cat(Category));

int fail(int Code, const Twine &Message) {
  WithColor::error(errs(), "kopt-opt") << Message << "\n";
  return Code;
}

std::string passList() { return builtinPasses().describe(); }

/// Pipeline errors point at the offending token, like clang's caret.
int pipelineError(StringRef Text, Error E) {
  int Code = UsageError;
  handleAllErrors(
      std::move(E),
      [&](const PipelineError &PE) {
        fail(Code, "invalid pipeline: " + PE.Message + " at position " +
                       Twine(PE.Position));
        errs() << "  " << Text << "\n  " << std::string(PE.Position, ' ')
               << "^\n";
      },
      [&](const ErrorInfoBase &EI) { fail(Code, EI.message()); });
  return Code;
}

std::optional<Regex> compileRegex(StringRef Flag, StringRef Pattern,
                                  bool &Bad) {
  if (Pattern.empty())
    return std::nullopt;
  Regex R(Pattern);
  std::string Why;
  if (!R.isValid(Why)) {
    fail(UsageError, "invalid regex for -" + Flag + ": " + Why);
    Bad = true;
    return std::nullopt;
  }
  return R;
}

int reportInputError(Error E) {
  int Code = InputError;
  handleAllErrors(
      std::move(E),
      [&](const ParseError &PE) {
        fail(Code, "'" + InputFile + "' does not parse as CUDA (" +
                       (PE.Side == CudaSide::Device ? "device" : "host") +
                       " side):");
        for (const std::string &D : PE.Diagnostics)
          errs() << "  " << D << "\n";
      },
      [&](const ErrorInfoBase &EI) { fail(Code, EI.message()); });
  return Code;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  // Everything after `--` goes to Clang.
  std::vector<const char *> OwnArgs;
  std::vector<std::string> ClangArgs;
  bool AfterDashDash = false;
  for (int I = 0; I < argc; ++I) {
    if (AfterDashDash)
      ClangArgs.push_back(argv[I]);
    else if (I > 0 && StringRef(argv[I]) == "--")
      AfterDashDash = true;
    else
      OwnArgs.push_back(argv[I]);
  }
  cl::HideUnrelatedOptions(Category);
  // LLVM's -time-passes is registered by libLLVM; show it with ours.
  if (cl::Option *TP = cl::getRegisteredOptions().lookup("time-passes")) {
    TP->setHiddenFlag(cl::NotHidden);
    TP->addCategory(Category);
  }
  // extrahelp keeps a pointer to its text: the text must outlive it.
  static const std::string PassHelpText =
      "\n" + passList() +
      "\nExit codes: 0 success, 1 input error, 2 usage error.\n";
  static cl::extrahelp PassHelp(PassHelpText.c_str());
  std::string ErrorText;
  raw_string_ostream ErrorStream(ErrorText);
  if (!cl::ParseCommandLineOptions(
          OwnArgs.size(), OwnArgs.data(),
          "kopt: a compiler-style optimizer for CUDA "
          "kernels\n\n  kopt-opt FILE.cu "
          "-passes=PIPELINE [-o OUT] [-- clang flags]\n",
          &ErrorStream)) {
    errs() << ErrorText;
    return UsageError;
  }

  if (PrintPasses.getNumOccurrences()) {
    if (PrintPasses == "json")
      outs() << builtinPasses().describeJSON();
    else if (PrintPasses.empty())
      outs() << passList();
    else
      return fail(UsageError, "--print-passes takes no value or =json, not '" +
                                  PrintPasses + "'");
    return Success;
  }

  std::string PipelineText = Passes.getValue();
  if (OptDefault && Passes.getNumOccurrences())
    return fail(UsageError, "-O and -passes are mutually exclusive");
  if (OptDefault) {
    // -O is what the project's .kopt.yaml says (docs/kopt-tidy.md).
    Expected<TidyConfig> Config =
        findConfig(InputFile.empty() ? std::string(".") : InputFile.getValue());
    if (!Config)
      return fail(InputError, toString(Config.takeError()));
    PipelineText = Config->Pipeline.value_or("default");
  }
  Pipeline P;
  if (!PipelineText.empty() || Passes.getNumOccurrences()) {
    Expected<Pipeline> Parsed = parsePipeline(PipelineText, builtinPasses());
    if (!Parsed)
      return pipelineError(PipelineText, Parsed.takeError());
    P = std::move(*Parsed);
  }
  if (PrintPipeline) {
    outs() << P.str() << "\n";
    return Success;
  }

  if (Batch.getNumOccurrences() &&
      (!InputFile.empty() || !PipelineText.empty() || OptDefault || Probe ||
       Analyze || InPlace || PrintDiff || OutputFile.getNumOccurrences() ||
       !BuildDir.empty() || !RemarksFile.empty()))
    return fail(UsageError, "--batch takes its inputs, outputs, pipelines "
                            "and remarks from its file; it combines only "
                            "with --arch, --cuda-path, --resource-dir, "
                            "--nvcc and clang flags");
  if (InputFile.empty() && !Batch.getNumOccurrences())
    return fail(UsageError, "no input file (kopt-opt --help for usage)");
  if (Probe && (InPlace || PrintDiff || OutputFile.getNumOccurrences()))
    return fail(UsageError, "--probe writes no source: it cannot be combined "
                            "with -o, -i or --diff");
  if (InPlace && OutputFile.getNumOccurrences())
    return fail(UsageError, "-i and -o are mutually exclusive");
  if (NoBackup && !InPlace)
    return fail(UsageError, "--no-backup only applies with -i");
  bool BadRegex = false;
  RemarkFilter Filter;
  Filter.Applied = compileRegex("Rpass", RemarksApplied, BadRegex);
  Filter.Missed = compileRegex("Rpass-missed", RemarksMissed, BadRegex);
  if (BadRegex)
    return UsageError;

  SmallString<256> AbsolutePath(InputFile);
  sys::fs::make_absolute(AbsolutePath);
  FrontendOptions FO;
  if (!BuildDir.empty()) {
    Expected<TranslatedFlags> Flags = loadCompileFlags(BuildDir, AbsolutePath);
    if (!Flags)
      return fail(InputError, toString(Flags.takeError()));
    FO.ExtraArgs = Flags->ClangArgs;
    if (Flags->GpuArch)
      FO.GpuArch = *Flags->GpuArch;
  }
  if (!GpuArch.empty())
    FO.GpuArch = GpuArch;
  if (!StringRef(FO.GpuArch).starts_with("sm_"))
    return fail(UsageError, "--arch expects sm_XX, got '" + FO.GpuArch + "'");
  FO.CudaPath = CudaPath;
  FO.ResourceDir =
      resolveResourceDir(ResourceDir, argv[0], reinterpret_cast<void *>(&fail));
  if (!sys::fs::is_directory(FO.ResourceDir))
    return fail(InputError, "clang resource directory '" + FO.ResourceDir +
                                "' not found; pass --resource-dir");
  append_range(FO.ExtraArgs, ClangArgs);
  // The precompiled prefix lives in the cache directory kopt-bench uses. A
  // batch re-parses one input with many texts: the in-memory preamble alone
  // serves it better than one chained to the prefix.
  if (std::optional<std::string> Off = sys::Process::GetEnv("KOPT_PREFIX_PCH");
      !Batch.getNumOccurrences() && !(Off && (*Off == "off" || *Off == "0"))) {
    SmallString<256> Dir(eval::defaultCacheDir());
    sys::path::append(Dir, "pch");
    FO.PrefixHeaderDir = std::string(Dir);
  }
  CudaFrontend Frontend(FO);
  NvccResourceEstimator Estimator(Nvcc.getValue());
  PassManagerOptions PMOptions;
  PMOptions.Estimator = &Estimator;
  if (Batch.getNumOccurrences())
    return runBatch(Batch, Frontend, PMOptions);

  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
      MemoryBuffer::getFile(InputFile, /*IsText=*/true);
  if (!Buffer)
    return fail(InputError, "cannot read '" + InputFile +
                                "': " + Buffer.getError().message());
  StringRef Code = (*Buffer)->getBuffer();

  if (Analyze) {
    Expected<ParsedSource> Parsed = Frontend.parse(AbsolutePath, Code);
    if (!Parsed)
      return reportInputError(Parsed.takeError());
    ProgramInfo Info = analyzeProgram(*Parsed, FO.GpuArch);
    std::string JSON = formatv("{0:2}\n", toJSON(Info)).str();
    if (Error E = writeOutput(OutputFile, JSON))
      return fail(InputError, toString(std::move(E)));
    return Success;
  }

  PMOptions.Probe = Probe;
  if (!DumpRolledBack.empty())
    PMOptions.OnRollback = [](StringRef Pass, StringRef Candidate) {
      if (Error E =
              writeOutput(DumpRolledBack + "." + Pass.str() + ".cu", Candidate))
        fail(InputError, toString(std::move(E)));
    };
  Expected<OptimizeResult> Result =
      runPipeline(Frontend, AbsolutePath, Code, P, PMOptions);
  if (!Result)
    return reportInputError(Result.takeError());
  // A source without kernels parses, but there is nothing for kopt in it.
  if (Result->InputKernels == 0)
    return fail(InputError, "'" + InputFile +
                                "' defines no CUDA kernel (__global__ "
                                "function); is it a CUDA source?");

  for (const Remark &R : Result->Remarks)
    if (Filter.matches(R))
      printRemark(errs(), R);
  if (!RemarksFile.empty())
    if (Error E = writeOutput(
            RemarksFile, remarksDocument(AbsolutePath, P, Result->Remarks)))
      return fail(InputError, toString(std::move(E)));
  // -time-passes is LLVM's own option (libLLVM registers it); reuse it.
  if (TimePassesIsEnabled) {
    errs() << formatv("===-- kopt-opt pass timing --===\n{0,10:f4}s  parse + "
                      "analysis of the input\n",
                      Result->InitialParseSeconds);
    for (const PassRun &Run : Result->Runs)
      errs() << formatv("{0,10:f4}s  {1}{2}\n", Run.Seconds, Run.Pass,
                        Run.RolledBack ? " (rolled back)" : "");
  }

  if (Probe)
    return Success;
  // Relative paths get git's a/ b/ prefixes (patch -p1 applies the diff).
  std::string OldName = sys::path::is_absolute(InputFile)
                            ? InputFile.getValue()
                            : "a/" + InputFile.getValue();
  std::string NewName = sys::path::is_absolute(InputFile)
                            ? InputFile.getValue()
                            : "b/" + InputFile.getValue();
  if (InPlace) {
    if (Result->Code != Code) {
      if (!NoBackup) {
        if (Error E = writeOutput(InputFile + ".orig", Code))
          return fail(InputError,
                      "cannot write backup: " + toString(std::move(E)));
      }
      if (Error E = writeOutput(InputFile, Result->Code))
        return fail(InputError, toString(std::move(E)));
    }
    if (PrintDiff)
      outs() << unifiedDiff(Code, Result->Code, OldName, NewName);
    return Success;
  }
  std::string Out = PrintDiff
                        ? unifiedDiff(Code, Result->Code, OldName, NewName)
                        : Result->Code;
  if (Error E = writeOutput(OutputFile, Out))
    return fail(InputError, toString(std::move(E)));
  return Success;
}
