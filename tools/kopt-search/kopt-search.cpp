//===- kopt-search.cpp - The optimization loop's command line -------------===//
//
//   kopt-search PROBLEM... [options]     search, resumable from the store
//   kopt-search show STORE [PROBLEM]     best per problem, lineage, statuses
//   kopt-search export STORE --json OUT  everything stored, as JSON
//
//===----------------------------------------------------------------------===//
#include "SearchCommandLine.h"
#ifdef KOPT_HAVE_LLM
#include "LLMSetup.h"
#endif

#include "kopt/Eval/DeviceProbe.h"
#include "kopt/Eval/Process.h"
#include "kopt/Search/Executor.h"
#include "kopt/Search/KoptOpt.h"
#include "kopt/Search/Lessons.h"
#include "kopt/Search/Outputs.h"
#include "kopt/Search/Progress.h"
#include "kopt/Search/Proposer.h"
#include "kopt/Search/Recipe.h"
#include "kopt/Search/SearchSpace.h"
#include "kopt/Search/Slurm.h"
#include "kopt/Search/Store.h"
#include "kopt/Spec/DType.h"
#include "kopt/Spec/ProblemParser.h"
#include "kopt/Spec/ProblemValidator.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <unistd.h>

using namespace kopt;
using namespace kopt::search;
namespace fs = std::filesystem;

