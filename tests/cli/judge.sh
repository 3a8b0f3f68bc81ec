#!/usr/bin/env bash
# The judge suite (issue 55): two results a user already has of one product, made here by the real
# frameworks (.venv's NumPy, PyTorch, JAX) the ways users report them, judged by `fpdiv judge`;
# which verdict each gets is the theory's to say, so each test names the verdicts the theory allows
# (reported situations: same or reorder; a planted loss: bound or improbable, the lossy side
# named), never one bit pattern. Then every kind of bad input: exit 2, naming the file and what is
# wrong.
# Usage: FPDIV=build/fpdiv tests/cli/judge.sh   (after scripts/install-deps.sh: nothing skips)
set -u
FPDIV=${FPDIV:-build/fpdiv}
FPDIV=$(cd "$(dirname "$FPDIV")" && pwd)/$(basename "$FPDIV") # the tests run in their own directory
python=$(pwd)/.venv/bin/python
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1
export JAX_PLATFORMS=cpu

# --- the arrays: a Linear layer's input, weight and bias, and results made the ways users make them ---
"$python" - <<'EOF' || { echo "FAIL judge: the frameworks could not make the arrays"; exit 1; }
import numpy as np, torch, jax, jax.numpy as jnp
torch.manual_seed(0)
rng = np.random.default_rng(7)
x = rng.standard_normal((48, 300)).astype(np.float32)
w = rng.standard_normal((40, 300)).astype(np.float32)  # n x k, as nn.Linear stores it
b = rng.standard_normal(40).astype(np.float32)
np.save("x.npy", x), np.save("w.npy", w), np.save("b.npy", b)
X, Wt, B = map(torch.from_numpy, (x, w, b))
# PyTorch: x @ W.T + b against F.linear(x, W, b)
np.save("t_mm_add.npy", (X @ Wt.T + B).numpy())
np.save("t_linear.npy", torch.nn.functional.linear(X, Wt, B).numpy())
# (inputs @ model)[0] against inputs[0] @ model
np.save("t_row_of_all.npy", (X @ Wt.T)[0].numpy())
np.save("t_row_alone.npy", (X[0] @ Wt.T).numpy())
# JAX: a vmap over the first 10 rows against a vmap over all of them, its first 10 rows
f = lambda r: r @ jnp.asarray(w).T
np.save("x10.npy", x[:10])
np.save("j_vmap10.npy", np.asarray(jax.vmap(f)(jnp.asarray(x[:10]))))
np.save("j_vmap_all.npy", np.asarray(jax.vmap(f)(jnp.asarray(x)))[:10])
# JAX: jitted against eager, batched (3 x 16 x 300 @ 300 x 40)
xb = rng.standard_normal((3, 16, 300)).astype(np.float32)
wk = np.ascontiguousarray(w.T)
np.save("xb.npy", xb), np.save("wk.npy", wk)
np.save("j_eager.npy", np.asarray(jnp.matmul(xb, wk)))
np.save("j_jit.npy", np.asarray(jax.jit(jnp.matmul)(xb, wk)))
# a row of a batched product (entry 1, row 4: the product's row 20) against that row alone, one
# element planted 1e-3 off; and A given transposed (k x m, as stored)
row = np.matmul(xb, wk)[1, 4]; np.save("n_row20.npy", row)
planted = (xb[1, 4] @ wk).astype(np.float32); planted[11] *= 1 + 1e-3; np.save("n_row20_planted.npy", planted)
np.save("xt.npy", np.ascontiguousarray(x.T))
# attention's scores: batch x heads x m x k @ batch x heads x k x n, matmul against einsum; and a
# weight broadcast over the batch (1 x heads x k x n)
q = rng.standard_normal((2, 3, 10, 64)).astype(np.float32); kt = rng.standard_normal((2, 3, 64, 12)).astype(np.float32)
w1 = rng.standard_normal((1, 3, 64, 12)).astype(np.float32)
np.save("q.npy", q), np.save("kt.npy", kt), np.save("w1.npy", w1)
np.save("kt3.npy", np.zeros((4, 64, 12), np.float32))  # batch 4 against 2 x 3: no broadcast
Q, KT = torch.from_numpy(q), torch.from_numpy(kt)
np.save("att_matmul.npy", (Q @ KT).numpy()), np.save("att_einsum.npy", torch.einsum("bhmk,bhkn->bhmn", Q, KT).numpy())
np.save("bc_torch.npy", (Q @ torch.from_numpy(w1)).numpy()), np.save("bc_numpy.npy", np.matmul(q, w1))
# NumPy in f64: matmul against einsum
x64, w64 = x.astype(np.float64), wk.astype(np.float64)
np.save("x64.npy", x64), np.save("w64.npy", w64)
np.save("n_matmul.npy", x64 @ w64), np.save("n_einsum.npy", np.einsum("ik,kj->ij", x64, w64))
np.save("n_matmul32.npy", (x64 @ w64).astype(np.float32))  # of f32 inputs: the f64 product rounded to f32
# reductions: x.sum() against x.sum(0).sum(0).sum(0) (torch), over two axes two ways (torch, numpy);
# a dot and a gemv (numpy against torch); a sum accumulated in f16 (each partial sum rounded to f16)
xs = rng.standard_normal((6, 50, 40)).astype(np.float32); T = torch.from_numpy(xs); np.save("xs.npy", xs)
np.save("s_all.npy", T.sum().numpy()), np.save("s_chain.npy", T.sum(0).sum(0).sum(0).numpy())
np.save("s_axes.npy", T.sum(dim=(0, 2)).numpy()), np.save("s_axes_np.npy", np.sum(xs, axis=(0, 2)))
acc16 = np.float16(0)
for e in xs.reshape(-1):
    acc16 = np.float16(np.float32(acc16) + e)
