//===- DeviceSupport.h - CUDA helpers of the evaluation child ---*- C++ -*-===//
//
// Internal to the worker: CUDA errors as exceptions that carry the stage,
// guarded device buffers, the loaded entry libraries, and the gate that
// holds the legacy default stream while a candidate launches.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_LIB_EVAL_DEVICE_DEVICESUPPORT_H
#define KOPT_LIB_EVAL_DEVICE_DEVICESUPPORT_H

#include <cuda_runtime.h>

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace kopt::eval::device {

/// A CUDA call failed. Sticky errors (illegal address, launch failure)
/// leave the context unusable, so the worker reports and exits.
class CudaFailure : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

void check(cudaError_t Error, const char *What);
#define KOPT_CUDA(call) ::kopt::eval::device::check((call), #call)

/// What the worker is doing now; printed to stderr so the parent can say
/// where a child hung or died.
void setStage(const std::string &Stage);
const std::string &currentStage();

/// Adds the wall time of its scope to one kind of work ("inputs",
/// "reference", "candidate", "compare", ...): the record's stage_seconds.
class StageTimer {
public:
  explicit StageTimer(const char *Kind);
  ~StageTimer();
  StageTimer(const StageTimer &) = delete;
  StageTimer &operator=(const StageTimer &) = delete;

private:
  const char *Kind;
  double Start;
  StageTimer *Outer; // a timer this one interrupts
};
/// Seconds per kind of work so far; nested timers count only in the
/// innermost.
const std::map<std::string, double> &stageSeconds();

/// Plain device memory, freed on every path.
class DeviceMemory {
public:
  DeviceMemory() = default;
  explicit DeviceMemory(std::size_t Bytes);
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;
  DeviceMemory(DeviceMemory &&Other) noexcept : Ptr(Other.Ptr) {
    Other.Ptr = nullptr;
  }
  DeviceMemory &operator=(DeviceMemory &&Other) noexcept {
    std::swap(Ptr, Other.Ptr);
    return *this;
  }
  ~DeviceMemory();
  unsigned char *data() const { return static_cast<unsigned char *>(Ptr); }

private:
  void *Ptr = nullptr;
};

/// A device buffer with guard zones before and after it. Kernels get the
/// pointer past the front guard; a write past either end changes a guard
/// byte, which the hardware would not notice for small overruns.
class GuardedBuffer {
public:
  static constexpr std::size_t GuardBytes = 64 * 1024;
  static constexpr unsigned char GuardByte = 0xA5;

  GuardedBuffer() = default;
  explicit GuardedBuffer(std::size_t Bytes);
  GuardedBuffer(const GuardedBuffer &) = delete;
  GuardedBuffer &operator=(const GuardedBuffer &) = delete;
  GuardedBuffer(GuardedBuffer &&Other) noexcept;
  GuardedBuffer &operator=(GuardedBuffer &&Other) noexcept;
  ~GuardedBuffer();

  void *data() const { return Base ? Base + GuardBytes : nullptr; }
  std::size_t size() const { return Bytes; }
  /// Refills both guards (after a detected overrun, before the next run).
  void resetGuards(cudaStream_t Stream);
  /// Empty when both guards are intact, else where the first changed byte
  /// is, relative to the buffer ("4 bytes past the end").
  std::string checkGuards(cudaStream_t Stream) const;

private:
  unsigned char *Base = nullptr;
  std::size_t Bytes = 0;
};

/// Something the evaluation calls with one shape's argument array and a
/// stream: a loaded library's entry, or a candidate's captured work
/// replayed (ReplayedEntry.h).
class Entry {
public:
  virtual ~Entry() = default;
  virtual void call(void *const *Args, cudaStream_t Stream) const = 0;
};

/// A compiled entry library (reference or candidate), loaded with dlopen:
/// its host code runs in this process.
class EntryLibrary : public Entry {
public:
  using CallFn = int (*)(void *const *, cudaStream_t);
  explicit EntryLibrary(const std::string &Path);
  ~EntryLibrary() override;
  void call(void *const *Args, cudaStream_t Stream) const override {
    Fn(Args, Stream);
  }
  /// Where the library was loaded (0 if unknown): its symbols' values are
  /// offsets from here.
  std::uintptr_t loadBase() const;

private:
  void *Handle = nullptr;
  CallFn Fn = nullptr;
};

/// Holds the legacy default stream with a host function that waits until
/// the gate opens. Work a candidate puts on the default stream (directly,
/// through a blocking stream, or cudaStreamPerThread) cannot start while
/// the gate is closed; the evaluation stream is non-blocking and runs.
class LegacyStreamGate {
public:
  void close();
  void open();
  /// Calls \p Fn with the gate closed; opens the gate itself if \p Fn has
  /// not returned after \p Seconds (it waited on the default stream).
  /// Returns false in that case.
  template <class F> bool whileClosed(F &&Fn, double Seconds);

private:
  static void CUDART_CB hold(void *Self);
  std::mutex Mutex;
  std::condition_variable Changed;
  bool Open = true;
  bool Returned = false;
  void watch(double Seconds, bool &Fired);
};

/// Polls \p Stream until it is idle or \p Seconds pass; false on timeout.
bool waitForStream(cudaStream_t Stream, double Seconds);

} // namespace kopt::eval::device

#include <thread>

namespace kopt::eval::device {
template <class F> bool LegacyStreamGate::whileClosed(F &&Fn, double Seconds) {
  close();
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Returned = false;
  }
  bool Fired = false;
  std::thread Watchdog([&] { watch(Seconds, Fired); });
  try {
    Fn();
  } catch (...) {
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      Returned = true;
    }
    Changed.notify_all();
    Watchdog.join();
    throw;
  }
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Returned = true;
  }
  Changed.notify_all();
  Watchdog.join();
  return !Fired;
}
} // namespace kopt::eval::device

#endif // KOPT_LIB_EVAL_DEVICE_DEVICESUPPORT_H
