// Launch sites are reported in source order; the instantiations of one site
// (a launch inside a generic lambda, dispatched with several block sizes)
// by their callers' template arguments, whatever the heap's layout: the
// analysis, and the remarks built on it, are the same on every run.
// RUN: kopt-opt --analyze %s > %t.1
// RUN: kopt-opt --analyze %s > %t.2
// RUN: kopt-opt --analyze %s > %t.3
// RUN: kopt-opt --analyze %s > %t.4
// RUN: kopt-opt --analyze %s > %t.5
// RUN: diff %t.1 %t.2
// RUN: diff %t.1 %t.3
// RUN: diff %t.1 %t.4
// RUN: diff %t.1 %t.5
// RUN: FileCheck %s < %t.1
// REQUIRES: filecheck
#include <type_traits>

template <int Block> __global__ void fill(float *out) {
  out[blockIdx.x * Block + threadIdx.x] = 1.0f;
}

template <typename F> void dispatch(F f, int block) {
  switch (block) {
  case 64: f(std::integral_constant<int, 64>{}); break;
  case 256: f(std::integral_constant<int, 256>{}); break;
  case 1024: f(std::integral_constant<int, 1024>{}); break;
  default: f(std::integral_constant<int, 32>{}); break;
  }
}

void launch(float *out, int n, int block) {
  auto go = [&](auto b) { fill<b.value><<<n / b.value, b.value>>>(out); };
  dispatch(go, block);
}

// Callers sort by name: integral_constant<int, 1024> < ..., 256> < ..., 32>
// < ..., 64> as strings.
// CHECK: "launch_sites": [
// CHECK: "expr": "b.value",
// CHECK-NEXT: "value": 1024
// CHECK: "expr": "b.value",
// CHECK-NEXT: "value": 256
// CHECK: "expr": "b.value",
// CHECK-NEXT: "value": 32
// CHECK: "expr": "b.value",
// CHECK-NEXT: "value": 64