np.save("s_f16_acc.npy", np.float32(acc16))
v, u = rng.standard_normal(500).astype(np.float32), rng.standard_normal(500).astype(np.float32)
np.save("v.npy", v), np.save("u.npy", u)
np.save("d_np.npy", np.dot(v, u)), np.save("d_torch.npy", torch.dot(torch.from_numpy(v), torch.from_numpy(u)).numpy())
np.save("g_np.npy", x @ v[:300]), np.save("g_torch.npy", (X @ torch.from_numpy(v[:300])).numpy()), np.save("v300.npy", v[:300])
# planted losses: a bf16 output against an f32 one (bf16 inputs both), one element changed by 1e-3
# relative, and inputs rounded to TF32's 10 significand bits for an f32 product
bits = lambda t: t.view(torch.int16).numpy().view(np.uint16)
Xh, Wh, Bh = X.bfloat16(), Wt.bfloat16(), B.bfloat16()
np.save("xh.npy", bits(Xh)), np.save("wh.npy", bits(Wh)), np.save("bh.npy", bits(Bh))
np.save("t_bf16_out.npy", bits(torch.nn.functional.linear(Xh, Wh, Bh)))
np.save("t_f32_out.npy", torch.nn.functional.linear(Xh.float(), Wh.float(), Bh.float()).numpy())
np.save("t_f32_addmm.npy", torch.addmm(Bh.float(), Xh.float(), Wh.float().T).numpy())  # against t_f32_out.npy
# a Linear layer in 16 bits, x @ W.T + b (the product rounded, then the bias added, rounded again)
# against F.linear (fused): each within that product's rounding, the bias's own rounding included
Xf, Wf, Bf = X.half(), Wt.half(), B.half()
np.save("xf.npy", Xf.numpy()), np.save("wf.npy", Wf.numpy()), np.save("bf.npy", Bf.numpy())
np.save("t16_mm_add.npy", (Xf @ Wf.T + Bf).numpy())
np.save("t16_linear.npy", torch.nn.functional.linear(Xf, Wf, Bf).numpy())
np.save("tb_mm_add.npy", bits(Xh @ Wh.T + Bh))  # against t_bf16_out.npy, F.linear in bf16
bumped = np.load("t_linear.npy"); bumped[5, 9] *= 1 + 1e-3; np.save("t_bumped.npy", bumped)
def tf32(a):
    u = a.view(np.uint32).astype(np.uint64)
    return (((u + 0x1000) & 0xFFFFE000).astype(np.uint32)).view(np.float32)
np.save("t_tf32.npy", (torch.from_numpy(tf32(x)) @ torch.from_numpy(tf32(w)).T + B).numpy())
# the user's data for check --inputs, as fpdiv export writes it: f32, bf16 bits, and too much to save
import os
for d in ("in", "in_bf16", "in_big", "in_nobias"):
    os.mkdir(d)
