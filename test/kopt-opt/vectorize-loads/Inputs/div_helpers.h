// Grid-size helpers in a header, as real code keeps them (llm.c's
// dev/cuda/common.h has the template): kopt's preamble holds no bodies.
template <class T> __host__ __device__ T ceil_div(T dividend, T divisor) {
  return (dividend + divisor - 1) / divisor;
}
namespace util {
__host__ __device__ __forceinline__ int cdiv(int a, int b) {
  return (a + b - 1) / b;
}
} // namespace util
// Named like a rounding-up division, but rounds down.
inline int blocks_for(int n, int b) { return n / b; }
