#!/usr/bin/env python3
"""Times PyTorch eager and torch.compile on the kernels/ problems.

Run by bench/gpu-bench on the GPU host. For each problem, on its benchmark
shape and with its dtypes:

1. builds the problem's own kernel.cu (the naive kernel) into a shared
   library and calls its extern "C" launcher through ctypes on inputs drawn
   from problem.json's distributions, with the outputs poisoned (0xFF);
2. runs the problem's function from torch_impls.py eagerly and through
   torch.compile on the same inputs and compares both with the kernel's
   outputs, with the problem's tolerance (NVFP4 codes: see compare_nvfp4);
3. with --opt-dir, builds kopt's -O output of the problem (DIR/NAME.cu, as
   bench/gpu-bench writes it) the same way, checks it like PyTorch, and
   times it too ("opt_harness"), so that -O and torch.compile are compared
   in one harness and not only across two;
4. times the naive kernel, eager and compiled PyTorch, each called
   directly and replayed from a CUDA graph, the way kopt-bench times (lib/Eval/Device/TimingRun.cpp): interleaved in one process on one
   stream, each run between its own pair of CUDA events, the L2 flushed
   before every run by a fill of max(2 x L2, 64 MiB) bytes and in-place
   buffers restored, both outside the events; 25 ms of warm-up (at least 3
   rounds), then enough rounds to fill 400 ms per variant (20 to 2000),
   median.

Writes one JSON file; bench/report.py turns it and kopt-bench's records
into the table.
"""
import argparse
import concurrent.futures
import ctypes
import json
import os
import re
import statistics
import subprocess
import sys
import time
import traceback

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_impls import IMPLS  # noqa: E402

DTYPES = {
    "f64": torch.float64, "f32": torch.float32, "f16": torch.float16,
    "bf16": torch.bfloat16, "fp8e4m3": torch.float8_e4m3fn,
    "fp8e5m2": torch.float8_e5m2, "i8": torch.int8, "u8": torch.uint8,
    "i16": torch.int16, "i32": torch.int32, "i64": torch.int64,
    "u32": torch.uint32, "u64": torch.uint64,
}
CTYPES = {
    "f64": ctypes.c_double, "f32": ctypes.c_float, "i8": ctypes.c_int8,
    "u8": ctypes.c_uint8, "i16": ctypes.c_int16, "i32": ctypes.c_int32,
    "i64": ctypes.c_int64, "u32": ctypes.c_uint32, "u64": ctypes.c_uint64,
}
# Worst first wins when a problem has several outputs.
VERDICT_RANK = {"exact": 0, "ok": 1, "≈": 2, "DIFFERS": 3}


def size_expression(expr, sizes):
    """Evaluates a problem.json bytes/flops expression (+ - * / ( ))."""
    if isinstance(expr, (int, float)):
        return float(expr)
    if not re.fullmatch(r"[\w\s+\-*/().]+", expr):
        raise ValueError("bad size expression %r" % expr)
    return float(eval(expr, {"__builtins__": {}}, dict(sizes)))


def buffer_shape(arg, sizes):
    return [sizes[d] if isinstance(d, str) else int(d) for d in arg["shape"]]


def scalar_value(arg, sizes):
    v = arg["value"]
    return sizes[v] if isinstance(v, str) else v


def draw(arg, shape, gen):
    """Fresh random input from the arg's init (defaults as kopt-bench's)."""
    dtype = DTYPES[arg["buffer"]]
    is_float = dtype.is_floating_point
    init = arg.get("init") or ({"dist": "normal", "mean": 0, "std": 1}
                               if is_float else
                               {"dist": "randint", "lo": 0, "hi": 100})
    dist = init["dist"]
    if dist == "normal":
        t = torch.randn(shape, generator=gen, device="cuda") * init.get(
            "std", 1) + init.get("mean", 0)
    elif dist == "uniform":
        lo, hi = init.get("lo", -1), init.get("hi", 1)
        t = torch.rand(shape, generator=gen, device="cuda") * (hi - lo) + lo
    elif dist == "randint":
        t = torch.randint(init.get("lo", 0), init.get("hi", 100), shape,
                          generator=gen, device="cuda", dtype=torch.int64)
    elif dist == "constant":
        t = torch.full(shape, float(init["value"]), device="cuda")
    else:
        raise ValueError("unknown dist %r" % dist)
    if dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
        # Saturate as kopt-bench's inputs do (__NV_SATFINITE).
        t = t.clamp(-torch.finfo(dtype).max, torch.finfo(dtype).max)
    return t.to(dtype)