np.save("in/A.npy", rng.standard_normal((2, 30, 200)).astype(np.float32))
np.save("in/B.npy", rng.standard_normal((2, 200, 20)).astype(np.float32))
np.save("in/bias.npy", rng.standard_normal(20).astype(np.float32))
np.save("in_bf16/A.npy", bits(torch.randn(30, 64).bfloat16())), np.save("in_bf16/B.npy", bits(torch.randn(64, 8).bfloat16()))
np.save("in_big/A.npy", rng.standard_normal((1, 200, 400)).astype(np.float32))  # past the 64 KiB kept inline
np.save("in_big/B.npy", rng.standard_normal((1, 400, 30)).astype(np.float32))
np.savez("in.npz", A=np.load("in/A.npy"), B=np.load("in/B.npy"), bias=np.load("in/bias.npy"))
np.save("in_nobias/A.npy", np.zeros((3, 4), np.float32)), np.save("in_nobias/B.npy", np.zeros((4, 5), np.float32))
# .npz archives: a run's arrays in one, named; two outputs in a compressed one; inputs named as the
# options are; a file name with a comma; an archive cut short
np.savez("run.npz", x=x, w=w, bias=b, eager=np.load("t_mm_add.npy"), compiled=np.load("t_linear.npy"))
np.savez_compressed("outs.npz", eager=np.load("t_mm_add.npy"), compiled=np.load("t_linear.npy"))
np.savez("lin.npz", a=x, b=w)
np.savez("in_lower.npz", a=np.load("in/A.npy"), b=np.load("in/B.npy"), bias=np.load("in/bias.npy"))
os.mkdir("comma,dir"), np.save("comma,dir/y,1.npy", np.load("t_mm_add.npy"))
open("cut.npz", "wb").write(open("outs.npz", "rb").read()[:300])
damaged = bytearray(open("run.npz", "rb").read()); damaged[200] ^= 0xFF  # a byte of x's data: its CRC-32 fails
open("damaged.npz", "wb").write(bytes(damaged))
np.savez("o,1.npz", eager=np.load("t_mm_add.npy"), compiled=np.load("t_linear.npy"))
import zipfile  # two members of one name, which np.load reads (the last winning)
with zipfile.ZipFile("twice.npz", "w") as z:
    z.write("t_mm_add.npy", "y.npy"), z.write("t_linear.npy", "y.npy")
# means: x.mean(1) by torch (sum times 1/k), numpy and jax (sum / k); in f64, rounded to f32 (the
# correctly rounded mean, but for a double rounding); of inputs rounded to bf16 first
xm = rng.standard_normal((20, 301, 7)).astype(np.float32); XM = torch.from_numpy(xm); np.save("xm.npy", xm)
np.save("m_torch.npy", XM.mean(dim=1).numpy()), np.save("m_numpy.npy", xm.mean(axis=1))
np.save("m_jax.npy", np.asarray(jnp.mean(jnp.asarray(xm), axis=1)))
np.save("m_f64.npy", xm.astype(np.float64).mean(axis=1).astype(np.float32))
np.save("m_bf16.npy", XM.bfloat16().float().mean(dim=1).numpy())
# a product whose products alone overflow f32: NaN (Inf - Inf) by some orders, -Inf by others
rs = np.random.RandomState(0); kk = 20000
ao = (rs.choice([-1, 1], kk) * np.exp2(rs.randint(-120, 120, kk))).astype(np.float32)[None]
bo = (rs.choice([-1, 1], kk) * np.exp2(rs.randint(-120, 120, kk))).astype(np.float32)[:, None]
np.save("ao.npy", ao), np.save("bo.npy", bo), np.save("yo_nan.npy", np.full((1, 1), np.nan, np.float32))
np.save("yo_inf.npy", np.full((1, 1), -np.inf, np.float32))
nanned = np.load("t_linear.npy"); nanned[3, 2] = np.nan; np.save("t_nan.npy", nanned)
# hostile and wrong inputs
np.save("ints.npy", np.arange(12, dtype=np.int64).reshape(3, 4))
np.save("y_wrong_shape.npy", np.zeros((40, 48), np.float32))
np.save("w_other_k.npy", np.zeros((40, 299), np.float32))
np.save("y_f16.npy", np.zeros((48, 40), np.float16)), np.save("y_bf16_bits.npy", np.zeros((48, 40), np.uint16))
open("not.npy", "w").write("x,y\n1,2\n")
EOF

# judge NAME VERDICTS ARGS...: fpdiv judge ARGS --json, its verdict one of VERDICTS (a|b|c)
judge() {
    local name=$1 verdicts=$2
    shift 2
    run "$name" 0 $FPDIV judge --json --fail-on never "$@" &&
        expect "$name: $verdicts" "$out" "\"type\":\"judge\".*\"verdict\":\"($verdicts)\""
}
judge "x @ W.T + b against F.linear(x, W, b)" "same|reorder" --a x.npy --b w.npy --trans-b --bias b.npy \
    --outputs t_mm_add.npy,t_linear.npy
