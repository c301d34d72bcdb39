//===- kopt-tidy.cpp - kopt's passes as lint checks, clang-tidy style -----===//
//
// kopt-tidy [-p BUILD] [--checks=GLOBS] [--fix] [--export-fixes=FILE]
//           [FILES...] [-- COMPILE COMMAND OR FLAGS]
//
// Reports what each pass would do to each file as clang-tidy reports its
// checks: a warning per rewrite with the pass's edits as fix-its, a note per
// missed opportunity with the reason. Exit codes as clang-tidy: 0 when every
// file was checked (warnings or not), 1 when a file could not be read,
// configured or parsed, a --fix could not be written, or a warning matched
// --warnings-as-errors; 1 also for a bad command line.
//
//===----------------------------------------------------------------------===//

#include "FileRun.h"

#include "kopt/Frontend/CompileFlags.h"
#include "kopt/Passes/BuiltinPasses.h"
#include "kopt/Support/StatusLine.h"
#include "kopt/Tidy/CheckGlob.h"
#include "kopt/Tidy/Checks.h"
#include "kopt/Tidy/Config.h"
#include "kopt/Tidy/Report.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace llvm;
using namespace kopt;

namespace {

cl::OptionCategory Category("kopt-tidy options");

cl::list<std::string> Files(cl::Positional, cl::desc("[<file.cu> ...]"),
                            cl::cat(Category));
cl::opt<std::string>
    BuildDir("p",
             cl::desc("Build directory with compile_commands.json; without "
                      "files, every source in it is checked"),
             cl::value_desc("dir"), cl::cat(Category));
cl::opt<std::string>
    Checks("checks",
           cl::desc("Check globs, appended to the configuration's (e.g. "
                    "'-*,kopt-launch-bounds'); default 'kopt-*'"),
           cl::value_desc("globs"), cl::cat(Category));
cl::opt<std::string> WarningsAsErrors(
    "warnings-as-errors",
    cl::desc("Checks whose warnings are errors (non-zero exit)"),
    cl::value_desc("globs"), cl::cat(Category));
cl::opt<bool> Fix("fix",
                  cl::desc("Apply the fix-its to the files (only edits that "
                           "leave a file that parses are written)"),
                  cl::cat(Category));
cl::opt<std::string>
    ExportFixes("export-fixes",
                cl::desc("Write the diagnostics and fix-its as YAML for "
                         "clang-apply-replacements"),
                cl::value_desc("file.yaml"), cl::cat(Category));
cl::opt<std::string>
    ConfigFile("config-file",
               cl::desc("Use this configuration instead of the .kopt.yaml "
                        "found above each file"),
               cl::value_desc("file"), cl::cat(Category));
cl::opt<bool> DumpConfig(
    "dump-config",
    cl::desc("Print the effective configuration (for the first file, or the "
             "current directory) and exit"),
    cl::cat(Category));
cl::opt<bool> ListChecks("list-checks",
                         cl::desc("List the enabled checks and exit"),
                         cl::cat(Category));
cl::opt<unsigned> Jobs("j",
                       cl::desc("Files checked at once (default 0: one per "
                                "hardware thread)"),
                       cl::value_desc("n"), cl::init(0), cl::cat(Category));
cl::opt<bool> Quiet("quiet", cl::desc("Print no summary line and no progress"),
                    cl::cat(Category));
cl::opt<bool> ShowMissed(
    "show-missed",
    cl::desc("Also print what each check could not do, and why, as notes "
             "(default: off, or the configuration's ShowMissed)"),
    cl::cat(Category));
cl::opt<std::string> GpuArch("arch",
                             cl::desc("GPU arch kernel bodies are parsed for "
                                      "(default: the compile command's, the "
                                      "configuration's, then sm_90)"),
                             cl::value_desc("sm_XX"), cl::cat(Category));
cl::opt<std::string> CudaPath("cuda-path",
                              cl::desc("CUDA installation (default: "
                                       "$CUDA_PATH, then /usr/local/cuda)"),
                              cl::value_desc("dir"), cl::cat(Category));
cl::opt<std::string> ResourceDir("resource-dir",
                                 cl::desc("Clang resource directory"),
                                 cl::value_desc("dir"), cl::cat(Category));
cl::list<std::string> ExtraArg("extra-arg",
                               cl::desc("Clang flag to append to each command"),
                               cl::value_desc("flag"), cl::cat(Category));
cl::list<std::string>
    ExtraArgBefore("extra-arg-before",
                   cl::desc("Clang flag to prepend to each command"),
                   cl::value_desc("flag"), cl::cat(Category));

int fail(const Twine &Message) {
  WithColor::error(errs(), "kopt-tidy") << Message << "\n";
  return 1;
}

std::string absolute(StringRef Path) {
  SmallString<256> Abs(Path);
  sys::fs::make_absolute(Abs);
  sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  return std::string(Abs);
}

/// CMake's clang-tidy launcher adds --extra-arg-before=--driver-mode=g++;
/// kopt always parses CUDA, so driver modes are dropped.
std::vector<std::string> withoutDriverMode(const std::vector<std::string> &A) {
  std::vector<std::string> Out;
  for (const std::string &S : A)
    if (!StringRef(S).starts_with("--driver-mode="))
      Out.push_back(S);
  return Out;
}

/// Flags after `--`: a whole compile command (nvcc, clang, gcc...) or bare
/// flags, translated the way compile databases are.
TranslatedFlags translateFixed(const std::vector<std::string> &Fixed,
                               StringRef File) {
  std::vector<std::string> Argv = Fixed;
  if (Argv.empty() || StringRef(Argv.front()).starts_with("-"))
    Argv.insert(Argv.begin(), "clang++");
  SmallString<256> Cwd;
  sys::fs::current_path(Cwd);
  return translateCompileCommand(Argv, File, Cwd);
}

int printConfig(const PassRegistry &Registry) {
  std::string Where = Files.empty() ? "." : Files.front();
  Expected<TidyConfig> Config =
      ConfigFile.empty() ? findConfig(absolute(Where)) : readConfig(ConfigFile);
  if (!Config)
    return fail(toString(Config.takeError()));
  if (Error E = validateCheckOptions(Registry, Config->CheckOptions))
    return fail(toString(std::move(E)));
  if (!Checks.empty())
    Config->Checks =
        Config->Checks.value_or(DefaultChecks.str()) + "," + Checks.getValue();
  if (DumpConfig) {
    for (const std::string &S : Config->Sources)
      outs() << "# from " << S << "\n";
    outs() << dumpConfig(*Config);
    return 0;
  }
  CheckGlob Enabled(Config->Checks.value_or(DefaultChecks.str()));
  outs() << "Enabled checks:\n";
  for (const PassSpec &Spec : Registry.passes())
    if (Enabled.contains(checkName(Spec)))
      outs() << "    " << checkName(Spec) << "\n";
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  std::vector<const char *> OwnArgs;
  std::vector<std::string> FixedArgs;
  bool HasFixed = false;
  for (int I = 0; I < argc; ++I) {
    if (HasFixed)
      FixedArgs.push_back(argv[I]);
    else if (StringRef(argv[I]) == "--")
      HasFixed = true;
    else
      OwnArgs.push_back(argv[I]);
  }
  cl::HideUnrelatedOptions(Category);
  static const std::string Help =
      "\nChecks (one per pass; options are the pass's parameters in "
      "CamelCase):\n" +
      [] {
        std::string S;
        for (const PassSpec &Spec : builtinPasses().passes()) {
          S += "  " + checkName(Spec);
          for (const ParamSpec &P : Spec.Params)
            S += (P.Key == Spec.Params.front().Key ? "  " : ", ") +
                 optionName(P.Key) + "=" + checkDefault(Spec, P).str();
          S += "\n";
        }
        return S;
      }() +
      "\nConfiguration: the nearest .kopt.yaml above each file "
      "(docs/kopt-tidy.md).\nExit codes: 0 checked (with or without "
      "warnings), 1 a file failed, a warning was an error, or bad usage.\n";
  static cl::extrahelp ExtraHelp(Help.c_str());
  std::string ErrorText;
  raw_string_ostream ErrorStream(ErrorText);
  if (!cl::ParseCommandLineOptions(
          OwnArgs.size(), OwnArgs.data(),
          "kopt-tidy: kopt's passes as lint checks, with fix-its\n\n"
          "  kopt-tidy [-p BUILD] [options] [FILES...] [-- COMMAND]\n",
          &ErrorStream)) {
    errs() << ErrorText;
    return 1;
  }
  const PassRegistry &Registry = builtinPasses();
  if (DumpConfig || ListChecks)
    return printConfig(Registry);

  std::vector<FileJob> JobsList;
  std::vector<std::string> Paths(Files.begin(), Files.end());
  if (Paths.empty()) {
    if (BuildDir.empty())
      return fail("no input files (and no -p BUILD to take them from)");
    Expected<std::vector<std::string>> All = compileDatabaseFiles(BuildDir);
    if (!All)
      return fail(toString(All.takeError()));
    for (const std::string &F : *All)
      if (StringRef(F).ends_with(".cu") || StringRef(F).ends_with(".cuh"))
        Paths.push_back(F);
    if (Paths.empty())
      return fail(BuildDir + "/compile_commands.json has no .cu file");
  }
  for (const std::string &P : Paths) {
    FileJob Job;
    Job.Path = absolute(P);
    SmallString<256> Cwd;
    sys::fs::current_path(Cwd);
    Job.BuildDirectory = std::string(Cwd);
    if (HasFixed) {
      TranslatedFlags T = translateFixed(FixedArgs, Job.Path);
      Job.ClangArgs = T.ClangArgs;
      Job.GpuArch = T.GpuArch;
    } else if (!BuildDir.empty() && !sys::fs::exists(Job.Path)) {
      // A named file that is missing is that file's error (runFile); one
      // the database names is the database's.
      if (Files.empty())
        return fail("'" + Job.Path + "' (from " + BuildDir +
                    "/compile_commands.json) does not exist");
    } else if (!BuildDir.empty()) {
      Expected<TranslatedFlags> T = loadCompileFlags(BuildDir, Job.Path);
      if (!T)
        return fail(toString(T.takeError()));
      Job.ClangArgs = T->ClangArgs;
      Job.GpuArch = T->GpuArch;
      Job.BuildDirectory = absolute(BuildDir);
    }
    JobsList.push_back(std::move(Job));
  }

  TidySettings S;
  S.Registry = &Registry;
  S.ChecksOverride = Checks;
  if (WarningsAsErrors.getNumOccurrences())
    S.WarningsAsErrors = WarningsAsErrors.getValue();
  S.ConfigFile = ConfigFile;
  S.GpuArch = GpuArch;
  if (!S.GpuArch.empty() && !StringRef(S.GpuArch).starts_with("sm_"))
    return fail("--arch expects sm_XX, got '" + S.GpuArch + "'");
  S.CudaPath = CudaPath;
  S.ResourceDir =
      resolveResourceDir(ResourceDir, argv[0], reinterpret_cast<void *>(&fail));
  if (!sys::fs::is_directory(S.ResourceDir))
    return fail("clang resource directory '" + S.ResourceDir +
                "' not found; pass --resource-dir");
  S.ArgsBefore = withoutDriverMode(ExtraArgBefore);
  S.ArgsAfter = withoutDriverMode(ExtraArg);
  S.Fix = Fix;
  S.ShowMissed = ShowMissed;
  S.Export = !ExportFixes.empty();

  std::vector<FileOutcome> Outcomes(JobsList.size());
  {
    // Progress over several files, on stderr (the findings go to stdout,
    // in the files' order, once all are checked).
    StatusLine Progress(JobsList.size() > 1 && !Quiet ? stderr : nullptr);
    std::mutex ProgressMutex;
    size_t Checked = 0;
    DefaultThreadPool Pool(Jobs == 0 ? hardware_concurrency()
                                     : heavyweight_hardware_concurrency(Jobs));
    for (size_t I = 0; I < JobsList.size(); ++I)
      Pool.async([&, I] {
        Outcomes[I] = runFile(JobsList[I], S);
        std::lock_guard<std::mutex> Lock(ProgressMutex);
        std::string Text =
            formatv("kopt-tidy: checked {0}/{1}: {2}: {3}", ++Checked,
                    JobsList.size(), JobsList[I].Path,
                    Outcomes[I].Failed
                        ? std::string("not checked")
                        : formatv("{0} warnings", Outcomes[I].Warnings).str())
                .str();
        Progress.show(Text, Text);
      });
    Pool.wait();
    Progress.finish();
  }

  unsigned Warnings = 0, AsErrors = 0, Notes = 0, Failed = 0, Fixed = 0;
  std::vector<Finding> All;
  std::vector<bool> AllAsError;
  for (FileOutcome &O : Outcomes) {
    outs() << O.Diagnostics;
    Warnings += O.Warnings;
    AsErrors += O.WarningsAsErrors;
    Notes += O.Notes;
    Failed += O.Failed;
    Fixed += O.FixesApplied;
    append_range(All, std::move(O.Findings));
    append_range(AllAsError, O.AsError);
  }
  outs().flush();

  int Exit = (Failed || AsErrors) ? 1 : 0;
  if (!ExportFixes.empty()) {
    std::string Yaml = exportFixesYaml(
        All, JobsList.size() == 1 ? JobsList.front().Path : "",
        JobsList.empty() ? "" : JobsList.front().BuildDirectory,
        [&](const Finding &F) { return AllAsError[&F - All.data()]; });
    std::error_code EC;
    raw_fd_ostream OS(ExportFixes, EC, sys::fs::OF_Text);
    if (EC)
      return fail("cannot write '" + ExportFixes + "': " + EC.message());
    OS << Yaml;
  }
  if (!Quiet)
    errs() << formatv(
        "kopt-tidy: {0} file(s), {1} warning(s){2}, {3} "
        "note(s){4}{5}\n",
        JobsList.size(), Warnings + AsErrors,
        AsErrors ? formatv(" ({0} as errors)", AsErrors).str() : std::string(),
        Notes,
        Failed ? formatv(", {0} file(s) failed", Failed).str() : std::string(),
        Fixed ? formatv(", {0} fix-it edit(s) applied", Fixed).str()
              : std::string());
  return Exit;
}