def poisoned(shape, dtype):
    t = torch.empty(shape, dtype=dtype, device="cuda")
    t.view(torch.uint8).fill_(0xFF)
    return t


def sm_arch():
    major, minor = torch.cuda.get_device_capability()
    # Arch-specific targets (sm_90a) as kopt-bench compiles them.
    suffix = "a" if (major, minor) in ((9, 0), (10, 0), (10, 3), (12, 0)) else ""
    return "%d%d%s" % (major, minor, suffix)


def build_library(problem_dir, work, arch, source=None, suffix=""):
    """nvcc -O3 for the device's arch, as kopt-bench's flags (no shim);
    source (default the problem's own) is built as NAME+suffix.so."""
    name = os.path.basename(os.path.normpath(problem_dir))
    spec = json.load(open(os.path.join(problem_dir, "problem.json")))
    src = source or os.path.join(problem_dir, spec["source"])
    lib = os.path.join(work, name + suffix + ".so")
    cmd = ["nvcc", "-O3", "-std=c++17",
           "-gencode=arch=compute_%s,code=sm_%s" % (arch, arch),
           "-shared", "-Xcompiler", "-fPIC", "-I" + problem_dir, "-o", lib, src]
    if spec.get("fast_math"):
        cmd.insert(1, "--use_fast_math")
    cmd[1:1] = spec.get("nvcc_flags", [])
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError("nvcc failed: " + done.stderr[-2000:])
    return lib


def build_opt_library(problem_dir, work, arch, opt_dir):
    """The -O output's library, or None when opt_dir has no source for the
    problem (gpu-bench writes one for every problem, changed or not)."""
    if not opt_dir:
        return None
    name = os.path.basename(os.path.normpath(problem_dir))
    source = os.path.join(opt_dir, name + ".cu")
    if not os.path.isfile(source):
        return None
    return build_library(problem_dir, work, arch, source, "-O")


class Problem:
    def __init__(self, problem_dir):
        self.dir = problem_dir
        self.spec = json.load(open(os.path.join(problem_dir, "problem.json")))
        self.name = self.spec["name"]
        self.sizes = self.spec["shapes"][self.spec.get("benchmark_shape", 0)]
        tol = self.spec.get("tolerance", {})
        self.atol = tol.get("atol", 1e-5)
        self.rtol = tol.get("rtol", 1e-5)
        self.nvfp4 = self.spec.get("_nvfp4")

    def args(self, kinds):
        return [a for a in self.spec["args"]
                if ("buffer" in a and a.get("intent", "in") in kinds)]

    def make_inputs(self, seed):
        gen = torch.Generator(device="cuda")
        gen.manual_seed(seed)
        inputs = {}
        for a in self.args(("in", "inout")):
            inputs[a["name"]] = draw(a, buffer_shape(a, self.sizes), gen)
        return inputs

    def scalars(self):
        """The scalars that are numbers (not sizes), for torch_impls."""
        return {a["name"]: a["value"] for a in self.spec["args"]
                if "scalar" in a and not isinstance(a["value"], str)}


class LibraryKernel:
    """A problem's extern "C" launcher from a built library (its naive
    kernel or kopt's -O output), called through ctypes on torch's stream."""

    def __init__(self, problem, lib_path, inputs):
        self.p = problem
        self.fn = getattr(ctypes.CDLL(lib_path), problem.spec["entry"])
        self.fn.restype = None
        self.pristine = inputs
        self.buffers = {}
        for a in problem.spec["args"]:
            if "buffer" not in a:
                continue
            intent = a.get("intent", "in")
            if intent == "in":
                self.buffers[a["name"]] = inputs[a["name"]]
            elif intent == "inout":
                self.buffers[a["name"]] = inputs[a["name"]].clone()
            else:
                self.buffers[a["name"]] = poisoned(
                    buffer_shape(a, problem.sizes), DTYPES[a["buffer"]])
        argtypes = []
        for a in problem.spec["args"]:
            if "buffer" in a or a.get("stream"):
                argtypes.append(ctypes.c_void_p)
            else:
                argtypes.append(CTYPES[a["scalar"]])
        self.fn.argtypes = argtypes
        self.cached = {}

    def restore(self):
        for a in self.p.args(("inout",)):
            self.buffers[a["name"]].copy_(self.pristine[a["name"]])

    def __call__(self):
        # The argument list is built once per stream: Python time spent
        # here falls between the events when the GPU is idle.
        stream = torch.cuda.current_stream().cuda_stream
        values = self.cached.get(stream)
        if values is None:
            values = []
            for a in self.p.spec["args"]:
                if "buffer" in a:
                    values.append(self.buffers[a["name"]].data_ptr())
                elif a.get("stream"):
                    values.append(stream)
                else:
                    values.append(scalar_value(a, self.p.sizes))
            self.cached[stream] = values
        self.fn(*values)

    def outputs(self):
        return {a["name"]: self.buffers[a["name"]]
                for a in self.p.args(("out", "inout"))}


