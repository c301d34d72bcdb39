//===- Outputs.cpp - What a search leaves in --out ------------------------===//
#include "kopt/Search/Outputs.h"
#include "kopt/Search/Recipe.h"

#include "kopt/Search/HtmlReport.h"
#include "kopt/Search/Searcher.h"
#include "kopt/Spec/ProblemParser.h"
#include "kopt/Spec/ProblemValidator.h"
#include "kopt/Support/UnifiedDiff.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unistd.h>

namespace kopt::search {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json optionalNumber(const std::optional<double> &V) {
  return V ? json(*V) : json(nullptr);
}

} // namespace

json candidateJson(const Candidate &C) {
  json J = {{"id", C.Id},
            {"parent", C.ParentId ? json(C.ParentId) : json(nullptr)},
            {"depth", C.Depth},
            {"proposer", C.Proposer},
            {"recipe", C.Recipe},
            {"status", C.Status},
            {"reason", C.Reason},
            {"source_sha256", C.SourceSha256}};
  if (C.DuplicateOf)
    J["duplicate_of"] = C.DuplicateOf;
  if (C.evaluatedOk()) {
    J["speedup"] = C.Eval->Speedup;
    J["speedup_ci"] = {C.Eval->SpeedupLow, C.Eval->SpeedupHigh};
    J["median_ms"] = C.Eval->MedianMs;
    J["baseline_median_ms"] = C.Eval->BaselineMedianMs;
    J["achieved_gbps"] = optionalNumber(C.Eval->AchievedGbps);
    J["fraction_of_copy_bandwidth"] =
        optionalNumber(C.Eval->FractionOfCopyBandwidth);
  }
  return J;
}

namespace {

/// Memory-bound when the problem moves more than a byte per 10 flops (an
/// H100 streams ~3.35 TB/s against ~60 TFLOP/s of f32: ~18 flops a byte).
bool memoryBound(const spec::Problem &P) {
  const spec::Shape &S = P.Shapes[P.BenchmarkShape];
  double Bytes = spec::bytesMoved(P, S);
  auto Flops = spec::flopCount(P, S);
  return Bytes > 0 && (!Flops || *Flops / Bytes < 10.0);
}

/// Where the wall time went, by phase; "other" is the rest (the store,
/// writing outputs, choosing parents). Making ahead happens while
/// evaluating and is reported apart.
json timeJson(const SearchStats &S) {
  json T = json::object();
  double Sum = 0;
  for (const char *Phase :
       {"proposing", "making", "compiling", "evaluating", "repairing"}) {
    auto It = S.PhaseSeconds.find(Phase);
    double V = It == S.PhaseSeconds.end() ? 0.0 : It->second;
    T[Phase] = V;
    Sum += V;
  }
  T["other"] = std::max(0.0, S.ElapsedSeconds - Sum);
  return T;
}

} // namespace