judge "(inputs @ model)[0] against inputs[0] @ model" "same|reorder" --a x.npy --b w.npy --trans-b --row 0 \
    --outputs t_row_of_all.npy,t_row_alone.npy
expect "the row is named" "$out" '"row":0[,}]'
judge "a vmap over 10 rows against a vmap over all, its first 10" "same|reorder" --a x10.npy --b w.npy --trans-b \
    --outputs j_vmap10.npy,j_vmap_all.npy
judge "jax.jit against eager, batched" "same|reorder" --a xb.npy --b wk.npy --outputs j_eager.npy,j_jit.npy
judge "A given transposed (--trans-a)" "same|reorder" --a xt.npy --trans-a --b w.npy --trans-b --bias b.npy \
    --outputs t_mm_add.npy,t_linear.npy
judge "a row of a batched product, planted 1e-3 off" "bound|improbable" --a xb.npy --b wk.npy --row 20 \
    --outputs n_row20.npy,n_row20_planted.npy
expect "at the product's row 20: entry 1, row 4" "$out" '"worst":\{"at":\[1,4,11\]'
judge "attention's scores, 4-D, matmul against einsum" "same|reorder" --a q.npy --b kt.npy \
    --outputs att_matmul.npy,att_einsum.npy
judge "a weight broadcast over the batch, torch against numpy" "same|reorder" --a q.npy --b w1.npy \
    --outputs bc_torch.npy,bc_numpy.npy
judge "the wrong one of two broadcast products" "bound|improbable" --a q.npy --b w1.npy \
    --outputs bc_torch.npy,att_matmul.npy
judge "numpy's matmul against einsum in f64" "same|reorder" --a x64.npy --b w64.npy --outputs n_matmul.npy,n_einsum.npy
judge "x @ W.T + b against F.linear in f16 (the bias added to the rounded product)" "same|reorder" --a xf.npy \
    --b wf.npy --trans-b --bias bf.npy --outputs t16_mm_add.npy,t16_linear.npy
judge "the same in bf16" "same|reorder" --a xh.npy --b wh.npy --trans-b --bias bh.npy \
    --outputs tb_mm_add.npy,t_bf16_out.npy --dtype bf16:bf16
judge "bf16 inputs and bias, f32 outputs (the bias's bits taken as bf16, the inputs' type)" "same|reorder" --a xh.npy \
    --b wh.npy --trans-b --bias bh.npy --outputs t_f32_out.npy,t_f32_addmm.npy --dtype bf16:f32
judge "a bf16 output against an f32 one" "bound|improbable" --a xh.npy --b wh.npy --trans-b --bias bh.npy \
    --outputs t_f32_out.npy,t_bf16_out.npy --dtype bf16:bf16
run "the lossy side is named" 1 $FPDIV judge --a xh.npy --b wh.npy --trans-b --bias bh.npy \
    --outputs t_f32_out.npy,t_bf16_out.npy --dtype bf16:bf16 &&
    expect "bf16's rounding is its own" "$out" '^  output   t_bf16_out\.npy is bf16: judged in f32' &&
    expect "and it is the farther" "$out" '^  exact .*: t_bf16_out\.npy is the farther, t_f32_out\.npy the closer$' &&
    expect "beyond its own bound" "$out" '^           t_bf16_out\.npy exceeds its own rounding bound'
judge "one element 1e-3 off" "bound|improbable" --a x.npy --b w.npy --trans-b --bias b.npy \
    --outputs t_linear.npy,t_bumped.npy
expect "at that element" "$out" '"worst":\{"at":\[0,5,9\]'
expect "first of the largest" "$out" '"largest":\[\{"at":\[0,5,9\],"ulp":[0-9]+,'
expect "and only it" "$out" '"largest":\[\{"at":\[0,5,9\],"ulp":[0-9]+,"a":"[^"]*","b":"[^"]*"\}\]'
judge "inputs rounded to TF32 for an f32 product" "bound|improbable" --a x.npy --b w.npy --trans-b --bias b.npy \
    --outputs t_linear.npy,t_tf32.npy
judge "x.sum() against x.sum(0).sum(0).sum(0)" "same|reorder" --op sum --a xs.npy --outputs s_all.npy,s_chain.npy
judge "a sum over two axes, torch against numpy" "same|reorder" --op sum --a xs.npy --axes 0,-1 \
    --outputs s_axes.npy,s_axes_np.npy