def compare_plain(got, exp, atol, rtol):
    if got.dtype != exp.dtype or got.numel() != exp.numel():
        return {"verdict": "DIFFERS",
                "why": "dtype/size %s %s vs %s %s" % (
                    got.dtype, tuple(got.shape), exp.dtype, tuple(exp.shape))}
    got = got.reshape(-1).contiguous()
    exp = exp.reshape(-1).contiguous()
    if torch.equal(got.view(torch.uint8), exp.view(torch.uint8)):
        return {"verdict": "exact"}
    if got.dtype.is_floating_point:
        g, e = got.double(), exp.double()
        good = ((g - e).abs() <= atol + rtol * e.abs()) | (g == e) | (
            torch.isnan(g) & torch.isnan(e))
        err = (g - e).abs()
        err = err[~torch.isnan(err)]
        out = {"max_abs_error": err.max().item() if err.numel() else None}
    else:
        good = got == exp
        out = {}
    bad = int((~good).sum().item())
    out["mismatches"] = bad
    out["verdict"] = "ok" if bad == 0 else "DIFFERS"
    if bad:
        i = int((~good).nonzero()[0].item())
        out["first_mismatch"] = {"index": i, "got": got[i].item(),
                                 "expected": exp[i].item()}
    return out


E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
# The larger distance from each e2m1 magnitude to a neighbour: one step.
E2M1_STEP = [0.5, 0.5, 0.5, 0.5, 1.0, 1.0, 2.0, 2.0]


def compare_nvfp4(q, sf, q_ref, sf_ref):
    """NVFP4 codes of another implementation against the kernel's.

    Equal bytes: "exact". Otherwise the implementations computed the block
    values with f32 operations in another order (a reduction, exp), so a
    value that lies on a rounding boundary may round to the neighbouring
    code or scale. "≈": at most 1% of the codes and scales differ, every
    scale by at most one e4m3 step, and every dequantized value lies within
    one e2m1 step (at the kernel's code, times the larger of the two scales)
    of the kernel's. Anything else: "DIFFERS".
    """
    if torch.equal(q, q_ref) and torch.equal(sf, sf_ref):
        return {"verdict": "exact"}
    dev = q.device
    grid = torch.tensor(E2M1, device=dev, dtype=torch.float64)
    step = torch.tensor(E2M1_STEP, device=dev, dtype=torch.float64)

    def codes(packed):
        p = packed.reshape(-1, 8).to(torch.int64)
        return torch.stack([p & 0xF, p >> 4], dim=-1).reshape(-1, 16)

    def value(c):
        v = grid[c & 7]
        return torch.where((c & 8) != 0, -v, v)

    def scale(s):
        return s.reshape(-1).view(torch.float8_e4m3fn).double()

    c, c_ref = codes(q), codes(q_ref)
    s, s_ref = scale(sf), scale(sf_ref)
    deq = value(c) * s[:, None]
    deq_ref = value(c_ref) * s_ref[:, None]
    bound = step[c_ref & 7] * torch.maximum(s, s_ref)[:, None]
    within = bool(((deq - deq_ref).abs() <= bound).all().item())
    code_diff = (c != c_ref).double().mean().item()
    scale_codes = sf.reshape(-1).to(torch.int64)
    scale_codes_ref = sf_ref.reshape(-1).to(torch.int64)
    scale_diff = (scale_codes != scale_codes_ref).double().mean().item()
    scale_steps = (scale_codes - scale_codes_ref).abs().max().item()
    near = within and code_diff <= 0.01 and scale_diff <= 0.01 and \
        scale_steps <= 1
    return {"verdict": "≈" if near else "DIFFERS",
            "codes_differing": code_diff, "scales_differing": scale_diff,
            "max_scale_steps": scale_steps, "within_one_step": within}


