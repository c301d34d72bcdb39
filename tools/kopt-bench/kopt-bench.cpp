//===- kopt-bench.cpp - The on-device evaluator's command line ------------===//
//
//   kopt-bench validate PROBLEM
//   kopt-bench check PROBLEM --candidate FILE...
//   kopt-bench run PROBLEM [--candidate FILE]... [--json OUT] [--devices 0,1]
//
// Exit codes: 0 every evaluated candidate is ok; 1 some candidate is not;
// 2 a usage, spec or environment error. The hidden modes __probe,
// __evaluate and __capture are the child processes `run` starts.
//
//===----------------------------------------------------------------------===//
#include "kopt/Eval/Evaluator.h"
#include "kopt/Eval/Process.h"
#include "kopt/Eval/Report.h"
#include "kopt/Spec/ProblemParser.h"
#include "kopt/Spec/ProblemValidator.h"
#include "kopt/Support/StatusLine.h"

#ifdef KOPT_EVAL_HAS_CUDA
#include "kopt/Eval/DeviceProbe.h"
#include "kopt/Eval/WorkerJob.h"
#endif

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace kopt;

namespace {

constexpr int ExitOk = 0, ExitCandidateFailed = 1, ExitUsage = 2;

const char *HelpText =
    R"(kopt-bench: compile, check and time CUDA kernel candidates against a
problem's reference, each evaluation in its own process.

USAGE
  kopt-bench validate PROBLEM
  kopt-bench check PROBLEM --candidate FILE [--candidate FILE]... [options]
  kopt-bench run PROBLEM [--candidate FILE]... [options]
  kopt-bench selftest

PROBLEM is a directory holding problem.json, or the path of a problem.json
(schema: docs/problem-spec.md).

COMMANDS
  validate   Check problem.json's schema and that the entry's parameters in
             the source match its args. Needs no compiler and no GPU.
  check      Compile each candidate with exactly the flags used for timing
             and apply the static rules (vendor-library, timer-read,
             device-printf, entry-signature, baseline-interference,
             process-control). Needs nvcc, no GPU.
  run        Compile, check, then in one child process per candidate: run
             the candidate before and after the reference on every shape x
             seed with poisoned outputs and guarded buffers, and time it
             against the reference (interleaved, L2 flushed between runs).
             Without --candidate, the problem's own source is evaluated.
  selftest   On GPU 0: check that the inputs generated on the GPU are the
             host generator's bytes and that the GPU's output comparison
             and byte checks reach the host's verdicts (run it once on a
             new GPU, driver or toolkit).

