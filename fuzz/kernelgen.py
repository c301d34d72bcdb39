"""Random but valid CUDA programs in the shapes kopt's passes rewrite.

A program is a list of kernel specs (plain dicts, so a mismatch can be
reduced by dropping kernels or simplifying a spec's features and rendering
again) and renders to a problem directory: kernel.cu (the kernels and one
launcher, `launch_fuzz`, that runs them all on the given stream),
problem.json (exact comparison: atol = rtol = 0), problem-rounding.json
(the same program with a tolerance for pipelines that declare a rounding
change) and problem-precision.json (a looser one for pipelines that declare
a precision change). Every kernel reads its own inputs and writes its own output, is
free of races and out-of-bounds accesses on every shape, and computes the
same bits on every run: a rewrite that declares no rounding change must
keep them.

Kinds (what real code writes, and what the passes look for):
  ew        element-wise: guard, early return or grid-stride loop; in place
            or through two pointers to one buffer; two inputs
  rowred    one thread per row, a serial loop over the row (sum, sum of
            squares, dot with a vector, max, min, two accumulators, a
            two-pass mean and variance), through a row pointer or not
  blockred  one block per row: a block-stride loop, then a tree in shared
            memory or warp shuffles; or a two-pass norm writing the row
            (with a two-pass variance, or a sum of exponentials of the
            deviations from the mean: online-softmax's shape)
  strided   threads across a strided axis: one block per column walking
            the rows, or one thread per column
  grid2d    2-D blocks: a transpose, a broadcast add
  matmul    one thread per element of A x W
  atomic    integer sums through atomicAdd on one address: a loop whose
            body is the atomic, atomics after work and under an if/else, in
            a loop nested in a while loop, per row in a block-stride loop,
            one a thread (drawn from a third random stream)

Spellings every 1-D kind may take: the block size named inside the kernel
(`blockIdx.x * K_THREADS + threadIdx.x`, `c += BLOCK`, `BLOCK / 2`) as a
macro, a constexpr or a template parameter; a tree's start a literal
(`st = 128`); the element type a template
parameter (`template <typename T>`); a short loop of constant trip count
(element-wise polynomials); a grid-stride loop's head written as a macro
(Caffe's CUDA_KERNEL_LOOP); a row's elements through a helper of the
program; a block-per-row loop over a constant head of
32 or 64 elements (fewer than the block has threads); a block-per-row
reduction that also writes each thread's partial.

How each kind is written: fuzz/kernel_kinds.py.
"""
import json
import os
import random

from kernel_kinds import CTYPES, DTYPES, RENDER, Out, comp, respell

KINDS = ["ew", "rowred", "blockred", "strided", "grid2d", "matmul"]
KIND_WEIGHTS = [30, 22, 22, 12, 8, 4]


def pick(rng, choices, weights=None):
    return rng.choices(choices, weights=weights)[0]


# ---------------------------------------------------------------- specs


