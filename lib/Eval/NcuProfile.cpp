//===- NcuProfile.cpp - A few Nsight Compute metrics of a candidate -------===//
#include "kopt/Eval/NcuProfile.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace kopt::eval {

namespace fs = std::filesystem;
using json = nlohmann::json;

const std::vector<std::string> &profileMetrics() {
  static const std::vector<std::string> Metrics = {
      "gpu__time_duration.sum",
      "sm__throughput.avg.pct_of_peak_sustained_elapsed",
      "dram__throughput.avg.pct_of_peak_sustained_elapsed",
      "sm__warps_active.avg.pct_of_peak_sustained_active",
      "l1tex__t_sector_hit_rate.pct",
      "lts__t_sector_hit_rate.pct",
      "launch__registers_per_thread",
      "launch__occupancy_limit_registers",
  };
  return Metrics;
}

std::string findNcu(const std::string &Nvcc) {
  if (const char *Env = std::getenv("KOPT_NCU"); Env && *Env)
    return Env;
  std::error_code EC;
  if (!Nvcc.empty()) {
    fs::path Beside = fs::path(Nvcc).parent_path() / "ncu";
    if (fs::exists(Beside, EC))
      return Beside.string();
  }
  if (const char *Path = std::getenv("PATH")) {
    std::stringstream In(Path);
    for (std::string Dir; std::getline(In, Dir, ':');)
      if (!Dir.empty() && fs::exists(fs::path(Dir) / "ncu", EC))
        return (fs::path(Dir) / "ncu").string();
  }
  return "";
}

std::vector<std::string> ncuCommand(const std::string &Ncu,
                                    const std::string &Worker,
                                    const std::string &JobPath,
                                    const std::string &CsvPath) {
  std::string Metrics;
  for (const std::string &M : profileMetrics())
    Metrics += (Metrics.empty() ? "" : ",") + M;
  return {Ncu,
          "--csv",
          "--page",
          "raw",
          "--metrics",
          Metrics,
          "--profile-from-start",
          "off",
          "--target-processes",
          "all",
          "--log-file",
          CsvPath,
          Worker,
          "__evaluate",
          JobPath};
}

namespace {

/// One CSV line's cells (quotes removed, "" inside quotes kept as ").
std::vector<std::string> cells(const std::string &Line) {
  std::vector<std::string> Out;
  std::string Cell;
  bool Quoted = false;
  for (std::size_t I = 0; I < Line.size(); ++I) {
    char C = Line[I];
    if (Quoted && C == '"' && I + 1 < Line.size() && Line[I + 1] == '"') {
      Cell += '"';
      ++I;
    } else if (C == '"') {
      Quoted = !Quoted;
    } else if (C == ',' && !Quoted) {
      Out.push_back(Cell);
      Cell.clear();
    } else if (C != '\r') {
      Cell += C;
    }
  }
  Out.push_back(Cell);
  return Out;
}

/// "1,234.5" or "1234.5" as a number; false for anything else.
bool number(std::string Text, double &Out) {
  Text.erase(std::remove(Text.begin(), Text.end(), ','), Text.end());
  if (Text.empty())
    return false;
  char *End = nullptr;
  Out = std::strtod(Text.c_str(), &End);
  return End && *End == '\0';
}

} // namespace

json parseNcuCsv(const std::string &Csv) {
  std::istringstream In(Csv);
  std::vector<std::string> Header;
  json Kernels = json::array();
  for (std::string Line; std::getline(In, Line);) {
    if (Line.rfind("==", 0) == 0 || Line.empty()) // ==PROF== and the like
      continue;
    std::vector<std::string> Row = cells(Line);
    if (Header.empty()) {
      if (std::find(Row.begin(), Row.end(), "Kernel Name") != Row.end())
        Header = Row;
      continue;
    }
    if (Row.size() != Header.size())
      continue;
    json Kernel = {{"metrics", json::object()}};
    bool Values = false;
    for (std::size_t I = 0; I < Row.size(); ++I) {
      const std::string &Name = Header[I];
      double V = 0;
      if (Name == "Kernel Name")
        Kernel["name"] = Row[I];
      else if (Name == "Block Size")
        Kernel["block"] = Row[I];
      else if (Name == "Grid Size")
        Kernel["grid"] = Row[I];
      else if (std::find(profileMetrics().begin(), profileMetrics().end(),
                         Name) != profileMetrics().end() &&
               number(Row[I], V)) {
        Kernel["metrics"][Name] = V;
        Values = true;
      }
    }
    // The units row has no kernel name and no numbers.
    if (Values && Kernel.contains("name") &&
        !Kernel["name"].get<std::string>().empty())
      Kernels.push_back(Kernel);
  }
  if (Kernels.empty())
    return {{"error", "ncu reported no kernel with the metrics"}};
  return {{"kernels", Kernels}};
}

} // namespace kopt::eval
