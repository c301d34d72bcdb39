//===- KoptOpt.cpp - The passes, through the kopt-opt program -------------===//
#include "kopt/Search/KoptOpt.h"

#include "kopt/Eval/Process.h"
#include "kopt/Spec/ProblemValidator.h"

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

} // namespace kopt::search
