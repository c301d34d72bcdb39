//===- SearchCommandLine.cpp - kopt-search's arguments --------------------===//
#include "SearchCommandLine.h"

#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>

namespace kopt::search {

const char *HelpText =
    R"(kopt-search: search kopt's passes and their parameters for the fastest
correct version of a problem's kernel, measured on the GPU by kopt-bench's
rules, with every candidate stored in SQLite.

USAGE
  kopt-search PROBLEM... [options]
  kopt-search show STORE [PROBLEM]
  kopt-search export STORE --json OUT

PROBLEM is a problem directory (docs/problem-spec.md), the path of its
problem.json, or a directory of problem directories (each searched in turn).

SEARCH OPTIONS
  --out DIR              Outputs (default kopt-search-out): best.cu,
                         recipe.txt, best.test, report.json, report.html; in
                         DIR/NAME/ for each problem when there are several.
  --store FILE           The SQLite store (default DIR/search.sqlite). Run the
                         same command again to resume a stopped search.
  --devices LIST         GPUs, e.g. 0,1: one evaluation worker each (default 0).
  --strategy S           beam (default), exhaustive, random or model (beam's
                         parents; only the children whose move a model of
                         the moves measured so far expects to gain 3%,
                         within one standard deviation; docs/search.md).
  --beam-width W         Parents per round for beam, random and model
                         (default 4).
  --depth D              Edits from a root at most (default 3).
  --budget-candidates N  Stop after N evaluations (stored ones count).
  --budget-gpu-s S       Stop after S seconds of evaluation.
  --budget-wall-s S      Stop after S seconds of this run.
  --proposers LIST       Candidate sources: passes (default) and llm, e.g.
                         passes,llm.
  --seed N               Seed of the random strategy (default 1).
  --dry-run              Make, de-duplicate, compile and store the roots and
                         their children, then print the plan; no GPU. With
                         --budget-candidates N it stops once N are
                         validated, where a run with that budget would.
  --simulate MODEL       Replace the GPU: cost (a fixed function of the
                         source) or replay=STORE (timings an earlier search
                         recorded); options after commas: delay-ms=N,
                         compile=off.
  --kopt-opt PATH        kopt-opt to make candidates with (default: beside
                         kopt-search, then PATH).
  --kopt-bench PATH      kopt-bench to run evaluations (default: beside
                         kopt-search, then PATH).
  --arch SM              Target for validation compiles (default sm_90a).
  --timeout S            Wall-clock limit per evaluation (default: the
                         problem's timeout_s).
  --contain, --no-contain
                         Evaluate with kopt-bench's containment (run
                         --contain) or without: each candidate's host code
                         runs only in a confined capture process and the
                         judge replays its captured GPU work. Default: on
                         when --proposers has llm (an LLM's code is not
                         trusted), off otherwise. The entry must take a
                         stream and its work must be capturable.
  --jobs N               kopt-opt processes side by side (default: cores).
  --keep-work            Keep DIR/work (candidate sources and remarks).
  --make-memo DIR        Where made candidates are kept (by kopt-opt, nvcc,
                         the environment, the recipe and the source) for
                         this and later searches; default: made/ in the
                         cache directory ($KOPT_CACHE_DIR, else
                         $XDG_CACHE_HOME/kopt or ~/.cache/kopt), at most
                         $KOPT_MAKE_MEMO_MAX_MB (512) MB. "run":
                         DIR/work/made, this run's alone.
  --no-overlap           Make and compile the next candidates only when no
                         evaluation is under way (by default the device
                         evaluates a batch while they are made; the same
                         candidates are made and evaluated either way).
  --look-ahead           Make the likeliest next round's children while
                         the device evaluates (the search takes the same
                         steps either way; off by default: it has not made
                         a 90-s search on an H100 faster yet).

CLUSTER (docs/slurm.md)
  --executor E           local (default: workers on --devices) or slurm:
                         each batch of evaluations is a Slurm job array, one
                         task per candidate; --out must be on a file system
                         the nodes share. With --simulate the tasks run the
                         model instead of a GPU.
  --partition P          sbatch --partition.
  --gres G               sbatch --gres per task (default gpu:1; "" for none).
  --max-jobs N           Tasks in flight at once (default 8).
  --sbatch-arg ARG       One more sbatch argument (repeatable), e.g.
                         --sbatch-arg=--time=00:10:00.
  --slurm-retries N      Resubmissions of a task that ended without a
                         verdict (preempted, cancelled, timed out, node
                         failure) before it is recorded as slurm-STATE (2).
  --slurm-poll-s S       Seconds between squeue polls (5).

LLM PROPOSER (--proposers ...,llm; docs/llm.md)
  --llm-provider P       openai (default; also vLLM, llama.cpp's server and
                         other OpenAI-compatible servers) or anthropic.
  --llm-model M          The model (needed unless replaying).
  --llm-base-url URL     The API's base URL (default $KOPT_LLM_BASE_URL, else
                         the provider's). The key is read only from
                         OPENAI_API_KEY / ANTHROPIC_API_KEY and never written.
  --llm-budget-tokens N  Stop proposing once N tokens are spent.
  --llm-proposals N      Requests per parent candidate (1).
  --llm-fix-rounds N     Repairs of a proposal that does not compile (2).
  --llm-max-tokens N     Most tokens a reply may have (8192).
  --llm-timeout S        Seconds per request (300).
  --llm-max-retries N    Retries of a request after 429, 5xx or a transport
                         failure, with backoff and Retry-After (4).
  --llm-replay STORE     Serve the replies recorded in STORE, in order, with
                         no network: the same candidates again.
  --llm-prompt FILE      The proposal's template ({{source}}, {{problem}},
                         {{kernel_info}}, {{missed_remarks}}, {{resources}},
                         {{measurement}}, {{profile}}, {{history}},
                         {{lessons}}).
  --llm-repair-prompt FILE  The repair's template ({{compile_error}} too).
  --llm-system FILE      The system message.
  --llm-no-profile       Leave Nsight Compute's metrics of each parent out of
                         the prompt (by default one more run under ncu per
                         parent, where ncu is; kopt-bench run --profile).
  --llm-print-template   Print the built-in templates and exit.

