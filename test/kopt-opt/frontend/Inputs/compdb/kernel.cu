#include "tile.h"

__global__ void fill(float *p) { p[threadIdx.x] = kTile; }

void launch(float *p) { fill<<<1, kTile>>>(p); }
