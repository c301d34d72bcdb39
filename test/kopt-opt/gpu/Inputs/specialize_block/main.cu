// specialize-block's GPU program: a row sum over a block-stride loop and a
// shared-memory tree, both read blockDim.x; launch() runs 256 threads, the
// only launch kopt-opt sees. Prints each row's sum as a hex float (the
// rewrite must give the same bits). Built with -DKOPT_OTHER_BLOCK it then
// also launches the kernel with 128 threads, a launch hidden from kopt-opt
// (as one in another file would be), and prints what it returned: the
// original runs any block, the specialized kernel must trap.
#include <cstdio>
#include <vector>

__global__ void row_sum(const float *x, float *out, int cols) {
  __shared__ float partial[1024];
  float s = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    s += x[blockIdx.x * cols + j];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      partial[threadIdx.x] += partial[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = partial[0];
}

void launch(const float *x, float *out, int rows, int cols) {
  row_sum<<<rows, 256>>>(x, out, cols);
}

int main() {
  const int shapes[][2] = {{1, 1}, {3, 7}, {5, 256}, {7, 1000}, {64, 4099}};
  unsigned seed = 12345u;
  float *x = nullptr, *out = nullptr;
  cudaMalloc(&x, 64 * 4099 * sizeof(float));
  cudaMalloc(&out, 64 * sizeof(float));
  for (const auto &S : shapes) {
    const int rows = S[0], cols = S[1];
    std::vector<float> h(size_t(rows) * cols);
    for (float &v : h) {
      seed = seed * 1664525u + 1013904223u;
      v = float(seed >> 8) / float(1u << 24) - 0.5f;
    }
    cudaMemcpy(x, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
    launch(x, out, rows, cols);
    std::vector<float> r(rows);
    cudaError_t E = cudaMemcpy(r.data(), out, rows * sizeof(float),
                               cudaMemcpyDeviceToHost);
    if (E != cudaSuccess) {
      std::printf("error: %s\n", cudaGetErrorString(E));
      return 1;
    }
    for (int i = 0; i < rows; ++i)
      std::printf("%d x %d row %d: %a\n", rows, cols, i, r[i]);
  }
#ifdef KOPT_OTHER_BLOCK
  row_sum<<<4, 128>>>(x, out, 1000);
  std::printf("other block: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
#endif
  return 0;
}
