//===- DeviceVariables.cpp - The candidate's device variables -------------===//
#include "DeviceVariables.h"

#include "DeviceSupport.h"

#include "kopt/Eval/DeviceNames.h"
#include "kopt/Eval/ElfSection.h"
#include "kopt/Eval/ObjectRules.h"

#include <fstream>
#include <iterator>
#include <stdexcept>

namespace kopt::eval::device {

std::vector<DeviceVariable> findDeviceVariables(const std::string &LibraryPath,
                                                std::uintptr_t Base) {
  std::vector<DeviceVariable> Out;
  std::ifstream In(LibraryPath, std::ios::binary);
  std::string File((std::istreambuf_iterator<char>(In)),
                   std::istreambuf_iterator<char>());
  if (!Base || File.empty())
    return Out;
  std::string Ignored;
  std::optional<ObjectImports> Imports = readObjectImports(File, Ignored);
  std::vector<std::string> Strings;
  if (Imports)
    Strings = std::move(Imports->Strings);
  for (const ElfObject &O : elfDataObjects(File, 1 << 16)) {
    const void *Host = reinterpret_cast<const void *>(Base + O.Value);
    void *Device = nullptr;
    std::size_t Bytes = 0;
    if (cudaGetSymbolAddress(&Device, Host) != cudaSuccess ||
        cudaGetSymbolSize(&Bytes, Host) != cudaSuccess) {
      cudaGetLastError();
      continue;
    }
    Out.push_back({deviceName(O.Name, Strings),
                   reinterpret_cast<std::uint64_t>(Device), Bytes});
  }
  return Out;
}

const DeviceVariable *variableAt(const std::vector<DeviceVariable> &Variables,
                                 std::uint64_t Address) {
  for (const DeviceVariable &V : Variables)
    if (Address >= V.Address && Address - V.Address < V.Bytes)
      return &V;
  return nullptr;
}

std::vector<CapturedGlobal>
snapshotVariables(const std::vector<DeviceVariable> &Variables) {
  std::vector<CapturedGlobal> Out;
  std::size_t Total = 0;
  for (const DeviceVariable &V : Variables) {
    if (Out.size() >= CaptureLimits::MaxGlobals ||
        Total + V.Bytes > CaptureLimits::MaxGlobalBytes)
      throw std::runtime_error(
          "the candidate's device variables are more than the capture "
          "carries (" +
          std::to_string(CaptureLimits::MaxGlobals) + " variables, " +
          std::to_string(CaptureLimits::MaxGlobalBytes) + " bytes)");
    CapturedGlobal G;
    G.Name = V.Name;
    G.Bytes.resize(V.Bytes);
    KOPT_CUDA(cudaMemcpy(G.Bytes.data(),
                         reinterpret_cast<const void *>(V.Address), V.Bytes,
                         cudaMemcpyDeviceToHost));
    Total += V.Bytes;
    Out.push_back(std::move(G));
  }
  return Out;
}

} // namespace kopt::eval::device
