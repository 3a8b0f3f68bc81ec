"""JAX on its default device (XLA; on the CPU its own dot emitter or YNNPACK): each path's
operation under jax.jit, or op by op (execution "eager"). One row, column or element is a call of
its own of the function on that vector, as in user code; vmap-rows is jax.vmap of that function
over the rows. 16-bit inputs give a 16-bit product, or a wide one through preferred_element_type.
JAX has no fused bias: a bias is added to the product inside the same function, as JAX code does."""
import jax

jax.config.update("jax_enable_x64", True)  # before any array: f64 stays f64

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

NAME = "jax"
DTYPES = [("f64", "f64", "f64"), ("f32", "f32", "f32"), ("bf16", "bf16", "f32"), ("bf16", "f32", "f32"),
          ("f16", "f16", "f32"), ("f16", "f32", "f32")]
FEATURES = {"routes", "vmap", "compile", "bias_added", "concurrent"}
TYPES = {"f64": jnp.float64, "f32": jnp.float32, "bf16": jnp.bfloat16, "f16": jnp.float16}


def PROVENANCE():
    import jaxlib
    device = jax.devices()[0]
    return {"library": "JAX", "version": jax.__version__, "jaxlib": jaxlib.__version__,
            "device": f"{device.platform} ({device.device_kind})"}


def function(wide, with_bias):
    """f(x, y[, bias]) = x @ y (+ bias): the function user code writes, for matrices or vectors."""
    def mm(x, y):
        return jnp.matmul(x, y, preferred_element_type=wide) if wide is not None else jnp.matmul(x, y)
    return (lambda x, y, z: mm(x, y) + z) if with_bias else (lambda x, y: mm(x, y))


_cache = {}


def prepared(route, wide, with_bias, eager):
    """The path's function, jitted unless eager: f itself, or jax.vmap of f over rows."""
    key = (route, wide, with_bias, eager)
    if key not in _cache:
        f = function(wide, with_bias)
        if route == "vmap-rows":
            f = jax.vmap(f, in_axes=(0, None, None) if with_bias else (0, None))
        _cache[key] = f if eager else jax.jit(f)
    return _cache[key]


def entry(x, y, z, route, wide, eager):
    """One batch entry (2-D x and y): one call, or one call per row, column or element."""
    f = prepared(route, wide, z is not None, eager)
    call = (lambda p, q: f(p, q, z)) if z is not None else f
    if route in ("gemm", "vmap-rows"):
        return call(x, y)
    if route == "gemv-rows":
        return jnp.stack([call(x[i], y) for i in range(x.shape[0])])
    if route == "gemv-cols":
        fc = prepared("gemm", wide, False, eager)  # a column's bias is one element: added after
        cols = jnp.stack([fc(x, y[:, j]) for j in range(y.shape[1])], 1)
        return cols if z is None else cols + z
    if route == "dot":
        fd = prepared("gemm", wide, False, eager)
        out = jnp.stack([jnp.stack([fd(x[i], y[:, j]) for j in range(y.shape[1])]) for i in range(x.shape[0])])
        return out if z is None else out + z
    raise ValueError(f"JAX has no route {route}")


def matmul(a, b, bias, route, execution, dtypes, threads):
    dt_in, dt_out = TYPES[dtypes[0]], TYPES[dtypes[1]]
    wide = dt_out if dt_out != dt_in else None  # bf16 x bf16 -> f32 as XLA computes it, not a cast after
    x, y = jnp.asarray(np.asarray(a), dtype=dt_in), jnp.asarray(np.asarray(b), dtype=dt_in)
    z = None if bias is None else jnp.asarray(np.asarray(bias), dtype=dt_out)
    eager = execution == "eager"
    with jax.disable_jit(eager):
        if route == "gemm" and x.shape[0] > 1:  # a stack: one batched matmul
            f = prepared("gemm", wide, z is not None, eager)
            out = f(x, y, z) if z is not None else f(x, y)
        else:
            out = jnp.stack([entry(x[e], y[e], z, route, wide, eager) for e in range(x.shape[0])])
    out = out.astype(dt_out)
    return np.asarray(out.astype(jnp.float32)) if dt_out == jnp.bfloat16 else np.asarray(out)