OPTIONS
  --candidate FILE   A candidate source (repeatable).
  --json OUT         Write the records as JSON to OUT ("-" for stdout).
  --devices LIST     GPUs to use, e.g. 0,1: one worker per GPU in parallel
                     (run; default 0).
  --timeout S        Wall-clock limit per evaluation in seconds (run;
                     default: the problem's timeout_s, else 60).
  --arch SM          Target for check (default sm_90a); run uses each
                     device's own arch.
  --seed N           Base seed for the random inputs, shared by every
                     candidate of the run (default: random once per run,
                     recorded in each record).
  --graph            Time CUDA-graph replays of the entry (for microsecond
                     kernels); falls back to direct calls if capture fails.
  --warmup-ms MS     Warm-up time before timing (default 25).
  --repeat-ms MS     Most measured time per kernel (default 400).
  --min-runs N       Fewest timed runs per kernel (default 20).
  --max-runs N       Most timed runs per kernel (default 2000).
  --ci-target F      Stop timing once the speedup's 95% interval lies
                     within +-F of it (default 0.01, i.e. +-1%); 0 times
                     the whole --repeat-ms budget.
  --no-timing        Check correctness only.
  --contain          Run the candidate's host code only in a confined
                     capture process (seccomp; Landlock where the kernel
                     has it), which records the GPU work its entry puts on
                     the given stream as a CUDA graph; the judge loads only
                     the candidate's device code and replays that graph, so
                     host code cannot reach the clock, the reference or the
                     verdict. The entry must take a cudaStream_t and its
                     work must be capturable (no synchronization, no host
                     callbacks); the reference cache is off. See
                     docs/evaluator.md, "Containment".
  --profile          After an ok evaluation, run the candidate's entry once
                     more on the benchmark shape under Nsight Compute (ncu
                     beside nvcc, on PATH or $KOPT_NCU) and record a few
                     metrics per kernel under "profile" (time, SM and DRAM
                     throughput, achieved occupancy, L1 and L2 hit rates,
                     registers); without ncu or its counters, the reason.
  --work-dir DIR     Keep shims, libraries, logs and job files in DIR.
  --keep-work-dir    Keep the temporary work directory and print its path.
  --cache-dir DIR    Where the per-device copy bandwidth and compiled
                     libraries are cached (default $KOPT_CACHE_DIR,
                     $XDG_CACHE_HOME/kopt or ~/.cache/kopt). Compiled
                     libraries are keyed by the preprocessed source, flags,
                     arch and toolchain; at most $KOPT_COMPILE_CACHE_MAX_MB
                     (default 4096) MB are kept.
  --no-compile-cache Compile every source, neither reading nor writing the
                     compile cache.
  --reference-cache MODE
                     The reference's outputs for the run's seeds, computed
                     once in a child that loads no candidate and kept under
                     the cache directory: auto (default; kept where
                     recomputing costs more than reading back), always, or
                     off (every child runs the reference itself).
  -h, --help         Show this help.
  --version          Show the version.

With more than one candidate, stderr shows progress: each compile and each
evaluation as it ends (one line redrawn on a terminal, a line each
otherwise). The records and the table are on stdout (and --json).

EXIT CODES
  0  every evaluated candidate is ok
  1  some candidate is not ok (compile-error, rejected, wrong-result,
     runtime-error or timeout)
  2  usage error, invalid problem, failing reference, or no nvcc/GPU

STATUSES
  ok, compile-error, rejected (with the rule), wrong-result (with where),
  runtime-error, timeout
)";

void onSignal(int Signal) {
  eval::killAllChildren();
  _exit(128 + Signal);
}

struct CommandLine {
  std::string Command, Problem, Json;
  eval::EvaluatorOptions Options;
};

int usage(const std::string &Message) {
  std::cerr << "kopt-bench: error: " << Message
            << "\nRun 'kopt-bench --help' for usage.\n";
  return ExitUsage;
}

bool parseNumber(const std::string &Text, double &Out) {
  char *End = nullptr;
  Out = std::strtod(Text.c_str(), &End);
  return !Text.empty() && End && *End == '\0';
}

bool parseDevices(const std::string &Text, std::vector<int> &Out) {
  Out.clear();
  std::stringstream In(Text);
  std::string Item;
  while (std::getline(In, Item, ',')) {
    double V;
    if (!parseNumber(Item, V) || V < 0 || V != (int)V)
      return false;
    for (int Existing : Out)
      if (Existing == (int)V)
        return false;
    Out.push_back((int)V);
  }
  return !Out.empty();
}

