// A program shaped like llm.c's dev/cuda ones: kernel variants chosen by
// argv[1], each checked against the CPU (exit 1 on a mismatch) and timed
// per block size.
#include "common.h"

__global__ void scale1(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 2.0f * x[i];
}

__global__ void scale2(const float *x, float *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    y[i] = 2.0f * x[i];
}

void scale_forward1(const float *x, float *y, int n, int block_size) {
  scale1<<<(n + 255) / 256, 256>>>(x, y, n);
}

void scale_forward2(const float *x, float *y, int n, int block_size) {
  scale2<<<64, block_size>>>(x, y, n);
}

void scale_forward(int kernel_num, const float *x, float *y, int n,
                   int block_size) {
  switch (kernel_num) {
  case 1:
    scale_forward1(x, y, n, block_size);
    break;
  case 2:
    scale_forward2(x, y, n, block_size);
    break;
  default:
    std::printf("Invalid kernel number\n");
    std::exit(1);
  }
}

int main(int argc, char **argv) {
  int kernel_num = argc > 1 ? std::atoi(argv[1]) : 1;
  const int n = 1 << 20;
  float *hx = (float *)std::malloc(n * sizeof(float));
  float *hy = (float *)std::malloc(n * sizeof(float));
  for (int i = 0; i < n; ++i)
    hx[i] = (float)(i % 1000) / 7.0f;
  float *x, *y;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMemcpy(x, hx, n * sizeof(float), cudaMemcpyHostToDevice));
  int sizes[] = {128, 256};
  for (int block_size : sizes) {
    CHECK(cudaMemset(y, 0, n * sizeof(float)));
    scale_forward(kernel_num, x, y, n, block_size);
    CHECK(cudaMemcpy(hy, y, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
      if (hy[i] != 2.0f * hx[i]) {
        std::printf("Mismatch at %d\n", i);
        std::exit(1);
      }
  }
  for (int block_size : sizes) {
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start));
    for (int r = 0; r < 100; ++r)
      scale_forward(kernel_num, x, y, n, block_size);
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    std::printf("block_size %4d | time %.4f ms\n", block_size, ms / 100);
  }
  return 0;
}
