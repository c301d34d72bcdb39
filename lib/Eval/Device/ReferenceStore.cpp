//===- ReferenceStore.cpp - The reference's outputs kept on disk ----------===//
#include "ReferenceStore.h"
#include "DeviceData.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace kopt::eval::device {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {
/// What reading an entry back costs per byte, from the page cache through
/// a host buffer to the device; conservative, so `auto` keeps only entries
/// that clearly pay.
constexpr double ReadBackBytesPerSecond = 2e9;
/// And the fixed cost of opening a file and starting the copies.
constexpr double ReadBackFixedMs = 1.0;

std::string key(std::size_t Shape, std::uint64_t Seed) {
  return std::to_string(Shape) + ":" + std::to_string(Seed);
}

/// One output's checksum, tied to its argument index.
std::uint64_t outputChecksum(const void *Data, std::size_t Bytes,
                             std::size_t Arg, cudaStream_t Stream) {
  return checksumOnDevice(Data, Bytes, Stream) ^ codec::mix(Arg);
}
} // namespace

DeviceOutputs allocateOutputs(const ProblemArguments &Args) {
  const spec::Problem &P = Args.problem();
  DeviceOutputs Out(P.Args.size());
  for (std::size_t I = 0; I < P.Args.size(); ++I)
    if (P.Args[I].isOutput())
      Out[I] = DeviceMemory(Args.bytes(I));
  return Out;
}

void copyOutputs(ProblemArguments &Args, DeviceOutputs &Into,
                 cudaStream_t Stream) {
  const spec::Problem &P = Args.problem();
  for (std::size_t I = 0; I < P.Args.size(); ++I)
    if (P.Args[I].isOutput())
      KOPT_CUDA(cudaMemcpyAsync(Into[I].data(), Args.buffer(I).data(),
                                Args.bytes(I), cudaMemcpyDeviceToDevice,
                                Stream));
  KOPT_CUDA(cudaStreamSynchronize(Stream));
}

bool worthKeeping(const std::string &Policy, double ReferenceMs,
                  std::size_t Bytes) {
  if (Policy == "always")
    return true;
  if (Policy != "auto")
    return false;
  return ReferenceMs > ReadBackFixedMs + 1e3 * static_cast<double>(Bytes) /
                                             ReadBackBytesPerSecond;
}

ReferenceStore::ReferenceStore(std::string Path, std::string &Note)
    : ManifestPath(std::move(Path)) {
  std::error_code EC;
  if (!fs::exists(ManifestPath, EC))
    return;
  try {
    std::ifstream In(ManifestPath);
    json J = json::parse(In);
    if (J.value("version", 0) != 1 || !J["entries"].is_object() ||
        !J["writes_all_checked"].is_array())
      throw std::runtime_error("not a version-1 manifest");
    Manifest = std::move(J);
  } catch (const std::exception &E) {
    Note = "the reference cache's manifest " + ManifestPath +
           " is unreadable (" + E.what() +
           "): the reference is recomputed here";
    ManifestPath.clear();
  }
}

ReferenceStore ReferenceStore::create(std::string ManifestPath) {
  ReferenceStore S;
  S.ManifestPath = std::move(ManifestPath);
  return S;
}

std::string ReferenceStore::entryName(std::size_t Shape,
                                      std::uint64_t Seed) const {
  fs::path M(ManifestPath);
  return M.stem().string() + "-shape" + std::to_string(Shape) + "-seed" +
         std::to_string(Seed) + ".bin";
}

bool ReferenceStore::writesAllChecked(std::size_t Shape) const {
  for (const json &S : Manifest["writes_all_checked"])
    if (S.is_number_unsigned() && S.get<std::size_t>() == Shape)
      return true;
  return false;
}

bool ReferenceStore::has(std::size_t Shape, std::uint64_t Seed) const {
  if (!enabled())
    return false;
  auto It = Manifest["entries"].find(key(Shape, Seed));
  return It != Manifest["entries"].end() && It->value("kept", false);
}

