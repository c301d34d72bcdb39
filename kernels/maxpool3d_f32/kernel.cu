// 3D max pooling, window 2x2x2, stride 2, no padding, NCDHW f32; output
// sizes are floor(d/2) x floor(h/2) x floor(w/2). One output per thread.
#include <cuda_runtime.h>

__global__ void maxpool3d_kernel(const float *x, float *y, int nc, int d,
                                 int h, int w, int od, int oh, int ow) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nc * od * oh * ow)
    return;
  int ox = i % ow;
  int oy = (i / ow) % oh;
  int oz = (i / (ow * oh)) % od;
  int plane = i / (ow * oh * od);
  const float *src = x + plane * d * h * w;
  float m = -INFINITY;
  for (int dz = 0; dz < 2; ++dz)
    for (int dy = 0; dy < 2; ++dy)
      for (int dx = 0; dx < 2; ++dx)
        m = fmaxf(m, src[((2 * oz + dz) * h + 2 * oy + dy) * w + 2 * ox + dx]);
  y[i] = m;
}

extern "C" void launch_maxpool3d(const float *x, float *y, int n, int c, int d,
                                 int h, int w, int od, int oh, int ow,
                                 cudaStream_t stream) {
  const int block = 256;
  const int total = n * c * od * oh * ow;
  const int grid = (total + block - 1) / block;
  maxpool3d_kernel<<<grid, block, 0, stream>>>(x, y, n * c, d, h, w, od, oh,
                                               ow);
}
