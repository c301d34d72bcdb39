// cluster-split's promise, thread by thread: after the combine, thread t of
// every block of the cluster holds the reduction of the very elements
// thread t of the original block visited. The kernel stores each thread's
// partial count (exact) and partial sum (a start of 1 a thread, within a
// tolerance of a double reference of the elements i with i % blockDim.x
// == t), before any block reduction.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

__global__ void partials(const float *x, int *counts, float *sums, int n,
                         float cut) {
  const float *in = x + (long long)blockIdx.x * n;
  int c = 0;
  float s = 1.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    c += in[i] > cut ? 1 : 0;
    s += in[i];
  }
  counts[blockIdx.x * blockDim.x + threadIdx.x] = c;
  sums[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

void run_partials(const float *x, int *counts, float *sums, int groups, int n,
                  int block) {
  partials<<<groups, block>>>(x, counts, sums, n, 0.5f);
}

#define CHECK(E)                                                               \
  do {                                                                         \
    cudaError_t Err = (E);                                                     \
    if (Err != cudaSuccess) {                                                  \
      printf("CUDA error %s at %d\n", cudaGetErrorString(Err), __LINE__);      \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

int main() {
  const int Blocks[] = {32, 256, 1024};
  const int Groups[] = {1, 3};
  const int Ns[] = {0, 1, 1000, 100003};
  const size_t Most = 3 * 100003;
  std::vector<float> Hx(Most);
  for (size_t I = 0; I < Most; ++I)
    Hx[I] = (float)((I * 2654435761u) % 65536) / 32768.0f - 0.75f;
  float *X, *Sums;
  int *Counts;
  CHECK(cudaMalloc(&X, Most * sizeof(float)));
  CHECK(cudaMalloc(&Sums, 3 * 1024 * sizeof(float)));
  CHECK(cudaMalloc(&Counts, 3 * 1024 * sizeof(int)));
  CHECK(cudaMemcpy(X, Hx.data(), Most * sizeof(float), cudaMemcpyHostToDevice));
  std::vector<float> Hs(3 * 1024);
  std::vector<int> Hc(3 * 1024);
  for (int G : Groups)
    for (int N : Ns)
      for (int B : Blocks) {
        CHECK(cudaMemset(Sums, 0xff, 3 * 1024 * sizeof(float)));
        CHECK(cudaMemset(Counts, 0xff, 3 * 1024 * sizeof(int)));
        run_partials(X, Counts, Sums, G, N, B);
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(Hs.data(), Sums, G * B * sizeof(float),
                         cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(Hc.data(), Counts, G * B * sizeof(int),
                         cudaMemcpyDeviceToHost));
        int Bad = 0;
        for (int Gi = 0; Gi < G; ++Gi)
          for (int T = 0; T < B; ++T) {
            double Want = 1.0, Abs = 1.0;
            int Count = 0;
            for (int I = T; I < N; I += B) {
              float V = Hx[(size_t)Gi * N + I];
              Want += V;
              Abs += std::fabs(V);
              Count += V > 0.5f;
            }
            float Got = Hs[Gi * B + T];
            Bad += Hc[Gi * B + T] != Count ||
                   std::fabs(Got - Want) > 1e-5 * Abs;
          }
        printf("partials g=%d n=%d b=%d %s\n", G, N, B,
               Bad ? "BAD" : "ok");
      }
  return 0;
}
