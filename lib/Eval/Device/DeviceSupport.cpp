//===- DeviceSupport.cpp - CUDA helpers of the evaluation child -----------===//
#include "DeviceSupport.h"

#include <chrono>
#include <cstdio>
#include <dlfcn.h>

namespace kopt::eval::device {

namespace {
std::string Stage = "starting";
std::map<std::string, double> Seconds;
StageTimer *Innermost = nullptr;

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
} // namespace

StageTimer::StageTimer(const char *Kind)
    : Kind(Kind), Start(now()), Outer(Innermost) {
  if (Outer)
    Seconds[Outer->Kind] += Start - Outer->Start;
  Innermost = this;
}

StageTimer::~StageTimer() {
  double End = now();
  Seconds[Kind] += End - Start;
  Innermost = Outer;
  if (Outer)
    Outer->Start = End;
}

const std::map<std::string, double> &stageSeconds() { return Seconds; }

DeviceMemory::DeviceMemory(std::size_t Bytes) {
  KOPT_CUDA(cudaMalloc(&Ptr, Bytes ? Bytes : 1));
}

DeviceMemory::~DeviceMemory() {
  if (Ptr)
    cudaFree(Ptr);
}

void setStage(const std::string &NewStage) {
  Stage = NewStage;
  std::fprintf(stderr, "kopt-bench worker: stage: %s\n", Stage.c_str());
  std::fflush(stderr);
}

const std::string &currentStage() { return Stage; }

void check(cudaError_t Error, const char *What) {
  if (Error == cudaSuccess)
    return;
  throw CudaFailure(std::string(cudaGetErrorName(Error)) + " (" +
                    cudaGetErrorString(Error) + ") from " + What + " during " +
                    Stage);
}

GuardedBuffer::GuardedBuffer(std::size_t Size) : Bytes(Size) {
  // Round the body up so the back guard starts 256-byte aligned, like
  // cudaMalloc's own alignment; an overrun into the padding still shows
  // because the padding is guard too.
  void *Raw = nullptr;
  KOPT_CUDA(cudaMalloc(&Raw, GuardBytes * 2 + ((Bytes + 255) & ~255ull)));
  Base = static_cast<unsigned char *>(Raw);
  resetGuards(nullptr);
  KOPT_CUDA(cudaDeviceSynchronize());
}

GuardedBuffer::GuardedBuffer(GuardedBuffer &&Other) noexcept
    : Base(Other.Base), Bytes(Other.Bytes) {
  Other.Base = nullptr;
}

GuardedBuffer &GuardedBuffer::operator=(GuardedBuffer &&Other) noexcept {
  std::swap(Base, Other.Base);
  std::swap(Bytes, Other.Bytes);
  return *this;
}

GuardedBuffer::~GuardedBuffer() {
  if (Base)
    cudaFree(Base);
}

void GuardedBuffer::resetGuards(cudaStream_t Stream) {
  std::size_t Padded = (Bytes + 255) & ~255ull;
  KOPT_CUDA(cudaMemsetAsync(Base, GuardByte, GuardBytes, Stream));
  KOPT_CUDA(cudaMemsetAsync(Base + GuardBytes + Bytes, GuardByte,
                            GuardBytes + Padded - Bytes, Stream));
}

std::string GuardedBuffer::checkGuards(cudaStream_t Stream) const {
  std::size_t Padded = (Bytes + 255) & ~255ull;
  std::vector<unsigned char> Front(GuardBytes),
      Back(GuardBytes + Padded - Bytes);
  KOPT_CUDA(cudaMemcpyAsync(Front.data(), Base, Front.size(),
                            cudaMemcpyDeviceToHost, Stream));
  KOPT_CUDA(cudaMemcpyAsync(Back.data(), Base + GuardBytes + Bytes, Back.size(),
                            cudaMemcpyDeviceToHost, Stream));
  KOPT_CUDA(cudaStreamSynchronize(Stream));
  for (std::size_t I = Front.size(); I-- > 0;)
    if (Front[I] != GuardByte)
      return std::to_string(Front.size() - I) + " bytes before the start";
  for (std::size_t I = 0; I < Back.size(); ++I)
    if (Back[I] != GuardByte)
      return "byte " + std::to_string(I) + " past the end";
  return "";
}

EntryLibrary::EntryLibrary(const std::string &Path) {
  // RTLD_LOCAL: the reference and the candidate define the same names.
  Handle = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!Handle)
    throw std::runtime_error(std::string("cannot load ") + Path + ": " +
                             dlerror());
  Fn = reinterpret_cast<CallFn>(dlsym(Handle, "kopt_shim_call"));
  if (!Fn)
    throw std::runtime_error(Path + " has no kopt_shim_call");
}

std::uintptr_t EntryLibrary::loadBase() const {
  Dl_info Info{};
  if (!dladdr(reinterpret_cast<void *>(Fn), &Info))
    return 0;
  return reinterpret_cast<std::uintptr_t>(Info.dli_fbase);
}

EntryLibrary::~EntryLibrary() {
  // Never dlclose: the CUDA runtime keeps the registered fat binaries.
}

void CUDART_CB LegacyStreamGate::hold(void *Self) {
  auto *Gate = static_cast<LegacyStreamGate *>(Self);
  std::unique_lock<std::mutex> Lock(Gate->Mutex);
  Gate->Changed.wait(Lock, [&] { return Gate->Open; });
}

void LegacyStreamGate::close() {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Open = false;
  }
  KOPT_CUDA(cudaLaunchHostFunc(cudaStreamLegacy, hold, this));
}

void LegacyStreamGate::open() {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Open = true;
  }
  Changed.notify_all();
}

void LegacyStreamGate::watch(double Seconds, bool &Fired) {
  std::unique_lock<std::mutex> Lock(Mutex);
  bool Done = Changed.wait_for(Lock, std::chrono::duration<double>(Seconds),
                               [&] { return Returned; });
  if (!Done) {
    Fired = true;
    Open = true;
    Lock.unlock();
    Changed.notify_all();
  }
}

bool waitForStream(cudaStream_t Stream, double Seconds) {
  auto Deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(Seconds);
  while (true) {
    cudaError_t E = cudaStreamQuery(Stream);
    if (E == cudaSuccess)
      return true;
    if (E != cudaErrorNotReady)
      check(E, "cudaStreamQuery");
    if (std::chrono::steady_clock::now() > Deadline)
      return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

} // namespace kopt::eval::device