def check(problem, got, expected):
    """Compares every output; returns (verdict, details per output)."""
    details = {}
    fp4 = problem.nvfp4
    for name, exp in expected.items():
        if fp4 and name in (fp4["values"], fp4["scales"]):
            continue
        if name not in got:
            details[name] = {"verdict": "DIFFERS", "why": "missing"}
            continue
        details[name] = compare_plain(got[name], exp, problem.atol,
                                      problem.rtol)
    if fp4:
        v, s = fp4["values"], fp4["scales"]
        details[v + "+" + s] = compare_nvfp4(
            got[v].reshape(expected[v].shape), got[s].reshape(expected[s].shape),
            expected[v], expected[s])
    verdict = max((d["verdict"] for d in details.values()),
                  key=lambda x: VERDICT_RANK[x])
    return verdict, details


def time_interleaved(variants, l2_bytes, warmup_ms=25, repeat_ms=400,
                     min_runs=20, max_runs=2000, batch=64):
    """kopt-bench's timing method for several variants at once.

    variants: list of (prepare, call); prepare (restoring in-place buffers)
    runs outside the events. Returns the sample lists, in variant order.
    """
    flush = torch.empty(max(2 * l2_bytes, 64 << 20), dtype=torch.uint8,
                        device="cuda")
    n = len(variants)
    pool = [(torch.cuda.Event(enable_timing=True),
             torch.cuda.Event(enable_timing=True)) for _ in range(batch * n)]
    counter = [0]

    def enqueue(i, events):
        counter[0] += 1
        flush.fill_(counter[0] & 0xFF)
        prepare, call = variants[i]
        prepare()
        events[0].record()
        call()
        events[1].record()

    def one_batch(first_round, rounds):
        for r in range(rounds):
            for k in range(n):
                # Rotate the order so no variant always runs first.
                i = (first_round + r + k) % n
                enqueue(i, pool[r * n + i])
        torch.cuda.synchronize()
        return [[pool[r * n + i][0].elapsed_time(pool[r * n + i][1])
                 for r in range(rounds)] for i in range(n)]

    start = time.perf_counter()
    warm = []
    rounds = 0
    while True:
        times = one_batch(rounds, 1)
        warm.append(max(t[0] for t in times))
        rounds += 1
        if rounds >= 3 and (time.perf_counter() - start) * 1e3 >= warmup_ms:
            break
    per_run = max(statistics.median(warm), 1e-4)
    runs = max(min_runs, min(max_runs, int(repeat_ms / per_run)))
    samples = [[] for _ in range(n)]
    done = 0
    while done < runs:
        now = min(batch, runs - done)
        times = one_batch(done, now)
        for i in range(n):
            samples[i].extend(times[i])
        done += now
    del flush
    return samples