def random_kernel(rng, rng2=None, rng3=None, rng4=None):
    """One kernel spec: its kind and the features that spell it. rng2
    draws the spellings added later (templates, the block size named in the
    kernel, constant trip counts, constant heads), so that rng's draws, and
    with them the kernels of a seed, stay those of the first generator;
    rng3 replaces a few kernels by atomics, leaving rng2's draws as they
    were; rng4 draws the spellings added after those (a grid-stride loop's
    head written as a macro, a row's elements through a helper)."""
    kind = pick(rng, KINDS, KIND_WEIGHTS)
    s = {"kind": kind,
         "block": pick(rng, [32, 64, 96, 128, 192, 256, 512, 1024],
                       [1, 2, 1, 3, 1, 5, 2, 1]),
         "block_spelling": pick(rng, ["literal", "define", "constexpr",
                                      "local", "runtime", "dim3"]),
         "const_in": rng.random() < 0.7,
         "restrict": rng.random() < 0.3}
    if kind == "ew":
        s["dtype"] = pick(rng, list(DTYPES), [6, 2, 2, 1, 2])
        s["form"] = pick(rng, ["guard", "return", "gridstride"])
        s["index"] = pick(rng, ["int", "unsigned", "size_t", "long long"])
        s["op"] = pick(rng, ["scale", "square", "relu", "silu", "add2",
                             "fma2", "stencil", "reverse"]
                       if s["dtype"] != "i32" else
                       ["scale", "square", "xor", "add2", "max", "stencil",
                        "reverse"])
        s["alias"] = pick(rng, ["none", "inplace", "samebuf"], [6, 2, 2])
        if s["alias"] != "none" and s["op"] in ("add2", "fma2", "stencil",
                                                "reverse"):
            s["alias"] = "none"  # another thread's element: a race
    elif kind == "rowred":
        s["dtype"] = pick(rng, list(DTYPES), [6, 2, 2, 1, 2])
        s["op"] = pick(rng, ["sum", "sumsq", "dot", "max", "min", "summax",
                             "meanvar", "prefix", "until"]
                       if s["dtype"] != "i32" else
                       ["sum", "max", "min", "summax", "prefix", "until"])
        s["acc"] = ("long long" if s["dtype"] == "i32" and rng.random() < 0.3
                    else "double" if s["dtype"] == "f32"
                    and rng.random() < 0.15 else comp(s["dtype"]))
        s["form"] = pick(rng, ["guard", "return"])
        s["rowptr"] = rng.random() < 0.3
        s["wide"] = rng.random() < 0.3
        s["cmp"] = rng.random() < 0.5  # max/min by comparison, not fmaxf
        s["fma"] = rng.random() < 0.3
    elif kind == "blockred":
        s["dtype"] = pick(rng, ["f32", "f16", "bf16", "f64", "i32"],
                          [6, 2, 2, 1, 2])
        s["block"] = pick(rng, [64, 128, 256, 512, 1024], [1, 3, 4, 2, 1])
        s["op"] = pick(rng, ["sum", "sumsq", "max"] if s["dtype"] != "i32"
                       else ["sum", "max"])
        s["combine"] = pick(rng, ["tree", "shuffle"])
        s["tree_start"] = pick(rng, ["blockDim", "B"])
        # norm: the block's result broadcast to every thread, which then
        # writes the row (through a __shared__ scalar, or buf[0] itself)
        s["norm"] = s["dtype"] in ("f32", "f16", "bf16") and \
            s["op"] == "sum" and rng.random() < 0.4 and \
            pick(rng, ["shared", "bcast"])
        s["rowptr"] = rng.random() < 0.3
        # a norm whose tree starts from B also divides by the row's
        # standard deviation, from a second loop of squared deviations (no
        # draw of its own: earlier seeds keep their programs' other kernels)
        s["var"] = bool(s["norm"]) and s["tree_start"] == "B"
        # the others also divide by a sum of exponentials of the elements'
        # deviations from the mean (online-softmax's shape)
        s["softmax"] = bool(s["norm"]) and s["tree_start"] == "blockDim"
    elif kind == "strided":
        s["dtype"] = pick(rng, ["f32", "f16", "bf16", "i32"], [6, 2, 2, 2])
        s["form"] = pick(rng, ["block", "thread"])
        s["block"] = pick(rng, [64, 128, 256], [1, 2, 3])
        s["op"] = pick(rng, ["sum", "sumsq"] if s["dtype"] != "i32"
                       else ["sum"])
    elif kind == "grid2d":
        s["dtype"] = pick(rng, ["f32", "f16", "f64", "i32"], [6, 2, 1, 2])
        s["op"] = pick(rng, ["transpose", "bias"])
        s["tile"] = pick(rng, [(32, 8), (16, 16), (32, 4)])
    else:
        s["dtype"] = pick(rng, ["f32", "f64"], [4, 1])
        s["tile"] = pick(rng, [(16, 16), (32, 8)])
    if rng2:
        later_spellings(rng2, s)
    if rng3 and rng3.random() < 0.08:
        s = {"kind": "atomic", "block": s["block"],
             "block_spelling": pick(rng3, ["literal", "define", "constexpr",
                                           "local", "runtime", "dim3"]),
             "const_in": s["const_in"], "restrict": s["restrict"],
             "op": pick(rng3, ["sum", "cond", "nested", "row", "one"],
                        [3, 3, 2, 2, 1])}
    if rng4:
        draw = rng4.random()
        if s["kind"] == "ew" and s["form"] == "gridstride" and draw < 0.4:
            s["loop_macro"] = True
        if s["kind"] == "rowred" and draw < 0.3:
            s["helper"] = True
    return s


def later_spellings(rng, s):
    """The features of the second generator (see random_kernel)."""
    if s["kind"] not in ("ew", "rowred", "blockred", "strided"):
        return
    if s["kind"] == "ew" and s["alias"] != "samebuf" and \
            rng.random() < 0.15:
        s["op"], s["trips"] = "poly", rng.randrange(2, 9)
    if s["kind"] == "blockred" and not s["norm"] and s["block"] >= 128 and \
            rng.random() < 0.2:
        s["head"] = pick(rng, [32, 64])
    # each thread's partial written out too (a two-stage reduction's first
    # stage): a rewrite may not change which elements a thread folds
    if s["kind"] == "blockred" and not s["norm"] and \
            s["block_spelling"] != "runtime" and rng.random() < 0.1:
        s["parts"] = True
    s["tmpl_type"] = s["dtype"] != "i32" and rng.random() < 0.15
    s["tmpl_block"] = rng.random() < 0.15
    if s["tmpl_block"] and s["block_spelling"] not in ("literal", "define",
                                                      "constexpr"):
        s["block_spelling"] = "literal"
    # the block size named in the kernel where the launch names it too
    s["bname"] = s["tmpl_block"] or \
        s["block_spelling"] in ("define", "constexpr") and rng.random() < 0.5
    # a tree from a literal, `st = 128`, where the block size has no name
    s["literal_start"] = rng.random() < 0.3