namespace {

constexpr int ExitOk = 0, ExitProblem = 1, ExitUsage = 2, ExitInterrupted = 130;

std::atomic<bool> Interrupted{false};

void onSignal(int Signal) {
  if (Signal == SIGINT && !Interrupted.exchange(true)) {
    const char Note[] = "\nkopt-search: interrupted: finishing the running "
                        "evaluation, then writing the outputs (again to stop "
                        "now)\n";
    (void)!write(2, Note, sizeof(Note) - 1);
    return;
  }
  eval::killAllChildren();
  cancelSlurmJobsFromSignal();
  _exit(128 + Signal);
}

/// A directory with problem.json, the path of one, or a directory of them.
std::vector<fs::path> problemPaths(const std::string &Input) {
  std::error_code EC;
  fs::path P(Input);
  if (fs::is_regular_file(P, EC) || fs::exists(P / "problem.json", EC))
    return {P};
  std::vector<fs::path> Out;
  if (fs::is_directory(P, EC))
    for (const auto &Entry : fs::directory_iterator(P, EC))
      if (fs::exists(Entry.path() / "problem.json", EC))
        Out.push_back(Entry.path());
  std::sort(Out.begin(), Out.end());
  if (Out.empty())
    Out.push_back(P); // loadProblemFile says what is wrong with it
  return Out;
}

/// Floating-point outputs checked with a tolerance admit passes that
/// change rounding; correctness then decides.
bool admitsRounding(const spec::Problem &P) {
  for (const spec::Arg &A : P.Args)
    if (A.isOutput() && spec::isFloating(A.Type)) {
      spec::Tolerance T = A.OwnTolerance.value_or(P.DefaultTolerance);
      if (T.Atol > 0 || T.Rtol > 0)
        return true;
    }
  return false;
}

std::string findTool(const std::string &Given, const std::string &Name) {
  if (!Given.empty())
    return fs::absolute(Given).string();
  std::string Self = eval::currentExecutable();
  std::error_code EC;
  fs::path Beside = fs::path(Self).parent_path() / Name;
  if (fs::exists(Beside, EC))
    return Beside.string();
  const char *Path = std::getenv("PATH");
  std::stringstream Dirs(Path ? Path : "");
  for (std::string Dir; std::getline(Dirs, Dir, ':');)
    if (!Dir.empty() && access((fs::path(Dir) / Name).c_str(), X_OK) == 0)
      return (fs::path(Dir) / Name).string();
  return "";
}

bool writableDirectory(const fs::path &Dir, std::string &Error) {
  std::error_code EC;
  fs::create_directories(Dir, EC);
  fs::path Probe = Dir / (".kopt-search-probe-" + std::to_string(getpid()));
  FILE *F = EC ? nullptr : std::fopen(Probe.c_str(), "w");
  if (!F) {
    Error = "cannot write to --out " + Dir.string() +
            (EC ? ": " + EC.message() : "");
    return false;
  }
  std::fclose(F);
  fs::remove(Probe, EC);
  return true;
}

void printPlan(const SearchResult &R) {
  std::printf("%-5s %-6s %-5s %-12s %s\n", "id", "parent", "depth", "status",
              "recipe / reason");
  for (const Candidate &C : R.Candidates) {
    std::string What = C.Recipe.empty() ? "(original source)" : C.Recipe;
    if (!C.Reason.empty())
      What += "  -- " + C.Reason.substr(0, C.Reason.find('\n'));
    std::printf("%-5lld %-6s %-5d %-12s %s\n", (long long)C.Id,
                C.ParentId ? std::to_string(C.ParentId).c_str() : "-", C.Depth,
                C.Status.c_str(), What.c_str());
  }
}

#ifndef KOPT_HAVE_LLM
struct LLMSetup {};
#endif

/// The LLM's part of a problem's search, from the store: requests, their
/// failures, tokens. Empty when the LLM was never asked.
nlohmann::json llmSummary(Store &S, std::int64_t Problem) {
  std::vector<LLMExchangeRow> All = S.exchanges(Problem);
  if (All.empty())
    return nullptr;
  long Failed = 0, Replayed = 0;
  std::uint64_t In = 0, Out = 0;
  for (const LLMExchangeRow &E : All) {
    Failed += !E.Error.empty();
    Replayed += E.Replayed;
    In += E.InputTokens;
    Out += E.OutputTokens;
  }
  return {{"exchanges", All.size()},
          {"without_candidate", Failed},
          {"replayed", Replayed},
          {"input_tokens", In},
          {"output_tokens", Out}};
}

/// Keeps what this search found for the prompts of later ones.
void recordLesson(Store &S, const KoptOpt &Opt, const spec::Problem &P,
                  const SearchResult &R) {
  std::optional<Lesson> L = lessonOf(P.Name, R.Candidates, "");
  if (!L)
    return;
  L->Features = kernelFeatures(Opt.analyze(P.sourcePath().string()));
  if (!S.addLesson(*L))
    std::cerr << "kopt-search: warning: the store: " << S.lastError() << "\n";
}

int searchOne(const CommandLine &CL, const fs::path &ProblemPath,
              const fs::path &OutDir, Store &S, const KoptOpt &Opt,
              const SearchSpace &Space, const std::string &Command,
              LLMSetup *LLM) {
  auto Loaded = spec::loadProblemFile(ProblemPath.string());
  if (!Loaded.ok()) {
    for (const std::string &E : Loaded.Errors)
      std::cerr << ProblemPath.string() << ": error: " << E << "\n";
    return ExitUsage;
  }
  spec::Problem &P = *Loaded.Value;
  for (const std::string &E : spec::validateProblemSources(P)) {
    std::cerr << P.SpecPath.string() << ": error: " << E << "\n";
    return ExitUsage;
  }
  std::string Error;
  if (!writableDirectory(OutDir, Error))
    return usageError(Error);

  ExecutorOptions EO;
  EO.Devices = CL.Devices;
  EO.KoptBench = findTool(CL.KoptBenchPath, "kopt-bench");
  EO.Arch = CL.Arch;
  EO.TimeoutSeconds = CL.TimeoutSeconds;
  EO.KoptVersion = KOPT_VERSION;
  EO.Contain = CL.Contain.value_or(false);
  if (EO.KoptBench.empty() && CL.Simulate.empty() && !CL.DryRun)
    return usageError("kopt-bench not found beside kopt-search or on PATH "
                      "(give --kopt-bench PATH)");
  std::unique_ptr<Executor> Exec =
      CL.Simulate.empty() ? createGpuExecutor(EO)
                          : createSimulatedExecutor(CL.Simulate, EO, Error);
  if (!Exec)
    return usageError("--simulate: " + Error);
  if (CL.Executor == "slurm" && !CL.DryRun) {
    SlurmOptions SO;
    SO.Partition = CL.Partition;
    SO.Gres = CL.Gres;
    SO.MaxJobs = CL.MaxJobs;
    SO.SbatchArgs = CL.SbatchArgs;
    SO.Retries = CL.SlurmRetries;
    SO.PollSeconds = CL.SlurmPollSeconds;
    SO.Dir = (OutDir / "slurm").string();
    SO.TaskProgram = eval::currentExecutable();
    SO.ProblemPath = fs::absolute(P.SpecPath).string();
    SO.Model = CL.Simulate.empty() ? "gpu" : CL.Simulate;
    SO.Interrupted = [] { return Interrupted.load(); };
    SO.Log = [](const std::string &M) {
      std::cerr << "\nkopt-search: " << M << "\n";
    };
    Exec = createSlurmExecutor(SO, EO, std::move(Exec));
  }
  SearcherOptions SO{CL.BeamWidth, CL.Seed, &Space};
  std::unique_ptr<Searcher> Strategy = createSearcher(CL.Strategy, SO);
  std::vector<std::unique_ptr<Proposer>> Owned;
  std::vector<Proposer *> Proposers;
  for (const std::string &Name : CL.Proposers) {
#ifdef KOPT_HAVE_LLM
    if (Name == "llm") {
      LLMProposerOptions LO = LLM->Options;
      LO.LessonsExecutor = Exec->name();
      Owned.push_back(createLLMProposer(LO, S));
    } else
#endif
      Owned.push_back(createProposer(Name, Space, admitsRounding(P)));
    Proposers.push_back(Owned.back().get());
  }

  Progress Bar(stderr, P.Name, CL.Limits.Candidates);
  SearchOptions O;
  O.Depth = CL.Depth;
  O.Limits = CL.Limits;
  O.DryRun = CL.DryRun;
  O.Jobs = CL.Jobs;
  O.LookAhead = CL.LookAhead;
  O.Overlap = CL.Overlap;
  O.WorkDir = (OutDir / "work").string();
  if (CL.MakeMemo.empty())
    O.MemoDir = (fs::path(eval::defaultCacheDir()) / "made").string();
  else if (CL.MakeMemo != "run")
    O.MemoDir = CL.MakeMemo;
  O.Interrupted = [] { return Interrupted.load(); };
  O.OnProgress = [&](const SearchStats &St) { Bar.update(St); };
  SearchResult R = runSearch(P, S, *Exec, Opt, *Strategy, Proposers,
                             Space.DefaultPipeline, O);
  Bar.finish();
  if (!CL.KeepWork) {
    std::error_code EC;
    fs::remove_all(O.WorkDir, EC);
  }

  ReportSettings RS{Command, CL.Strategy, Exec->name(), KOPT_VERSION,
                    CL.Seed, CL.Limits,   CL.Depth,     CL.BeamWidth};
  nlohmann::json Report = reportDocument(P, R, RS);
  Report["llm"] = llmSummary(S, R.ProblemId);
  Report["llm_exchanges"] = llmExchangesJson(S.exchanges(R.ProblemId));
  // An LLM's winner is reproduced from the source its exchange gave.
  std::string Start;
  if (const Candidate *B = bestCandidate(R.Candidates))
    if (auto Seq = splitRecipeStart(B->Recipe).LLMSeq)
      if (auto X = S.exchange(R.ProblemId, Seq))
        Start = X->Source;
  if (!writeOutputs(OutDir.string(), P, R, Report, Start, Error))
    return usageError(Error);
  if (!CL.DryRun)
    recordLesson(S, Opt, P, R);
  if (CL.DryRun)
    printPlan(R);
  const nlohmann::json &Best = Report["best"];
  std::cerr << "kopt-search: " << P.Name << ": stopped by " << R.StoppedBy
            << "; " << R.Stats.Evaluated << " evaluations";
  if (Best.is_object())
    std::cerr << "; best #" << Best["id"] << " "
              << Best["speedup"].get<double>() << "x ["
              << Best["speedup_ci"][0].get<double>() << ", "
              << Best["speedup_ci"][1].get<double>() << "]: "
              << (Best["recipe"] == "" ? "(original source)"
                                       : Best["recipe"].get<std::string>());
  if (const nlohmann::json &L = Report["llm"]; L.is_object())
    std::cerr << "\nkopt-search: llm: " << L["exchanges"] << " requests ("
              << L["without_candidate"] << " gave no candidate, "
              << L["replayed"] << " replayed), " << L["input_tokens"]
              << " input + " << L["output_tokens"] << " output tokens";
  std::cerr << "\nkopt-search: outputs in " << OutDir.string() << "\n";
  for (const std::string &E : R.Errors)
    std::cerr << "kopt-search: error: " << E << "\n";
  if (!R.Errors.empty())
    return R.StoppedBy == "problem-error" &&
                   R.Errors.front().rfind("the store", 0) == 0
               ? ExitUsage
               : ExitProblem;
  if (R.StoppedBy == "interrupted")
    return ExitInterrupted;
  if (!CL.DryRun && !Best.is_object())
    return ExitProblem;
  return ExitOk;
}

int show(const CommandLine &CL, Store &S) {
  bool Found = false;
  for (const Store::ProblemRow &Row : S.problems()) {
    if (CL.Inputs.size() == 2 && Row.Name != CL.Inputs[1])
      continue;
    Found = true;
    std::vector<Candidate> All = S.candidates(Row.Id);
    std::map<std::string, int> ByStatus;
    for (const Candidate &C : All)
      ++ByStatus[C.Status];
    std::printf("%s (%s)\n  candidates: %zu;", Row.Name.c_str(),
                Row.SpecPath.c_str(), All.size());
    for (const auto &[Status, Count] : ByStatus)
      std::printf(" %s %d", Status.c_str(), Count);
    std::printf("\n");
    const Candidate *Best = bestCandidate(All);
    if (!Best) {
      std::printf("  best: none evaluated ok\n");
      continue;
    }
    std::map<std::string, const Candidate *> PerModel = bestPerDeviceModel(All);
    if (PerModel.size() > 1)
      std::printf("  ranked within each device model; best is on %s, the "
                  "model with the most evaluations\n",
                  deviceModel(*Best->Eval).c_str());
    for (const auto &[Model, C] : PerModel) {
      if (PerModel.size() > 1 && C == Best)
        continue;
      if (PerModel.size() > 1)
        std::printf("  best on %s: #%lld %.3fx [%.3f, %.3f]\n", Model.c_str(),
                    (long long)C->Id, C->Eval->Speedup, C->Eval->SpeedupLow,
                    C->Eval->SpeedupHigh);
    }
    std::string Node = deviceNode(*Best->Eval);
    std::printf(
        "  best: #%lld %.3fx [%.3f, %.3f] (%s%s): %s\n", (long long)Best->Id,
        Best->Eval->Speedup, Best->Eval->SpeedupLow, Best->Eval->SpeedupHigh,
        Best->Eval->Executor.c_str(),
        Node.empty() ? "" : (" on " + Node).c_str(),
        Best->Recipe.empty() ? "(original source)" : Best->Recipe.c_str());
    std::string Lineage;
    for (const Candidate *C = Best; C;) {
      Lineage = "#" + std::to_string(C->Id) + (Lineage.empty() ? "" : " -> ") +
                Lineage;
      const Candidate *Parent = nullptr;
      for (const Candidate &Q : All)
        if (Q.Id == C->ParentId)
          Parent = &Q;
      C = Parent;
    }
    std::printf("  lineage: %s\n", Lineage.c_str());
    if (CL.Inputs.size() == 2) {
      SearchResult R;
      R.Candidates = All;
      printPlan(R);
    }
  }
  if (!Found && CL.Inputs.size() == 2) {
    std::cerr << "kopt-search: error: the store has no problem named '"
              << CL.Inputs[1] << "'\n";
    return ExitUsage;
  }
  return ExitOk;
}

int exportStore(const CommandLine &CL, Store &S) {
  nlohmann::json Doc = {{"tool", "kopt-search"},
                        {"version", KOPT_VERSION},
                        {"problems", nlohmann::json::array()}};
  for (const Store::ProblemRow &Row : S.problems()) {
    nlohmann::json Cands = nlohmann::json::array();
    for (const Candidate &C : S.candidates(Row.Id)) {
      nlohmann::json J = candidateJson(C);
      if (C.Eval) {
        J["executor"] = C.Eval->Executor;
        J["record"] = nlohmann::json::parse(C.Eval->Record, nullptr, false);
      }
      Cands.push_back(J);
    }
    Doc["problems"].push_back({{"name", Row.Name},
                               {"spec_path", Row.SpecPath},
                               {"source_sha256", Row.SourceSha256},
                               {"candidates", Cands}});
  }
  std::string Text = Doc.dump(2) + "\n", Error;
  if (CL.Json == "-") {
    std::cout << Text;
    return ExitOk;
  }
  if (!writeFileAtomically(CL.Json, Text, Error))
    return usageError(Error);
  return ExitOk;
}

} // namespace

