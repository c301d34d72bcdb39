// A stand-in for llm.c's dev/cuda/common.h in kopt's own words: the helper
// the programs share, which llmc-validate copies beside each build.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e = (call);                                                    \
    if (e != cudaSuccess) {                                                    \
      std::printf("CUDA error %s\n", cudaGetErrorString(e));                   \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)
