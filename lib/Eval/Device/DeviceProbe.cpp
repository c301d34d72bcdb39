//===- DeviceProbe.cpp - What the evaluator reads off a GPU ---------------===//
#include "kopt/Eval/DeviceProbe.h"

#include "ClockMonitor.h"
#include "DeviceSupport.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace kopt::eval {

namespace fs = std::filesystem;
using namespace device;

nlohmann::json readClocks(const std::string &PciBusId) {
  return ClockMonitor(PciBusId).clocksNow();
}

namespace {

std::string formatUuid(const cudaUUID_t &U) {
  char Text[64];
  const unsigned char *B = reinterpret_cast<const unsigned char *>(U.bytes);
  std::snprintf(Text, sizeof(Text),
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
                "%02x%02x%02x%02x%02x%02x",
                B[0], B[1], B[2], B[3], B[4], B[5], B[6], B[7], B[8], B[9],
                B[10], B[11], B[12], B[13], B[14], B[15]);
  return Text;
}

/// Device-to-device copy of a large buffer, counting bytes read plus
/// bytes written: the ceiling a memory-bound kernel can approach.
double measureCopyBandwidth(long long GlobalMemory) {
  std::size_t Bytes = 1ull << 30;
  while (Bytes > (64ull << 20) &&
         static_cast<long long>(Bytes) * 4 > GlobalMemory)
    Bytes /= 2;
  void *Src = nullptr, *Dst = nullptr;
  KOPT_CUDA(cudaMalloc(&Src, Bytes));
  KOPT_CUDA(cudaMalloc(&Dst, Bytes));
  KOPT_CUDA(cudaMemset(Src, 1, Bytes));
  cudaEvent_t Start, Stop;
  KOPT_CUDA(cudaEventCreate(&Start));
  KOPT_CUDA(cudaEventCreate(&Stop));
  for (int I = 0; I < 3; ++I)
    KOPT_CUDA(cudaMemcpy(Dst, Src, Bytes, cudaMemcpyDeviceToDevice));
  double Best = 0;
  for (int I = 0; I < 10; ++I) {
    KOPT_CUDA(cudaEventRecord(Start));
    KOPT_CUDA(cudaMemcpyAsync(Dst, Src, Bytes, cudaMemcpyDeviceToDevice));
    KOPT_CUDA(cudaEventRecord(Stop));
    KOPT_CUDA(cudaEventSynchronize(Stop));
    float Ms = 0;
    KOPT_CUDA(cudaEventElapsedTime(&Ms, Start, Stop));
    if (Ms > 0)
      Best = std::max(Best, 2.0 * Bytes / (Ms * 1e-3) / 1e9);
  }
  cudaEventDestroy(Start);
  cudaEventDestroy(Stop);
  cudaFree(Src);
  cudaFree(Dst);
  return Best;
}

} // namespace

int runProbeWorker(const std::string &ResultPath, const std::string &CacheDir,
                   int UserIndex) {
  nlohmann::json Out;
  try {
    setStage("probing the device");
    int Count = 0;
    KOPT_CUDA(cudaGetDeviceCount(&Count));
    if (Count < 1)
      throw CudaFailure("no CUDA device is visible");
    KOPT_CUDA(cudaSetDevice(0));
    cudaDeviceProp Props{};
    KOPT_CUDA(cudaGetDeviceProperties(&Props, 0));
    DeviceInfo D;
    D.Index = UserIndex;
    D.Name = Props.name;
    D.Uuid = formatUuid(Props.uuid);
    char Bus[64] = {0};
    if (cudaDeviceGetPCIBusId(Bus, sizeof(Bus), 0) == cudaSuccess)
      D.PciBusId = Bus;
    D.Major = Props.major;
    D.Minor = Props.minor;
    D.L2Bytes = Props.l2CacheSize;
    D.GlobalMemoryBytes = static_cast<long long>(Props.totalGlobalMem);
    D.MultiprocessorCount = Props.multiProcessorCount;
    cudaDriverGetVersion(&D.DriverVersion);
    cudaRuntimeGetVersion(&D.RuntimeVersion);

    fs::path Cache =
        fs::path(CacheDir) / ("copy-bandwidth-" + D.Uuid + ".json");
    D.CopyBandwidthCacheFile = Cache.string();
    std::ifstream In(Cache);
    if (In) {
      try {
        nlohmann::json Cached = nlohmann::json::parse(In);
        if (Cached.value("uuid", "") == D.Uuid &&
            Cached.value("copy_bandwidth_gbps", 0.0) > 0) {
          D.CopyBandwidthGBps = Cached["copy_bandwidth_gbps"];
          D.CopyBandwidthCached = true;
        }
      } catch (const nlohmann::json::exception &) {
        // A damaged cache is measured again and rewritten.
      }
    }
    if (!D.CopyBandwidthCached) {
      setStage("measuring the copy bandwidth");
      D.CopyBandwidthGBps = measureCopyBandwidth(D.GlobalMemoryBytes);
      std::error_code EC;
      fs::create_directories(CacheDir, EC);
      std::ofstream CacheOut(Cache);
      CacheOut << nlohmann::json{{"uuid", D.Uuid},
                                 {"name", D.Name},
                                 {"copy_bandwidth_gbps", D.CopyBandwidthGBps},
                                 {"method",
                                  "cudaMemcpyAsync device-to-device of up "
                                  "to 1 GiB, best of 10, bytes read + "
                                  "written"}}
                      .dump(2)
               << "\n";
    }
    Out = deviceInfoToJson(D);
    Out["clocks"] = readClocks(D.PciBusId);
  } catch (const std::exception &E) {
    Out = {{"error", E.what()}};
  }
  std::ofstream Result(ResultPath);
  Result << Out.dump(2) << "\n";
  return Out.contains("error") ? 1 : 0;
}

} // namespace kopt::eval