OTHER
  --json OUT             export: where the JSON goes ("-" for stdout).
  -h, --help             Show this help.
  --version              Show the version.

EXIT CODES
  0  the search ended (by a budget, or with the space within --depth
     explored) and its outputs are written
  1  the problem is at fault: its reference fails, or no candidate is ok
  2  usage error, unreadable problem, a store that is not a kopt-search
     store, an unwritable --out or store
  130  interrupted (SIGINT): the running evaluation finished (with
     --executor slurm: its tasks were cancelled), the outputs are written;
     run the same command again to resume (a killed search's Slurm tasks
     that still run are adopted, not submitted again)
)";

int usageError(const std::string &Message) {
  std::cerr << "kopt-search: error: " << Message
            << "\nRun 'kopt-search --help' for usage.\n";
  return 2;
}

namespace {

bool parseNumber(const std::string &Text, double &Out) {
  char *End = nullptr;
  Out = std::strtod(Text.c_str(), &End);
  return !Text.empty() && End && *End == '\0';
}

bool parseList(const std::string &Text, std::vector<std::string> &Out) {
  Out.clear();
  std::stringstream In(Text);
  for (std::string Item; std::getline(In, Item, ',');) {
    if (Item.empty())
      return false;
    Out.push_back(Item);
  }
  return !Out.empty();
}

/// The options that take one string, and where it goes.
const std::map<std::string, std::string CommandLine::*> StringOptions = {
    {"--out", &CommandLine::Out},
    {"--store", &CommandLine::Store},
    {"--json", &CommandLine::Json},
    {"--strategy", &CommandLine::Strategy},
    {"--simulate", &CommandLine::Simulate},
    {"--kopt-opt", &CommandLine::KoptOptPath},
    {"--kopt-bench", &CommandLine::KoptBenchPath},
    {"--make-memo", &CommandLine::MakeMemo},
    {"--arch", &CommandLine::Arch},
    {"--llm-provider", &CommandLine::LLMProvider},
    {"--llm-model", &CommandLine::LLMModel},
    {"--llm-base-url", &CommandLine::LLMBaseUrl},
    {"--llm-replay", &CommandLine::LLMReplay},
    {"--llm-prompt", &CommandLine::LLMPrompt},
    {"--llm-repair-prompt", &CommandLine::LLMRepairPrompt},
    {"--llm-system", &CommandLine::LLMSystem},
    {"--executor", &CommandLine::Executor},
    {"--partition", &CommandLine::Partition},
    {"--gres", &CommandLine::Gres},
};

} // namespace

