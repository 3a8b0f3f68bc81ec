"""NumPy: numpy.matmul as NumPy routes it (gemm, or gemv for one row or column, dot for one
element) on the BLAS its wheel bundles. NumPy has no fused bias: a bias is added to the product,
`a @ b + bias`, as NumPy code does."""
import numpy as np

NAME = "numpy"
DTYPES = [("f64", "f64", "f64"), ("f32", "f32", "f32"), ("f16", "f16", "f32")]  # half: summed in float
FEATURES = {"routes", "bias_added", "out_views", "out_reversed", "concurrent"}
TYPES = {"f64": np.float64, "f32": np.float32, "f16": np.float16}


def PROVENANCE():
    try:
        blas = np.show_config(mode="dicts").get("Build Dependencies", {}).get("blas", {})
    except TypeError:  # NumPy before 1.25 only prints its configuration
        blas = {}
    return {"library": "NumPy", "version": np.__version__,
            "blas": f"{blas.get('name', 'unknown')} {blas.get('version', '')}".strip(), "device": "cpu"}


def matmul(a, b, bias, route, execution, dtypes, threads):
    if dtypes[0] not in TYPES or dtypes[1] not in TYPES:
        raise ValueError(f"NumPy has no {dtypes[0] if dtypes[0] not in TYPES else dtypes[1]} matmul")
    out = product(a.astype(TYPES[dtypes[0]], copy=False), b.astype(TYPES[dtypes[0]], copy=False), route)
    out = out.astype(TYPES[dtypes[1]], copy=False)
    return out if bias is None else out + bias.astype(TYPES[dtypes[1]], copy=False)


# The views of a larger array that out= is given (numpy #29164: out= views of other strides gave
# garbage), filled with NaN first: an element the product does not write shows
OUT_VIEWS = {
    "out-strided": lambda batch, m, n, t: np.full((batch, m, 2 * n), np.nan, t)[:, :, ::2],
    "out-transposed": lambda batch, m, n, t: np.full((batch, n, m), np.nan, t).transpose(0, 2, 1),
    "out-reversed": lambda batch, m, n, t: np.full((batch, m, n), np.nan, t)[:, ::-1, ::-1],
}


def product(a, b, route):
    if route == "gemm":
        return a @ b  # a stack of 2-D products: NumPy calls the same BLAS routine for each
    if route in OUT_VIEWS:
        out = OUT_VIEWS[route](a.shape[0], a.shape[1], b.shape[2], a.dtype)
        np.matmul(a, b, out=out)
        return out
    batch, m, n = a.shape[0], a.shape[1], b.shape[2]
    out = np.empty((batch, m, n), dtype=a.dtype)
    for e in range(batch):
        if route == "gemv-rows":  # (k,) @ (k, n): NumPy's gemv
            for i in range(m):
                out[e, i] = a[e, i] @ b[e]
        elif route == "gemv-cols":  # (m, k) @ (k,)
            for j in range(n):
                out[e, :, j] = a[e] @ b[e][:, j]
        elif route == "dot":  # (k,) @ (k,): NumPy's dot
            for i in range(m):
                for j in range(n):
                    out[e, i, j] = a[e, i] @ b[e][:, j]
        else:
            raise ValueError(f"NumPy has no route {route}")
    return out
