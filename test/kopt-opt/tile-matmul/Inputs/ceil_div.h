// A rounding-up division helper in a header, as llm.c's dev/cuda/common.h
// writes it.
template <class T> __host__ __device__ T ceil_div_h(T dividend, T divisor) {
  return (dividend + divisor - 1) / divisor;
}
