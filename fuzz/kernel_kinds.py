"""How each kind of kernel fuzz/kernelgen.py generates is written: the
kernel's text, the launcher's lines that run it, its problem.json args.

A renderer takes a kernel spec (kernelgen.random_kernel), the kernel's name
and an Out to fill. Every kernel reads its own inputs and writes its own
output; none races, reads out of bounds or depends on timing."""
import re

DTYPES = {
    # dtype: (C type, compute type, load(e), store(v))
    "f32": ("float", "float", "{e}", "{v}"),
    "f16": ("__half", "float", "__half2float({e})", "__float2half({v})"),
    "bf16": ("__nv_bfloat16", "float", "__bfloat162float({e})",
             "__float2bfloat16({v})"),
    "f64": ("double", "double", "{e}", "{v}"),
    "i32": ("int", "int", "{e}", "{v}"),
}
CTYPES = dict((dt, v[0]) for dt, v in DTYPES.items())
CTYPES["i64"] = "long long"


def ctype(dt):
    return CTYPES[dt]


def comp(dt):
    return DTYPES[dt][1]


def load(dt, e):
    return DTYPES[dt][2].format(e=e)


def store(dt, v):
    return DTYPES[dt][3].format(v=v)


def lit(t, x):
    """A literal of compute type t."""
    if t == "float":
        return "%sf" % repr(float(x))
    if t == "double":
        return repr(float(x))
    return str(int(x))


class Out:
    """What one kernel adds: its text, its launch lines and its args."""

    def __init__(self):
        self.defs, self.kernel, self.launch, self.args = [], [], [], []
        self.const = set()  # the launcher's const parameters

    def buffer(self, name, dt, shape, intent="in", const=True):
        arg = {"name": name, "buffer": dt, "shape": shape, "intent": intent}
        if intent == "in" and const:
            self.const.add(name)
        if dt == "i32" and intent != "out":
            arg["init"] = {"dist": "randint", "lo": -50, "hi": 50}
        self.args.append(arg)


