//===- DeviceProbe.h - What the evaluator reads off a GPU -------*- C++ -*-===//
//
// Read in a child process (`kopt-bench __probe`) so the parent never holds a
// CUDA context: name, compute capability, L2 size (the flush buffer is twice
// that), clocks when NVML answers, and the device-to-device copy bandwidth,
// measured once per device and cached in a file keyed by the device UUID.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_DEVICEPROBE_H
#define KOPT_EVAL_DEVICEPROBE_H

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace kopt::eval {

struct DeviceInfo {
  int Index = 0; // as the user named it (--devices)
  std::string Name;
  std::string Uuid;
  std::string PciBusId;
  int Major = 0, Minor = 0;
  long long L2Bytes = 0;
  long long GlobalMemoryBytes = 0;
  int MultiprocessorCount = 0;
  int DriverVersion = 0, RuntimeVersion = 0;
  double CopyBandwidthGBps = 0; // bytes read + written per second / 1e9
  bool CopyBandwidthCached = false;
  std::string CopyBandwidthCacheFile;
};

nlohmann::json deviceInfoToJson(const DeviceInfo &D);
DeviceInfo deviceInfoFromJson(const nlohmann::json &J);

/// Current and maximum clocks through NVML (loaded at run time); absent
/// keys when NVML is not there.
nlohmann::json readClocks(const std::string &PciBusId);

/// The directory for per-device caches: $KOPT_CACHE_DIR,
/// $XDG_CACHE_HOME/kopt, or ~/.cache/kopt.
std::string defaultCacheDir();

/// Probes the visible device 0 (the parent sets CUDA_VISIBLE_DEVICES) and
/// writes DeviceInfo JSON to \p ResultPath. Returns the process exit code.
int runProbeWorker(const std::string &ResultPath, const std::string &CacheDir,
                   int UserIndex);

/// `kopt-bench selftest`: checks on visible device 0 that the GPU's input
/// generator, comparison and byte checks agree with the host's; prints one
/// line per check. Returns 0 when all pass, 1 when one fails, 2 on a CUDA
/// error.
int runDataSelfTest();

} // namespace kopt::eval

#endif // KOPT_EVAL_DEVICEPROBE_H
