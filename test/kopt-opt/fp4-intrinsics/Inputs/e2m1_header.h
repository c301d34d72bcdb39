// A correct e2m1 helper, but in a header: the pass only rewrites helpers
// defined in the file it reads.
#include <cstring>
__device__ inline unsigned char header_e2m1(float v) {
  unsigned int bits;
  memcpy(&bits, &v, sizeof bits);
  float a = fabsf(v);
  unsigned char code = a <= 0.25f   ? 0
                       : a < 0.75f  ? 1
                       : a <= 1.25f ? 2
                       : a < 1.75f  ? 3
                       : a <= 2.5f  ? 4
                       : a < 3.5f   ? 5
                       : a <= 5.0f  ? 6
                                    : 7;
  return ((bits >> 31) ? 0x8 : 0x0) | code;
}