def block_expr(s, name, o):
    """The launcher's spelling of the block size; returns the expression."""
    b, sp = s["block"], s["block_spelling"]
    if sp == "define":
        o.defs.append("#define %s_THREADS %d" % (name.upper(), b))
        return "%s_THREADS" % name.upper()
    if sp == "constexpr":
        o.defs.append("constexpr int %s_threads = %d;" % (name, b))
        return "%s_threads" % name
    if sp == "local":
        o.launch.append("  int %s_bs = %d;" % (name, b))
        return "%s_bs" % name
    if sp == "runtime" and s["kind"] in ("ew", "rowred", "atomic") or \
            sp == "runtime" and s["kind"] == "strided" and \
            s["form"] == "thread":
        o.launch.append("  int %s_bs = n < 4096 ? %d : %d;"
                        % (name, max(32, b // 2), b))
        return "%s_bs" % name
    if sp == "dim3":
        o.launch.append("  dim3 %s_block(%d);" % (name, b))
        return "%s_block" % name
    return str(b)


def quals(s, dt, out=False):
    c = ctype(dt)
    r = "__restrict__ " if s["restrict"] else ""
    if out:
        return "%s *%s" % (c, r)
    return ("const " if s["const_in"] else "") + c + " *" + r


def render_ew(s, name, o):
    dt, t = s["dtype"], comp(s["dtype"])
    idx = s["index"]
    cast = "(%s)" % idx if idx != "int" else ""
    i_init = "%sblockIdx.x * blockDim.x + threadIdx.x" % cast
    v, w = load(dt, "x[i]"), load(dt, "y[i]")
    f = {"scale": "%s * alpha + %s" % (v, lit(t, 0.5)) if t != "int"
         else "%s * 3 + 1" % v,
         "square": "%s * %s" % (v, v),
         "relu": ("fmax(%s, 0.0)" if t == "double" else "fmaxf(%s, 0.0f)")
         % v,
         "silu": ("%s / (1.0 + exp(-%s))" if t == "double"
                  else "%s / (1.0f + expf(-%s))") % (v, v),
         "add2": "%s + %s" % (v, w),
         "fma2": "%s * %s + alpha" % (v, w) if t != "int" else
         "%s * %s + 2" % (v, w),
         "xor": "%s ^ (%s >> 2)" % (v, v),
         "max": "max(%s, 7)" % v,
         "stencil": "%s + (i + 1 < n ? %s : %s)" % (v, load(dt, "x[i + 1]"),
                                                  lit(t, 0)),
         "reverse": "%s * %s" % (v, lit(t, 2)),
         "poly": "acc"}[s["op"]]
    two = s["op"] in ("add2", "fma2")
    ins = ("%sx" % quals(s, dt)) if s["alias"] == "none" else None
    out_t = ctype(dt)
    if s["alias"] == "inplace":
        params = "%s *x" % out_t
        body_store = "x[i] = %s;" % store(dt, f)
    else:
        params = ins if ins else "%sx" % quals(s, dt)
        if s["alias"] == "samebuf":
            params = "const %s *x" % out_t
        if two:
            params += ", %sy" % quals(s, dt)
        params += ", %sout" % (quals(s, dt, out=True) if s["alias"] == "none"
                               else out_t + " *")
        body_store = "out[%s] = %s;" % ("n - 1 - i" if s["op"] == "reverse"
                                        else "i", store(dt, f))
    params += ", float alpha, %s n" % ("int" if idx in ("int", "unsigned")
                                       else "long long")
    body = [body_store]
    if s["op"] == "poly":  # a loop of constant trip count (Horner)
        step = "acc * 3 + %s" % v if t == "int" else \
            "acc * %s + %s" % (v, lit(t, 0.5))
        body = ["%s acc = %s;" % (t, lit(t, 1)),
                "for (int k = 0; k < %d; ++k)" % s["trips"],
                "  acc = %s;" % step, body_store]
    k = o.kernel
    k.append("__global__ void %s(%s) {" % (name, params))
    if s["form"] == "gridstride" and s.get("loop_macro"):
        # the loop's head a macro, as Caffe's CUDA_KERNEL_LOOP writes it
        o.defs.append("#define %s_LOOP(i, n) for (%s i = %s; i < (n); "
                      "i += %sblockDim.x * gridDim.x)"
                      % (name.upper(), idx, i_init, cast))
        k.append("  %s_LOOP(i, n) {" % name.upper())
        k.extend("    " + b for b in body)
        k.append("  }")
    elif s["form"] == "gridstride":
        k.append("  for (%s i = %s; i < n; i += %sblockDim.x * gridDim.x) {"
                 % (idx, i_init, cast))
        k.extend("    " + b for b in body)
        k.append("  }")
    elif s["form"] == "return":
        k.append("  %s i = %s;" % (idx, i_init))
        k.append("  if (i >= n) return;")
        k.extend("  " + b for b in body)
    else:
        k.append("  %s i = %s;" % (idx, i_init))
        k.append("  if (i < n) {")
        k.extend("    " + b for b in body)
        k.append("  }")
    k.append("}")
    bs = block_expr(s, name, o)
    grid = blocks_for(s, name, bs, "n")
    if s["form"] == "gridstride":
        o.launch.append("  int %s_grid = %s;" % (name, grid))
        o.launch.append("  if (%s_grid > 96) %s_grid = 96;" % (name, name))
        grid = "%s_grid" % name
    if s["alias"] == "inplace":
        o.buffer(name + "_io", dt, ["n"], "inout")
        call = "%s_io" % name
    elif s["alias"] == "samebuf":
        o.buffer(name + "_io", dt, ["n"], "inout")
        call = "%s_io, %s_io" % (name, name)
    else:
        o.buffer(name + "_x", dt, ["n"], const=s["const_in"])
        call = "%s_x" % name
        if two:
            o.buffer(name + "_y", dt, ["n"], const=s["const_in"])
            call += ", %s_y" % name
        o.buffer(name + "_out", dt, ["n"], "out")
        call += ", %s_out" % name
    o.launch.append("  %s<<<%s, %s, 0, stream>>>(%s, alpha, n);"
                    % (name, grid, bs, call))


def out_dtype(s):
    """The dtype a reduction writes: its accumulator's."""
    return {"float": "f32", "double": "f64", "int": "i32",
            "long long": "i64"}[s.get("acc", comp(s["dtype"]))]


def lowest(t, sign="-"):
    return sign + {"float": "3.0e38f", "double": "1.0e300",
                   "int": "2147483647", "long long": "9223372036854775807LL"}[t]


def combine(t, op, a, b):
    """a op b for a reduction's partial results."""
    if op == "max":
        return {"float": "fmaxf(%s, %s)", "double": "fmax(%s, %s)"}.get(
            t, "max(%s, %s)") % (a, b)
    if op == "min":
        return {"float": "fminf(%s, %s)", "double": "fmin(%s, %s)"}.get(
            t, "min(%s, %s)") % (a, b)
    return "%s + %s" % (a, b)


def accumulate(s, t, var, v, op):
    """The statement that folds v into var, as real code spells it."""
    if op in ("max", "min"):
        if s.get("cmp"):
            return "if (%s %s %s) %s = %s;" % (v, ">" if op == "max" else "<",
                                              var, var, v)
        return "%s = %s;" % (var, combine(t, op, var, v))
    if op == "sumsq":
        if s.get("fma") and t == "float":
            return "%s = fmaf(%s, %s, %s);" % (var, v, v, var)
        return "%s += %s * %s;" % (var, v, v)
    return "%s += %s;" % (var, v)


def render_rowred(s, name, o):
    dt, t, a = s["dtype"], comp(s["dtype"]), s["acc"]
    odt = out_dtype(s)
    ix = "(size_t)r * cols + c" if s["wide"] else "r * cols + c"
    src = "x"
    k = o.kernel
    params = "%sx" % quals(s, dt)
    if s["op"] == "dot":
        params += ", %sw" % quals(s, dt)
    params += ", %sout, int rows, int cols" % quals(s, odt, out=True)
    k.append("__global__ void %s(%s) {" % (name, params))
    k.append("  int r = blockIdx.x * blockDim.x + threadIdx.x;")
    ind = "  "
    if s["form"] == "return":
        k.append("  if (r >= rows) return;")
    else:
        k.append("  if (r < rows) {")
        ind = "    "
    if s["rowptr"]:
        k.append(ind + "const %s *row = x + (size_t)r * cols;" % ctype(dt))
        src, ix = "row", "c"
    v = load(dt, "%s[%s]" % (src, ix))
    if s.get("helper"):
        # each element through a helper of the program that only returns
        # a value of its parameter (kopt proves it pure)
        o.defs.append("__device__ %s %s_val(%s e) { return e; }"
                      % (a, name, a))
        v = "%s_val(%s)" % (name, v)
    op = s["op"]
    loop = ind + "for (int c = 0; c < cols; ++c) {"
    if op in ("max", "min"):
        k.append(ind + "%s m = %s;" % (a, lowest(a, "-" if op == "max"
                                                  else "")))
        k.append(loop)
        k.append(ind + "  %s v = %s;" % (a, v))
        k.append(ind + "  " + accumulate(s, a, "m", "v", op))
        k.append(ind + "}")
        result = "m"
    elif op == "summax":
        k.append(ind + "%s s = 0;" % a)
        k.append(ind + "%s m = %s;" % (a, lowest(a)))
        k.append(loop)
        k.append(ind + "  %s v = %s;" % (a, v))
        k.append(ind + "  s += v;")
        k.append(ind + "  " + accumulate(s, a, "m", "v", "max"))
        k.append(ind + "}")
        result = "s + m"
    elif op in ("prefix", "until"):
        # state carried from one element to the next: a running sum
        # written out, a data-dependent exit
        k.append(ind + "%s s = 0;" % a)
        k.append(loop)
        k.append(ind + "  %s v = %s;" % (a, v))
        if op == "until":
            k.append(ind + "  if (v %s) break;" % (
                "== 49" if a in ("int", "long long") else "> 2.5f"))
        k.append(ind + "  s += v;")
        if op == "prefix":
            k.append(ind + "  out[(size_t)r * cols + c] = s;")
        k.append(ind + "}")
        result = None if op == "prefix" else "s"
    elif op == "meanvar":
        k.append(ind + "%s s = 0;" % a)
        k.append(loop)
        k.append(ind + "  s += %s;" % v)
        k.append(ind + "}")
        k.append(ind + "%s mean = s / cols;" % a)
        k.append(ind + "%s q = 0;" % a)
        k.append(loop)
        k.append(ind + "  %s d = %s - mean;" % (a, v))
        k.append(ind + "  q += d * d;")
        k.append(ind + "}")
        result = "q / cols"
    else:
        k.append(ind + "%s s = 0;" % a)
        k.append(loop)
        if op == "dot":
            wv = load(dt, "w[c]")
            if s["fma"] and a == "float":
                k.append(ind + "  s = fmaf(%s, %s, s);" % (v, wv))
            else:
                k.append(ind + "  s += %s * %s;" % (v, wv))
        else:
            k.append(ind + "  " + accumulate(s, a, "s", v, op))
        k.append(ind + "}")
        result = "s"
    if result:
        k.append(ind + "out[r] = %s;" % result)
    if s["form"] != "return":
        k.append("  }")
    k.append("}")
    bs = block_expr(s, name, o)
    grid = blocks_for(s, name, bs, "rows")
    o.buffer(name + "_x", dt, ["rows", "cols"], const=s["const_in"])
    call = "%s_x" % name
    if op == "dot":
        o.buffer(name + "_w", dt, ["cols"], const=s["const_in"])
        call += ", %s_w" % name
    o.buffer(name + "_out", odt, ["rows", "cols"] if op == "prefix"
             else ["rows"], "out")
    o.launch.append("  %s<<<%s, %s, 0, stream>>>(%s, %s_out, rows, cols);"
                    % (name, grid, bs, call, name))


def block_tree(s, a, op, k, out_store):
    """A block's combine of each thread's `s`, then out_store(result) in
    thread 0 (shared-memory tree or warp shuffles)."""
    b = s["block"]
    ident = lowest(a) if op == "max" else "0"
    if s["combine"] == "tree":
        start = "blockDim.x / 2" if s["tree_start"] == "blockDim" else \
            "%d / 2" % b
        k.append("  __shared__ %s buf[%d];" % (a, b))
        k.append("  buf[tid] = s;")
        k.append("  __syncthreads();")
        k.append("  for (int st = %s; st > 0; st >>= 1) {" % start)
        k.append("    if (tid < st) buf[tid] = %s;"
                 % combine(a, op, "buf[tid]", "buf[tid + st]"))
        k.append("    __syncthreads();")
        k.append("  }")
        if out_store:  # else every thread reads buf[0]
            k.append("  if (tid == 0) %s" % out_store("buf[0]"))
        return
    k.append("  for (int o = 16; o > 0; o >>= 1)")
    k.append("    s = %s;" % combine(a, op, "s",
                                     "__shfl_down_sync(0xffffffffu, s, o)"))
    k.append("  __shared__ %s part[32];" % a)
    k.append("  int lane = tid % 32, wid = tid / 32;")
    k.append("  if (lane == 0) part[wid] = s;")
    k.append("  __syncthreads();")
    k.append("  if (wid == 0) {")
    k.append("    s = lane < blockDim.x / 32 ? part[lane] : %s;" % ident)
    k.append("    for (int o = 16; o > 0; o >>= 1)")
    k.append("      s = %s;" % combine(a, op, "s",
                                       "__shfl_down_sync(0xffffffffu, s, o)"))
    k.append("    if (lane == 0) %s" % out_store("s"))
    k.append("  }")


def second_tree(s, a, k, partial, into, value):
    """A second block reduction of each thread's `partial` into the shared
    scalar `into` (value % the total); the first tree's result is read by
    every thread before the second tree reuses its buffer."""
    k.append("  __syncthreads();")
    k.append("  __shared__ float %s;" % into)
    k.append("  {")
    k.append("  %s s = %s;" % (a, partial))
    block_tree(s, a, "sum", k, lambda r: "%s = %s;" % (into, value % r))
    k.append("  }")
    k.append("  __syncthreads();")


def render_blockred(s, name, o):
    dt, a, op = s["dtype"], comp(s["dtype"]), s["op"]
    odt = dt if s["norm"] else out_dtype(s)
    # a head: rows of a constant number of elements (fewer than threads)
    width = str(s["head"]) if s.get("head") else "cols"
    k = o.kernel
    k.append("__global__ void %s(%sx, %sout, int rows, int cols, "
             "float alpha) {" % (name, quals(s, dt), quals(s, odt, True)))
    k.append("  int row = blockIdx.x;")
    k.append("  int tid = threadIdx.x;")
    src, ix = "x", "row * %s + c" % width
    if s["rowptr"]:
        k.append("  const %s *xr = x + (size_t)row * %s;" % (ctype(dt), width))
        src, ix = "xr", "c"
    v = load(dt, "%s[%s]" % (src, ix))
    k.append("  %s s = %s;" % (a, lowest(a) if op == "max" else "0"))
    k.append("  for (int c = tid; c < %s; c += blockDim.x) {" % width)
    k.append("    %s v = %s;" % (a, v))
    k.append("    " + accumulate(s, a, "s", "v", op))
    k.append("  }")
    if s["norm"]:
        if s["norm"] == "bcast" and s["combine"] == "tree":
            block_tree(s, a, op, k, None)
            k.append("  float mean = buf[0] / cols;")
            mean = "mean"
        else:
            k.append("  __shared__ float mean_s;")
            block_tree(s, a, op, k, lambda r: "mean_s = %s / cols;" % r)
            k.append("  __syncthreads();")
            mean = "mean_s"
        scale = "alpha"
        if s.get("var"):  # a two-pass variance: squared deviations, a tree
            k.append("  %s s2 = 0;" % a)
            k.append("  for (int c = tid; c < %s; c += blockDim.x) {" % width)
            k.append("    %s d = %s - %s;" % (a, v, mean))
            k.append("    s2 += d * d;")
            k.append("  }")
            second_tree(s, a, k, "s2", "var_s", "%s / cols")
            scale = "rsqrtf(var_s + 1e-5f) * alpha"
        elif s.get("softmax"):  # a softmax's denominator around the mean
            k.append("  %s s3 = 0;" % a)
            k.append("  for (int c = tid; c < %s; c += blockDim.x)" % width)
            k.append("    s3 += expf(%s - %s);" % (v, mean))
            second_tree(s, a, k, "s3", "esum_s", "%s")
            scale = "alpha / esum_s"
        k.append("  for (int c = tid; c < cols; c += blockDim.x)")
        k.append("    out[row * cols + c] = %s;"
                 % store(dt, "(%s - %s) * %s" % (v, mean, scale)))
    else:
        if s.get("parts"):  # written before the tree reads s
            k.append("  parts[row * blockDim.x + tid] = s;")
        block_tree(s, a, op, k, lambda r: "out[row] = %s;" % r)
    k.append("}")
    if s.get("parts"):
        k[0] = k[0].replace(" int rows,", " %s *parts, int rows," % a)
    bs = block_expr(s, name, o)
    o.buffer(name + "_x", dt, ["rows", s.get("head") or "cols"],
             const=s["const_in"])
    o.buffer(name + "_out", odt, ["rows", "cols"] if s["norm"] else ["rows"],
             "out")
    parts = ""
    if s.get("parts"):
        o.buffer(name + "_parts", out_dtype(s), ["rows", s["block"]], "out")
        parts = "%s_parts, " % name
    o.launch.append("  %s<<<rows, %s, 0, stream>>>(%s_x, %s_out, %srows, "
                    "cols, alpha);" % (name, bs, name, name, parts))


def blocks_for(s, name, bs, extent):
    """The launch's block count: enough blocks of bs threads for extent."""
    if s["block_spelling"] == "dim3":
        return "(%s + %s_block.x - 1) / %s_block.x" % (extent, name, name)
    return "(%s + %s - 1) / %s" % (extent, bs, bs)


def fold_loop(s, k, head, element):
    """`s` from 0, then the loop folding each element into it."""
    a = comp(s["dtype"])
    k.append("  %s s = 0;" % a)
    k.append("  %s {" % head)
    k.append("    %s v = %s;" % (a, element))
    k.append("    " + accumulate(s, a, "s", "v", s["op"]))
    k.append("  }")


def render_strided(s, name, o):
    dt, a = s["dtype"], comp(s["dtype"])
    odt = out_dtype(s)
    k = o.kernel
    k.append("__global__ void %s(%sx, %sout, int rows, int cols) {"
             % (name, quals(s, dt), quals(s, odt, True)))
    bs = block_expr(s, name, o)
    if s["form"] == "block":
        k.append("  int p = blockIdx.x;")
        k.append("  int tid = threadIdx.x;")
        fold_loop(s, k, "for (int f = tid; f < rows; f += blockDim.x)",
                  load(dt, "x[(size_t)f * cols + p]"))
        s2 = dict(s, combine="tree", tree_start="blockDim")
        block_tree(s2, a, "sum", k, lambda r: "out[p] = %s;" % r)
        grid = "cols"
    else:
        k.append("  int p = blockIdx.x * blockDim.x + threadIdx.x;")
        k.append("  if (p >= cols) return;")
        fold_loop(s, k, "for (int f = 0; f < rows; ++f)",
                  load(dt, "x[f * cols + p]"))
        k.append("  out[p] = s;")
        grid = blocks_for(s, name, bs, "cols")
    k.append("}")
    o.buffer(name + "_x", dt, ["rows", "cols"], const=s["const_in"])
    o.buffer(name + "_out", odt, ["cols"], "out")
    o.launch.append("  %s<<<%s, %s, 0, stream>>>(%s_x, %s_out, rows, cols);"
                    % (name, grid, bs, name, name))


def render_2d(s, name, o):
    dt, t = s["dtype"], comp(s["dtype"])
    tx, ty = s["tile"]
    k = o.kernel
    mm = s["kind"] == "matmul"
    second = mm or s["op"] == "bias"
    params = "%sx" % quals(s, dt)
    if second:
        params += ", %sw" % quals(s, dt)
    params += ", %sout, int rows, int cols" % quals(s, dt, True)
    k.append("__global__ void %s(%s) {" % (name, params))
    k.append("  int c = blockIdx.x * blockDim.x + threadIdx.x;")
    k.append("  int r = blockIdx.y * blockDim.y + threadIdx.y;")
    if mm:
        k.append("  if (r < rows && c < rows) {")
        k.append("    %s s = 0;" % t)
        k.append("    for (int k = 0; k < cols; ++k)")
        k.append("      s += x[r * cols + k] * w[k * rows + c];")
        k.append("    out[r * rows + c] = s;")
        k.append("  }")
        width, shape = "rows", ["rows", "rows"]
    elif s["op"] == "transpose":
        k.append("  if (r < rows && c < cols)")
        k.append("    out[c * rows + r] = x[r * cols + c];")
        width, shape = "cols", ["cols", "rows"]
    else:
        k.append("  if (r < rows && c < cols)")
        k.append("    out[r * cols + c] = %s;" % store(
            dt, "%s + %s" % (load(dt, "x[r * cols + c]"), load(dt, "w[c]"))))
        width, shape = "cols", ["rows", "cols"]
    k.append("}")
    o.launch.append("  dim3 %s_block(%d, %d);" % (name, tx, ty))
    o.launch.append("  dim3 %s_grid((%s + %d) / %d, (rows + %d) / %d);"
                    % (name, width, tx - 1, tx, ty - 1, ty))
    o.buffer(name + "_x", dt, ["rows", "cols"], const=s["const_in"])
    call = "%s_x" % name
    if second:
        o.buffer(name + "_w", dt, ["cols", "rows"] if mm else ["cols"],
                 const=s["const_in"])
        call += ", %s_w" % name
    o.buffer(name + "_out", dt, shape, "out")
    o.launch.append("  %s<<<%s_grid, %s_block, 0, stream>>>(%s, %s_out, rows,"
                    " cols);" % (name, name, name, call, name))


def block_name(s, name):
    """The name the launch gives the block size: a template parameter, a
    macro or a constexpr (block_expr); None when it has none."""
    if s.get("tmpl_block"):
        return "BLOCK"
    return {"define": "%s_THREADS" % name.upper(),
            "constexpr": "%s_threads" % name}.get(s["block_spelling"])


def respell(s, name, o):
    """The later spellings of a rendered 1-D kernel: the block size named in
    the kernel (every launch runs that many threads) or else a tree's start
    written as a literal, a template over the element type and/or the block
    size."""
    nm, b = block_name(s, name), s["block"]
    if s.get("bname") and nm:  # (a reduced finding may have lost the name)
        o.kernel = [line.replace("blockDim.x", nm)
                    .replace("st = %d / 2" % b, "st = %s / 2" % nm)
                    .replace("buf[%d];" % b, "buf[%s];" % nm)
                    for line in o.kernel]
    elif s.get("literal_start"):
        o.kernel = [line.replace("st = %d / 2" % b, "st = %d" % (b // 2))
                    for line in o.kernel]
    params, args = [], []
    if s.get("tmpl_type"):
        params.append("typename T")
        args.append(ctype(s["dtype"]))
        o.kernel[0] = re.sub(r"\b%s \*" % re.escape(ctype(s["dtype"])),
                             "T *", o.kernel[0])
    if s.get("tmpl_block"):
        params.append("int BLOCK")
        launch = [x for x in o.launch if "%s<<<" % name in x][0]
        args.append(launch.split("<<<")[1].split(", ")[1])
    if params:
        o.kernel.insert(0, "template <%s>" % ", ".join(params))
        o.launch = [x.replace("%s<<<" % name,
                              "%s<%s><<<" % (name, ", ".join(args)))
                    for x in o.launch]


def render_atomic(s, name, o):
    """Integer sums through atomicAdd on one address (exact, whatever the
    order): a grid-stride loop whose body is the atomic, atomics after work
    and under an if/else on two addresses, atomics in a loop nested in a
    while loop, a block-stride loop per row adding to the row's slot, one
    atomic a thread."""
    k, op = o.kernel, s["op"]
    k.append("__global__ void %s(%sx, int *%sout, int n, int cols) {"
             % (name, quals(s, "i32"), "__restrict__ " if s["restrict"]
                else ""))
    bs = block_expr(s, name, o)
    grid = "13"
    stride = "blockDim.x * gridDim.x"
    if op == "sum":
        k.append("  for (int i = blockIdx.x * blockDim.x + threadIdx.x; "
                 "i < n; i += %s)" % stride)
        k.append("    atomicAdd(&out[0], x[i]);")
    elif op == "cond":
        k.append("  for (int i = blockIdx.x * blockDim.x + threadIdx.x; "
                 "i < n; i += %s) {" % stride)
        k.append("    int v = x[i] * 3;")
        k.append("    if (v > 0)")
        k.append("      atomicAdd(&out[0], v);")
        k.append("    else")
        k.append("      atomicAdd(&out[1], 1);")
        k.append("  }")
    elif op == "nested":
        k.append("  int i = blockIdx.x * blockDim.x + threadIdx.x;")
        k.append("  while (2 * i < n) {")
        k.append("    for (int j = 2 * i; j < 2 * i + 2 && j < n; ++j)")
        k.append("      if ((x[j] & 1) == 0) atomicAdd(out, x[j]);")
        k.append("    i += %s;" % stride)
        k.append("  }")
    elif op == "row":
        k.append("  for (int j = threadIdx.x; j < cols; j += blockDim.x)")
        k.append("    atomicAdd(&out[blockIdx.x], x[blockIdx.x * cols + j]);")
        grid = "rows"
    else:  # one
        k.append("  int i = blockIdx.x * blockDim.x + threadIdx.x;")
        k.append("  if (i < n)")
        k.append("    atomicAdd(out, x[i]);")
        grid = blocks_for(s, name, bs, "n")
    k.append("}")
    if op == "row":
        o.buffer(name + "_x", "i32", ["rows", "cols"], const=s["const_in"])
        o.buffer(name + "_out", "i32", ["rows"], "inout", const=False)
        count = "rows * cols"
    else:
        o.buffer(name + "_x", "i32", ["n"], const=s["const_in"])
        o.buffer(name + "_out", "i32", [2], "inout", const=False)
        count = "n"
    o.launch.append("  %s<<<%s, %s, 0, stream>>>(%s_x, %s_out, %s, cols);"
                    % (name, grid, bs, name, name, count))


RENDER = {"ew": render_ew, "rowred": render_rowred,
          "blockred": render_blockred, "strided": render_strided,
          "grid2d": render_2d, "matmul": render_2d,
          "atomic": render_atomic}
