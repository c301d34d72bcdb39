#!/usr/bin/env python3
# A stand-in for `nvcc -Xptxas -v` in warp-reduce's tests, so that the
# resource check's decisions do not depend on a CUDA toolkit: every
# __global__ function of the compiled source uses 32 registers, or 40 when
# the source has a warp-reduce in-order tail (__shfl_down_sync) and the
# kernel is named in $FAKE_PTXAS_RISE (comma-separated; comments do not
# count). The kernels named in $FAKE_PTXAS_SPILL spill 8 bytes, 16 with a
# tail. With FAKE_PTXAS_FAIL set, it fails as a compile error does.
import os
import re
import sys

source = open(sys.argv[-1]).read()
# Code only: tests name __shfl_down_sync in their // CHECK lines.
source = re.sub(r"//[^\n]*", "", source)
if os.environ.get("FAKE_PTXAS_FAIL"):
    print("source.cu(1): error: fake compile error", file=sys.stderr)
    sys.exit(1)
rise = set(os.environ.get("FAKE_PTXAS_RISE", "").split(","))
spill = set(os.environ.get("FAKE_PTXAS_SPILL", "").split(","))
tail = "__shfl_down_sync" in source
for name in re.findall(
    r"__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s+)?(\w+)\s*\(", source
):
    registers = 40 if tail and name in rise else 32
    print(f"ptxas info    : Compiling entry function '{name}' for 'sm_90'",
          file=sys.stderr)
    print(f"ptxas info    : Used {registers} registers, used 1 barriers",
          file=sys.stderr)
    if name in spill:
        n = 16 if tail else 8
        print(f"ptxas info    : Function properties for {name}",
              file=sys.stderr)
        print(f"    {n} bytes stack frame, {n} bytes spill stores, "
              f"{n} bytes spill loads", file=sys.stderr)