json reportDocument(const spec::Problem &P, const SearchResult &R,
                    const ReportSettings &Settings) {
  json Doc = {
      {"tool", "kopt-search"},
      {"version", Settings.KoptVersion},
      {"command", Settings.Command},
      {"problem",
       {{"name", P.Name},
        {"path", P.Directory.string()},
        {"memory_bound", memoryBound(P)}}},
      {"strategy", Settings.Strategy},
      {"executor", Settings.Executor},
      {"seed", Settings.Seed},
      {"depth", Settings.Depth},
      {"beam_width", Settings.BeamWidth},
      {"stopped_by", R.StoppedBy},
      {"errors", R.Errors},
      {"budgets",
       {{"candidates", Settings.Limits.Candidates
                           ? json(*Settings.Limits.Candidates)
                           : json(nullptr)},
        {"gpu_s", optionalNumber(Settings.Limits.GpuSeconds)},
        {"wall_s", optionalNumber(Settings.Limits.WallSeconds)}}},
      {"elapsed_s", R.Stats.ElapsedSeconds},
      {"gpu_seconds", R.Stats.GpuSeconds},
      {"evaluations", R.Stats.Evaluated},
      {"made", R.Stats.Made},
      {"made_from_parent", R.Stats.MadeFromParent},
      {"duplicates", R.Stats.Duplicates},
      {"skipped", R.Stats.Skipped},
      {"gpu_busy", R.Stats.gpuBusy()},
      {"time_s", timeJson(R.Stats)},
      {"ahead",
       {{"seconds", R.Stats.PhaseSeconds.count("ahead")
                        ? R.Stats.PhaseSeconds.at("ahead")
                        : 0.0},
        {"made", R.Stats.MadeAhead},
        {"memo_hits", R.Stats.MemoHits}}},
      {"probes",
       {{"run", R.Stats.ProbesRun}, {"from_store", R.Stats.ProbesStored}}}};
  std::map<std::int64_t, const Candidate *> ById;
  json Candidates = json::array(), Convergence = json::array();
  const Candidate *Best = bestCandidate(R.Candidates);
  double BestSoFar = 0;
  long Evaluations = 0;
  for (const Candidate &C : R.Candidates) {
    ById[C.Id] = &C;
    Candidates.push_back(candidateJson(C));
    if (!C.Eval)
      continue;
    ++Evaluations;
    if (C.evaluatedOk())
      BestSoFar = std::max(BestSoFar, C.Eval->Speedup);
    Convergence.push_back(
        {{"evaluation", Evaluations}, {"best_speedup", BestSoFar}});
    if (Doc.find("device") == Doc.end() && !C.Eval->Device.empty()) {
      json D = json::parse(C.Eval->Device, nullptr, false);
      if (!D.is_discarded())
        Doc["device"] = D;
    }
  }
  Doc["candidates"] = Candidates;
  Doc["convergence"] = Convergence;
  json Baselines = json::object();
  for (const Candidate &C : R.Candidates)
    if (C.Proposer == "original" || C.Proposer == "O")
      Baselines[C.Proposer] = candidateJson(C);
  Doc["baselines"] = Baselines;
  Doc["best"] = Best ? candidateJson(*Best) : json(nullptr);
  // What a user would commit: best.cu against the problem's own source.
  if (Best && !Best->Source.empty()) {
    std::string Name = P.sourcePath().filename().string();
    Doc["best_diff"] =
        unifiedDiff(spec::readTextFile(P.sourcePath()).value_or(""),
                    Best->Source, "a/" + Name, "b/best.cu");
  }
  // Evaluations on several device models (a Slurm cluster of H100s and
  // H200s) are ranked within each; "best" is the best of the model with
  // the most successful evaluations.
  std::map<std::string, const Candidate *> PerModel =
      bestPerDeviceModel(R.Candidates);
  if (PerModel.size() > 1) {
    json Each = json::object();
    for (const auto &[Model, C] : PerModel)
      Each[Model.empty() ? "unknown" : Model] = candidateJson(*C);
    Doc["best_per_device_model"] = Each;
  }
  json Lineage = json::array();
  for (const Candidate *C = Best; C;) {
    Lineage.insert(Lineage.begin(), candidateJson(*C));
    auto It = ById.find(C->ParentId);
    C = It == ById.end() ? nullptr : It->second;
  }
  Doc["lineage"] = Lineage;
  return Doc;
}

namespace {

/// A chat request's messages as text ("[system]\n...\n\n[user]\n..."), in
/// the OpenAI or Anthropic format; the body itself if it is neither.
std::string promptText(const std::string &Request) {
  json Body = json::parse(Request, nullptr, false);
  if (!Body.is_object())
    return Request;
  auto Content = [](const json &C) {
    if (C.is_string())
      return C.get<std::string>();
    std::string Out;
    if (C.is_array())
      for (const json &Part : C)
        if (Part.is_object() && Part.value("text", json()).is_string())
          Out += Part["text"].get<std::string>();
    return Out;
  };
  std::string Out;
  if (Body.contains("system"))
    Out += "[system]\n" + Content(Body["system"]) + "\n\n";
  if (Body.contains("messages") && Body["messages"].is_array())
    for (const json &M : Body["messages"])
      if (M.is_object())
        Out +=
            "[" +
            (M.value("role", json()).is_string() ? M["role"].get<std::string>()
                                                 : std::string("?")) +
            "]\n" + Content(M.value("content", json())) + "\n\n";
  return Out.empty() ? Request : Out;
}

} // namespace