/// Returns an exit code when parsing ends the program, -1 otherwise.
int parseArguments(int Argc, char **Argv, CommandLine &CL) {
  std::vector<std::string> Args(Argv + 1, Argv + Argc);
  for (std::size_t I = 0; I < Args.size(); ++I) {
    const std::string &A = Args[I];
    auto Value = [&](std::string &Out) {
      if (I + 1 >= Args.size())
        return false;
      Out = Args[++I];
      return true;
    };
    auto NumberOption = [&](double &Out, double Min) {
      std::string Text;
      if (!Value(Text))
        return usage(A + " needs a value");
      if (!parseNumber(Text, Out) || Out < Min)
        return usage(A + ": '" + Text + "' is not a valid number");
      return -1;
    };
    double Number = 0;
    if (A == "-h" || A == "--help") {
      std::cout << HelpText;
      return ExitOk;
    }
    if (A == "--version") {
      std::cout << "kopt-bench 0.1.0\n";
      return ExitOk;
    }
    if (A == "--candidate") {
      std::string Path;
      if (!Value(Path))
        return usage("--candidate needs a file");
      CL.Options.Candidates.push_back(Path);
    } else if (A == "--json") {
      if (!Value(CL.Json))
        return usage("--json needs a file");
    } else if (A == "--devices") {
      std::string Text;
      if (!Value(Text) || !parseDevices(Text, CL.Options.Devices))
        return usage("--devices needs a list of distinct device numbers "
                     "such as 0,1");
    } else if (A == "--timeout") {
      if (int R = NumberOption(Number, 0.001); R >= 0)
        return R;
      CL.Options.TimeoutSeconds = Number;
    } else if (A == "--arch") {
      if (!Value(CL.Options.Arch) || CL.Options.Arch.rfind("sm_", 0) != 0)
        return usage("--arch needs a target such as sm_90a");
    } else if (A == "--seed") {
      if (int R = NumberOption(Number, 0); R >= 0)
        return R;
      CL.Options.Seed = static_cast<std::uint64_t>(Number);
    } else if (A == "--graph") {
      CL.Options.Timing.Graph = true;
    } else if (A == "--warmup-ms") {
      if (int R = NumberOption(CL.Options.Timing.WarmupMs, 0); R >= 0)
        return R;
    } else if (A == "--repeat-ms") {
      if (int R = NumberOption(CL.Options.Timing.RepeatMs, 0); R >= 0)
        return R;
    } else if (A == "--min-runs") {
      if (int R = NumberOption(Number, 2); R >= 0)
        return R;
      CL.Options.Timing.MinRuns = static_cast<int>(Number);
    } else if (A == "--max-runs") {
      if (int R = NumberOption(Number, 2); R >= 0)
        return R;
      CL.Options.Timing.MaxRuns = static_cast<int>(Number);
    } else if (A == "--ci-target") {
      if (int R = NumberOption(CL.Options.Timing.TargetCi, 0); R >= 0)
        return R;
      if (CL.Options.Timing.TargetCi >= 1)
        return usage("--ci-target: a fraction below 1 is expected, such as "
                     "0.01");
    } else if (A == "--reference-cache") {
      std::string Mode;
      if (!Value(Mode) || (Mode != "auto" && Mode != "always" && Mode != "off"))
        return usage("--reference-cache needs auto, always or off");
      CL.Options.ReferenceCache = Mode;
    } else if (A == "--no-timing") {
      CL.Options.Timing.Skip = true;
    } else if (A == "--contain") {
      CL.Options.Contain = true;
    } else if (A == "--profile") {
      CL.Options.Profile = true;
    } else if (A == "--work-dir") {
      if (!Value(CL.Options.WorkDir))
        return usage("--work-dir needs a directory");
    } else if (A == "--keep-work-dir") {
      CL.Options.KeepWorkDir = true;
    } else if (A == "--cache-dir") {
      if (!Value(CL.Options.CacheDir))
        return usage("--cache-dir needs a directory");
    } else if (A == "--no-compile-cache") {
      CL.Options.CompileCache = false;
    } else if (!A.empty() && A[0] == '-') {
      return usage("unknown option '" + A + "'");
    } else if (CL.Command.empty()) {
      CL.Command = A;
    } else if (CL.Problem.empty()) {
      CL.Problem = A;
    } else {
      return usage("unexpected argument '" + A + "'");
    }
  }
  if (CL.Command.empty())
    return usage("no command given (validate, check, run or selftest)");
  if (CL.Command != "validate" && CL.Command != "check" && CL.Command != "run")
    return usage("unknown command '" + CL.Command +
                 "' (known: validate, check, run, selftest)");
  if (CL.Problem.empty())
    return usage(CL.Command + " needs a PROBLEM (a directory with "
                              "problem.json, or its path)");
  if (CL.Command == "check" && CL.Options.Candidates.empty())
    return usage("check needs at least one --candidate FILE");
  if (CL.Options.Timing.MinRuns > CL.Options.Timing.MaxRuns)
    return usage("--min-runs is above --max-runs");
  return -1;
}

