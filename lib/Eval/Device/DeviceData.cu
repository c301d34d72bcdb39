//===- DeviceData.cu - Inputs, comparisons and checks on the GPU ----------===//
//
// Kernels over the evaluation's buffers. Element values, encodings and the
// comparison rule are ElementCodec.h's, shared with the host, so the GPU
// makes the bytes the host would make and judges outputs as the host would.
// Each reduction combines within a warp by shuffles and then once per warp
// by atomics into a small summary that is the only thing copied back.
//
//===----------------------------------------------------------------------===//
#include "DeviceData.h"
#include "DeviceSupport.h"

#include <climits>

namespace kopt::eval::device {

namespace {

/// What a reduction reports; unsigned 64-bit so atomics can combine it.
/// Non-negative doubles order like their bit patterns, so the largest
/// errors combine with atomicMax over the bits.
struct Summary {
  unsigned long long Count;
  unsigned long long Unwritten;
  unsigned long long First; // ULLONG_MAX: none
  unsigned long long MaxAbsBits;
  unsigned long long MaxRelBits;
};

Summary *DeviceSummary = nullptr;
Summary *HostSummary = nullptr; // pinned

constexpr int Threads = 256;

int blocksFor(std::int64_t Work) {
  std::int64_t Blocks = (Work + Threads - 1) / Threads;
  return static_cast<int>(Blocks < 1 ? 1 : (Blocks > 4096 ? 4096 : Blocks));
}

__device__ unsigned long long warpSum(unsigned long long V) {
  for (int Offset = 16; Offset > 0; Offset /= 2)
    V += __shfl_down_sync(0xFFFFFFFFu, V, Offset);
  return V;
}
__device__ unsigned long long warpMin(unsigned long long V) {
  for (int Offset = 16; Offset > 0; Offset /= 2) {
    unsigned long long O = __shfl_down_sync(0xFFFFFFFFu, V, Offset);
    V = O < V ? O : V;
  }
  return V;
}
__device__ unsigned long long warpMax(unsigned long long V) {
  for (int Offset = 16; Offset > 0; Offset /= 2) {
    unsigned long long O = __shfl_down_sync(0xFFFFFFFFu, V, Offset);
    V = O > V ? O : V;
  }
  return V;
}

/// Combines one thread's part into \p Out (every thread of the warp calls).
__device__ void combine(Summary *Out, unsigned long long Count,
                        unsigned long long Unwritten, unsigned long long First,
                        double MaxAbs, double MaxRel) {
  Count = warpSum(Count);
  Unwritten = warpSum(Unwritten);
  First = warpMin(First);
  unsigned long long Abs = warpMax(__double_as_longlong(MaxAbs));
  unsigned long long Rel = warpMax(__double_as_longlong(MaxRel));
  if ((threadIdx.x & 31) != 0)
    return;
  if (Count)
    atomicAdd(&Out->Count, Count);
  if (Unwritten)
    atomicAdd(&Out->Unwritten, Unwritten);
  if (First != ULLONG_MAX)
    atomicMin(&Out->First, First);
  if (Abs)
    atomicMax(&Out->MaxAbsBits, Abs);
  if (Rel)
    atomicMax(&Out->MaxRelBits, Rel);
}

__global__ void generateKernel(unsigned char *Dst, spec::DType T,
                               codec::Distribution D, std::uint64_t Key,
                               std::int64_t Count) {
  int Size = codec::elementSize(T);
  for (std::int64_t I = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x;
       I < Count; I += (std::int64_t)gridDim.x * blockDim.x)
    codec::encodeElement(T, codec::drawValue(D, Key, I), Dst + I * Size);
}

__global__ void compareKernel(spec::DType T, const unsigned char *Got,
                              const unsigned char *Expected, std::int64_t Count,
                              double Atol, double Rtol, bool Exact,
                              unsigned char Poison, Summary *Out) {
  int Size = codec::elementSize(T);
  unsigned long long Mismatches = 0, Unwritten = 0, First = ULLONG_MAX;
  double MaxAbs = 0, MaxRel = 0;
  // Every thread runs the same number of iterations: the shuffles in
  // combine() need the whole warp.
  for (std::int64_t I = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x;
       I < Count; I += (std::int64_t)gridDim.x * blockDim.x) {
    codec::ElementComparison C = codec::compareElement(
        T, Got + I * Size, Expected + I * Size, Atol, Rtol, Exact, Poison);
    MaxAbs = C.AbsError > MaxAbs ? C.AbsError : MaxAbs;
    MaxRel = C.RelError > MaxRel ? C.RelError : MaxRel;
    if (C.Match)
      continue;
    ++Mismatches;
    Unwritten += C.Poisoned;
    if ((unsigned long long)I < First)
      First = I;
  }
  combine(Out, Mismatches, Unwritten, First, MaxAbs, MaxRel);
}

/// The first differing byte of two buffers, 16 bytes at a time when both
/// are 16-byte aligned.
__global__ void differenceKernel(const unsigned char *A, const unsigned char *B,
                                 std::size_t Bytes, bool Aligned,
                                 Summary *Out) {
  unsigned long long First = ULLONG_MAX;
  std::size_t Stride = (std::size_t)gridDim.x * blockDim.x;
  std::size_t Start = blockIdx.x * (std::size_t)blockDim.x + threadIdx.x;
  std::size_t Words = Aligned ? Bytes / 16 : 0;
  for (std::size_t W = Start; W < Words; W += Stride) {
    uint4 X = reinterpret_cast<const uint4 *>(A)[W];
    uint4 Y = reinterpret_cast<const uint4 *>(B)[W];
    if (X.x == Y.x && X.y == Y.y && X.z == Y.z && X.w == Y.w)
      continue;
    for (int K = 0; K < 16; ++K)
      if (A[W * 16 + K] != B[W * 16 + K]) {
        First = First < W * 16 + K ? First : W * 16 + K;
        break;
      }
    break; // later words of this thread lie further on
  }
  for (std::size_t I = Words * 16 + Start; I < Bytes; I += Stride)
    if (A[I] != B[I]) {
      First = First < I ? First : I;
      break;
    }
  combine(Out, 0, 0, First, 0, 0);
}

__global__ void keptPoisonKernel(const unsigned char *A, const unsigned char *B,
                                 std::int64_t Count, int Size,
                                 unsigned char PoisonA, unsigned char PoisonB,
                                 Summary *Out) {
  unsigned long long Kept = 0, First = ULLONG_MAX;
  for (std::int64_t I = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x;
       I < Count; I += (std::int64_t)gridDim.x * blockDim.x) {
    bool Both = true;
    for (int K = 0; K < Size && Both; ++K)
      Both = A[I * Size + K] == PoisonA && B[I * Size + K] == PoisonB;
    if (!Both)
      continue;
    ++Kept;
    if ((unsigned long long)I < First)
      First = I;
  }
  combine(Out, Kept, 0, First, 0, 0);
}

__global__ void checksumKernel(const unsigned char *Data, std::size_t Bytes,
                               Summary *Out) {
  unsigned long long Sum = 0;
  std::size_t Words = (Bytes + 7) / 8;
  for (std::size_t W = blockIdx.x * (std::size_t)blockDim.x + threadIdx.x;
       W < Words; W += (std::size_t)gridDim.x * blockDim.x) {
    std::uint64_t V = 0;
    for (int K = 0; K < 8 && W * 8 + K < Bytes; ++K)
      V |= static_cast<std::uint64_t>(Data[W * 8 + K]) << (8 * K);
    Sum += codec::mix(V ^ codec::mix(W));
  }
  combine(Out, Sum, 0, ULLONG_MAX, 0, 0);
}

/// Clears the summary, runs \p Launch, and returns the summary once
/// \p Stream has finished.
template <class F> Summary reduce(cudaStream_t Stream, F Launch) {
  if (!DeviceSummary)
    initDeviceData();
  Summary Init{0, 0, ULLONG_MAX, 0, 0};
  *HostSummary = Init;
  KOPT_CUDA(cudaMemcpyAsync(DeviceSummary, HostSummary, sizeof(Summary),
                            cudaMemcpyHostToDevice, Stream));
  Launch();
  KOPT_CUDA(cudaGetLastError());
  KOPT_CUDA(cudaMemcpyAsync(HostSummary, DeviceSummary, sizeof(Summary),
                            cudaMemcpyDeviceToHost, Stream));
  KOPT_CUDA(cudaStreamSynchronize(Stream));
  return *HostSummary;
}

double fromBits(unsigned long long Bits) {
  double D;
  memcpy(&D, &Bits, sizeof(D));
  return D;
}

/// One element of a device buffer, copied back.
void readElement(const void *Buffer, std::int64_t Index, int Size,
                 unsigned char *Out, cudaStream_t Stream) {
  KOPT_CUDA(cudaMemcpyAsync(
      HostSummary, static_cast<const unsigned char *>(Buffer) + Index * Size,
      Size, cudaMemcpyDeviceToHost, Stream));
  KOPT_CUDA(cudaStreamSynchronize(Stream));
  memcpy(Out, HostSummary, Size);
}

} // namespace

void initDeviceData() {
  if (DeviceSummary)
    return;
  KOPT_CUDA(cudaMalloc(&DeviceSummary, sizeof(Summary)));
  KOPT_CUDA(cudaMallocHost(&HostSummary, sizeof(Summary)));
}

void generateOnDevice(void *Dst, spec::DType T, const codec::Distribution &D,
                      std::uint64_t Key, std::int64_t Count,
                      cudaStream_t Stream) {
  if (Count <= 0)
    return;
  generateKernel<<<blocksFor(Count), Threads, 0, Stream>>>(
      static_cast<unsigned char *>(Dst), T, D, Key, Count);
  KOPT_CUDA(cudaGetLastError());
  KOPT_CUDA(cudaStreamSynchronize(Stream));
}

ComparisonResult compareOnDevice(spec::DType T, const void *Got,
                                 const void *Expected, std::int64_t Count,
                                 spec::Tolerance Tol, bool IntegerTolerance,
                                 unsigned char PoisonByte,
                                 cudaStream_t Stream) {
  ComparisonResult R;
  if (Count <= 0)
    return R;
  bool Exact = !codec::isFloatType(T) && !IntegerTolerance;
  Summary S = reduce(Stream, [&] {
    compareKernel<<<blocksFor(Count), Threads, 0, Stream>>>(
        T, static_cast<const unsigned char *>(Got),
        static_cast<const unsigned char *>(Expected), Count, Tol.Atol, Tol.Rtol,
        Exact, PoisonByte, DeviceSummary);
  });
  R.Mismatches = static_cast<std::int64_t>(S.Count);
  R.Unwritten = static_cast<std::int64_t>(S.Unwritten);
  R.MaxAbsError = fromBits(S.MaxAbsBits);
  R.MaxRelError = fromBits(S.MaxRelBits);
  R.Ok = R.Mismatches == 0;
  if (!R.Ok) {
    int Size = codec::elementSize(T);
    unsigned char G[8], E[8];
    R.FirstMismatch = static_cast<std::int64_t>(S.First);
    readElement(Got, R.FirstMismatch, Size, G, Stream);
    readElement(Expected, R.FirstMismatch, Size, E, Stream);
    codec::ElementComparison C =
        codec::compareElement(T, G, E, Tol.Atol, Tol.Rtol, Exact, PoisonByte);
    R.FirstGot = C.Got;
    R.FirstExpected = C.Expected;
    R.FirstUnwritten = C.Poisoned;
  }
  return R;
}

std::int64_t firstDifferenceOnDevice(const void *A, const void *B,
                                     std::size_t Bytes, cudaStream_t Stream) {
  if (Bytes == 0)
    return -1;
  bool Aligned = ((reinterpret_cast<std::uintptr_t>(A) |
                   reinterpret_cast<std::uintptr_t>(B)) &
                  15) == 0;
  Summary S = reduce(Stream, [&] {
    differenceKernel<<<blocksFor(Aligned ? Bytes / 16 + 1 : Bytes), Threads, 0,
                       Stream>>>(static_cast<const unsigned char *>(A),
                                 static_cast<const unsigned char *>(B), Bytes,
                                 Aligned, DeviceSummary);
  });
  return S.First == ULLONG_MAX ? -1 : static_cast<std::int64_t>(S.First);
}

KeptPoison keptPoisonOnDevice(const void *A, const void *B, std::int64_t Count,
                              int ElementBytes, unsigned char PoisonA,
                              unsigned char PoisonB, cudaStream_t Stream) {
  KeptPoison K;
  if (Count <= 0)
    return K;
  Summary S = reduce(Stream, [&] {
    keptPoisonKernel<<<blocksFor(Count), Threads, 0, Stream>>>(
        static_cast<const unsigned char *>(A),
        static_cast<const unsigned char *>(B), Count, ElementBytes, PoisonA,
        PoisonB, DeviceSummary);
  });
  K.Count = static_cast<std::int64_t>(S.Count);
  if (K.Count)
    K.First = static_cast<std::int64_t>(S.First);
  return K;
}

std::uint64_t checksumOnDevice(const void *Data, std::size_t Bytes,
                               cudaStream_t Stream) {
  Summary S = reduce(Stream, [&] {
    checksumKernel<<<blocksFor((Bytes + 7) / 8), Threads, 0, Stream>>>(
        static_cast<const unsigned char *>(Data), Bytes, DeviceSummary);
  });
  return S.Count ^ Bytes;
}

} // namespace kopt::eval::device
