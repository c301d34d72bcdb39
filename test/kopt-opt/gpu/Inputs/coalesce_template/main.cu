// coalesce on a template transpose, instantiated for float and double:
// every shape's output must equal the CPU's transpose exactly. Prints one
// line a case and "N failed"; exit 0 when all hold.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

template <typename T>
__global__ void transpose(const T *in, T *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[c * rows + r] = in[r * cols + c];
}

template <typename T> static int check(int rows, int cols) {
  size_t n = (size_t)rows * cols;
  std::vector<T> h(n), got(n);
  for (size_t i = 0; i < n; ++i)
    h[i] = (T)(i % 1009) - (T)500.5;
  T *in, *out;
  cudaMalloc(&in, n * sizeof(T));
  cudaMalloc(&out, n * sizeof(T));
  cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemset(out, 0, n * sizeof(T));
  dim3 block(32, 8);
  dim3 grid((cols + 31) / 32, (rows + 7) / 8);
  transpose<<<grid, block>>>(in, out, rows, cols);
  if (cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("%s\n", cudaGetErrorString(cudaGetLastError()));
    std::exit(2);
  }
  cudaMemcpy(got.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost);
  cudaFree(in);
  cudaFree(out);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      if (got[(size_t)c * rows + r] != h[(size_t)r * cols + c])
        return 1;
  return 0;
}

int main() {
  int failed = 0;
  const int shapes[][2] = {{1, 1}, {33, 65}, {1000, 257}, {64, 2048}, {7, 1}};
  for (const auto &s : shapes) {
    int bad = check<float>(s[0], s[1]);
    std::printf("%s: float %d x %d\n", bad ? "FAILED" : "ok", s[0], s[1]);
    failed += bad;
    bad = check<double>(s[0], s[1]);
    std::printf("%s: double %d x %d\n", bad ? "FAILED" : "ok", s[0], s[1]);
    failed += bad;
  }
  std::printf("%d failed\n", failed);
  return failed != 0;
}
