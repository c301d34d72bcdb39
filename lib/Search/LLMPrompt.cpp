//===- LLMPrompt.cpp - What kopt knows, in the words of a prompt ----------===//
#include "kopt/Search/LLMPrompt.h"

#include "kopt/Search/Candidate.h"
#include "kopt/Search/Store.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

namespace kopt::search {

using json = nlohmann::json;

const std::vector<std::string> &promptPlaceholders() {
  static const std::vector<std::string> Names = {
      "source",    "problem",      "kernel_info", "missed_remarks",
      "resources", "measurement",  "profile",     "history",
      "lessons",   "compile_error"};
  return Names;
}

const char *defaultSystemPrompt() {
  return "You are an expert CUDA performance engineer. You rewrite one CUDA "
         "source file to make its kernels faster on the target GPU while "
         "computing the same results. Your edit is compiled, checked against "
         "a reference on several inputs and timed; a faster but wrong "
         "kernel, a changed host entry signature, library calls the problem "
         "does not allow, timers, and work hidden from the caller's stream "
         "are all rejected.";
}

const char *defaultProposeTemplate() {
  return R"(Make this CUDA file faster. Keep the host entry function's name and
signature exactly; you may change kernels, launch configurations and helper
code freely.

## The source
```cuda
{{source}}
```

## The problem (problem.json: shapes, inputs, tolerance)
```json
{{problem}}
```

## What kopt's analysis found in the kernels
{{kernel_info}}

## What kopt's passes could not prove or do (their missed remarks)
{{missed_remarks}}

## ptxas resource usage
{{resources}}

## Measurement of this source
{{measurement}}

## Nsight Compute metrics of this source (benchmark shape)
{{profile}}

## Earlier proposals in this search
{{history}}

## What worked on similar kernels
{{lessons}}

Reply with the complete new file in one ```cuda code block (or a unified
diff against the source above in one ```diff block), then one sentence on
what you changed.
)";
}

