//===- ActivityTrace.cpp - Kernels that ran in this process ---------------===//
#include "ActivityTrace.h"

#include <cupti.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace kopt::eval::device {

namespace {
constexpr std::size_t BufferBytes = 1 << 20;
std::mutex Mutex;
std::vector<std::string> Seen;
std::size_t Total = 0;

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
    ++Total;
    if (Seen.size() >= 64)
      continue;
    char Line[512];
    std::snprintf(Line, sizeof(Line), "kernel '%s' on stream %u, %.3f ms",
                  K->name ? K->name : "?", K->streamId,
                  (K->end - K->start) / 1e6);
    Seen.push_back(Line);
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

std::vector<std::string> kernelsThatRan(std::size_t Max) {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> Lock(Mutex);
  std::vector<std::string> Out(Seen.begin(),
                               Seen.begin() + std::min(Max, Seen.size()));
  if (Total > Out.size())
    Out.push_back("... " + std::to_string(Total) + " kernels in all");
  return Out;
}

} // namespace kopt::eval::device
