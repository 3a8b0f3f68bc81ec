# ---- fpdiv's two paths, run with the operations above (scripts/bridge/export_driver.py) ----
# Each path as fpdiv ran it: its part of the case (batch entries, rows, columns), the operands in
# fpdiv's storage (transposed, padded: views, as the bridge hands them over), its types, its route,
# its execution and its bias (the framework's own fused form, or added afterwards and rounded as
# fpdiv does), A and the bias times a power of two (scale), k in two parts (split-k), the
# framework's own alpha and beta (alpha-beta); then the two compared on the relation's region, in
# the case's output type.
import json
import os
import shlex
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
NUMPY_TYPES = {"f64": np.float64, "f32": np.float32, "f16": np.float16}
# the bits of a type's elements, and the elements: bf16 as the float32 it stands for, as the bridge hands it over
BITS = {"f64": (np.uint64, np.float64, 0), "f32": (np.uint32, np.float32, 0), "f16": (np.uint16, np.float16, 0),
        "bf16": (np.uint32, np.float32, 16)}


def shown(text):
    """Text from the case file, safe on a terminal: what does not print (controls, bidirectional
    overrides, zero-width characters) is escaped."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in str(text))


def load(name, dtype):
    """An input as its values: bf16 bits become the float32 values they stand for (exactly)."""
    x = np.load(os.path.join(HERE, name))
    return (x.astype(np.uint32) << 16).view(np.float32) if dtype == "bf16" else x


def round_to(dtype, x):
    """Binary64 values rounded once to dtype, to nearest even (bf16 directly, not through f32)."""
    x = np.asarray(x, dtype=np.float64)
    if dtype != "bf16":
        return x.astype(NUMPY_TYPES[dtype]).astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        mantissa, exponent = np.frexp(x)
        exponent = np.maximum(exponent, -125)  # below 2^-126 bf16 steps are 2^-133 apart
        step = np.ldexp(1.0, exponent - 8)
        rounded = np.rint(x / step) * step  # rint: ties to even
        return np.where(np.isfinite(x), np.where(np.abs(rounded) >= 2.0 ** 128, np.copysign(np.inf, x), rounded), x)


def stored(x, trans, pad):
    """The logical operand (batch x rows x cols) as a view of fpdiv's storage of it."""
    batch, rows, cols = x.shape
    if trans:  # stored as its transpose: cols rows of rows + pad
        storage = np.zeros((batch, cols, rows + pad), dtype=x.dtype)
        storage[:, :, :rows] = x.transpose(0, 2, 1)
        return storage[:, :, :rows].transpose(0, 2, 1)
    storage = np.zeros((batch, rows, cols + pad), dtype=x.dtype)
    storage[:, :, :cols] = x
    return storage[:, :, :cols]


def other_order(x, pad):
    """The same operand materialized in the other storage order, rows padded as fpdiv pads them
    (the layout relation's path B): a compiler specializes on the strides too."""
    return stored(np.array(x), x.strides[1] >= x.strides[2], pad)


def save_as(name, dtype, x):
    """Values of dtype saved as fpdiv judge reads them: bf16 as its bits (uint16), the rest as they are."""
    x = np.asarray(x, dtype=np.float64)
    if dtype == "bf16":
        x = (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)  # exact: the values are bf16's
    else:
        x = x.astype(NUMPY_TYPES[dtype])
    np.save(os.path.join(HERE, name), x)
    return shlex.quote(os.path.relpath(os.path.join(HERE, name)))


def judge_command(a, b, bias, p, q):
    """The compared region's inputs and both outputs saved, and the `fpdiv judge` command that asks
    whether their difference is expected (doc/judge.md)."""
    (b0, b1), (r0, r1), (c0, c1) = CASE["compare"]["batch"], CASE["compare"]["rows"], CASE["compare"]["cols"]
    dt_in, dt_out, _ = CASE["dtype"]
    words = ["fpdiv", "judge", "--a", save_as("judge_A.npy", dt_in, np.array(a[b0:b1, r0:r1])),
             "--b", save_as("judge_B.npy", dt_in, np.array(b[b0:b1, :, c0:c1]))]
    if any(path["bias"] != "none" for path in CASE["paths"]):
        words += ["--bias", save_as("judge_bias.npy", dt_out, bias[c0:c1])]
    words += ["--outputs", save_as("judge_path_a.npy", dt_out, p) + "," + save_as("judge_path_b.npy", dt_out, q),
              "--dtype", ":".join(CASE["dtype"])]
    return " ".join(words)


def operand_scaled(x, e):
    """A times 2^e in a copy stored as the operand was (exact: fpdiv chose e so that it is)."""
    return stored(np.array(x) * 2.0 ** e, x.strides[1] < x.strides[2], CASE["pad"])


def path_product(path, x, y, z, **scalars):
    """One call of the framework's for the path, on operands x and y, with z its fused bias or None
    (and its alpha and beta, where the path asks for them)."""
    return np.asarray(matmul(x, y, z, path["route"], path["execution"], [path["in"], path["out"], CASE["dtype"][2]],
                             path["threads"] or CASE["threads"], **scalars), dtype=np.float64)


