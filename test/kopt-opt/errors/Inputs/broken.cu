__global__ void k(float *p) {
  p[threadIdx.x] = undeclared_name;
}
