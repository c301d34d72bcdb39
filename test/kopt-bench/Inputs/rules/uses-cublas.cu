// Calls cuBLAS instead of computing.
#include <cublas_v2.h>
#include <cuda_runtime.h>

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  cublasHandle_t handle;
  cublasCreate(&handle);
  cublasSetStream(handle, stream);
  cudaMemcpyAsync(out, y, n * sizeof(float), cudaMemcpyDeviceToDevice, stream);
  cublasSscal(handle, n, &b, out, 1);
  cublasSaxpy(handle, n, &a, x, 1, out, 1);
}