int runHiddenMode(int Argc, char **Argv) {
  std::string Mode = Argv[1];
#ifdef KOPT_EVAL_HAS_CUDA
  if (Mode == "__probe" && Argc == 5)
    return eval::runProbeWorker(Argv[2], Argv[3], std::atoi(Argv[4]));
  if (Mode == "__evaluate" && Argc == 3)
    return eval::runEvaluationWorker(Argv[2]);
  if (Mode == "__capture" && Argc == 3)
    return eval::runCaptureWorker(Argv[2]);
  std::cerr << "kopt-bench: bad internal invocation of " << Mode << "\n";
#else
  (void)Argc;
  std::cerr << "kopt-bench: " << Mode
            << ": this build has no CUDA runtime (CUDAToolkit was not found "
               "at configure time)\n";
#endif
  return ExitUsage;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc >= 2 && std::string(Argv[1]).rfind("__", 0) == 0)
    return runHiddenMode(Argc, Argv);
  if (Argc >= 2 && std::string(Argv[1]) == "selftest") {
    if (Argc > 2)
      return usage("selftest takes no arguments");
#ifdef KOPT_EVAL_HAS_CUDA
    return eval::runDataSelfTest();
#else
    std::cerr << "kopt-bench: selftest: this build has no CUDA runtime\n";
    return ExitUsage;
#endif
  }

  CommandLine CL;
  if (int Code = parseArguments(Argc, Argv, CL); Code >= 0)
    return Code;

  auto Loaded = spec::loadProblemFile(CL.Problem);
  if (!Loaded.ok()) {
    std::string Where = CL.Problem;
    if (std::filesystem::is_directory(CL.Problem))
      Where = (std::filesystem::path(CL.Problem) / "problem.json").string();
    for (const std::string &E : Loaded.Errors)
      std::cerr << Where << ": error: " << E << "\n";
    return ExitUsage;
  }
  spec::Problem &P = *Loaded.Value;
  std::vector<std::string> SourceErrors = spec::validateProblemSources(P);
  for (const std::string &E : SourceErrors)
    std::cerr << P.SpecPath.string() << ": error: " << E << "\n";
  if (!SourceErrors.empty())
    return ExitUsage;

  if (CL.Command == "validate") {
    std::cout << P.SpecPath.string() << ": ok: problem '" << P.Name << "', "
              << P.Args.size() << " args, " << P.Shapes.size()
              << " shapes, entry '" << P.Entry << "' "
              << (P.hasStreamArg() ? "on the given stream"
                                   : "on the default stream (no stream "
                                     "parameter)")
              << "\n";
    return ExitOk;
  }

  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  CL.Options.OnDevice = CL.Command == "run";
  if (CL.Command == "check")
    CL.Options.Timing.Skip = true;
  // Progress for more than one candidate, on stderr: a live line on a
  // terminal, a line per compile and evaluation otherwise.
  StatusLine Progress(stderr);
  if (CL.Options.Candidates.size() > 1)
    CL.Options.OnProgress = [&](const char *Stage, std::size_t Done,
                                std::size_t Total, const std::string &Name,
                                const std::string &Status) {
      std::string Text =
          "kopt-bench: " + std::string(Stage) + " " + std::to_string(Done) +
          "/" + std::to_string(Total) + ": " +
          std::filesystem::path(Name).filename().string() + " " + Status;
      Progress.show(Text, Text);
    };
  eval::EvaluationOutcome Outcome = eval::evaluateCandidates(P, CL.Options);
  Progress.finish();

  std::string Command;
  for (int I = 0; I < Argc; ++I)
    Command += (I ? " " : "") + std::string(Argv[I]);
  if (!CL.Json.empty()) {
    std::string Text = eval::reportDocument(P, Outcome, Command).dump(2) + "\n";
    if (CL.Json == "-") {
      std::cout << Text;
    } else {
      std::ofstream Out(CL.Json);
      Out << Text;
      if (!Out) {
        std::cerr << "kopt-bench: error: cannot write " << CL.Json << "\n";
        return ExitUsage;
      }
    }
  }
  if (CL.Json != "-")
    eval::printTable(Outcome, std::cout);
  if (CL.Options.KeepWorkDir)
    std::cerr << "kopt-bench: work directory kept at " << Outcome.WorkDir
              << "\n";
  for (const std::string &E : Outcome.ProblemErrors)
    std::cerr << "kopt-bench: error: " << E << "\n";
  if (!Outcome.ProblemErrors.empty())
    return ExitUsage;
  for (const auto &Record : Outcome.Records)
    if (eval::recordStatus(Record) != eval::Status::Ok)
      return ExitCandidateFailed;
  return ExitOk;
}