int parseCommandLine(const std::vector<std::string> &Args, CommandLine &CL) {
  for (std::size_t I = 0; I < Args.size(); ++I) {
    const std::string &A = Args[I];
    std::string Text;
    auto Value = [&]() {
      if (I + 1 >= Args.size())
        return false;
      Text = Args[++I];
      return true;
    };
    // A number above \p Min (or at it when \p Inclusive).
    auto Number = [&](double &Out, double Min, bool Inclusive) {
      if (!Value())
        return usageError(A + " needs a value");
      if (!parseNumber(Text, Out) || Out < Min || (!Inclusive && Out == Min))
        return usageError(A + ": '" + Text + "' is not a number " +
                          (Inclusive ? "at least " : "above ") +
                          std::to_string((long)Min));
      return -1;
    };
    double N = 0;
    int R = -1;
    if (A == "-h" || A == "--help") {
      std::cout << HelpText;
      return 0;
    }
    if (A == "--version") {
      std::cout << "kopt-search " KOPT_VERSION "\n";
      return 0;
    }
    if (auto It = StringOptions.find(A); It != StringOptions.end()) {
      if (!Value())
        return usageError(A + " needs a value");
      CL.*It->second = Text;
      CL.OutGiven |= A == "--out";
    } else if (A == "--devices") {
      std::vector<std::string> Items;
      if (!Value() || !parseList(Text, Items))
        return usageError("--devices needs a list such as 0,1");
      CL.Devices.clear();
      for (const std::string &Item : Items) {
        if (!parseNumber(Item, N) || N < 0 || N != (int)N)
          return usageError("--devices: '" + Item + "' is not a device number");
        CL.Devices.push_back((int)N);
      }
    } else if (A == "--beam-width" || A == "--depth" || A == "--jobs") {
      if ((R = Number(N, 1, true)) >= 0)
        return R;
      if (A == "--beam-width")
        CL.BeamWidth = (int)N;
      else if (A == "--depth")
        CL.Depth = (int)N;
      else
        CL.Jobs = (unsigned)N;
    } else if (A == "--budget-candidates") {
      if ((R = Number(N, 0, false)) >= 0)
        return R;
      CL.Limits.Candidates = (long)N;
    } else if (A == "--budget-gpu-s" || A == "--budget-wall-s") {
      if ((R = Number(N, 0, false)) >= 0)
        return R;
      (A == "--budget-gpu-s" ? CL.Limits.GpuSeconds : CL.Limits.WallSeconds) =
          N;
    } else if (A == "--timeout") {
      if ((R = Number(N, 0, false)) >= 0)
        return R;
      CL.TimeoutSeconds = N;
    } else if (A == "--seed") {
      if ((R = Number(N, 0, true)) >= 0)
        return R;
      CL.Seed = (std::uint64_t)N;
    } else if (A == "--proposers") {
      if (!Value() || !parseList(Text, CL.Proposers))
        return usageError("--proposers needs a list such as passes");
    } else if (A == "--llm-budget-tokens" || A == "--llm-max-tokens") {
      if ((R = Number(N, 1, true)) >= 0)
        return R;
      if (A == "--llm-budget-tokens")
        CL.LLMBudgetTokens = (std::uint64_t)N;
      else
        CL.LLMMaxTokens = (int)N;
    } else if (A == "--llm-fix-rounds" || A == "--llm-max-retries") {
      if ((R = Number(N, 0, true)) >= 0)
        return R;
      (A == "--llm-fix-rounds" ? CL.LLMFixRounds : CL.LLMMaxRetries) = (int)N;
    } else if (A == "--llm-proposals") {
      if ((R = Number(N, 1, true)) >= 0)
        return R;
      CL.LLMProposals = (int)N;
    } else if (A == "--llm-timeout") {
      if ((R = Number(N, 0, false)) >= 0)
        return R;
      CL.LLMTimeoutSeconds = N;
    } else if (A == "--max-jobs") {
      if ((R = Number(N, 1, true)) >= 0)
        return R;
      CL.MaxJobs = (int)N;
    } else if (A == "--slurm-retries") {
      if ((R = Number(N, 0, true)) >= 0)
        return R;
      CL.SlurmRetries = (int)N;
    } else if (A == "--slurm-poll-s") {
      if ((R = Number(N, 0, false)) >= 0)
        return R;
      CL.SlurmPollSeconds = N;
    } else if (A == "--sbatch-arg" || A.rfind("--sbatch-arg=", 0) == 0) {
      if (A == "--sbatch-arg" && !Value())
        return usageError("--sbatch-arg needs a value");
      CL.SbatchArgs.push_back(
          A == "--sbatch-arg" ? Text
                              : A.substr(std::string("--sbatch-arg=").size()));
    } else if (A == "--llm-no-profile") {
      CL.LLMProfile = false;
    } else if (A == "--llm-print-template") {
      CL.LLMPrintTemplate = true;
    } else if (A == "--dry-run") {
      CL.DryRun = true;
    } else if (A == "--keep-work") {
      CL.KeepWork = true;
    } else if (A == "--look-ahead") {
      CL.LookAhead = true;
    } else if (A == "--no-overlap") {
      CL.Overlap = false;
    } else if (A == "--contain" || A == "--no-contain") {
      CL.Contain = A == "--contain";
    } else if (!A.empty() && A[0] == '-') {
      return usageError("unknown option '" + A + "'");
    } else if (CL.Inputs.empty() && (A == "show" || A == "export") &&
               CL.Command == "search") {
      CL.Command = A;
    } else {
      CL.Inputs.push_back(A);
    }
  }
  if (CL.LLMPrintTemplate)
    return -1;
  if (CL.Inputs.empty())
    return usageError(CL.Command == "search" ? "no PROBLEM given"
                                             : CL.Command + " needs a STORE");
  if (CL.Command == "export" && (CL.Json.empty() || CL.Inputs.size() != 1))
    return usageError("export needs one STORE and --json OUT");
  if (CL.Command == "show" && CL.Inputs.size() > 2)
    return usageError("show takes a STORE and at most one PROBLEM name");
  if (CL.Strategy != "beam" && CL.Strategy != "exhaustive" &&
      CL.Strategy != "random" && CL.Strategy != "model")
    return usageError("unknown strategy '" + CL.Strategy +
                      "' (known: beam, exhaustive, random, model)");
  bool UsesLLM = false;
  for (const std::string &P : CL.Proposers) {
    if (P != "passes" && P != "llm")
      return usageError("unknown proposer '" + P + "' (known: passes, llm)");
    UsesLLM |= P == "llm";
  }
#ifndef KOPT_HAVE_LLM
  if (UsesLLM)
    return usageError("this kopt-search was built without libcurl "
                      "(libcurl4-openssl-dev): no llm proposer");
#endif
  if (!CL.Contain)
    CL.Contain = UsesLLM;
  if (UsesLLM && CL.LLMModel.empty() && CL.LLMReplay.empty())
    return usageError("the llm proposer needs --llm-model (or --llm-replay "
                      "STORE)");
  if (CL.DryRun && !CL.Simulate.empty())
    return usageError("--dry-run and --simulate exclude each other");
  if (CL.Executor != "local" && CL.Executor != "slurm")
    return usageError("unknown executor '" + CL.Executor +
                      "' (known: local, slurm)");
  return -1;
}

} // namespace kopt::search