expect "is 50 sums of 240 terms" "$out" '"shape":"50x1x240"'
judge "a sum accumulated in f16" "bound|improbable" --op sum --a xs.npy --outputs s_all.npy,s_f16_acc.npy
judge "a dot, numpy against torch" "same|reorder" --op dot --a v.npy --b u.npy --outputs d_np.npy,d_torch.npy
judge "a gemv, numpy against torch" "same|reorder" --op gemv --a x.npy --b v300.npy --outputs g_np.npy,g_torch.npy
judge "x.mean(1), torch (times 1/k) against numpy (/ k)" "same|reorder" --op mean --a xm.npy --axes 1 \
    --outputs m_torch.npy,m_numpy.npy
judge "x.mean(1), jax against numpy" "same|reorder" --op mean --a xm.npy --axes 1 --outputs m_jax.npy,m_numpy.npy
expect "is 140 means of 301 terms" "$out" '"shape":"140x1x301"'
expect "named a mean" "$out" '"op":"mean"'
run "a mean in f64, rounded to f32, is the closer" 0 $FPDIV judge --op mean --a xm.npy --axes 1 \
    --outputs m_torch.npy,m_f64.npy --fail-on never &&
    expect "0 ulp from the exact mean" "$out" '^  exact    m_torch\.npy is .* ulp from the correctly rounded result, m_f64\.npy 0 \(f32 ulps\): m_torch\.npy is the farther, m_f64\.npy the closer$' &&
    expect "a mean's model" "$out" '^  model    .*then divided by k \(or times 1/k\), rounded once more$'
judge "a mean of inputs rounded to bf16" "bound|improbable" --op mean --a xm.npy --axes 1 --outputs m_numpy.npy,m_bf16.npy
judge "means judged as sums" "bound" --op sum --a xm.npy --axes 1 --outputs m_torch.npy,m_numpy.npy
judge "arrays of a .npz archive, by name" "same|reorder" --a run.npz:x --b run.npz:w --trans-b --bias run.npz:bias \
    --outputs run.npz:eager,run.npz:compiled
expect "named as given" "$out" '"outputs":\["run\.npz:eager","run\.npz:compiled"\]'
judge "a compressed archive's two arrays as the outputs; inputs by the options' names" "same|reorder" \
    --a lin.npz --b lin.npz --trans-b --bias b.npy --outputs outs.npz
expect "in the archive's order" "$out" '"outputs":\["outs\.npz:eager","outs\.npz:compiled"\]'
judge "a file name with a comma" "same|reorder" --a x.npy --b w.npy --trans-b --bias b.npy \
    --outputs "comma,dir/y,1.npy,t_linear.npy"
judge "an archive of two whose name has a comma" "same|reorder" --a x.npy --b w.npy --trans-b --bias b.npy \
    --outputs "o,1.npz"
# the paths agree, but an overflowed partial sum is outside every rounding bound: bound (concepts.md)
judge "identical NaNs where the products overflow f32" "bound" --a ao.npy --b bo.npy --outputs yo_nan.npy,yo_nan.npy
run "an overflow some order makes, said so once" 1 $FPDIV judge --a ao.npy --b bo.npy --outputs yo_nan.npy,yo_nan.npy &&
    expect "what an overflowing order gives" "$out" '^           its terms. magnitudes sum past f32.s range there, so a partial sum of some order$' &&
    [ "$(grep -c 'is Inf or NaN where' <<<"$out")" -eq 1 ] && pass "once, for one file given twice" ||
    fail "once" "$out"
judge "NaN against -Inf: the class differs" "nonfinite" --a ao.npy --b bo.npy --outputs yo_nan.npy,yo_inf.npy
judge "a NaN planted" "nonfinite" --a x.npy --b w.npy --trans-b --bias b.npy --outputs t_linear.npy,t_nan.npy
expect "largest: the NaN first, no ulps" "$out" '"largest":\[\{"at":\[0,3,2\],"ulp":null,'
run "in words" 1 $FPDIV judge --a x.npy --b w.npy --trans-b --bias b.npy --outputs t_linear.npy,t_nan.npy &&
    expect "classes differ" "$out" '^  largest  \[0, 3, 2\]: classes differ, t_linear\.npy = '
run "a report in words" 0 $FPDIV judge --a x.npy --b w.npy --trans-b --bias b.npy --outputs t_mm_add.npy,t_linear.npy &&
    expect "names the outputs" "$out" '^judge t_mm_add\.npy against t_linear\.npy: (same|reorder)$' &&
    expect "and the product" "$out" '^  product  x\.npy @ w\.npyᵀ \+ b\.npy: 48 x 40 x 300 \(m x n x k\), f32'

