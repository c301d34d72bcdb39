//===- ClockMonitor.h - GPU clocks and throttling during timing -*- C++ -*-===//
//
// Internal to the worker. NVML (loaded at run time, so it stays optional)
// is read before, during and after the timed runs: SM and memory clocks,
// temperature, the reasons the driver gives for holding the clocks down,
// and its power and thermal violation counters, and how many processes
// hold a CUDA context on the GPU. A measurement during which the clocks
// moved, the GPU throttled or another process shared it is still reported,
// with a warning and a flag in the record, so a ranking can discount it.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_LIB_EVAL_DEVICE_CLOCKMONITOR_H
#define KOPT_LIB_EVAL_DEVICE_CLOCKMONITOR_H

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kopt::eval::device {

class ClockMonitor {
public:
  /// Monitors the GPU at \p PciBusId; unavailable without NVML.
  explicit ClockMonitor(const std::string &PciBusId);
  bool available() const { return Handle != nullptr; }
  /// Takes one reading (nothing without NVML).
  void sample();
  /// What the readings showed: {"samples", "sm_mhz": [min, max],
  /// "memory_mhz": [min, max], "temperature_c": [min, max],
  /// "throttle_reasons": [...], "power_violation_ms", "thermal_violation_ms",
  /// "gpu_processes_max" (processes with a CUDA context on the GPU, this
  /// one included)}, or {"available": false}.
  nlohmann::json report() const;
  /// One sentence per problem seen: clocks that changed, throttling.
  std::vector<std::string> warnings() const;
  /// Flags for the record: "clocks-changed", "throttled", "gpu-shared".
  std::vector<std::string> flags() const;
  /// The current and maximum SM and memory clocks, without recording a
  /// sample; {} without NVML.
  nlohmann::json clocksNow() const;

private:
  void *Handle = nullptr;
  int Samples = 0;
  unsigned SmMin = ~0u, SmMax = 0, MemMin = ~0u, MemMax = 0;
  unsigned TempMin = ~0u, TempMax = 0;
  unsigned long long Reasons = 0; // union of the throttling reasons seen
  unsigned long long PowerViolationNs[2] = {0, 0}; // first, last
  unsigned long long ThermalViolationNs[2] = {0, 0};
  bool HaveViolations = false;
  int MaxProcesses = -1; // most processes with a context seen; -1 unknown
};

} // namespace kopt::eval::device

#endif // KOPT_LIB_EVAL_DEVICE_CLOCKMONITOR_H
