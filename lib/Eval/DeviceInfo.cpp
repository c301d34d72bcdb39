//===- DeviceInfo.cpp - Device descriptions as JSON, the cache directory --===//
//
// The parent side needs these without the CUDA runtime (kopt-search and
// kopt-bench built without CUDA read probes and records).
//
//===----------------------------------------------------------------------===//
#include "kopt/Eval/DeviceProbe.h"

#include <cstdlib>
#include <filesystem>

namespace kopt::eval {

namespace fs = std::filesystem;

nlohmann::json deviceInfoToJson(const DeviceInfo &D) {
  return {{"index", D.Index},
          {"name", D.Name},
          {"uuid", D.Uuid},
          {"pci_bus_id", D.PciBusId},
          {"compute_capability",
           std::to_string(D.Major) + "." + std::to_string(D.Minor)},
          {"cc_major", D.Major},
          {"cc_minor", D.Minor},
          {"l2_bytes", D.L2Bytes},
          {"global_memory_bytes", D.GlobalMemoryBytes},
          {"multiprocessors", D.MultiprocessorCount},
          {"driver_version", D.DriverVersion},
          {"runtime_version", D.RuntimeVersion},
          {"copy_bandwidth_gbps", D.CopyBandwidthGBps},
          {"copy_bandwidth_cached", D.CopyBandwidthCached},
          {"copy_bandwidth_cache_file", D.CopyBandwidthCacheFile}};
}

DeviceInfo deviceInfoFromJson(const nlohmann::json &J) {
  DeviceInfo D;
  D.Index = J.value("index", 0);
  D.Name = J.value("name", "");
  D.Uuid = J.value("uuid", "");
  D.PciBusId = J.value("pci_bus_id", "");
  D.Major = J.value("cc_major", 0);
  D.Minor = J.value("cc_minor", 0);
  D.L2Bytes = J.value("l2_bytes", 0LL);
  D.GlobalMemoryBytes = J.value("global_memory_bytes", 0LL);
  D.MultiprocessorCount = J.value("multiprocessors", 0);
  D.DriverVersion = J.value("driver_version", 0);
  D.RuntimeVersion = J.value("runtime_version", 0);
  D.CopyBandwidthGBps = J.value("copy_bandwidth_gbps", 0.0);
  D.CopyBandwidthCached = J.value("copy_bandwidth_cached", false);
  D.CopyBandwidthCacheFile = J.value("copy_bandwidth_cache_file", "");
  return D;
}

std::string defaultCacheDir() {
  if (const char *Dir = std::getenv("KOPT_CACHE_DIR"); Dir && *Dir)
    return Dir;
  if (const char *Xdg = std::getenv("XDG_CACHE_HOME"); Xdg && *Xdg)
    return (fs::path(Xdg) / "kopt").string();
  if (const char *Home = std::getenv("HOME"); Home && *Home)
    return (fs::path(Home) / ".cache" / "kopt").string();
  return (fs::temp_directory_path() / "kopt-cache").string();
}
} // namespace kopt::eval