def path_scalars(path, x, y, fused):
    """The framework's alpha = ±2^a and beta = 2^b (0 without a bias, C then holding fpdiv's poison),
    as the bridge hands them over, or nothing."""
    a, b, negative = path["alpha_exp"], path["beta_exp"], path["alpha_negative"]
    if not a and not b and not negative:
        return {}
    if "scalars" not in FEATURES:
        raise NotImplementedError(f"{NAME} has no alpha and beta of its own")
    alpha = -(2.0 ** a) if negative else 2.0 ** a
    if fused:
        return {"scalars": (alpha, 2.0 ** b, None)}
    return {"scalars": (alpha, 0.0, poison((x.shape[0], x.shape[1], y.shape[2])))}


def poison(shape):
    """What C held before the product, bit for bit: fpdiv's poison (a NaN with its payload, or an
    infinity) in the case's output type, which a product with beta 0 must not read."""
    storage, values, shift = BITS[CASE["dtype"][1]]
    return np.full(shape, int(CASE["poison_bits"], 16) << shift, dtype=storage).view(values)


def run_path(path, a, b, bias):
    (b0, b1), (r0, r1), (c0, c1) = path["batch"], path["rows"], path["cols"]
    x, y = a[b0:b1, r0:r1], b[b0:b1, :, c0:c1]
    if path["flip_layout"]:
        x, y = other_order(x, CASE["pad"]), other_order(y, CASE["pad"])
    e, k1 = path["scale_exp"], path["split_k"]
    back = e + path["alpha_exp"]  # the output is taken times ±2^-back
    sign = -1.0 if path["alpha_negative"] else 1.0
    z = sign * bias[c0:c1] * 2.0 ** (back - path["beta_exp"])  # exact, as A's
    if e:
        x = operand_scaled(x, e)
    fused = path["bias"] == "fused"
    scalars = path_scalars(path, x, y, fused)
    if scalars:
        out = path_product(path, x, y, z if fused else None, **scalars)
    elif k1:  # the first k1 terms (with the bias) and the rest, added in the path's output type, as fpdiv adds them
        out = round_to(path["out"], path_product(path, x[:, :, :k1], y[:, :k1], z if fused else None) +
                       path_product(path, x[:, :, k1:], y[:, k1:], None))
    else:
        out = path_product(path, x, y, z if fused else None)
    if path["bias"] == "after":  # fpdiv's own add: the correctly rounded sum in the path's output type
        out = round_to(path["out"], out + z)
    return round_to(CASE["dtype"][1], sign * out * 2.0 ** -back)


def main():
    dt_in, dt_out, _ = CASE["dtype"]
    a = stored(load("A.npy", dt_in), CASE["trans_a"], CASE["pad"])
    b = stored(load("B.npy", dt_in), CASE["trans_b"], CASE["pad"])
    bias = load("bias.npy", dt_out).astype(np.float64)
    try:
        outputs = [run_path(path, a, b, bias) for path in CASE["paths"]]
    except (RuntimeError, TypeError, NotImplementedError, ValueError) as e:
        print(f"{NAME} cannot run this case here: {type(e).__name__}: {e}")
        sys.exit(2)
    (b0, b1), (r0, r1), (c0, c1) = CASE["compare"]["batch"], CASE["compare"]["rows"], CASE["compare"]["cols"]
    p, q = [out[b0 - path["batch"][0]:b1 - path["batch"][0], r0 - path["rows"][0]:r1 - path["rows"][0],
                c0 - path["cols"][0]:c1 - path["cols"][0]] for out, path in zip(outputs, CASE["paths"])]
    differ = int(np.sum(~((p == q) | (np.isnan(p) & np.isnan(q)))))
    finite = np.isfinite(p) & np.isfinite(q)
    largest = np.max(np.abs(p - q)[finite], initial=0.0)
    pattern = int(np.sum(~finite & ~((p == q) | (np.isnan(p) & np.isnan(q)))))  # a NaN or an infinity on one side
    print(f"{differ} of {p.size} elements differ; largest difference {largest:.3g}" +
          (f"; {pattern} in their NaN/Inf pattern" if pattern else ""))
    print(f"is it expected? {judge_command(a, b, bias, p, q)}")
    print(f"{NAME} ran it: " + ", ".join(f"{key} {value}" for key, value in PROVENANCE().items()))
    saw = CASE["recorded"]
    print(f"fpdiv saw {saw['diff']} of {saw['count']} differ ({saw['verdict']}) on {shown(saw['backends'])}")
    for backend, entry in json.loads(RECORDED_ENVIRONMENT).get("backends", {}).items():
        facts = [f"{key} {entry[key]}" for key in ("library", "version", "kernel_set", "threads") if key in entry]
        print(f"fpdiv ran {shown(backend)}: {shown(', '.join(facts)) or 'nothing recorded'}")
    if CASE["matching"]:  # fpdiv ran this framework: the same operations, so the same count
        if differ == saw["diff"]:
            print(f"reproduced in {NAME}: the same count")
            return 0
        print(f"not reproduced in {NAME}: {differ} differ here, not {saw['diff']} (another version or CPU?)")
        return 1
    other = f"{saw['backends']} is another backend, so the counts need not agree"
    if differ and saw["diff"]:
        print(f"diverges in {NAME} too; {other}")
    elif differ:
        print(f"diverges in {NAME}, where fpdiv saw no difference; {other}")
    else:
        print(f"does not diverge in {NAME}{' either' if not saw['diff'] else ''}; {other}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