const char *defaultRepairTemplate() {
  return R"(Your CUDA file below does not compile (or does not parse). Fix it,
keeping its optimization and the host entry function's signature.

## The compiler's message
```
{{compile_error}}
```

## The file
```cuda
{{source}}
```

## The problem (problem.json)
```json
{{problem}}
```

Reply with the complete corrected file in one ```cuda code block.
)";
}

bool renderPrompt(const std::string &Template,
                  const std::map<std::string, std::string> &Values,
                  std::string &Out, std::string &Error) {
  Out.clear();
  const std::vector<std::string> &Known = promptPlaceholders();
  std::size_t At = 0;
  while (true) {
    std::size_t Open = Template.find("{{", At);
    if (Open == std::string::npos) {
      Out += Template.substr(At);
      return true;
    }
    Out += Template.substr(At, Open - At);
    std::size_t Line =
        1 + std::count(Template.begin(), Template.begin() + Open, '\n');
    std::size_t Close = Template.find("}}", Open + 2);
    if (Close == std::string::npos) {
      Error = "line " + std::to_string(Line) + ": '{{' without '}}'";
      return false;
    }
    std::string Name = Template.substr(Open + 2, Close - Open - 2);
    Name.erase(0, Name.find_first_not_of(' '));
    Name.erase(Name.find_last_not_of(' ') + 1);
    if (std::find(Known.begin(), Known.end(), Name) == Known.end()) {
      std::string List;
      for (const std::string &K : Known)
        List += (List.empty() ? "" : ", ") + K;
      Error = "line " + std::to_string(Line) + ": unknown placeholder {{" +
              Name + "}} (known: " + List + ")";
      return false;
    }
    auto It = Values.find(Name);
    Out += It == Values.end() || It->second.empty() ? "(none)" : It->second;
    At = Close + 2;
  }
}

namespace {

json parseOrNull(const std::string &Text) {
  return json::parse(Text, nullptr, /*allow_exceptions=*/false);
}

std::string text(const json &J, const char *Key) {
  if (!J.is_object() || !J.contains(Key) || J[Key].is_null())
    return "";
  return J[Key].is_string() ? J[Key].get<std::string>() : J[Key].dump();
}

std::string firstLine(const std::string &S, std::size_t Max = 400) {
  std::string L = S.substr(0, S.find('\n'));
  return L.size() > Max ? L.substr(0, Max) + "..." : L;
}

} // namespace

std::string summarizeAnalysis(const std::string &AnalysisJson) {
  json A = parseOrNull(AnalysisJson);
  if (!A.is_object() || !A.contains("kernels") || !A["kernels"].is_array())
    return "";
  std::ostringstream Out;
  for (const json &K : A["kernels"]) {
    Out << "- kernel " << text(K, "name");
    if (K.contains("template") && !K["template"].is_null() &&
        K["template"] != false)
      Out << " (template)";
    Out << "\n";
    if (K.contains("loops"))
      for (const json &L : K["loops"])
        Out << "  - loop " << text(L, "var") << ": " << text(L, "kind")
            << (text(L, "bound").empty() ? "" : ", bound " + text(L, "bound"))
            << "\n";
    if (K.contains("accesses"))
      for (const json &X : K["accesses"])
        Out << "  - " << text(X, "kind") << " " << text(X, "base") << "["
            << text(X, "index") << "] (" << text(X, "element_type") << ", "
            << text(X, "class") << ")\n";
    if (K.contains("barriers") && !K["barriers"].empty())
      Out << "  - " << K["barriers"].size() << " barrier(s)\n";
    if (K.contains("shared_arrays") && !K["shared_arrays"].empty())
      Out << "  - shared arrays: " << K["shared_arrays"].dump() << "\n";
    if (K.contains("rereads") && !K["rereads"].empty()) {
      Out << "  - global elements read again:";
      for (const json &X : K["rereads"])
        Out << " " << text(X, "base") << "[" << text(X, "index") << "]";
      Out << "\n";
    }
  }
  return Out.str();
}

std::string summarizeMissedRemarks(const std::string &RemarksJson) {
  json R = parseOrNull(RemarksJson);
  if (!R.is_object() || !R.contains("remarks") || !R["remarks"].is_array())
    return "";
  std::ostringstream Out;
  for (const json &M : R["remarks"])
    if (text(M, "kind") == "missed")
      Out << "- " << text(M, "pass") << " on " << text(M, "function") << ": "
          << text(M, "message") << "\n";
  return Out.str();
}

std::string summarizeResources(const Candidate &C) {
  if (!C.Eval)
    return "";
  json R = parseOrNull(C.Eval->Record);
  if (!R.is_object() || !R.contains("resources") ||
      !R["resources"].contains("kernels"))
    return "";
  std::ostringstream Out;
  for (const json &K : R["resources"]["kernels"])
    Out << "- " << text(K, "name") << ": " << text(K, "registers")
        << " registers, " << text(K, "shared_bytes")
        << " bytes shared memory, spills " << text(K, "spill_store_bytes")
        << " bytes stored / " << text(K, "spill_load_bytes")
        << " bytes loaded\n";
  return Out.str();
}

std::string summarizeMeasurement(const Candidate &C) {
  if (!C.Eval || C.Eval->Status != "ok")
    return "";
  const Evaluation &E = *C.Eval;
  std::ostringstream Out;
  Out << "median " << E.MedianMs << " ms";
  // The evaluation keeps the device as kopt-bench's JSON; its name is enough.
  if (std::string Name = text(parseOrNull(E.Device), "name"); !Name.empty())
    Out << " on " << firstLine(Name, 120);
  Out << "; speedup " << E.Speedup << "x [" << E.SpeedupLow << ", "
      << E.SpeedupHigh << "] over the problem's original source";
  if (E.AchievedGbps)
    Out << "; " << *E.AchievedGbps << " GB/s achieved";
  if (E.FractionOfCopyBandwidth)
    Out << " (" << static_cast<int>(*E.FractionOfCopyBandwidth * 100 + 0.5)
        << "% of the device's measured copy bandwidth)";
  Out << "\n";
  return Out.str();
}

std::string summarizeProfile(const std::string &ProfileJson) {
  json P = parseOrNull(ProfileJson);
  if (!P.is_object())
    return "";
  if (P.contains("error"))
    return "(not available: " + firstLine(text(P, "error"), 300) + ")\n";
  if (!P.contains("kernels"))
    return "";
  static const std::pair<const char *, const char *> Names[] = {
      {"gpu__time_duration.sum", "time (ns)"},
      {"sm__throughput.avg.pct_of_peak_sustained_elapsed",
       "SM throughput (% of peak)"},
      {"dram__throughput.avg.pct_of_peak_sustained_elapsed",
       "DRAM throughput (% of peak)"},
      {"sm__warps_active.avg.pct_of_peak_sustained_active",
       "achieved occupancy (%)"},
      {"l1tex__t_sector_hit_rate.pct", "L1 hit rate (%)"},
      {"lts__t_sector_hit_rate.pct", "L2 hit rate (%)"},
      {"launch__registers_per_thread", "registers per thread"},
      {"launch__occupancy_limit_registers",
       "blocks per SM allowed by registers"}};
  std::ostringstream Out;
  for (const json &K : P["kernels"]) {
    Out << "- " << text(K, "name") << " (grid " << text(K, "grid") << ", block "
        << text(K, "block") << "):";
    const json &M = K.contains("metrics") ? K["metrics"] : json::object();
    for (const auto &[Key, Label] : Names)
      if (M.contains(Key))
        Out << " " << Label << " " << M[Key].dump() << ";";
    Out << "\n";
  }
  return Out.str();
}

std::string summarizeHistory(const std::vector<Candidate> &History,
                             std::size_t Max) {
  std::vector<const Candidate *> Mine;
  for (const Candidate &C : History)
    if (C.Proposer.rfind("llm:", 0) == 0)
      Mine.push_back(&C);
  std::ostringstream Out;
  if (Mine.size() > Max) {
    Out << "(" << Mine.size() - Max << " earlier ones left out)\n";
    Mine.erase(Mine.begin(), Mine.end() - Max);
  }
  for (const Candidate *P : Mine) {
    const Candidate &C = *P;
    Out << "- " << C.Recipe << ": " << C.Status;
    if (C.Eval && C.Eval->Status == "ok")
      Out << ", " << C.Eval->Speedup << "x the original";
    else if (!C.Reason.empty())
      Out << ": " << firstLine(C.Reason);
    Out << "\n";
  }
  return Out.str();
}

std::string summarizeLessons(const std::vector<Lesson> &Lessons) {
  std::ostringstream Out;
  for (const Lesson &L : Lessons)
    Out << "- on " << L.Problem << " (" << L.Features << "): " << L.What
        << " gave " << L.Speedup << "x\n";
  return Out.str();
}

} // namespace kopt::search
