//===- KoptOpt.cpp - The passes, through the kopt-opt program -------------===//
#include "kopt/Search/KoptOpt.h"

#include "kopt/Eval/Process.h"
#include "kopt/Spec/ProblemValidator.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace kopt::search {

namespace {

constexpr double KoptOptTimeoutSeconds = 600;

std::string lastLines(const std::string &Text, std::size_t Max = 1500) {
  return Text.size() <= Max ? Text : "..." + Text.substr(Text.size() - Max);
}

} // namespace

std::string KoptOpt::searchSpace(std::string &Error) const {
  eval::ProcessOptions O;
  O.TimeoutSeconds = 60;
  O.MaxCapturedBytes = 8 << 20;
  eval::ProcessResult R = eval::runProcess({Program, "--print-passes=json"}, O);
  if (!R.succeeded()) {
    Error = Program + " --print-passes=json failed (" +
            (R.Started ? R.describeEnd() : R.StartError) +
            "): " + lastLines(R.Output);
    return "";
  }
  return R.Output;
}

MadeCandidate KoptOpt::make(const std::string &Source,
                            const std::string &Recipe, const std::string &Out,
                            const std::string &Remarks) const {
  eval::ProcessOptions O;
  O.TimeoutSeconds = KoptOptTimeoutSeconds;
  eval::ProcessResult R = eval::runProcess(
      {Program, Source, "-passes=" + Recipe, "-o", Out, "--remarks=" + Remarks},
      O);
  MadeCandidate M;
  M.Ok = R.succeeded();
  if (!M.Ok)
    M.Error = "kopt-opt " +
              (R.Started ? R.describeEnd() : "did not start: " + R.StartError) +
              ": " + lastLines(R.Output);
  return M;
}

std::vector<MadeCandidate> KoptOpt::makeAll(const std::vector<MakeJob> &Jobs,
                                            const std::string &BatchFile,
                                            bool Background) const {
  std::vector<MadeCandidate> Made(Jobs.size());
  std::vector<bool> Answered(Jobs.size(), false);
  {
    std::ofstream Out(BatchFile, std::ios::binary);
    for (const MakeJob &J : Jobs) {
      nlohmann::json Line{{"input", J.Source},
                          {"output", J.Out},
                          {"passes", J.Recipe},
                          {"remarks", J.Remarks}};
      if (J.ResumeSteps)
        Line["resume"] = {{"steps", J.ResumeSteps},
                          {"code", J.ResumeCode},
                          {"remarks", J.ResumeRemarks}};
      Out << Line.dump() << "\n";
    }
    if (!Out.flush())
      for (MadeCandidate &M : Made)
        M.Error = "cannot write " + BatchFile;
  }
  if (Made.empty() || Made.front().Error.empty()) {
    eval::ProcessOptions O;
    O.TimeoutSeconds = KoptOptTimeoutSeconds * (1 + Jobs.size() / 8.0);
    O.MaxCapturedBytes = 16 << 20;
    std::vector<std::string> Argv = {Program, "--batch", BatchFile};
    if (Background && std::filesystem::exists("/usr/bin/nice"))
      Argv.insert(Argv.begin(), {"/usr/bin/nice", "-n", "19"});
    eval::ProcessResult R = eval::runProcess(Argv, O);
    std::istringstream Lines(R.Output);
    for (std::string Line; std::getline(Lines, Line);) {
      if (Line.empty() || Line[0] != '{')
        continue;
      nlohmann::json J = nlohmann::json::parse(Line, nullptr, false);
      if (!J.is_object() || !J.contains("job") ||
          !J["job"].is_number_unsigned() || !J.contains("ok") ||
          !J["ok"].is_boolean())
        continue;
      std::size_t I = J["job"].get<std::size_t>();
      if (I >= Jobs.size())
        continue;
      Answered[I] = true;
      Made[I].Ok = J["ok"].get<bool>();
      if (!Made[I].Ok)
        Made[I].Error = "kopt-opt: " + J.value("error", std::string("failed"));
      Made[I].Resumed = Made[I].Ok && Jobs[I].ResumeSteps;
    }
  }
  // A resumed job that failed is made whole: its error, if any, is then
  // the pipeline's, not the resumption's.
  for (std::size_t I = 0; I < Jobs.size(); ++I)
    if ((!Answered[I] || (!Made[I].Ok && Jobs[I].ResumeSteps)) && !Background)
      Made[I] =
          make(Jobs[I].Source, Jobs[I].Recipe, Jobs[I].Out, Jobs[I].Remarks);
  return Made;
}

/// `kopt-opt --analyze SOURCE`: the analysis JSON, or the diagnostics.
static eval::ProcessResult runAnalyze(const std::string &Program,
                                      const std::string &Source) {
  eval::ProcessOptions O;
  O.TimeoutSeconds = KoptOptTimeoutSeconds;
  O.MaxCapturedBytes = 16 << 20;
  return eval::runProcess({Program, "--analyze", Source}, O);
}

MadeCandidate KoptOpt::parse(const std::string &Source) const {
  eval::ProcessResult R = runAnalyze(Program, Source);
  MadeCandidate M;
  M.Ok = R.succeeded();
  if (!M.Ok)
    M.Error = "does not parse (kopt-opt --analyze " +
              (R.Started ? R.describeEnd() : "did not start: " + R.StartError) +
              "): " + lastLines(R.Output);
  return M;
}

std::string KoptOpt::analyze(const std::string &Source) const {
  eval::ProcessResult R = runAnalyze(Program, Source);
  return R.succeeded() ? R.Output : "";
}

std::string KoptOpt::probe(const std::string &Source, const std::string &Steps,
                           const std::string &Remarks) const {
  eval::ProcessOptions O;
  O.TimeoutSeconds = KoptOptTimeoutSeconds;
  eval::ProcessResult R = eval::runProcess(
      {Program, Source, "--probe", "-passes=" + Steps, "--remarks=" + Remarks},
      O);
  if (!R.succeeded())
    return "";
  return spec::readTextFile(Remarks).value_or("");
}

std::string KoptOpt::identity() const {
  std::error_code EC;
  std::filesystem::path Path(Program);
  auto Size = std::filesystem::file_size(Path, EC);
  if (EC)
    return Program;
  auto Time = std::filesystem::last_write_time(Path, EC);
  if (EC)
    return Program;
  return Program + " " + std::to_string(Size) + " " +
         std::to_string(Time.time_since_epoch().count());
}

} // namespace kopt::search
