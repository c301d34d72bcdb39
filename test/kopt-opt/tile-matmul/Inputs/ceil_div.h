// A rounding-up division helper in a header, as llm.c's dev/cuda/common.h
// writes it.
template <class T> __host__ __device__ T ceil_div_h(T dividend, T divisor) {
  return (dividend + divisor - 1) / divisor;
}

// Not readable alone: it calls another helper of this header.
__host__ __device__ inline int round_up_h(int n, int m) {
  return (n + m - 1) / m * m;
}
__host__ __device__ inline int ceil_div_calls(int n, int m) {
  return round_up_h(n, m) / m;
}
