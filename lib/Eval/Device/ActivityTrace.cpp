//===- ActivityTrace.cpp - Kernels that ran in this process ---------------===//
#include "ActivityTrace.h"

#include <cuda.h>
#include <cupti.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace kopt::eval::device {

namespace {
constexpr std::size_t BufferBytes = 1 << 20;
constexpr std::size_t MaxKept = 1 << 16;

struct KernelRun {
  std::string Name;
  std::uint32_t Stream;
  std::uint64_t Start, End;
};

std::mutex Mutex;
std::vector<KernelRun> Runs;
std::size_t Dropped = 0;

void CUPTIAPI requested(uint8_t **Buffer, size_t *Size, size_t *MaxRecords) {
  *Buffer = static_cast<uint8_t *>(std::aligned_alloc(8, BufferBytes));
  *Size = *Buffer ? BufferBytes : 0;
  *MaxRecords = 0;
}

void CUPTIAPI completed(CUcontext, uint32_t, uint8_t *Buffer, size_t,
                        size_t Valid) {
  CUpti_Activity *Record = nullptr;
  std::lock_guard<std::mutex> Lock(Mutex);
  while (cuptiActivityGetNextRecord(Buffer, Valid, &Record) == CUPTI_SUCCESS) {
    if (Record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
        Record->kind != CUPTI_ACTIVITY_KIND_KERNEL)
      continue;
    auto *K = reinterpret_cast<CUpti_ActivityKernel10 *>(Record);
    if (Runs.size() >= MaxKept) {
      ++Dropped;
      continue;
    }
    Runs.push_back({K->name ? K->name : "?", K->streamId, K->start, K->end});
  }
  std::free(Buffer);
}
} // namespace

bool startKernelTrace() {
  return cuptiActivityRegisterCallbacks(requested, completed) ==
             CUPTI_SUCCESS &&
         cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ==
             CUPTI_SUCCESS;
}

std::uint64_t traceTimestamp() {
  std::uint64_t T = 0;
  cuptiGetTimestamp(&T);
  return T;
}

std::vector<std::string> kernelsOutside(const std::vector<TraceWindow> &Allowed,
                                        cudaStream_t Own, std::size_t Max) {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::uint32_t OwnId = ~0u;
  if (Own && cuptiGetStreamIdEx(nullptr, reinterpret_cast<CUstream>(Own), 0,
                                &OwnId) != CUPTI_SUCCESS)
    OwnId = ~0u;
  std::lock_guard<std::mutex> Lock(Mutex);
  std::vector<std::string> Out;
  std::size_t Total = Dropped;
  for (const KernelRun &K : Runs) {
    bool Inside =
        std::any_of(Allowed.begin(), Allowed.end(), [&](const TraceWindow &W) {
          return K.Start >= W.first && K.End <= W.second;
        });
    if (K.Stream == OwnId || Inside)
      continue;
    ++Total;
    if (Out.size() >= Max)
      continue;
    char Line[512];
    std::snprintf(Line, sizeof(Line), "kernel '%s' on stream %u, %.3f ms",
                  K.Name.c_str(), K.Stream, (K.End - K.Start) / 1e6);
    Out.push_back(Line);
  }
  if (Total > Out.size())
    Out.push_back("... " + std::to_string(Total) + " kernels in all");
  return Out;
}

} // namespace kopt::eval::device
