"""A framework for the bridge's tests whose out= ignores the view's strides (numpy #29164: matmul
with out= views of other strides gave garbage): it writes the product's elements one after
another into the memory under the view, as if the view were contiguous. Its plain product is
NumPy's, right."""
import numpy as np

NAME = "out-ignored"
DTYPES = [("f64", "f64", "f64"), ("f32", "f32", "f32")]
FEATURES = {"out_views", "out_reversed"}
TYPES = {"f64": np.float64, "f32": np.float32}
SHAPES = {  # the array under each view, as the route's out= is made of it (fpdiv_bridge.py)
    "out-strided": lambda batch, m, n: ((batch, m, 2 * n), (slice(None), slice(None), slice(None, None, 2))),
    "out-transposed": lambda batch, m, n: ((batch, n, m), None),
    "out-reversed": lambda batch, m, n: ((batch, m, n), (slice(None), slice(None, None, -1), slice(None, None, -1))),
}


def PROVENANCE():
    return {"library": "a test framework", "version": "1"}


def matmul(a, b, bias, route, execution, dtypes, threads):
    t = TYPES[dtypes[0]]
    product = a.astype(t) @ b.astype(t)
    if route == "gemm":
        return product
    batch, m, n = product.shape
    shape, index = SHAPES[route](batch, m, n)
    base = np.full(shape, np.nan, t)
    base.reshape(-1)[:product.size] = product.reshape(-1)  # the fault: the view's strides ignored
    return base.transpose(0, 2, 1) if index is None else base[index]
