// The grid-size helper as llm.c's dev/cuda/common.h writes it: kopt parses
// this header without function bodies and reads the helper from its text.
template <class T> __host__ __device__ T ceil_div(T dividend, T divisor) {
  return (dividend + divisor - 1) / divisor;
}
