//===- Compiler.cpp - nvcc into loadable shared objects -------------------===//
#include "kopt/Eval/Compiler.h"
#include "kopt/Eval/CompileCache.h"
#include "kopt/Eval/Process.h"
#include "kopt/Eval/Sha256.h"
#include "kopt/Eval/Shim.h"
#include "kopt/Spec/ProblemValidator.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

extern char **environ;

namespace kopt::eval {

namespace fs = std::filesystem;

namespace {

/// Link flags for the vendor libraries a problem allows.
std::vector<std::string> libraryFlags(const spec::Problem &P) {
  std::vector<std::string> Flags;
  for (const std::string &Lib : P.AllowLibraries) {
    if (Lib == "cublas")
      Flags.insert(Flags.end(), {"-lcublas", "-lcublasLt"});
    else if (Lib == "cublaslt")
      Flags.push_back("-lcublasLt");
    else if (Lib == "cudnn")
      Flags.push_back("-lcudnn");
    else if (Lib == "cufft")
      Flags.push_back("-lcufft");
    else if (Lib == "curand")
      Flags.push_back("-lcurand");
    else if (Lib == "cusparse")
      Flags.push_back("-lcusparse");
    else if (Lib == "cusolver")
      Flags.push_back("-lcusolver");
  }
  return Flags;
}

/// Runs cuobjdump over the library: SASS for the rules and resources.
void inspectSass(CompileResult &Result, const CompileOptions &Options) {
  ProcessOptions Dump;
  Dump.TimeoutSeconds = 120;
  Dump.MaxCapturedBytes = 64 << 20;
  ProcessResult Sass =
      runProcess({Options.Cuobjdump, "-sass", Result.LibraryPath}, Dump);
  if (Sass.succeeded()) {
    Result.Sass = Sass.Output;
    Result.SassInspected = true;
    parseSass(Result.Sass, Result.Resources);
  } else if (Sass.Started && !Sass.TimedOut &&
             Sass.Output.find("does not contain device code") !=
                 std::string::npos) {
    Result.SassInspected = true; // nothing to inspect
  }
}

/// The key of a compile: everything the library depends on. The shim names
/// the kernel by its path; the path is replaced, the source's content is in
/// the digest.
std::string cacheKey(const std::string &Shim, const std::string &KernelPath,
                     const std::vector<std::string> &Flags,
                     const CompileOptions &Options) {
  std::string ShimText = Shim;
  for (std::size_t At; (At = ShimText.find(KernelPath)) != std::string::npos;)
    ShimText.replace(At, KernelPath.size(), "<kernel>");
  std::string Material = "kopt-compile-cache 1\n" + Options.Nvcc + "\n" +
                         Options.Toolchain + "\n" + Options.Arch + "\n";
  for (const std::string &F : Flags)
    Material += F + "\n";
  Material += "--\n" + ShimText + "--\n" + Options.SourceDigest;
  return sha256Hex(Material);
}
} // namespace

std::string archForComputeCapability(int Major, int Minor) {
  std::string Arch = "sm_" + std::to_string(Major * 10 + Minor);
  if (Major >= 9)
    Arch += "a";
  return Arch;
}

std::vector<std::string> evaluationFlags(const spec::Problem &P,
                                         const CompileOptions &Options) {
  std::string Arch = Options.Arch;
  std::string Virtual = "compute_" + Arch.substr(Arch.find('_') + 1);
  std::vector<std::string> Flags = {
      "-O3", "-std=c++17", "-gencode=arch=" + Virtual + ",code=" + Arch,
      "-Xptxas", "-v", "-lineinfo",
      // One cudart shared by kopt-bench, the reference and the candidate:
      // one runtime state, one legacy default stream.
      "-cudart", "shared", "-shared", "-Xcompiler", "-fPIC,-fvisibility=hidden",
      // Each library resolves its own symbols first, so the reference and a
      // candidate with the same function names can be loaded side by side.
      "-Xlinker", "-Bsymbolic"};
  if (P.FastMath)
    Flags.push_back("--use_fast_math");
  Flags.push_back("-I" + fs::absolute(P.Directory).string());
  for (const std::string &F : P.NvccFlags)
    Flags.push_back(F);
  for (const std::string &F : libraryFlags(P))
    Flags.push_back(F);
  return Flags;
}

CompileResult compileEntryLibrary(const spec::Problem &P,
                                  const fs::path &KernelSource,
                                  const fs::path &WorkDir,
                                  const std::string &Stem,
                                  const CompileOptions &Options) {
  CompileResult Result;
  std::error_code EC;
  fs::create_directories(WorkDir, EC);
  fs::path Shim = WorkDir / (Stem + ".shim.cu");
  fs::path Library = WorkDir / (Stem + ".so");
  std::string ShimText = generateShim(P, KernelSource);
  {
    std::ofstream Out(Shim);
    Out << ShimText;
    if (!Out) {
      Result.Log = "cannot write " + Shim.string();
      return Result;
    }
  }
  Result.ShimPath = Shim.string();
  Result.LibraryPath = Library.string();
  std::vector<std::string> Flags = evaluationFlags(P, Options);
  Result.Command.push_back(Options.Nvcc);
  Result.Command.insert(Result.Command.end(), Flags.begin(), Flags.end());
  Result.Command.insert(Result.Command.end(),
                        {"-o", Library.string(), Shim.string()});

  if (Options.Cache && !Options.SourceDigest.empty()) {
    Result.CacheKey =
        cacheKey(ShimText, fs::absolute(KernelSource).string(), Flags, Options);
    if (Options.Cache->restore(Result.CacheKey, Result)) {
      if (!Result.SassInspected && !Options.Cuobjdump.empty())
        inspectSass(Result, Options);
      return Result;
    }
  }

  ProcessOptions Run;
  Run.TimeoutSeconds = Options.TimeoutSeconds;
  ProcessResult Compile = runProcess(Result.Command, Run);
  Result.Log = Compile.Output;
  Result.Seconds = Compile.Seconds;
  if (!Compile.succeeded()) {
    if (!Compile.Started || Compile.TimedOut || Compile.Signal)
      Result.Log += "\nnvcc " + Compile.describeEnd();
    return Result;
  }
  Result.Ok = true;
  parsePtxasLog(Result.Log, Result.Resources);
  if (!Options.Cuobjdump.empty())
    inspectSass(Result, Options);
  if (!Result.CacheKey.empty())
    Options.Cache->store(Result.CacheKey, Result);
  return Result;
}

namespace {

/// Runs \p Command, which writes \p Out; the text of \p Out, or the log
/// with what went wrong (\p What names the step).
PreprocessResult runToText(const std::vector<std::string> &Command,
                           const fs::path &Out, double TimeoutSeconds,
                           const std::string &What) {
  PreprocessResult Result;
  ProcessOptions Run;
  Run.TimeoutSeconds = TimeoutSeconds;
  ProcessResult R = runProcess(Command, Run);
  Result.Log = R.Output;
  if (!R.succeeded()) {
    Result.Log += "\n" + What + " " + R.describeEnd();
    return Result;
  }
  auto Text = spec::readTextFile(Out);
  if (!Text) {
    Result.Log += "\ncannot read " + Out.string();
    return Result;
  }
  Result.Ok = true;
  Result.Text = std::move(*Text);
  return Result;
}

} // namespace

PreprocessResult compilePtx(const spec::Problem &P, const fs::path &Source,
                            const fs::path &WorkDir, const std::string &Stem,
                            const CompileOptions &Options) {
  std::string Arch = Options.Arch;
  std::string Virtual = "compute_" + Arch.substr(Arch.find('_') + 1);
  fs::path Out = WorkDir / (Stem + ".ptx");
  std::vector<std::string> Command = {Options.Nvcc,
                                      "-ptx",
                                      "-O3",
                                      "-std=c++17",
                                      "-arch=" + Virtual,
                                      "-lineinfo",
                                      "-I" +
                                          fs::absolute(P.Directory).string()};
  if (P.FastMath)
    Command.push_back("--use_fast_math");
  for (const std::string &F : P.NvccFlags)
    Command.push_back(F);
  Command.insert(Command.end(), {Source.string(), "-o", Out.string()});
  return runToText(Command, Out, Options.TimeoutSeconds, "nvcc -ptx");
}

PreprocessResult
preprocessSource(const spec::Problem &P, const fs::path &Source,
                 const fs::path &WorkDir, const std::string &Stem,
                 const CompileOptions &Options, bool HostPass) {
  std::string Arch = Options.Arch;
  std::string Virtual = "compute_" + Arch.substr(Arch.find('_') + 1);
  fs::path Out = WorkDir / (Stem + (HostPass ? ".host.ii" : ".device.ii"));
  std::vector<std::string> Command = {
      Options.Nvcc,
      "-E",
      "-x",
      "cu",
      "-std=c++17",
      "-gencode=arch=" + Virtual + ",code=" + Arch,
      "-I" + fs::absolute(P.Directory).string()};
  if (P.FastMath)
    Command.push_back("--use_fast_math");
  for (const std::string &F : P.NvccFlags)
    Command.push_back(F);
  if (HostPass)
    for (const char *Macro : {"__CUDA_ARCH__", "__CUDA_ARCH_SPECIFIC__",
                              "__CUDA_ARCH_FAMILY_SPECIFIC__"})
      Command.push_back(std::string("-U") + Macro);
  Command.insert(Command.end(), {Source.string(), "-o", Out.string()});
  return runToText(Command, Out, Options.TimeoutSeconds, "nvcc -E");
}

std::vector<std::string> toolkitDirectories(const std::string &Nvcc) {
  std::vector<std::string> Dirs;
  std::error_code EC;
  fs::path Bin = fs::path(Nvcc).parent_path();
  for (fs::path Root :
       {Bin.parent_path(), fs::weakly_canonical(Bin, EC).parent_path()}) {
    if (Root.empty())
      continue;
    Dirs.push_back(Root.lexically_normal().string());
    fs::path Canonical = fs::weakly_canonical(Root, EC);
    if (!EC)
      Dirs.push_back(Canonical.string());
  }
  return Dirs;
}

std::string nvccVersion(const std::string &Nvcc) {
  ProcessOptions Options;
  Options.TimeoutSeconds = 60;
  ProcessResult R = runProcess({Nvcc, "--version"}, Options);
  std::istringstream In(R.Output);
  std::string Line, Release;
  while (std::getline(In, Line))
    if (Line.find("release") != std::string::npos)
      Release = Line;
  return Release;
}

std::string sourceDigest(const std::string &DevicePass,
                         const std::string &HostPass) {
  return sha256Hex("device\n" + withoutLineMarkers(DevicePass) + "host\n" +
                   withoutLineMarkers(HostPass));
}

std::string toolchainIdentity(const std::string &NvccVersion) {
  std::string Identity = NvccVersion + "\n";
  ProcessOptions Options;
  Options.TimeoutSeconds = 60;
  ProcessResult Host = runProcess({"g++", "--version"}, Options);
  Identity += Host.Output.substr(0, Host.Output.find('\n'));
  return Identity;
}

std::string findNvcc() {
  if (const char *Env = std::getenv("KOPT_NVCC"); Env && isExecutableFile(Env))
    return Env;
  if (const char *Cuda = std::getenv("CUDA_PATH"))
    if (isExecutableFile((fs::path(Cuda) / "bin" / "nvcc").string()))
      return (fs::path(Cuda) / "bin" / "nvcc").string();
  if (std::string OnPath = findOnPath("nvcc"); !OnPath.empty())
    return OnPath;
  if (isExecutableFile("/usr/local/cuda/bin/nvcc"))
    return "/usr/local/cuda/bin/nvcc";
  return "";
}

std::string programIdentity(const std::string &Program) {
  std::error_code EC;
  fs::path Path = fs::canonical(Program, EC);
  if (EC)
    return Program;
  auto Size = fs::file_size(Path, EC);
  auto Time = fs::last_write_time(Path, EC);
  return Path.string() + "\n" + std::to_string(EC ? 0 : Size) + "\n" +
         std::to_string(EC ? 0 : Time.time_since_epoch().count());
}

std::string environmentIdentity() {
  std::map<std::string, std::string> Vars;
  for (char **E = environ; E && *E; ++E) {
    std::string Var = *E;
    std::string Name = Var.substr(0, Var.find('='));
    if (Name != "PWD" && Name != "OLDPWD" && Name != "SHLVL" && Name != "_")
      Vars[Name] = Var;
  }
  std::string Id;
  for (const auto &[Name, Var] : Vars)
    Id += '\0' + Var;
  return Id;
}

std::string findCuobjdump(const std::string &Nvcc) {
  if (!Nvcc.empty()) {
    fs::path Beside = fs::path(Nvcc).parent_path() / "cuobjdump";
    if (isExecutableFile(Beside.string()))
      return Beside.string();
  }
  return findOnPath("cuobjdump");
}

} // namespace kopt::eval