json llmExchangesJson(const std::vector<LLMExchangeRow> &All) {
  json Out = json::array();
  for (const LLMExchangeRow &E : All)
    Out.push_back({{"seq", E.Seq},
                   {"kind", E.Kind},
                   {"parent", E.ParentId ? json(E.ParentId) : json(nullptr)},
                   {"model", E.Model},
                   {"http_status", E.HttpStatus},
                   {"attempts", E.Attempts},
                   {"replayed", E.Replayed},
                   {"prompt", promptText(E.Request)},
                   {"reply", E.Text},
                   {"error", E.Error}});
  return Out;
}

std::string bestTest(const std::string &Start, const std::string &Best,
                     const std::string &Passes, const std::string &Summary,
                     std::size_t MaxChecks) {
  std::multiset<std::string> Before;
  std::istringstream In(Start);
  auto Trim = [](std::string L) {
    L.erase(0, L.find_first_not_of(" \t"));
    L.erase(L.find_last_not_of(" \t\r") + 1);
    return L;
  };
  for (std::string Line; std::getline(In, Line);)
    Before.insert(Trim(Line));
  std::string Checks;
  std::size_t Count = 0;
  std::istringstream Out(Best);
  for (std::string Line; std::getline(Out, Line) && Count < MaxChecks;) {
    std::string T = Trim(Line);
    auto It = Before.find(T);
    if (It != Before.end()) {
      Before.erase(It);
      continue;
    }
    // A pattern anchored at the line start never matches its own comment;
    // lines FileCheck would read as regex or variables are left out.
    if (T.size() < 4 || T.find("{{") != std::string::npos ||
        T.find("[[") != std::string::npos || T.rfind("//", 0) == 0)
      continue;
    Checks += "// CHECK: {{^ *}}" + T + "\n";
    ++Count;
  }
  std::string Header = "// " + Summary + "\n" +
                       "// RUN: kopt-opt %s -passes='" + Passes +
                       "' | FileCheck %s\n";
  if (Passes.empty()) // kopt-opt takes no empty pipeline: nothing to run
    Header = "// " + Summary + "\n// RUN: FileCheck %s --input-file %s\n";
  if (Checks.empty())
    Checks = "// CHECK: {{.}}\n";
  return Header + Checks + Start;
}

bool writeFileAtomically(const std::string &Path, const std::string &Text,
                         std::string &Error) {
  std::string Temp = Path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream Out(Temp, std::ios::binary);
    Out << Text;
    Out.flush();
    if (!Out) {
      Error = "cannot write " + Temp;
      std::remove(Temp.c_str());
      return false;
    }
  }
  if (std::rename(Temp.c_str(), Path.c_str()) != 0) {
    Error = "cannot rename " + Temp + " to " + Path;
    std::remove(Temp.c_str());
    return false;
  }
  return true;
}

bool writeOutputs(const std::string &Dir, const spec::Problem &P,
                  const SearchResult &R, const json &Report,
                  const std::string &LLMStart, std::string &Error) {
  fs::path D(Dir);
  const Candidate *Best = bestCandidate(R.Candidates);
  if (Best) {
    RecipeStart Start = splitRecipeStart(Best->Recipe);
    std::string From = Start.LLMSeq
                           ? LLMStart
                           : spec::readTextFile(P.sourcePath()).value_or("");
    if (Start.LLMSeq &&
        !writeFileAtomically(
            (D / ("llm-" + std::to_string(Start.LLMSeq) + ".cu")).string(),
            LLMStart, Error))
      return false;
    std::ostringstream Summary;
    Summary << "kopt-search: problem '" << P.Name << "', recipe #" << Best->Id
            << ", speedup " << Best->Eval->Speedup << " ["
            << Best->Eval->SpeedupLow << ", " << Best->Eval->SpeedupHigh
            << "] over the original (" << Best->Eval->Executor << ")";
    if (!writeFileAtomically((D / "best.cu").string(), Best->Source, Error) ||
        !writeFileAtomically((D / "recipe.txt").string(), Best->Recipe + "\n",
                             Error) ||
        !writeFileAtomically(
            (D / "best.test").string(),
            bestTest(From, Best->Source, Start.Passes, Summary.str()), Error))
      return false;
  }
  return writeFileAtomically((D / "report.json").string(),
                             Report.dump(2) + "\n", Error) &&
         writeFileAtomically((D / "report.html").string(),
                             renderHtmlReport(Report), Error);
}

} // namespace kopt::search
