"""PyTorch on the CPU (CUDA where a device is present): torch.mm / torch.bmm, the fused
torch.addmm / torch.baddbmm (F.linear when B is stored as a Linear layer's weight, n x k) and their
alpha and beta, one row, column or element as a 1-D product, torch.func.vmap over rows, and
torch.compile (inductor)."""
import os

import numpy as np
import torch
import torch.nn.functional as F

NAME = "torch"
DEVICE = os.environ.get("FPDIV_TORCH_DEVICE", "cuda" if torch.cuda.is_available() else "cpu")
DTYPES = [("f64", "f64", "f64"), ("f32", "f32", "f32"), ("bf16", "bf16", "f32"), ("f16", "f16", "f32")]
FEATURES = {"fused_bias", "routes", "vmap", "compile", "threads", "out_views", "concurrent",
            "scalars"}  # no negative strides
TYPES = {"f64": torch.float64, "f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}

# A new shape recompiles: never fall back to eager, nor refuse. Every compiled function here shares
# one code object, whose recompiles dynamo also counts together (accumulated_cache_size_limit, 256 by
# default: a campaign hit it after 250 checks and every check after was an error): `compiled` starts
# afresh before either limit is reached, and `matmul` if dynamo refuses all the same.
COMPILED_MAX = 2048
torch._dynamo.config.cache_size_limit = torch._dynamo.config.accumulated_cache_size_limit = 2 * COMPILED_MAX


def PROVENANCE():
    blas = "oneMKL (linked into the wheel)" if torch.backends.mkl.is_available() else "unknown"
    return {"library": "PyTorch", "version": torch.__version__, "blas": blas, "device": DEVICE,
            "cpu_capability": torch.backends.cpu.get_cpu_capability()}


# out= views of a larger tensor, filled with NaN first: an element the product does not write shows
OUT_VIEWS = {
    "out-strided": lambda shape, like: torch.full((*shape[:-1], 2 * shape[-1]), float("nan"), dtype=like.dtype,
                                                  device=like.device)[..., ::2],
    "out-transposed": lambda shape, like: torch.full((*shape[:-2], shape[-1], shape[-2]), float("nan"),
                                                     dtype=like.dtype, device=like.device).transpose(-1, -2),
}


def into_view(a, b, bias, route):
    """The product written through out= a view: torch.mm, addmm, bmm and baddbmm as user code
    passes one."""
    out = OUT_VIEWS[route]((*a.shape[:-1], b.shape[-1]), a)
    if a.dim() == 2:
        torch.mm(a, b, out=out) if bias is None else torch.addmm(bias, a, b, out=out)
    else:
        torch.bmm(a, b, out=out) if bias is None else torch.baddbmm(bias, a, b, out=out)
    return out


def product(a, b, bias, route, trans_b, scalars=None):
    """The path's operation on one batch entry (2-D a and b) or a stack of them (3-D): a matrix
    product with its fused bias, or products of vectors with the bias added after, as torch's
    linear does for a vector. With scalars (alpha, beta), addmm's or baddbmm's own: `bias` is then
    their input, the bias or (beta 0) what C held, which they must ignore."""
    if scalars:
        alpha, beta = scalars
        add = torch.addmm if a.dim() == 2 else torch.baddbmm
        return add(bias, a, b, beta=beta, alpha=alpha)
    if route in OUT_VIEWS:
        return into_view(a, b, bias, route)
    if route == "gemm" and a.dim() == 2:
        if bias is None:
            return torch.mm(a, b)
        return F.linear(a, b.t(), bias) if trans_b else torch.addmm(bias, a, b)
    if route == "gemm":
        return torch.bmm(a, b) if bias is None else torch.baddbmm(bias, a, b)
    p = vectors(a, b, route)
    return p if bias is None else p + bias


def vectors(a, b, route):
    if route == "vmap-rows":  # each row a vector, vmapped: what a per-example function becomes
        return torch.func.vmap(lambda row: row @ b)(a)
    if route == "gemv-rows":
        return torch.stack([a[i] @ b for i in range(a.shape[0])])
    if route == "gemv-cols":
        return torch.stack([a @ b[:, j] for j in range(b.shape[1])], 1)
    if route == "dot":
        return torch.stack([torch.stack([a[i] @ b[:, j] for j in range(b.shape[1])]) for i in range(a.shape[0])])
    raise ValueError(f"torch has no route {route}")


_compiled = {}
_specialized = set()  # what dynamo specializes on: the operation, the operands' layouts, the threads


def start_afresh():
    """Drops every compiled function, and with them dynamo's counts and inductor's loaded code."""
    from torch._inductor.codecache import PyCodeCache  # loaded by the first compilation anyway
    torch._dynamo.reset()
    PyCodeCache.cache_clear()
    _compiled.clear()
    _specialized.clear()


def compiled(route, trans_b, with_bias, scalars, operands):
    key = (route, trans_b, with_bias, scalars)
    layouts = tuple((tuple(x.shape), x.stride(), x.dtype) for x in operands if x is not None)
    specialization = (key, layouts, torch.get_num_threads())  # dynamo guards on the thread count too
    if specialization not in _specialized and len(_specialized) >= COMPILED_MAX:
        start_afresh()
    _specialized.add(specialization)
    if key not in _compiled:
        _compiled[key] = torch.compile(lambda a, b, bias: product(a, b, bias, route, trans_b, scalars),
                                       fullgraph=True, dynamic=False)
    return _compiled[key]


def tensor(x, dtype):
    """The operand as a tensor of the path's type, over the shared memory where the types agree
    (with the stored layout: a transposed operand is a transposed view, as in user code)."""
    return torch.from_numpy(x).to(device=DEVICE, dtype=dtype)


def matmul(a, b, bias, route, execution, dtypes, threads, scalars=None):
    torch.set_num_threads(threads if threads > 0 else 1)
    dt_in, dt_out = TYPES[dtypes[0]], TYPES[dtypes[1]]
    trans_b = b.strides[1] < b.strides[2]  # B stored n x k: a Linear layer's weight
    ta, tb = tensor(a, dt_in), tensor(b, dt_in)
    tbias = None if bias is None else tensor(bias, dt_in)
    alpha_beta = None
    if scalars:  # addmm's input: the bias, else what C held (beta 0), a tensor of the operands' type as torch asks
        alpha, beta, prior = scalars
        alpha_beta = (alpha, beta)
        if tbias is None:
            tbias = tensor(prior, dt_in)

    def operation():  # compiled anew after start_afresh
        if execution == "compiled":
            return compiled(route, trans_b, tbias is not None, alpha_beta, (ta, tb, tbias))
        return lambda x, y, z: product(x, y, z, route, trans_b, alpha_beta)
    try:
        out = call(operation(), ta, tb, tbias, route)
    except torch._dynamo.exc.CacheLimitExceeded:  # dynamo counted more than `compiled` did: afresh, once more
        start_afresh()
        out = call(operation(), ta, tb, tbias, route)
    out = out.to(dt_out).cpu()
    return out.float().numpy() if dt_out == torch.bfloat16 else out.numpy()


def call(run, ta, tb, tbias, route):
    """The path's operation on every batch entry."""
    with torch.no_grad():
        if ta.shape[0] == 1:  # one entry: the 2-D operation user code calls
            out = run(ta[0], tb[0], tbias if tbias is None or tbias.dim() == 1 else tbias[0])[None]
        elif route == "gemm" or route in OUT_VIEWS:  # a stack: bmm / baddbmm
            out = run(ta, tb, tbias)
        else:
            out = torch.stack([run(ta[e], tb[e], tbias) for e in range(ta.shape[0])])
    return out