bool ReferenceStore::load(std::size_t Shape, std::uint64_t Seed,
                          ProblemArguments &Args, DeviceOutputs &Into,
                          cudaStream_t Stream, std::string &Why) const {
  if (!has(Shape, Seed)) {
    Why = "no entry";
    return false;
  }
  const json &Entry = Manifest["entries"][key(Shape, Seed)];
  fs::path File =
      fs::path(ManifestPath).parent_path() / Entry.value("file", std::string());
  std::ifstream In(File, std::ios::binary);
  if (!In) {
    Why = "cannot open " + File.string();
    return false;
  }
  const spec::Problem &P = Args.problem();
  const json &Sums = Entry["checksums"];
  std::vector<unsigned char> Host;
  for (std::size_t I = 0; I < P.Args.size(); ++I) {
    if (!P.Args[I].isOutput())
      continue;
    Host.resize(Args.bytes(I));
    if (!In.read(reinterpret_cast<char *>(Host.data()),
                 static_cast<std::streamsize>(Host.size()))) {
      Why = File.string() + " is shorter than the outputs";
      return false;
    }
    KOPT_CUDA(cudaMemcpyAsync(Into[I].data(), Host.data(), Host.size(),
                              cudaMemcpyHostToDevice, Stream));
    std::string Name = P.Args[I].Name;
    std::uint64_t Want = Sums.contains(Name) && Sums[Name].is_number_unsigned()
                             ? Sums[Name].get<std::uint64_t>()
                             : 0;
    if (outputChecksum(Into[I].data(), Host.size(), I, Stream) != Want) {
      Why = File.string() + ": output '" + Name + "' fails its checksum";
      return false;
    }
  }
  ++Loaded;
  return true;
}

void ReferenceStore::add(std::size_t Shape, std::uint64_t Seed,
                         ProblemArguments &Args, const DeviceOutputs &Outputs,
                         double ReferenceMs, bool Keep, cudaStream_t Stream) {
  json Entry = {{"reference_ms", ReferenceMs}, {"kept", false}};
  const spec::Problem &P = Args.problem();
  std::size_t Bytes = 0;
  for (std::size_t I = 0; I < P.Args.size(); ++I)
    if (P.Args[I].isOutput())
      Bytes += Args.bytes(I);
  Entry["bytes"] = Bytes;
  if (Keep) {
    std::string Name = entryName(Shape, Seed);
    fs::path File = fs::path(ManifestPath).parent_path() / Name;
    fs::path Aside = File.string() + ".tmp" + std::to_string(getpid());
    json Sums = json::object();
    {
      std::ofstream Out(Aside, std::ios::binary | std::ios::trunc);
      std::vector<unsigned char> Host;
      for (std::size_t I = 0; I < P.Args.size(); ++I) {
        if (!P.Args[I].isOutput())
          continue;
        Host.resize(Args.bytes(I));
        KOPT_CUDA(cudaMemcpyAsync(Host.data(), Outputs[I].data(), Host.size(),
                                  cudaMemcpyDeviceToHost, Stream));
        KOPT_CUDA(cudaStreamSynchronize(Stream));
        Out.write(reinterpret_cast<const char *>(Host.data()),
                  static_cast<std::streamsize>(Host.size()));
        Sums[P.Args[I].Name] =
            outputChecksum(Outputs[I].data(), Host.size(), I, Stream);
      }
      if (!Out)
        throw std::runtime_error("cannot write the reference cache entry " +
                                 Aside.string());
    }
    std::error_code EC;
    fs::rename(Aside, File, EC);
    if (EC)
      throw std::runtime_error("cannot rename " + Aside.string() + " to " +
                               File.string() + ": " + EC.message());
    Entry["kept"] = true;
    Entry["file"] = Name;
    Entry["checksums"] = Sums;
  }
  Manifest["entries"][key(Shape, Seed)] = Entry;
}

void ReferenceStore::markWritesAllChecked(std::size_t Shape) {
  if (!writesAllChecked(Shape))
    Manifest["writes_all_checked"].push_back(Shape);
}

void ReferenceStore::save() const {
  fs::path Aside = ManifestPath + ".tmp" + std::to_string(getpid());
  {
    std::ofstream Out(Aside, std::ios::trunc);
    Out << Manifest.dump(1) << "\n";
    if (!Out)
      throw std::runtime_error("cannot write " + Aside.string());
  }
  std::error_code EC;
  fs::rename(Aside, ManifestPath, EC);
  if (EC)
    throw std::runtime_error("cannot rename " + Aside.string() + ": " +
                             EC.message());
}

} // namespace kopt::eval::device
