//===- NvccResourceEstimator.cpp - Registers and spills from ptxas --------===//

#include "kopt/Driver/NvccResourceEstimator.h"
#include "kopt/Eval/CompileCache.h"
#include "kopt/Eval/Compiler.h"
#include "kopt/Eval/DeviceProbe.h"
#include "kopt/Eval/Process.h"
#include "kopt/Eval/ReferenceCache.h"
#include "kopt/Eval/ResourceUsage.h"
#include "kopt/Eval/Sha256.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

using namespace llvm;

namespace kopt {

namespace {

/// What makes ptxas report: with the language flags, the whole compile.
constexpr const char *ReportFlags = "-cubin -Xptxas -v";

json::Value toJSON(const ResourceReport &R) {
  json::Array Kernels;
  for (const KernelResources &K : R.Kernels)
    Kernels.push_back(json::Object{{"name", K.Name},
                                   {"registers", K.Registers},
                                   {"shared", K.SharedBytes},
                                   {"stack", K.StackFrameBytes},
                                   {"spill_stores", K.SpillStoreBytes},
                                   {"spill_loads", K.SpillLoadBytes}});
  return json::Object{{"kernels", std::move(Kernels)}};
}

std::optional<ResourceReport> fromJSON(StringRef Text) {
  Expected<json::Value> V = json::parse(Text);
  if (!V) {
    consumeError(V.takeError());
    return std::nullopt;
  }
  const json::Object *O = V->getAsObject();
  const json::Array *Kernels = O ? O->getArray("kernels") : nullptr;
  if (!Kernels)
    return std::nullopt;
  ResourceReport R;
  for (const json::Value &KV : *Kernels) {
    const json::Object *K = KV.getAsObject();
    if (!K)
      return std::nullopt;
    std::optional<StringRef> Name = K->getString("name");
    std::optional<int64_t> Regs = K->getInteger("registers"),
                           Shared = K->getInteger("shared"),
                           Stack = K->getInteger("stack"),
                           Stores = K->getInteger("spill_stores"),
                           Loads = K->getInteger("spill_loads");
    if (!Name || !Regs || !Shared || !Stack || !Stores || !Loads)
      return std::nullopt;
    KernelResources Out;
    Out.Name = Name->str();
    Out.Registers = unsigned(*Regs);
    Out.SharedBytes = *Shared;
    Out.StackFrameBytes = *Stack;
    Out.SpillStoreBytes = *Stores;
    Out.SpillLoadBytes = *Loads;
    R.Kernels.push_back(std::move(Out));
  }
  return R;
}

} // namespace

std::string NvccResourceEstimator::diskCacheDir() {
  SmallString<256> Dir(eval::defaultCacheDir());
  sys::path::append(Dir, "resources");
  return Dir.str().str();
}

std::string NvccResourceEstimator::diskKey(ArrayRef<std::string> Language,
                                           StringRef Source,
                                           StringRef Work) const {
  SmallString<256> Out(Work);
  sys::path::append(Out, "source.ii");
  // The compile's language flags with -E: the device-side text, since
  // -arch names one device pass (__CUDA_ARCH__ defined, as in the cubin's).
  std::vector<std::string> Pre = {Nvcc, "-E", "-x", "cu"};
  Pre.insert(Pre.end(), Language.begin(), Language.end());
  Pre.insert(Pre.end(), {Source.str(), "-o", Out.str().str()});
  eval::ProcessOptions Options;
  Options.TimeoutSeconds = 120;
  if (!eval::runProcess(Pre, Options).succeeded())
    return "";
  ErrorOr<std::unique_ptr<MemoryBuffer>> Text = MemoryBuffer::getFile(Out);
  if (!Text || (*Text)->getBufferSize() == 0)
    return "";
  SmallString<256> Ptxas(Nvcc);
  sys::path::remove_filename(Ptxas);
  sys::path::append(Ptxas, "ptxas");
  std::string Key = "kopt resources 1";
  for (const std::string &Part :
       {eval::programIdentity(Nvcc), eval::programIdentity(Ptxas.str().str()),
        eval::environmentIdentity(), join(Language, " "),
        std::string(ReportFlags)})
    Key += '\0' + Part;
  return eval::sha256Hex(Key + '\0' +
                         eval::withoutLineMarkers((*Text)->getBuffer().str()));
}

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
  // The language (also the disk key's preprocessing), then the report's.
  std::vector<std::string> Language = {"-arch=" + Arch.str(), "-std=c++17",
                                       "-I", IncludeDir.str().str()};
  std::vector<std::string> Argv = {Nvcc};
  Argv.insert(Argv.end(), Language.begin(), Language.end());
  for (StringRef Flag : split(ReportFlags, ' '))
    Argv.push_back(Flag.str());
  Argv.insert(Argv.end(), {"-o", Cubin.str().str(), Source.str().str()});
  std::string DiskKey = diskKey(Language, Source, Dir);
  SmallString<256> Entry(diskCacheDir());
  sys::path::append(Entry, DiskKey + ".json");
  if (!DiskKey.empty())
    if (ErrorOr<std::unique_ptr<MemoryBuffer>> Kept =
            MemoryBuffer::getFile(Entry))
      if (std::optional<ResourceReport> Hit = fromJSON((*Kept)->getBuffer())) {
        sys::fs::remove_directories(Dir);
        return *Hit;
      }
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
  if (!DiskKey.empty()) {
    // Written whole under a name of this process, then renamed: a reader
    // sees the entry or none. Failing to store is not an error.
    std::string Tmp = (Entry + ".tmp" + Twine(getpid())).str();
    std::error_code EC = sys::fs::create_directories(diskCacheDir());
    if (!EC) {
      raw_fd_ostream OS(Tmp, EC);
      if (!EC) {
        OS << toJSON(Report);
        OS.close();
        if (OS.has_error() || sys::fs::rename(Tmp, Entry))
          sys::fs::remove(Tmp);
        else
          eval::pruneKeyedFiles(
              diskCacheDir(),
              eval::cacheMaxBytes("KOPT_RESOURCE_CACHE_MAX_MB", 16));
      }
    }
  }
  return Report;
}

} // namespace kopt
