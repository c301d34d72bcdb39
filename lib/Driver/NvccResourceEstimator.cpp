//===- NvccResourceEstimator.cpp - Registers and spills from ptxas --------===//

#include "kopt/Driver/NvccResourceEstimator.h"
#include "kopt/Eval/Compiler.h"
#include "kopt/Eval/Process.h"
#include "kopt/Eval/ResourceUsage.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace kopt {

NvccResourceEstimator::NvccResourceEstimator(std::string Given)
    : Nvcc(std::move(Given)), Searched(Nvcc.empty()) {
  if (Searched)
    Nvcc = eval::findNvcc();
}

std::optional<std::string> NvccResourceEstimator::unavailable() const {
  if (Nvcc.empty())
    return std::string("no nvcc found ($KOPT_NVCC, $CUDA_PATH/bin, PATH, "
                       "/usr/local/cuda/bin)");
  if (!sys::fs::can_execute(Nvcc))
    return "no nvcc at '" + Nvcc + "'";
  return std::nullopt;
}

Expected<ResourceReport> NvccResourceEstimator::estimate(StringRef Path,
                                                         StringRef Code,
                                                         StringRef Arch) {
  SmallString<256> IncludeDir(Path);
  sys::fs::make_absolute(IncludeDir);
  sys::path::remove_filename(IncludeDir);
  std::string Key = (Arch + "\n" + IncludeDir + "\n" + Code).str();
  {
    std::lock_guard<std::mutex> Lock(CacheMutex);
    auto It = Cache.find(Key);
    if (It != Cache.end())
      return It->second;
  }
  Expected<ResourceReport> R = compile(Path, Code, Arch);
  if (R) {
    std::lock_guard<std::mutex> Lock(CacheMutex);
    Cache.emplace(std::move(Key), *R);
  }
  return R;
}

Expected<ResourceReport>
NvccResourceEstimator::compile(StringRef Path, StringRef Code, StringRef Arch) {
  if (std::optional<std::string> Why = unavailable())
    return createStringError(inconvertibleErrorCode(), *Why);
  SmallString<128> Dir;
  if (std::error_code EC =
          sys::fs::createUniqueDirectory("kopt-resources", Dir))
    return createStringError(EC, "cannot create a temporary directory");
  SmallString<256> Source(Dir), Cubin(Dir);
  sys::path::append(Source, "source.cu");
  sys::path::append(Cubin, "source.cubin");
  {
    std::error_code EC;
    raw_fd_ostream OS(Source, EC);
    if (EC) {
      sys::fs::remove_directories(Dir);
      return createStringError(EC, "cannot write " + Source);
    }
    OS << Code;
  }
  SmallString<256> IncludeDir(Path);
  sys::fs::make_absolute(IncludeDir);
  sys::path::remove_filename(IncludeDir);
  if (IncludeDir.empty())
    IncludeDir = ".";
  eval::ProcessOptions Options;
  Options.TimeoutSeconds = 300;
  std::vector<std::string> Argv = {Nvcc,
                                   "-arch=" + Arch.str(),
                                   "-std=c++17",
                                   "-cubin",
                                   "-Xptxas",
                                   "-v",
                                   "-I",
                                   IncludeDir.str().str(),
                                   "-o",
                                   Cubin.str().str(),
                                   Source.str().str()};
  eval::ProcessResult R = eval::runProcess(Argv, Options);
  ++Compilations;
  sys::fs::remove_directories(Dir);
  if (!R.succeeded()) {
    std::string First;
    for (StringRef Line : split(StringRef(R.Output).trim(), '\n'))
      if (Line.contains("error")) {
        First = Line.trim().str();
        break;
      }
    if (First.empty())
      First = R.StartError.empty() ? R.describeEnd() : R.StartError;
    return createStringError(inconvertibleErrorCode(), First);
  }
  eval::ResourceUsage Usage;
  eval::parsePtxasLog(R.Output, Usage);
  ResourceReport Report;
  for (const eval::KernelResources &K : Usage.Kernels) {
    KernelResources Out;
    Out.Name = K.Name;
    Out.Registers = K.Registers < 0 ? 0 : unsigned(K.Registers);
    Out.SharedBytes = K.SharedBytes;
    Out.StackFrameBytes = K.StackFrameBytes;
    Out.SpillStoreBytes = K.SpillStoreBytes;
    Out.SpillLoadBytes = K.SpillLoadBytes;
    Report.Kernels.push_back(std::move(Out));
  }
  return Report;
}

} // namespace kopt
