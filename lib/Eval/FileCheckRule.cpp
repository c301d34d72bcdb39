//===- FileCheckRule.cpp - A problem's FileCheck patterns -----------------===//
#include "kopt/Eval/FileCheckRule.h"
#include "kopt/Eval/Process.h"

#include <cstdlib>
#include <fstream>

namespace kopt::eval {

namespace fs = std::filesystem;

std::string findFileCheck() {
  if (const char *Env = std::getenv("KOPT_FILECHECK");
      Env && isExecutableFile(Env))
    return Env;
  std::string Beside =
      (fs::path(currentExecutable()).parent_path() / "kopt-filecheck").string();
  if (isExecutableFile(Beside))
    return Beside;
  for (const char *Name : {"kopt-filecheck", "FileCheck", "FileCheck-22"})
    if (std::string Found = findOnPath(Name); !Found.empty())
      return Found;
  if (isExecutableFile("/usr/lib/llvm-22/bin/FileCheck"))
    return "/usr/lib/llvm-22/bin/FileCheck";
  return "";
}

const char *fileCheckInputName(spec::FileCheckSpec::Input Input) {
  switch (Input) {
  case spec::FileCheckSpec::Input::Sass:
    return "sass";
  case spec::FileCheckSpec::Input::Ptx:
    return "ptx";
  case spec::FileCheckSpec::Input::Ptxas:
    break;
  }
  return "ptxas";
}

std::optional<std::string> runFileCheck(const std::string &Tool,
                                        const spec::Problem &P,
                                        const spec::FileCheckSpec &Check,
                                        const std::string &Text,
                                        const fs::path &InputFile) {
  {
    std::ofstream Out(InputFile, std::ios::binary);
    Out << Text;
    if (!Out)
      return "cannot write " + InputFile.string();
  }
  std::vector<std::string> Command = {
      Tool, fs::absolute(P.Directory / Check.File).string(), "--input-file",
      InputFile.string()};
  for (const std::string &Prefix : Check.Prefixes)
    Command.push_back("--check-prefix=" + Prefix);
  ProcessOptions Options;
  Options.TimeoutSeconds = 60;
  ProcessResult R = runProcess(Command, Options);
  if (R.succeeded())
    return std::nullopt;
  if (!R.Started || R.TimedOut || R.Signal)
    return Tool + " " + R.describeEnd() + ": " + R.Output;
  return R.Output;
}

} // namespace kopt::eval
