//===- Report.cpp - JSON records and the human table ----------------------===//
#include "kopt/Eval/Report.h"

#include <cstdio>
#include <filesystem>

namespace kopt::eval {

using nlohmann::json;

json reportDocument(const spec::Problem &P, const EvaluationOutcome &Outcome,
                    const std::string &Command) {
  json Doc = {{"tool", "kopt-bench"},
              {"schema_version", 1},
              {"command", Command},
              {"problem",
               {{"name", P.Name},
                {"spec", P.SpecPath.string()},
                {"entry", P.Entry},
                {"benchmark_shape", P.BenchmarkShape}}},
              {"devices", Outcome.Devices},
              {"records", Outcome.Records}};
  if (!Outcome.ProblemErrors.empty())
    Doc["problem_errors"] = Outcome.ProblemErrors;
  return Doc;
}

namespace {
std::string fixed(double V, int Digits) {
  char Buffer[64];
  std::snprintf(Buffer, sizeof(Buffer), "%.*f", Digits, V);
  return Buffer;
}

std::string shortName(const std::string &Path) {
  return std::filesystem::path(Path).filename().string();
}
} // namespace

void printTable(const EvaluationOutcome &Outcome, std::ostream &OS) {
  char Line[512];
  std::snprintf(Line, sizeof(Line), "%-28s %-24s %11s %11s %-24s %9s %6s %5s",
                "candidate", "status", "median ms", "baseline",
                "speedup [95% CI]", "GB/s", "%copy", "regs");
  OS << Line << "\n";
  for (const json &R : Outcome.Records) {
    std::string Status = R.value("status", "?");
    if (R.contains("rule"))
      Status += " (" + R["rule"].get<std::string>() + ")";
    std::string Median = "-", Baseline = "-", Speedup = "-", GBps = "-",
                Copy = "-", Regs = "-";
    if (R.contains("timing")) {
      const json &T = R["timing"];
      Median = fixed(T["candidate"].value("median_ms", 0.0), 4);
      Baseline = fixed(T["baseline"].value("median_ms", 0.0), 4);
      Speedup = fixed(T.value("speedup", 0.0), 3);
      if (T.contains("speedup_ci95") && T["speedup_ci95"].is_array() &&
          T["speedup_ci95"].size() == 2)
        Speedup += " [" + fixed(T["speedup_ci95"][0].get<double>(), 3) + ", " +
                   fixed(T["speedup_ci95"][1].get<double>(), 3) + "]";
      if (T.contains("achieved_gbps"))
        GBps = fixed(T["achieved_gbps"].get<double>(), 0);
      if (T.contains("fraction_of_copy_bandwidth"))
        Copy = fixed(100 * T["fraction_of_copy_bandwidth"].get<double>(), 0);
    }
    if (R.contains("resources")) {
      int Max = -1;
      for (const json &K : R["resources"]["kernels"])
        Max = std::max(Max, K.value("registers", -1));
      if (Max >= 0)
        Regs = std::to_string(Max);
    }
    std::snprintf(Line, sizeof(Line), "%-28s %-24s %11s %11s %-24s %9s %6s %5s",
                  shortName(R.value("candidate", "?")).c_str(), Status.c_str(),
                  Median.c_str(), Baseline.c_str(), Speedup.c_str(),
                  GBps.c_str(), Copy.c_str(), Regs.c_str());
    OS << Line << "\n";
  }
  for (const json &R : Outcome.Records)
    for (const json &M : R["messages"])
      OS << "  " << shortName(R.value("candidate", "?")) << ": "
         << M.get<std::string>() << "\n";
  if (!Outcome.Devices.empty())
    for (const json &D : Outcome.Devices)
      OS << "device " << D.value("index", 0) << ": " << D.value("name", "?")
         << ", L2 " << D.value("l2_bytes", 0LL) / 1024
         << " KiB, copy bandwidth "
         << fixed(D.value("copy_bandwidth_gbps", 0.0), 0) << " GB/s"
         << (D.value("copy_bandwidth_cached", false) ? " (cached)" : "")
         << "\n";
}

} // namespace kopt::eval
