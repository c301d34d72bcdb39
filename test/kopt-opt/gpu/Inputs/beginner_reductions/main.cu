// Reductions written the way a beginner writes them, unlike kopt's own tests:
// a column mean with a block per column whose threads walk the rows (its
// shared array sized by a macro), and a row L2 norm with a thread per row,
// a double accumulator and a math call in its store. Each shape prints
// whether both results lie within a tolerance of a double reference.
#include <cstdio>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#define N_THREADS 128

__global__ void colMean(float* data, float* result, int rows, int cols)
{
    __shared__ float temp[N_THREADS];
    int col = blockIdx.x;
    int tid = threadIdx.x;
    float total = 0;
    for (int r = tid; r < rows; r = r + blockDim.x) {
        total = total + data[r * cols + col];
    }
    temp[tid] = total;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s = s / 2) {
        if (tid < s) {
            temp[tid] = temp[tid] + temp[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        result[col] = temp[0] / rows;
    }
}

__global__ void rowNorm(const float* __restrict__ a, float* __restrict__ out, int n, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double acc = 0.0;
        for (int j = 0; j < m; j++) {
            float v = a[i * m + j];
            acc += (double)v * v;
        }
        out[i] = (float)sqrt(acc);
    }
}

int main() {
    int shapes[][2] = {{1, 1}, {7, 3}, {1000, 257}, {4096, 1024}, {33, 5000}};
    for (auto& s : shapes) {
        int rows = s[0], cols = s[1];
        std::vector<float> h(rows * cols);
        for (int i = 0; i < rows * cols; i++) h[i] = (float)((i * 7919) % 1000) / 500.0f - 1.0f;
        float *d, *r1, *r2;
        cudaMalloc(&d, h.size() * 4); cudaMalloc(&r1, cols * 4); cudaMalloc(&r2, rows * 4);
        cudaMemcpy(d, h.data(), h.size() * 4, cudaMemcpyHostToDevice);
        cudaMemset(r1, 0xff, cols * 4); cudaMemset(r2, 0xff, rows * 4);
        colMean<<<cols, N_THREADS>>>(d, r1, rows, cols);
        rowNorm<<<(rows + 127) / 128, 128>>>(d, r2, rows, cols);
        if (cudaDeviceSynchronize() != cudaSuccess) { printf("CUDA error\n"); return 1; }
        std::vector<float> g1(cols), g2(rows);
        cudaMemcpy(g1.data(), r1, cols * 4, cudaMemcpyDeviceToHost);
        cudaMemcpy(g2.data(), r2, rows * 4, cudaMemcpyDeviceToHost);
        int bad = 0;
        for (int c = 0; c < cols; c++) { double m = 0; for (int r = 0; r < rows; r++) m += h[r * cols + c]; m /= rows; if (!(fabs(g1[c] - m) <= 1e-5 * (1 + fabs(m)))) bad++; }
        for (int r = 0; r < rows; r++) { double a = 0; for (int c = 0; c < cols; c++) a += (double)h[r * cols + c] * h[r * cols + c]; a = sqrt(a); if (!(fabs(g2[r] - a) <= 1e-6 * (1 + a))) bad++; }
        printf("rows %d cols %d: %s\n", rows, cols, bad ? "WRONG" : "ok");
        cudaFree(d); cudaFree(r1); cudaFree(r2);
    }
    return 0;
}