def graphed(prepare, call):
    """Captures call into a CUDA graph (after warm-up on a side stream, as
    PyTorch requires); returns its replay."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            prepare()
            call()
    torch.cuda.current_stream().wait_stream(side)
    prepare()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        call()
    torch.cuda.synchronize()
    return graph.replay


def summary(samples):
    s = sorted(samples)
    q = statistics.quantiles(s, n=5) if len(s) >= 5 else [s[0]] * 4
    return {"runs": len(s), "median_ms": statistics.median(s),
            "p20_ms": q[0], "p80_ms": q[3], "min_ms": s[0], "max_ms": s[-1]}


def bench_problem(problem, lib_path, l2_bytes, seed, opt_lib=None):
    rec = {"problem": problem.name, "sizes": problem.sizes,
           "benchmark_shape": problem.spec.get("benchmark_shape", 0)}
    inputs = problem.make_inputs(seed)
    # The scalars are closed over, so torch.compile sees them as constants
    # (a float argument may become a symbolic input): only tensors are
    # passed per call.
    fn, scalars = IMPLS[problem.name], problem.scalars()

    def impl(**tensors):
        return fn(**tensors, **scalars)

    kw = dict(inputs)

    naive = LibraryKernel(problem, lib_path, inputs)
    naive()
    torch.cuda.synchronize()
    expected = {k: v.clone() for k, v in naive.outputs().items()}

    eager_out = impl(**kw)
    torch.cuda.synchronize()
    rec["eager_check"], rec["eager_check_details"] = check(
        problem, eager_out, expected)

    torch._dynamo.reset()
    compiled = torch.compile(impl)
    t0 = time.perf_counter()
    compiled_out = compiled(**kw)
    torch.cuda.synchronize()
    rec["compile_seconds"] = time.perf_counter() - t0
    rec["compile_check"], rec["compile_check_details"] = check(
        problem, compiled_out, expected)
    del eager_out, compiled_out

    nothing = lambda: None  # noqa: E731
    variants = [("naive_harness", naive.restore, naive),
                ("eager", nothing, lambda: impl(**kw)),
                ("compile", nothing, lambda: compiled(**kw))]
    if opt_lib:
        opt = LibraryKernel(problem, opt_lib, inputs)
        opt()
        torch.cuda.synchronize()
        rec["opt_check"], rec["opt_check_details"] = check(
            problem, opt.outputs(), expected)
        opt.restore()
        variants.append(("opt_harness", opt.restore, opt))
    # The same calls replayed from CUDA graphs: GPU time without the CPU
    # time of launching (Python, dispatch, guards), which direct calls of
    # microsecond work cannot hide.
    for key, prepare, call in list(variants):
        try:
            variants.append((key + "_graph", prepare, graphed(prepare, call)))
        except Exception as e:  # noqa: BLE001 - reported, not fatal
            rec[key + "_graph_error"] = "%s: %s" % (type(e).__name__, e)
    samples = time_interleaved([(p, c) for _, p, c in variants], l2_bytes)
    for (key, _, _), s in zip(variants, samples):
        rec[key] = summary(s)
    bytes_ = problem.spec.get("bytes")
    if bytes_ is not None:
        rec["bytes"] = size_expression(bytes_, problem.sizes)
    if problem.spec.get("flops") is not None:
        rec["flops"] = size_expression(problem.spec["flops"], problem.sizes)
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("problems", nargs="+", help="problem directories")
    ap.add_argument("--out", required=True, help="JSON file to write")
    ap.add_argument("--work", required=True, help="folder for built libraries")
    ap.add_argument("--deadline", type=float, default=0,
                    help="Unix time after which no problem is started")
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("--opt-dir", default="",
                    help="folder of kopt -O outputs (NAME.cu) to time in "
                         "this harness too")
    args = ap.parse_args()

    # f32 means f32: no TF32 in matmul or cuDNN convolutions.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")

    os.makedirs(args.work, exist_ok=True)
    props = torch.cuda.get_device_properties(0)
    arch = sm_arch()
    result = {"torch": torch.__version__, "device": props.name,
              "multiprocessors": props.multi_processor_count,
              "l2_bytes": props.L2_cache_size, "arch": "sm_" + arch,
              "capability": list(torch.cuda.get_device_capability()),
              "problems": {}}

    # nvcc runs on the CPU: build every library in parallel up front.
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        builds = {d: pool.submit(build_library, d, args.work, arch)
                  for d in args.problems}
        opt_builds = {d: pool.submit(build_opt_library, d, args.work, arch,
                                     args.opt_dir)
                      for d in args.problems}
    for i, d in enumerate(args.problems):
        problem = Problem(d)
        if args.deadline and time.time() > args.deadline:
            result["problems"][problem.name] = {"error": "skipped: deadline"}
            print("torch: %s skipped (deadline)" % problem.name, flush=True)
            continue
        start = time.time()
        opt_lib, opt_error = None, None
        try:
            opt_lib = opt_builds[d].result()
        except Exception as e:  # noqa: BLE001 - reported, the rest is timed
            opt_error = "%s: %s" % (type(e).__name__, e)
        try:
            rec = bench_problem(problem, builds[d].result(), props.L2_cache_size,
                                args.seed + i, opt_lib)
            if opt_error:
                rec["opt_error"] = opt_error
        except Exception as e:  # one broken problem must not stop the rest
            rec = {"error": "%s: %s" % (type(e).__name__, e),
                   "traceback": traceback.format_exc()[-3000:]}
        rec["seconds"] = time.time() - start
        result["problems"][problem.name] = rec
        print("torch: %-22s %s" % (problem.name, " ".join(
            "%s=%.4f" % (k, rec[k]["median_ms"])
            for k in ("naive_harness", "eager", "compile", "opt_harness",
                      "naive_harness_graph", "eager_graph", "compile_graph",
                      "opt_harness_graph") if k in rec) or
            rec.get("error")) + "  eager:%s compile:%s -O:%s  (%.0f s)" % (
            rec.get("eager_check"), rec.get("compile_check"),
            rec.get("opt_check", "-"), rec["seconds"]),
            flush=True)
        # Written after every problem: a time limit keeps what was done.
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
        torch.cuda.empty_cache()
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
