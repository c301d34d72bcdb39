"""PyTorch implementations of the kernels/ problems, for bench/gpu-bench.

One function per problem, named after it. Each takes the problem's input
buffers (intent "in" and "inout") and its scalars whose value is a number
(sizes come from the tensors' shapes) as keyword arguments, named as in
problem.json, with the shapes problem.json gives them, and returns a dict of
the output buffers (intent "out" and "inout"). Functions never modify their
arguments, so torch.compile can compile them as they are.

Each computes the problem's function the way a PyTorch user writes it: the
library call where there is one (F.layer_norm, torch.softmax, F.conv2d,
...). Where that call rounds differently from the CUDA kernel (bf16
intermediates), the result still lies within the problem's tolerance; the
harness checks this on every run and marks the row if it does not.
"""
import torch
import torch.nn.functional as F


def axpby(x, y, a, b):
    return {"out": a * x + b * y}


def gelu_fp16(x):
    return {"y": F.gelu(x, approximate="tanh")}


def rowsum_bf16(x):
    return {"out": x.float().sum(dim=-1)}


def silu_mul_bf16(gate, up):
    # What SwiGLU layers write; silu rounds to bf16 before the product,
    # the kernel rounds once at the end: at most one bf16 step apart.
    return {"out": F.silu(gate) * up}


def rmsnorm_bf16(x, w, eps):
    return {"out": F.rms_norm(x, (x.shape[-1],), weight=w, eps=eps)}


def layernorm_f32(x, gamma, beta, eps):
    return {"out": F.layer_norm(x, (x.shape[-1],), gamma, beta, eps)}


def softmax_f32(x):
    return {"y": torch.softmax(x, dim=-1)}


def argmax_f32(x):
    # torch.argmax returns the first index of the maximum, as the kernel.
    return {"out": torch.argmax(x, dim=-1).to(torch.int32)}


def transpose_f32(x):
    return {"out": x.t().contiguous()}


def matvec_f32(A, x):
    return {"y": torch.mv(A, x)}


def matvec_rows_f16(A, x):
    # f32 accumulation and output, as the kernel.
    return {"y": A.float() @ x.float()}


def layernorm_groups_f32(x, eps):
    return {"y": F.layer_norm(x, (x.shape[-1],), eps=eps)}


def rmsnorm_channels_f32(x, weight, eps):
    # RMS over dim 1 (channels) of [b, f, hw].
    r = torch.rsqrt(x.pow(2).mean(dim=1, keepdim=True) + eps)
    return {"y": x * r * weight.view(1, -1, 1)}


def sgemm_f32(A, B):
    # The harness turns TF32 off: this is a true f32 product (cuBLAS).
    return {"C": A @ B}


def depthwise_conv2d_f32(x, weight):
    c = weight.shape[0]
    return {"y": F.conv2d(x, weight.view(c, 1, 3, 3), padding=1, groups=c)}


def maxpool3d_f32(x):
    return {"y": F.max_pool3d(x, kernel_size=2, stride=2)}


# NVFP4 as the kernels define it (problem.json's description): the same f32
# operations in the same order, so the codes can match bit for bit.

def _e2m1_codes(v):
    """e2m1 codes (sign in bit 3) of f32 v: nearest, ties to even, saturating."""
    a = v.abs()
    # Count the midpoints below |v|; '>' keeps a tie on the lower (even)
    # code, '>=' moves it to the upper (even) one.
    mag = ((a > 0.25).to(torch.uint8) + (a >= 0.75) + (a > 1.25) + (a >= 1.75)
           + (a > 2.5) + (a >= 3.5) + (a > 5.0))
    return mag | (torch.signbit(v).to(torch.uint8) << 3)


def _nvfp4(v, global_scale):
    """Quantizes f32 v of shape [..., 16] to (codes [..., 8], scales [...])."""
    amax = v.abs().amax(dim=-1, keepdim=True)
    # Divide by a tensor: dividing by a Python number multiplies by its
    # reciprocal in PyTorch, which rounds differently from the kernel's
    # division.
    scale = global_scale * (amax / torch.full_like(amax, 6.0))
    # e4m3 has no infinity: saturate as __NV_SATFINITE does, then round to
    # nearest even.
    s8 = torch.clamp(scale, max=448.0).to(torch.float8_e4m3fn)
    s = s8.to(torch.float32)
    mul = torch.where(s != 0, torch.full_like(s, global_scale) / s,
                      torch.zeros_like(s))
    codes = _e2m1_codes(v * mul)
    packed = codes[..., 0::2] | (codes[..., 1::2] << 4)
    return packed, s8.view(torch.uint8).squeeze(-1)


def nvfp4_quantize(x, global_scale):
    q, sf = _nvfp4(x.float(), global_scale)
    return {"q": q, "sf": sf}


def add_rmsnorm_fp4quant(x, residual, w, eps, global_scale):
    r = x + residual  # bf16 add: f32 sum rounded once, as the kernel
    v = r.float()
    hidden = v.shape[-2] * v.shape[-1]
    ms = (v * v).sum(dim=(-2, -1), keepdim=True) / torch.full_like(
        v[..., :1, :1], hidden)
    rstd = torch.rsqrt(ms + eps)
    q, sf = _nvfp4(v * rstd * w.float(), global_scale)
    return {"residual": r, "q": q, "sf": sf}


def silu_mul_fp4quant(x, global_scale):
    g = x[:, :, 0].float()
    u = x[:, :, 1].float()
    q, sf = _nvfp4(F.silu(g) * u, global_scale)
    return {"q": q, "sf": sf}


IMPLS = {name: fn for name, fn in list(globals().items())
         if callable(fn) and not name.startswith("_")
         and getattr(fn, "__module__", None) == __name__}
