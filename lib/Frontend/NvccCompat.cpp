//===- NvccCompat.cpp - Declarations nvcc has and clang's CUDA lacks ------===//

#include "kopt/Frontend/NvccCompat.h"

namespace kopt {

llvm::StringRef nvccCompatHeaderPath() {
  return "/kopt-virtual/kopt_nvcc_compat.h";
}

// The element types are those of nvcc's sm_32_intrinsics.h; cuda_fp16.h and
// cuda_bf16.h already declare the __half and __nv_bfloat16 overloads for
// clang too.
llvm::StringRef nvccCompatHeader() {
  return R"(// kopt: nvcc's cache-hinted stores, declared for parsing with clang.
#ifndef KOPT_NVCC_COMPAT_H
#define KOPT_NVCC_COMPAT_H
#if defined(__clang__) && defined(__CUDA__) && !defined(__NVCC__)
#define KOPT_NVCC_STORE(NAME)                                                  \
  __device__ void NAME(char *, char);                                          \
  __device__ void NAME(signed char *, signed char);                            \
  __device__ void NAME(short *, short);                                        \
  __device__ void NAME(int *, int);                                            \
  __device__ void NAME(long *, long);                                          \
  __device__ void NAME(long long *, long long);                                \
  __device__ void NAME(unsigned char *, unsigned char);                        \
  __device__ void NAME(unsigned short *, unsigned short);                      \
  __device__ void NAME(unsigned int *, unsigned int);                          \
  __device__ void NAME(unsigned long *, unsigned long);                        \
  __device__ void NAME(unsigned long long *, unsigned long long);              \
  __device__ void NAME(char2 *, char2);                                        \
  __device__ void NAME(char4 *, char4);                                        \
  __device__ void NAME(short2 *, short2);                                      \
  __device__ void NAME(short4 *, short4);                                      \
  __device__ void NAME(int2 *, int2);                                          \
  __device__ void NAME(int4 *, int4);                                          \
  __device__ void NAME(longlong2 *, longlong2);                                \
  __device__ void NAME(uchar2 *, uchar2);                                      \
  __device__ void NAME(uchar4 *, uchar4);                                      \
  __device__ void NAME(ushort2 *, ushort2);                                    \
  __device__ void NAME(ushort4 *, ushort4);                                    \
  __device__ void NAME(uint2 *, uint2);                                        \
  __device__ void NAME(uint4 *, uint4);                                        \
  __device__ void NAME(ulonglong2 *, ulonglong2);                              \
  __device__ void NAME(float *, float);                                        \
  __device__ void NAME(double *, double);                                      \
  __device__ void NAME(float2 *, float2);                                      \
  __device__ void NAME(float4 *, float4);                                      \
  __device__ void NAME(double2 *, double2);
KOPT_NVCC_STORE(__stcs)
KOPT_NVCC_STORE(__stcg)
KOPT_NVCC_STORE(__stwb)
#undef KOPT_NVCC_STORE
// nvcc's runtime headers include <time.h> (crt/common_functions.h), so host
// code may call clock() without including it.
#include <time.h>
// nvcc's math headers give host code the global min and max overloads that
// device code has; clang declares only the __device__ ones.
#define KOPT_NVCC_MINMAX(T)                                                    \
  static inline __host__ T min(T a, T b) { return b < a ? b : a; }             \
  static inline __host__ T max(T a, T b) { return a < b ? b : a; }
KOPT_NVCC_MINMAX(int)
KOPT_NVCC_MINMAX(unsigned int)
KOPT_NVCC_MINMAX(long)
KOPT_NVCC_MINMAX(unsigned long)
KOPT_NVCC_MINMAX(long long)
KOPT_NVCC_MINMAX(unsigned long long)
KOPT_NVCC_MINMAX(float)
KOPT_NVCC_MINMAX(double)
#undef KOPT_NVCC_MINMAX
#endif
#endif
)";
}

} // namespace kopt