# --- the user's data through the pipeline: check --inputs, saved, replayed, minimized, bisected ---
run "check on the user's data" 0 $FPDIV check --relation slice-rows --backend openblas --inputs in --bias &&
    expect "its shape and types from the arrays" "$out" '^  case     2x30x20x200 \(batch x m x n x k\), f32 \(in f32, out f32, acc f32\), bias, the user'"'"'s data \(--inputs\)$'
run "saved" 0 $FPDIV check --relation vendor --backend seq,openblas --inputs in --save corpus --fail-on never
saved=$(ls corpus/vendor/*.json 2>/dev/null | head -1)
[ -n "$saved" ] && expect "with its data inline" "$(cat "$saved")" '"data": *\{' || fail "saved" "no case file"
run "replayed" 0 $FPDIV replay corpus && expect "as recorded" "$out" '^reproduced .*vendor on seq,openblas@[A-Za-z0-9_]+, f32 2x30x20x200'
if grep -q '"verdict": *"reorder"' "$saved"; then # where openblas's order differs from seq's here
    run "minimized: the user's arrays sliced" 0 $FPDIV minimize "$saved" -o minimized &&
        expect "to a smaller case" "$out$err" 'saved minimized/vendor/'
    run "bisected over k: the user's data cut short" 0 $FPDIV bisect "$saved" --dim k &&
        expect "finds where it starts" "$out" '^boundary: k='
fi
run "bf16 bits named" 0 $FPDIV check --relation vendor --backend seq,blocked --inputs in_bf16 --dtype bf16 &&
    expect "as bf16" "$out" '^  case     30x8x64 \(m x n x k\), bf16 \(in bf16, out f32, acc f32\), the user'"'"'s data \(--inputs\)$'
run "small enough to be saved inline" 0 $FPDIV check --relation vendor --backend seq,blocked --inputs in_bf16 --dtype bf16 \
    --save small --fail-on never
small=$(ls small/vendor/*.json 2>/dev/null | head -1)
run "shown from its case file alone" 0 $FPDIV show "$small" &&
    expect "its data: the case file's own" "$out" '^  case     30x8x64 .*, inline data$'
bad "--inputs and a --shape that disagrees" "--shape 2x30x20x100, but the arrays in in make a 2x30x20x200 product" \
    check --relation repeat --inputs in --shape 2x30x20x100
bad "--inputs without the bias --bias needs" "in_nobias/bias\.npy" check --relation repeat --inputs in_nobias --bias
np_bias_bf16() { "$python" -c 'import numpy as np; np.save("in_bf16/bias.npy", np.zeros(8, np.uint16))'; }
np_bias_bf16
bad "--inputs with a bias of the inputs' type, not the outputs'" "in_bf16/bias\.npy holds uint16 \(bf16 bits\) elements, not the f32 the case's output type" \
    check --relation repeat --inputs in_bf16 --dtype bf16 --bias
bad "--inputs of bf16 bits, not named" "in_bf16/A\.npy holds u?int16 \(bf16 bits\) elements, not the f32" \
    check --relation repeat --inputs in_bf16
run "check on the arrays of a .npz archive" 0 $FPDIV check --relation slice-rows --backend openblas --inputs in.npz --bias &&
    expect "as the directory's" "$out" '^  case     2x30x20x200 \(batch x m x n x k\), f32'
run "check on an archive's arrays named a, b and bias" 0 $FPDIV check --relation slice-rows --backend openblas \
    --inputs in_lower.npz --bias && expect "as A and B" "$out" '^  case     2x30x20x200 \(batch x m x n x k\), f32'
bad "--inputs archive without A or a: the capital's name in the message" \
    "outs\.npz holds no array named 'A' \(its arrays: eager, compiled\)" check --relation repeat --inputs outs.npz
bad "--seed for the user's data" "--seed is not for --inputs: the data are the arrays given" \
    check --relation repeat --inputs in --seed 3

# data past the inline limit: .npy files beside the case file, hashed; replayed, merged, refused when changed
run "saved past the inline limit" 0 $FPDIV check --relation vendor --backend seq,pairwise --inputs in_big --save big \
    --fail-on never
big=$(ls big/vendor/*.json 2>/dev/null | head -1)
stem=${big%.json}
if [ -n "$big" ] && [ -f "$stem.A.npy" ] && [ -f "$stem.B.npy" ] && [ -f "$stem.bias.npy" ]; then
    pass "its sidecars beside it, named after it"
else
    fail "sidecars" "$(ls -R big)"
fi
[ -n "$big" ] && expect "their hashes in the case file" "$(cat "$big")" '"sidecar": \{' &&
    expect "no inline elements" "$(cat "$big")" '"A": "[0-9a-f]{16}"'
"$python" -c 'import numpy as np, sys; a = np.load(sys.argv[1]); assert a.shape == (200, 400) and (a == np.load("in_big/A.npy")[0]).all()' "$stem.A.npy" &&
    pass "a sidecar is the user's A, as NumPy reads it" || fail "sidecar" "not the user's A"
run "replayed from its sidecars" 0 $FPDIV replay big && expect "as recorded" "$out" '^reproduced '
run "shown" 0 $FPDIV show "$big" && expect "the data's place" "$out" '^  data     in \.npy files beside the case file' &&
    expect "its case line says so" "$out" '^  case     .*, data from the \.npy files beside its case file$'
run "merged with its sidecars" 0 $FPDIV merge big_merged big
[ -f "big_merged/vendor/$(basename "$stem").B.npy" ] && pass "the sidecars went with it" || fail "merge" "$(ls -R big_merged)"
run "minimized, small enough to go inline" 0 $FPDIV minimize "$big" -o big_min &&
    expect "saved" "$out$err" 'saved big_min/vendor/'
cp -r big big_superseded
run "merged with its smaller self" 0 $FPDIV merge big_superseded big_min && expect "one superseded" "$out" '1 superseded'
ls big_superseded/vendor/*.npy >/dev/null 2>&1 && fail "superseded" "its sidecars stayed: $(ls big_superseded/vendor)" ||
    pass "a superseded case's sidecars go with it"
cp -r big big_mended
cp big/vendor/*.A.npy "big_mended/vendor/$(basename "$stem").B.npy" # a sidecar damaged: another array in its place
run "saved again over a damaged sidecar" 0 $FPDIV check --relation vendor --backend seq,pairwise --inputs in_big \
    --save big_mended --fail-on never
run "which it mended" 0 $FPDIV replay big_mended && expect "reproduced" "$out" '^reproduced '
cp -r big big_changed
"$python" -c 'import numpy as np, sys; a = np.load(sys.argv[1]); a[0, 0] += 1; np.save(sys.argv[1], a)' \
    "big_changed/vendor/$(basename "$stem").B.npy"
bad "a changed sidecar" "big_changed/vendor/[0-9a-f]{16}\.B\.npy: changed since the case was saved" replay big_changed
rm "big_changed/vendor/$(basename "$stem").B.npy"
bad "a missing sidecar, the case file named first" \
    "big_changed/vendor/[0-9a-f]{16}\.json: check\.case\.data\.sidecar: big_changed/vendor/[0-9a-f]{16}\.B\.npy" replay big_changed
ln -s "$tmp/$stem.B.npy" "big_changed/vendor/$(basename "$stem").B.npy"
bad "a sidecar that is a link, to the right data even" "\.B\.npy: a symbolic link: fpdiv reads a corpus's own files only" \
    replay big_changed

# --- bad input: exit 2, naming the file and what is wrong ---
bad "a file that is not there" "judge: /nonexistent/a\.npy" judge --a /nonexistent/a.npy --b w.npy --outputs t_linear.npy,t_mm_add.npy
bad "a file that is no .npy" "not\.npy: not a \.npy file" judge --a not.npy --b w.npy --outputs t_linear.npy,t_mm_add.npy
bad "a type fpdiv cannot read" "ints\.npy: its 'descr' is '<i8'" judge --a ints.npy --b w.npy --outputs t_linear.npy,t_mm_add.npy
bad "k that does not fit" "x\.npy is 48 x 300 and w_other_k\.npy 40 x 299: A's k \(300, its columns\) is not B's \(299, its columns with --trans-b\)" \
    judge --a x.npy --b w_other_k.npy --trans-b --outputs t_linear.npy,t_mm_add.npy
bad "an output of another shape" "y_wrong_shape\.npy is 40 x 48; the product is 48 x 40 \(the batch's dimensions, m, n\)" \
    judge --a x.npy --b w.npy --trans-b --outputs t_linear.npy,y_wrong_shape.npy
bad "bf16 bits not named" "y_bf16_bits\.npy holds uint16 \(bf16 bits\) elements: if they are bf16, say so with --dtype" \
    judge --a x.npy --b w.npy --trans-b --outputs t_linear.npy,y_bf16_bits.npy
bad "outputs neither of which holds the other" "y_f16\.npy holds f16 and .*bf16.*neither type holds the other's values|holds f16 and bf16" \
    judge --a x.npy --b w.npy --trans-b --outputs y_f16.npy,y_bf16_bits.npy --dtype f32:bf16
bad "inputs of another type than --dtype's" "x\.npy holds float32 elements, not the f16 --dtype gives the inputs" \
    judge --a x.npy --b w.npy --trans-b --outputs t_linear.npy,t_mm_add.npy --dtype f16
bad "a row past the product" "--row 48: the product has 48 rows" judge --a x.npy --b w.npy --trans-b --row 48 \
    --outputs t_row_of_all.npy,t_row_alone.npy
bad "one output" "--outputs 't_linear\.npy': expected two files" judge --a x.npy --b w.npy --outputs t_linear.npy
bad "no inputs" "--a, --b and --outputs are required" judge --outputs t_linear.npy,t_mm_add.npy
bad "batches that do not broadcast" "q\.npy is 2 x 3 x 10 x 64 and kt3\.npy 4 x 64 x 12: their batch dimensions .* do not broadcast" \
    judge --a q.npy --b kt3.npy --outputs att_matmul.npy,att_einsum.npy
bad "a dot of a matrix" "--op dot: x\.npy is 48 x 300 and v300\.npy 300; a dot takes two vectors of k" \
    judge --op dot --a x.npy --b v300.npy --outputs g_np.npy,g_torch.npy
bad "axes a sum's array lacks" "--axes '3': xs\.npy has 3 axes; expected distinct ones from -3 to 2" \
    judge --op sum --a xs.npy --axes 3 --outputs s_all.npy,s_chain.npy
bad "an axis twice" "--axes '0,-3'" judge --op sum --a xs.npy --axes 0,-3 --outputs s_all.npy,s_chain.npy
bad "a B for a sum" "--b is not for a sum" judge --op sum --a xs.npy --b u.npy --outputs s_all.npy,s_chain.npy
bad "a transpose for a sum" "--trans-a is not for a sum" judge --op sum --a xs.npy --axes 1 --trans-a \
    --outputs s_all.npy,s_chain.npy
bad "an output type --dtype names and neither file holds" "--dtype gives the outputs as f16, but t_linear\.npy holds f32" \
    judge --a x.npy --b w.npy --trans-b --bias b.npy --outputs t_linear.npy,t_mm_add.npy --dtype f32:f16
judge "an f32 output against an f64 one, the f32 first" "bound|improbable" --a x.npy --b wk.npy \
    --outputs n_matmul32.npy,n_matmul.npy
expect "in f64, accumulated in f64" "$out" '"dtype":"f32:f64"'
bad "an op fpdiv does not know" "--op 'median': expected matmul, dot, gemv, sum or mean" \
    judge --op median --a xs.npy --outputs s_all.npy,s_chain.npy
bad "an array an archive does not hold" "run\.npz holds no array named 'y' \(its arrays: x, w, bias, eager, compiled\)" \
    judge --a run.npz:x --b run.npz:w --trans-b --outputs run.npz:y,run.npz:eager
bad "an archive of several for one array" "run\.npz holds 5 arrays \(x, w, bias, eager, compiled\): name the one meant, as run\.npz:NAME" \
    judge --a run.npz --b w.npy --trans-b --outputs t_linear.npy,t_mm_add.npy
bad "an archive of five as the outputs" "run\.npz holds 5 arrays .*, not 2" \
    judge --a x.npy --b w.npy --trans-b --outputs run.npz
bad "a .npy named as an archive" "x\.npy is not a \.npz archive" \
    judge --a x.npy:x --b w.npy --trans-b --outputs t_linear.npy,t_mm_add.npy
bad "an archive cut short" "cut\.npz is not a \.npz archive NumPy could read" \
    judge --a x.npy --b w.npy --trans-b --outputs cut.npz:eager,t_linear.npy
bad "an archive with two members of one name" "twice\.npz holds two members of the same name" \
    judge --a x.npy --b w.npy --trans-b --outputs twice.npz:y,t_linear.npy
bad "a --b for a mean" "--b is not for a sum or a mean" judge --op mean --a xs.npy --b u.npy --outputs s_all.npy,s_chain.npy
bad "an archive whose data is damaged (np.load refuses it)" "damaged\.npz:x cannot be read from the archive \(it is damaged" \
    judge --a damaged.npz:x --b w.npy --trans-b --outputs t_linear.npy,t_mm_add.npy
bad "no axis" "--axes '': xs\.npy has 3 axes" judge --op sum --a xs.npy --axes '' --outputs s_all.npy,s_chain.npy
bad "a comma and no axis after it" "--axes '0,'" judge --op sum --a xs.npy --axes 0, --outputs s_all.npy,s_chain.npy

echo "judge: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
