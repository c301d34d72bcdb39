//===- ClockMonitor.cpp - GPU clocks and throttling during timing ---------===//
#include "ClockMonitor.h"

#include <algorithm>
#include <dlfcn.h>

namespace kopt::eval::device {

namespace {

/// NVML's C ABI, looked up once. Every entry may be missing (an old
/// driver); the monitor then reports what it could read.
struct Nvml {
  using InitFn = int (*)();
  using HandleFn = int (*)(const char *, void **);
  using ClockFn = int (*)(void *, int, unsigned *);
  using ReasonsFn = int (*)(void *, unsigned long long *);
  struct Violation {
    unsigned long long ReferenceTime;
    unsigned long long ViolationTime; // ns
  };
  using ViolationFn = int (*)(void *, int, Violation *);
  using ProcessesFn = int (*)(void *, unsigned *, void *);

  InitFn Init = nullptr;
  HandleFn ByBus = nullptr;
  ClockFn Clock = nullptr;
  ClockFn MaxClock = nullptr;
  ClockFn Temperature = nullptr; // (device, sensor, value)
  ReasonsFn Reasons = nullptr;
  ViolationFn Violations = nullptr;
  ProcessesFn Processes = nullptr; // processes with a compute context
  bool Ready = false;

  Nvml() {
    void *Lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!Lib)
      return;
    Init = reinterpret_cast<InitFn>(dlsym(Lib, "nvmlInit_v2"));
    ByBus = reinterpret_cast<HandleFn>(
        dlsym(Lib, "nvmlDeviceGetHandleByPciBusId_v2"));
    Clock = reinterpret_cast<ClockFn>(dlsym(Lib, "nvmlDeviceGetClockInfo"));
    MaxClock =
        reinterpret_cast<ClockFn>(dlsym(Lib, "nvmlDeviceGetMaxClockInfo"));
    Temperature =
        reinterpret_cast<ClockFn>(dlsym(Lib, "nvmlDeviceGetTemperature"));
    Reasons = reinterpret_cast<ReasonsFn>(
        dlsym(Lib, "nvmlDeviceGetCurrentClocksEventReasons"));
    if (!Reasons) // drivers before 535 name it so
      Reasons = reinterpret_cast<ReasonsFn>(
          dlsym(Lib, "nvmlDeviceGetCurrentClocksThrottleReasons"));
    Violations = reinterpret_cast<ViolationFn>(
        dlsym(Lib, "nvmlDeviceGetViolationStatus"));
    for (const char *Name : {"nvmlDeviceGetComputeRunningProcesses_v3",
                             "nvmlDeviceGetComputeRunningProcesses_v2",
                             "nvmlDeviceGetComputeRunningProcesses"})
      if (!Processes)
        Processes = reinterpret_cast<ProcessesFn>(dlsym(Lib, Name));
    Ready = Init && ByBus && Clock && Init() == 0;
  }
};

Nvml &nvml() {
  static Nvml Instance;
  return Instance;
}

constexpr int ClockSm = 1, ClockMemory = 2;       // nvmlClockType_t
constexpr int SensorGpu = 0;                      // nvmlTemperatureSensors_t
constexpr int PolicyPower = 0, PolicyThermal = 1; // nvmlPerfPolicyType_t

/// The reasons that mean the clocks were held below what the card would
/// run at (idle, application clocks, sync boost and display are not).
struct Reason {
  unsigned long long Bit;
  const char *Name;
};
constexpr Reason Throttling[] = {{0x4, "sw_power_cap"},
                                 {0x8, "hw_slowdown"},
                                 {0x20, "sw_thermal_slowdown"},
                                 {0x40, "hw_thermal_slowdown"},
                                 {0x80, "hw_power_brake_slowdown"}};

std::string range(unsigned Lo, unsigned Hi) {
  return Lo == Hi ? std::to_string(Lo)
                  : std::to_string(Lo) + "-" + std::to_string(Hi);
}

} // namespace

ClockMonitor::ClockMonitor(const std::string &PciBusId) {
  Nvml &N = nvml();
  if (!N.Ready || N.ByBus(PciBusId.c_str(), &Handle) != 0)
    Handle = nullptr;
}

