// Template kernels for the GPU test of instance-wise rewrites: an exact
// integer maximum a row (two instantiations, int and long long, with a
// clamp given as a template argument), an axpy written for T (one
// instantiation, float), a row sum templated on its accumulator type, and
// a group maximum a block, templated on the block size and element type.
// Each case prints a hash of its outputs; every build must print the same.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      printf("CUDA error %s at %d\n", cudaGetErrorString(e), __LINE__);        \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

template <typename T, int LIMIT>
__global__ void row_max(T *__restrict__ out, const T *__restrict__ in,
                        int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  T m = in[(size_t)r * cols];
  for (int c = 0; c < cols; ++c)
    if (in[(size_t)r * cols + c] > m)
      m = in[(size_t)r * cols + c];
  out[r] = m < LIMIT ? m : LIMIT;
}

template <typename T> __global__ void axpy(T a, const T *x, T *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

// Integer sums, accumulated in a type given as a template argument: exact
// in any order.
template <typename Acc>
__global__ void row_sum(Acc *__restrict__ out, const int *__restrict__ in,
                        int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  Acc s = 0;
  for (int c = 0; c < cols; ++c)
    s += in[(size_t)r * cols + c];
  out[r] = s;
}

// A block per group, the block size a template argument (a tree over
// BLOCK values): an exact maximum.
template <int BLOCK, typename T>
__global__ void group_max(const T *__restrict__ x, T *__restrict__ out,
                          long long n) {
  __shared__ T buf[BLOCK];
  const T *row = x + blockIdx.x * n;
  T m = row[0];
  for (long long i = threadIdx.x; i < n; i += blockDim.x)
    m = max(m, row[i]);
  buf[threadIdx.x] = m;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (threadIdx.x < s)
      buf[threadIdx.x] = max(buf[threadIdx.x], buf[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = buf[0];
}

static uint64_t mix(uint64_t h, uint64_t v) {
  return (h ^ v) * 1099511628211ull;
}

template <typename T> static uint64_t hashOf(const std::vector<T> &V) {
  uint64_t H = 1469598103934665603ull;
  for (const T &E : V) {
    uint64_t Bits = 0;
    memcpy(&Bits, &E, sizeof(E) < 8 ? sizeof(E) : 8);
    H = mix(H, Bits);
  }
  return H;
}

template <typename T> static T *upload(const std::vector<T> &V) {
  T *D = nullptr;
  CHECK(cudaMalloc(&D, V.size() * sizeof(T) + 64));
  CHECK(cudaMemcpy(D, V.data(), V.size() * sizeof(T), cudaMemcpyHostToDevice));
  return D;
}

template <typename T> static std::vector<T> download(const T *D, size_t N) {
  std::vector<T> V(N);
  CHECK(cudaMemcpy(V.data(), D, N * sizeof(T), cudaMemcpyDeviceToHost));
  return V;
}

int main() {
  const int Shapes[][2] = {{1, 1}, {7, 33}, {129, 1000}, {1000, 257}};
  for (const auto &S : Shapes) {
    int Rows = S[0], Cols = S[1];
    size_t N = (size_t)Rows * Cols;
    std::vector<int> Ii(N);
    std::vector<long long> Il(N);
    for (size_t I = 0; I < N; ++I) {
      Ii[I] = (int)((I * 2654435761u) % 2001) - 1000;
      Il[I] = (long long)Ii[I] * 3;
    }
    int *DIi = upload(Ii), *DOi = upload(std::vector<int>(Rows, -1));
    long long *DIl = upload(Il);
    long long *DOl = upload(std::vector<long long>(Rows, -1));
    long long *DSum = upload(std::vector<long long>(Rows, -1));
    row_max<int, 100><<<(Rows + 127) / 128, 128>>>(DOi, DIi, Rows, Cols);
    row_max<long long, 7><<<(Rows + 255) / 256, 256>>>(DOl, DIl, Rows, Cols);
    row_sum<long long><<<(Rows + 63) / 64, 64>>>(DSum, DIi, Rows, Cols);
    CHECK(cudaDeviceSynchronize());
    printf("%d x %d: max int %016llx long %016llx sum %016llx\n", Rows, Cols,
           (unsigned long long)hashOf(download(DOi, Rows)),
           (unsigned long long)hashOf(download(DOl, Rows)),
           (unsigned long long)hashOf(download(DSum, Rows)));
    CHECK(cudaFree(DIi));
    CHECK(cudaFree(DOi));
    CHECK(cudaFree(DIl));
    CHECK(cudaFree(DOl));
    CHECK(cudaFree(DSum));
  }
  for (int N : {1, 3, 4, 1023, 1 << 20}) {
    std::vector<float> X(N), Y(N);
    for (int I = 0; I < N; ++I) {
      X[I] = (float)((I * 37) % 101) / 7.0f;
      Y[I] = (float)((I * 11) % 53) / 3.0f;
    }
    float *DX = upload(X), *DY = upload(Y);
    axpy<<<120, 256>>>(1.5f, DX, DY, N);
    // Misaligned pointers: the original loop runs.
    if (N > 1)
      axpy<<<120, 256>>>(0.5f, DX + 1, DY + 1, N - 1);
    CHECK(cudaDeviceSynchronize());
    printf("axpy %d: %016llx\n", N,
           (unsigned long long)hashOf(download(DY, N)));
    CHECK(cudaFree(DX));
    CHECK(cudaFree(DY));
  }
  const long long Groups[][2] = {{1, 1}, {3, 1000}, {16, 1 << 20}};
  for (const auto &G : Groups) {
    int NG = (int)G[0];
    long long N = G[1];
    std::vector<int> Xi((size_t)NG * N);
    std::vector<long long> Xl(Xi.size());
    for (size_t I = 0; I < Xi.size(); ++I) {
      Xi[I] = (int)((I * 2654435761u) % 1000003u) - 500000;
      Xl[I] = (long long)Xi[I] * 1000003ll;
    }
    int *DXi = upload(Xi), *DOi = upload(std::vector<int>(NG, -1));
    long long *DXl = upload(Xl);
    long long *DOl = upload(std::vector<long long>(NG, -1));
    group_max<256, int><<<NG, 256>>>(DXi, DOi, N);
    group_max<512, long long><<<NG, 512>>>(DXl, DOl, N);
    CHECK(cudaDeviceSynchronize());
    printf("group_max %d x %lld: int %016llx long %016llx\n", NG, N,
           (unsigned long long)hashOf(download(DOi, NG)),
           (unsigned long long)hashOf(download(DOl, NG)));
    CHECK(cudaFree(DXi));
    CHECK(cudaFree(DOi));
    CHECK(cudaFree(DXl));
    CHECK(cudaFree(DOl));
  }
  return 0;
}