int main(int Argc, char **Argv) {
  // A Slurm task (docs/slurm.md): evaluate one candidate of a manifest.
  if (Argc == 4 && std::string(Argv[1]) == "__slurm-task")
    return runSlurmTask(Argv[2], std::atoi(Argv[3]));
  CommandLine CL;
  if (int Code = parseCommandLine({Argv + 1, Argv + Argc}, CL); Code >= 0)
    return Code;
  if (CL.LLMPrintTemplate) {
#ifdef KOPT_HAVE_LLM
    printLLMTemplates();
    return ExitOk;
#else
    return usageError("this kopt-search was built without libcurl: no llm "
                      "proposer");
#endif
  }
  std::string Command;
  for (int I = 0; I < Argc; ++I)
    Command += (I ? " " : "") + std::string(Argv[I]);

  if (CL.Command != "search") {
    std::string Error;
    if (!fs::exists(CL.Inputs[0]))
      return usageError("no store at " + CL.Inputs[0]);
    auto S = Store::open(CL.Inputs[0], /*Create=*/false, Error);
    if (!S)
      return usageError(Error);
    return CL.Command == "show" ? show(CL, *S) : exportStore(CL, *S);
  }

  std::vector<fs::path> Problems;
  for (const std::string &Input : CL.Inputs)
    for (const fs::path &P : problemPaths(Input))
      Problems.push_back(P);
  fs::path Out = fs::absolute(CL.Out);
  std::string Error;
  if (!writableDirectory(Out, Error))
    return usageError(Error);
  std::string StorePath =
      CL.Store.empty() ? (Out / "search.sqlite").string() : CL.Store;
  auto S = Store::open(StorePath, /*Create=*/true, Error);
  if (!S)
    return usageError(Error);
  KoptOpt Opt(findTool(CL.KoptOptPath, "kopt-opt"));
  if (Opt.program().empty())
    return usageError("kopt-opt not found beside kopt-search or on PATH "
                      "(give --kopt-opt PATH)");
  std::string SpaceText = Opt.searchSpace(Error);
  auto Space =
      SpaceText.empty() ? std::nullopt : parseSearchSpace(SpaceText, Error);
  if (!Space)
    return usageError(Error);

  std::unique_ptr<LLMSetup> LLM;
#ifdef KOPT_HAVE_LLM
  if (std::find(CL.Proposers.begin(), CL.Proposers.end(), "llm") !=
      CL.Proposers.end()) {
    LLM = setUpLLM(CL, Error);
    if (!LLM)
      return usageError(Error);
  }
#endif

  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  int Worst = ExitOk;
  for (const fs::path &P : Problems) {
    fs::path Dir = Problems.size() == 1 ? Out : Out / P.filename();
    int Code = searchOne(CL, P, Dir, *S, Opt, *Space, Command, LLM.get());
    Worst = std::max(Worst, Code);
    if (Interrupted)
      break;
  }
  return Worst;
}