void ClockMonitor::sample() {
  if (!Handle)
    return;
  Nvml &N = nvml();
  unsigned V = 0;
  ++Samples;
  if (N.Clock(Handle, ClockSm, &V) == 0) {
    SmMin = std::min(SmMin, V);
    SmMax = std::max(SmMax, V);
  }
  if (N.Clock(Handle, ClockMemory, &V) == 0) {
    MemMin = std::min(MemMin, V);
    MemMax = std::max(MemMax, V);
  }
  if (N.Temperature && N.Temperature(Handle, SensorGpu, &V) == 0) {
    TempMin = std::min(TempMin, V);
    TempMax = std::max(TempMax, V);
  }
  unsigned long long Bits = 0;
  if (N.Reasons && N.Reasons(Handle, &Bits) == 0)
    for (const Reason &R : Throttling)
      Reasons |= Bits & R.Bit;
  Nvml::Violation Power{}, Thermal{};
  if (N.Violations && N.Violations(Handle, PolicyPower, &Power) == 0 &&
      N.Violations(Handle, PolicyThermal, &Thermal) == 0) {
    if (!HaveViolations) {
      PowerViolationNs[0] = Power.ViolationTime;
      ThermalViolationNs[0] = Thermal.ViolationTime;
      HaveViolations = true;
    }
    PowerViolationNs[1] = Power.ViolationTime;
    ThermalViolationNs[1] = Thermal.ViolationTime;
  }
  // Only the count: with no buffer NVML answers "insufficient size" (7)
  // and the number of processes, or success when there are none.
  unsigned Count = 0;
  int Got = N.Processes ? N.Processes(Handle, &Count, nullptr) : -1;
  if (Got == 0 || Got == 7)
    MaxProcesses = std::max(MaxProcesses, static_cast<int>(Count));
}

nlohmann::json ClockMonitor::report() const {
  if (!Handle || Samples == 0)
    return {{"available", false}};
  nlohmann::json R = {{"samples", Samples}};
  if (SmMax)
    R["sm_mhz"] = {SmMin, SmMax};
  if (MemMax)
    R["memory_mhz"] = {MemMin, MemMax};
  if (TempMax)
    R["temperature_c"] = {TempMin, TempMax};
  nlohmann::json Names = nlohmann::json::array();
  for (const Reason &T : Throttling)
    if (Reasons & T.Bit)
      Names.push_back(T.Name);
  R["throttle_reasons"] = Names;
  if (MaxProcesses >= 0)
    R["gpu_processes_max"] = MaxProcesses;
  if (HaveViolations) {
    R["power_violation_ms"] = (PowerViolationNs[1] - PowerViolationNs[0]) / 1e6;
    R["thermal_violation_ms"] =
        (ThermalViolationNs[1] - ThermalViolationNs[0]) / 1e6;
  }
  return R;
}

std::vector<std::string> ClockMonitor::warnings() const {
  std::vector<std::string> W;
  if (!Handle || Samples == 0)
    return W;
  // More than 1% of the highest clock seen: a real change, not rounding.
  if (SmMax && (SmMax - SmMin) * 100 > SmMax)
    W.push_back("warning: the SM clock changed during timing (" +
                range(SmMin, SmMax) + " MHz)");
  if (MemMax && MemMax != MemMin)
    W.push_back("warning: the memory clock changed during timing (" +
                range(MemMin, MemMax) + " MHz)");
  std::string Names;
  for (const Reason &T : Throttling)
    if (Reasons & T.Bit)
      Names += std::string(Names.empty() ? "" : ", ") + T.Name;
  double PowerMs = (PowerViolationNs[1] - PowerViolationNs[0]) / 1e6;
  double ThermalMs = (ThermalViolationNs[1] - ThermalViolationNs[0]) / 1e6;
  if (!Names.empty())
    W.push_back("warning: the GPU throttled during timing (" + Names + ")");
  else if (HaveViolations && (PowerMs > 0 || ThermalMs > 0))
    W.push_back("warning: the GPU was held below its clocks during timing (" +
                std::to_string(PowerMs) + " ms by power, " +
                std::to_string(ThermalMs) + " ms by temperature)");
  // This evaluation's own context is one; more means another process (a
  // leftover of an earlier candidate, another user) shared the GPU.
  if (MaxProcesses > 1)
    W.push_back("warning: " + std::to_string(MaxProcesses) +
                " processes had a CUDA context on this GPU during timing "
                "(this evaluation's is one): the GPU was shared, so the "
                "timing may be disturbed");
  return W;
}

nlohmann::json ClockMonitor::clocksNow() const {
  nlohmann::json Clocks = nlohmann::json::object();
  if (!Handle)
    return Clocks;
  Nvml &N = nvml();
  unsigned MHz = 0;
  if (N.Clock(Handle, ClockSm, &MHz) == 0)
    Clocks["sm_mhz"] = MHz;
  if (N.Clock(Handle, ClockMemory, &MHz) == 0)
    Clocks["memory_mhz"] = MHz;
  if (N.MaxClock && N.MaxClock(Handle, ClockSm, &MHz) == 0)
    Clocks["max_sm_mhz"] = MHz;
  if (N.MaxClock && N.MaxClock(Handle, ClockMemory, &MHz) == 0)
    Clocks["max_memory_mhz"] = MHz;
  return Clocks;
}

std::vector<std::string> ClockMonitor::flags() const {
  std::vector<std::string> F;
  for (const std::string &W : warnings())
    F.push_back(W.find("throttled") != std::string::npos ||
                        W.find("held below") != std::string::npos
                    ? "throttled"
                : W.find("was shared") != std::string::npos ? "gpu-shared"
                                                            : "clocks-changed");
  std::sort(F.begin(), F.end());
  F.erase(std::unique(F.begin(), F.end()), F.end());
  return F;
}

} // namespace kopt::eval::device