def random_program(seed, kernels):
    rng = random.Random(seed)
    rng2 = random.Random("spellings-%d" % seed)
    rng3 = random.Random("atomics-%d" % seed)
    rng4 = random.Random("macros-%d" % seed)
    big_rows = rng.randrange(64, 700)
    shapes = [
        {"n": rng.randrange(50001, 400001) | 1, "rows": big_rows,
         "cols": rng.randrange(100, min(3001, 2000000 // big_rows))},
        {"n": 1, "rows": 1, "cols": 1},
        {"n": rng.randrange(2, 5000), "rows": rng.randrange(2, 80),
         "cols": rng.randrange(2, 700)},
        {"n": rng.randrange(1000, 70000), "rows": rng.randrange(1000, 4000),
         "cols": rng.randrange(1, 9)},
    ]
    return {"seed": seed, "shapes": shapes,
            "kernels": [random_kernel(rng, rng2, rng3, rng4)
                        for _ in range(kernels)]}


# ---------------------------------------------------------------- render


def render(program):
    """(kernel.cu text, problem args) of a program."""
    defs, kernels, launch, args, const = [], [], [], [], set()
    for i, s in enumerate(program["kernels"]):
        o = Out()
        RENDER[s["kind"]](s, "k%d_%s" % (i, s["kind"]), o)
        respell(s, "k%d_%s" % (i, s["kind"]), o)
        defs += o.defs
        kernels += o.kernel + [""]
        launch += o.launch
        args += o.args
        const |= o.const
    params = ["%s%s *%s" % ("const " if a["name"] in const else "",
                            CTYPES[a["buffer"]], a["name"]) for a in args]
    params += ["int n", "int rows", "int cols", "float alpha",
               "cudaStream_t stream"]
    text = ["// Generated by fuzz/gen-kernels (seed %d): %d kernels."
            % (program["seed"], len(program["kernels"])),
            "#include <cuda_runtime.h>", "#include <cuda_fp16.h>",
            "#include <cuda_bf16.h>", ""]
    text += defs + ([""] if defs else []) + kernels
    text.append('extern "C" void launch_fuzz(%s) {' % ", ".join(params))
    text += launch
    text.append("}")
    args += [{"name": "n", "scalar": "i32", "value": "n"},
             {"name": "rows", "scalar": "i32", "value": "rows"},
             {"name": "cols", "scalar": "i32", "value": "cols"},
             {"name": "alpha", "scalar": "f32", "value": 1.25},
             {"name": "stream", "stream": True}]
    return "\n".join(text) + "\n", args


def problem(program, args, rounding, precision=False):
    """problem.json: exact, or with the tolerance a declared rounding change
    gets (half-precision outputs one unit in the last place more), or the
    looser one of a declared precision change (tf32 operands: 10-bit
    mantissas, sums of up to a few thousand products)."""
    args = json.loads(json.dumps(args))
    if rounding or precision:
        for a in args:
            if a.get("intent") in ("out", "inout") and \
                    a["buffer"] in ("f16", "bf16"):
                a["tolerance"] = {"atol": 1e-2, "rtol": 1e-2}
    suffix = "-precision" if precision else "-rounding" if rounding else ""
    return {"name": "fuzz-%d%s" % (program["seed"], suffix),
            "description": "generated by fuzz/gen-kernels",
            "source": "kernel.cu", "entry": "launch_fuzz", "args": args,
            "shapes": program["shapes"], "seeds": 1, "timeout_s": 60,
            "tolerance": {"atol": 0.1, "rtol": 1e-2} if precision
            else {"atol": 1e-3, "rtol": 1e-3} if rounding
            else {"atol": 0, "rtol": 0}}


def write(program, directory):
    """Writes kernel.cu, problem.json, problem-rounding.json,
    problem-precision.json and program.json (the specs, to render again) into directory."""
    os.makedirs(directory, exist_ok=True)
    text, args = render(program)
    files = {"kernel.cu": text,
             "problem.json": json.dumps(problem(program, args, False),
                                        indent=1) + "\n",
             "problem-rounding.json": json.dumps(problem(program, args, True),
                                                 indent=1) + "\n",
             "problem-precision.json": json.dumps(
                 problem(program, args, True, precision=True),
                 indent=1) + "\n",
             "program.json": json.dumps(program, indent=1) + "\n"}
    for name, content in files.items():
        with open(os.path.join(directory, name), "w") as f:
            f.write(content)
