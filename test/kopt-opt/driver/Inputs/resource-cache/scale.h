#define SCALE 2.0f
