/* judge_arrays.c — the user's .npy files as a case for `fpdiv judge` (judge_arrays.h). */
#include "store/judge_arrays.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/text.h"
#include "engine/case.h"
#include "store/array_file.h"

/* --dtype's fields, each given (true) or not. */
struct declared {
    bool given[3];
    enum fpd_dtype t[3];
};

static int parse_declared(const char *spec, struct declared *d, char *why, size_t why_size)
{
    *d = (struct declared){0};
    if (!spec)
        return FPD_OK;
    char buf[64];
    snprintf(buf, sizeof buf, "%s", spec);
    int field = 0;
    for (char *p = buf, *tok; (tok = strsep(&p, ":")) != NULL; field++) {
        if (field == 3 || fpd_dtype_parse(tok, &d->t[field]) != FPD_OK) {
            char shown[96];
            snprintf(why, why_size, "--dtype '%s': expected IN[:OUT[:ACC]], each f64, f32, f16 or bf16",
                     fpd_printable(spec, shown, sizeof shown));
            return FPD_ERR_INPUT;
        }
        d->given[field] = true;
    }
    return FPD_OK;
}

/* What a file is to --dtype: an input (its IN), an output (its OUT), or the bias, which is added in
 * the outputs' type but may be stored in the inputs' (a Linear layer's bias is its weight's type). */
enum file_role { ROLE_INPUT, ROLE_OUTPUT, ROLE_BIAS };

static bool declared_bf16(const struct declared *d, int field) { return d->given[field] && d->t[field] == FPD_BF16; }

/* The type of a file's elements, as --dtype may declare it for its role. */
static int type_of(const struct fpd_npy *a, const char *path, const struct declared *d, enum file_role role,
                   enum fpd_dtype *t, char *why, size_t why_size)
{
    static const char *const ways[] = {[ROLE_INPUT] = "bf16, or bf16:f32", [ROLE_OUTPUT] = "IN:bf16",
                                       [ROLE_BIAS] = "bf16:OUT, or IN:bf16"};
    bool named_only;
    *t = fpd_npy_dtype(a->element, &named_only);
    char shown[512];
    fpd_printable(path, shown, sizeof shown);
    bool bf16 = role == ROLE_INPUT    ? declared_bf16(d, 0)
                : role == ROLE_OUTPUT ? declared_bf16(d, 1)
                                      : declared_bf16(d, 0) || declared_bf16(d, 1);
    if (named_only && !bf16) {
        snprintf(why, why_size, "%s holds %s elements: if they are bf16, say so with --dtype (%s)", shown,
                 fpd_npy_element_name(a->element), ways[role]);
        return FPD_ERR_INPUT;
    }
    /* the inputs are of the type --dtype gives; an output's float type is its own (one output may be
     * narrower than the other: judged in the wider) */
    if (role == ROLE_INPUT && d->given[0] && d->t[0] != *t) {
        snprintf(why, why_size, "%s holds %s elements, not the %s --dtype gives the inputs", shown,
                 fpd_npy_element_name(a->element), fpd_dtype_info(d->t[0])->name);
        return FPD_ERR_INPUT;
    }
    return FPD_OK;
}

/* Whether every value of type `narrow` is one of `wide`'s. */
static bool contains(enum fpd_dtype wide, enum fpd_dtype narrow)
{
    const struct fpd_dtype_info *w = fpd_dtype_info(wide), *n = fpd_dtype_info(narrow);
    return w->precision >= n->precision && w->emax >= n->emax && w->underflow <= n->underflow;
}

/* An array's elements from type `from` into `to`, which holds them all (the conversion is exact). */
static int widen(struct fpd_npy *a, enum fpd_dtype from, enum fpd_dtype to, char *why, size_t why_size)
{
    size_t es = fpd_dtype_info(to)->size;
    void *wide = malloc(a->count * es + 1);
    if (!wide) {
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    for (size_t i = 0; i < a->count; i++)
        fpd_store(to, wide, i, fpd_load(from, a->data, i));
    free(a->data);
    a->data = wide;
    a->element_size = es;
    return FPD_OK;
}

/* An array by its option's name: a .npz archive of several gives the one named so ("a" or "A"). */
static int read_file(const char *path, const char *role, struct fpd_npy *a, char *why, size_t why_size)
{
    return fpd_array_file_read(path, role, a, why, why_size);
}

/* "3 x 4 x 5" */
static const char *dims(const struct fpd_npy *a, char *buf, size_t size)
{
    return fpd_npy_shape_text(a->shape, a->ndim, buf, size);
}

/* A shape, to compare outputs with: dimensions of 1 do not count ((1, 40) holds what (40,) does). */
struct shape {
    int n;
    size_t dims[FPD_NPY_MAX_DIMS];
};

static bool same_shape(struct shape a, const size_t *dims, int n)
{
    int i = 0, j = 0;
    for (;; i++, j++) {
        while (i < a.n && a.dims[i] == 1)
            i++;
        while (j < n && dims[j] == 1)
            j++;
        if (i == a.n || j == n)
            return i == a.n && j == n;
        if (a.dims[i] != dims[j])
            return false;
    }
}

/* An operand's geometry: its batch dimensions (all but the last two: none for a matrix or a vector),
 * and its stored rows and columns. */
struct operand {
    struct shape batch;
    size_t rows, cols;
};

static int operand_of(const struct fpd_npy *a, const char *path, bool is_b, struct operand *o, char *why,
                      size_t why_size)
{
    char shown[512];
    *o = (struct operand){{0}, 0, 0};
    if (a->ndim == 0) {
        snprintf(why, why_size, "%s is a scalar: %s is a matrix (or a stack of them) or a vector",
                 fpd_printable(path, shown, sizeof shown), is_b ? "B" : "A");
        return FPD_ERR_INPUT;
    }
    if (a->ndim == 1) { /* a vector: A's one row, B's one column */
        o->rows = is_b ? a->shape[0] : 1, o->cols = is_b ? 1 : a->shape[0];
        return FPD_OK;
    }
    o->batch.n = a->ndim - 2;
    memcpy(o->batch.dims, a->shape, (size_t)o->batch.n * sizeof a->shape[0]);
    o->rows = a->shape[a->ndim - 2], o->cols = a->shape[a->ndim - 1];
    return FPD_OK;
}

/* The batch dimensions of A @ B as a matmul broadcasts them: aligned from the last, each equal, or
 * 1 (or missing) on one side. False when they do not broadcast. */
static bool broadcast(const struct shape *a, const struct shape *b, struct shape *out)
{
    out->n = a->n > b->n ? a->n : b->n;
    for (int d = 0; d < out->n; d++) {
        int da = d - (out->n - a->n), db = d - (out->n - b->n);
        size_t x = da >= 0 ? a->dims[da] : 1, y = db >= 0 ? b->dims[db] : 1;
        if (x != y && x != 1 && y != 1)
            return false;
        out->dims[d] = x == 1 ? y : x;
    }
    return true;
}

static size_t volume(const struct shape *s)
{
    size_t v = 1;
    for (int d = 0; d < s->n; d++)
        v *= s->dims[d];
    return v;
}

/* Which of an operand's own batch entries the product's entry `entry` (of the broadcast batch
 * `all`, in C order) reads: its coordinates, with 0 where the operand's dimension is 1 or missing. */
static size_t entry_of(const struct operand *o, const struct shape *all, size_t entry)
{
    size_t coord[FPD_NPY_MAX_DIMS], own = 0;
    for (int d = all->n - 1; d >= 0; d--) {
        coord[d] = entry % all->dims[d];
        entry /= all->dims[d];
    }
    for (int d = 0; d < o->batch.n; d++)
        own = own * o->batch.dims[d] + (o->batch.dims[d] == 1 ? 0 : coord[d + all->n - o->batch.n]);
    return own;
}

/* The case's dimensions must fit its 32-bit fields, and be positive but k (0: the empty product). */
static int check_extent(const char *name, size_t value, size_t lowest, char *why, size_t why_size)
{
    if (value >= lowest && value <= UINT32_MAX)
        return FPD_OK;
    snprintf(why, why_size, "the product's %s is %zu: fpdiv judges products with every dimension from 1 (k from 0) to 2^32 - 1",
             name, value);
    return FPD_ERR_INPUT;
}

/* The axes a sum keeps (kept[d]) from "0,2" (negative: from the last), or none (every axis summed). */
static int summed_axes(const struct fpd_npy *x, const char *path, const char *axes, bool kept[FPD_NPY_MAX_DIMS],
                       char *why, size_t why_size)
{
    for (int d = 0; d < FPD_NPY_MAX_DIMS; d++)
        kept[d] = axes != NULL;
    if (!axes)
        return FPD_OK;
    char shown[512], given[128];
    for (const char *p = axes;;) { /* at least one axis: '' is none */
        char *end;
        long axis = strtol(p, &end, 10);
        if (end == p || (*end && *end != ',') || axis < -x->ndim || axis >= x->ndim || !kept[axis < 0 ? axis + x->ndim : axis]) {
            snprintf(why, why_size, "--axes '%s': %s has %d axes; expected distinct ones from %d to %d, comma-separated",
                     fpd_printable(axes, given, sizeof given), fpd_printable(path, shown, sizeof shown), x->ndim,
                     -x->ndim, x->ndim - 1);
            return FPD_ERR_INPUT;
        }
        kept[axis < 0 ? axis + x->ndim : axis] = false;
        if (!*end)
            return FPD_OK;
        p = end + 1; /* past the comma: another axis must follow */
    }
}

/* A sum of X over some axes as a product: X's elements rearranged as a matrix of its kept axes (rows,
 * in C order) by its summed axes (k), and a column `ones` of k ones of type t. */
static int as_sum(struct fpd_npy *x, const char *path, const char *axes, enum fpd_dtype t, struct fpd_npy *ones,
                  struct shape *kept_shape, char *why, size_t why_size)
{
    bool kept[FPD_NPY_MAX_DIMS];
    int rc = summed_axes(x, path, axes, kept, why, why_size);
    if (rc != FPD_OK)
        return rc;
    size_t rows = 1, k = 1;
    *kept_shape = (struct shape){0};
    for (int d = 0; d < x->ndim; d++) {
        *(kept[d] ? &rows : &k) *= x->shape[d];
        if (kept[d])
            kept_shape->dims[kept_shape->n++] = x->shape[d];
    }
    size_t es = x->element_size;
    unsigned char *matrix = malloc(rows * k * es + 1), *one = malloc(k * es + 1);
    if (!matrix || !one) {
        free(matrix), free(one);
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    size_t index[FPD_NPY_MAX_DIMS] = {0};
    for (size_t flat = 0; flat < x->count; flat++) { /* C order; index: its coordinates */
        size_t row = 0, col = 0;
        for (int d = 0; d < x->ndim; d++)
            *(kept[d] ? &row : &col) = *(kept[d] ? &row : &col) * x->shape[d] + index[d];
        memcpy(matrix + (row * k + col) * es, (const unsigned char *)x->data + flat * es, es);
        for (int d = x->ndim - 1; d >= 0 && ++index[d] == x->shape[d]; d--)
            index[d] = 0;
    }
    for (size_t p = 0; p < k; p++)
        fpd_store(t, one, p, 1.0);
    free(x->data);
    *x = (struct fpd_npy){.element = x->element, .element_size = es, .ndim = 2, .shape = {rows, k}, .count = rows * k,
                          .data = matrix};
    *ones = (struct fpd_npy){.element = x->element, .element_size = es, .ndim = 1, .shape = {k}, .count = k, .data = one};
    return FPD_OK;
}

/* What --op says the operands are: a dot's two vectors, a gemv's matrix and vector. */
static int check_op(const struct fpd_judge_files *files, const struct fpd_npy *a, const struct fpd_npy *b, char *why,
                    size_t why_size)
{
    bool dot = files->op == FPD_JUDGE_DOT, gemv = files->op == FPD_JUDGE_GEMV;
    bool ok = dot ? a->ndim == 1 && b->ndim == 1 : gemv ? (a->ndim == 1) != (b->ndim == 1) && a->ndim <= 2 && b->ndim <= 2 : true;
    if (!ok) {
        char shown[2][512], dm[2][128];
        snprintf(why, why_size, "--op %s: %s is %s and %s %s; a %s", dot ? "dot" : "gemv",
                 fpd_printable(files->a, shown[0], sizeof shown[0]), dims(a, dm[0], sizeof dm[0]),
                 fpd_printable(files->b, shown[1], sizeof shown[1]), dims(b, dm[1], sizeof dm[1]),
                 dot ? "dot takes two vectors of k" : "gemv takes a matrix and a vector (m x k and k, or k and k x n)");
        return FPD_ERR_INPUT;
    }
    return FPD_OK;
}

int fpd_judge_arrays_load(const struct fpd_judge_files *files, struct fpd_judge_arrays *out, char *why,
                          size_t why_size)
{
    *out = (struct fpd_judge_arrays){.widened = {FPD_DTYPE_COUNT, FPD_DTYPE_COUNT}};
    struct declared d;
    struct fpd_npy a = {0}, b = {0}, bias = {0};
    int rc = parse_declared(files->dtype, &d, why, why_size);
    if (rc == FPD_OK)
        rc = read_file(files->a, "a", &a, why, why_size);
    bool sum = fpd_judge_reduces(files->op);
    struct shape sum_shape = {0};
    if (rc == FPD_OK && !sum)
        rc = read_file(files->b, "b", &b, why, why_size);
    if (rc == FPD_OK && files->bias)
        rc = read_file(files->bias, "bias", &bias, why, why_size);
    for (int i = 0; rc == FPD_OK && i < 2; i++)
        rc = read_file(files->outputs[i], NULL, &out->outputs[i], why, why_size);
    /* the types: the inputs', the outputs' (and the bias's, which is added in them) */
    enum fpd_dtype in_a, in_b, out_t[2], bias_t = FPD_F32;
    if (rc == FPD_OK)
        rc = type_of(&a, files->a, &d, ROLE_INPUT, &in_a, why, why_size);
    if (rc == FPD_OK && !sum)
        rc = type_of(&b, files->b, &d, ROLE_INPUT, &in_b, why, why_size);
    if (rc == FPD_OK && sum) { /* X as the product of its kept axes by its summed ones, and ones */
        in_b = in_a;
        rc = as_sum(&a, files->a, files->axes, in_a, &b, &sum_shape, why, why_size);
    }
    for (int i = 0; rc == FPD_OK && i < 2; i++)
        rc = type_of(&out->outputs[i], files->outputs[i], &d, ROLE_OUTPUT, &out_t[i], why, why_size);
    if (rc == FPD_OK && files->bias)
        rc = type_of(&bias, files->bias, &d, ROLE_BIAS, &bias_t, why, why_size);
    char shown[2][512], dm[2][128];
    if (rc == FPD_OK && in_a != in_b) {
        snprintf(why, why_size, "%s holds %s and %s %s: a product's inputs are of one type",
                 fpd_printable(files->a, shown[0], sizeof shown[0]), fpd_dtype_info(in_a)->name,
                 fpd_printable(files->b, shown[1], sizeof shown[1]), fpd_dtype_info(in_b)->name);
        rc = FPD_ERR_INPUT;
    }
    /* an output type --dtype names is one of the outputs' (it names what bf16 bits are, and never
     * stands in for the type the files hold) */
    if (rc == FPD_OK && d.given[1] && out_t[0] != d.t[1] && out_t[1] != d.t[1]) {
        snprintf(why, why_size, "--dtype gives the outputs as %s, but %s holds %s and %s %s",
                 fpd_dtype_info(d.t[1])->name, fpd_printable(files->outputs[0], shown[0], sizeof shown[0]),
                 fpd_dtype_info(out_t[0])->name, fpd_printable(files->outputs[1], shown[1], sizeof shown[1]),
                 fpd_dtype_info(out_t[1])->name);
        rc = FPD_ERR_INPUT;
    }
    /* Outputs of two types are judged in the wider, which holds every value of the narrower exactly
     * (a bf16 result against an f32 one): the narrower's extra rounding is then its own error. */
    enum fpd_dtype wide = out_t[0];
    if (rc == FPD_OK && out_t[0] != out_t[1]) {
        int narrow = contains(out_t[0], out_t[1]) ? 1 : contains(out_t[1], out_t[0]) ? 0 : -1;
        if (narrow < 0) {
            snprintf(why, why_size, "%s holds %s and %s %s: neither type holds the other's values",
                     fpd_printable(files->outputs[0], shown[0], sizeof shown[0]), fpd_dtype_info(out_t[0])->name,
                     fpd_printable(files->outputs[1], shown[1], sizeof shown[1]), fpd_dtype_info(out_t[1])->name);
            rc = FPD_ERR_INPUT;
        } else {
            wide = out_t[1 - narrow];
            out->widened[narrow] = out_t[narrow];
            rc = widen(&out->outputs[narrow], out_t[narrow], wide, why, why_size);
        }
    }
    if (rc == FPD_OK && files->bias && bias_t != wide) {
        if (contains(wide, bias_t)) {
            rc = widen(&bias, bias_t, wide, why, why_size);
        } else {
            snprintf(why, why_size, "%s holds %s, which the outputs' %s does not hold: the bias is added in the outputs' type",
                     fpd_printable(files->bias, shown[0], sizeof shown[0]), fpd_dtype_info(bias_t)->name,
                     fpd_dtype_info(wide)->name);
            rc = FPD_ERR_INPUT;
        }
    }
    struct fpd_case *c = &out->c;
    fpd_case_defaults(c);
    if (rc == FPD_OK) {
        c->dt.in = in_a, c->dt.out = wide;
        /* as frameworks accumulate: in f64 where either type is f64, else in f32 */
        c->dt.acc = d.given[2] ? d.t[2] : in_a == FPD_F64 || wide == FPD_F64 ? FPD_F64 : FPD_F32;
        if (!fpd_dtypes_valid(&c->dt, why, why_size))
            rc = FPD_ERR_INPUT;
    }
    /* the shapes */
    if (rc == FPD_OK)
        rc = check_op(files, &a, &b, why, why_size);
    bool ta = files->trans_a && a.ndim > 1, tb = files->trans_b && b.ndim > 1; /* a vector has no transpose */
    struct operand oa, ob;
    struct shape batches = {0};
    if (rc == FPD_OK)
        rc = operand_of(&a, files->a, false, &oa, why, why_size);
    if (rc == FPD_OK)
        rc = operand_of(&b, files->b, true, &ob, why, why_size);
    size_t m = 0, k = 0, kb = 0, n = 0, batch = 1;
    if (rc == FPD_OK) {
        m = ta ? oa.cols : oa.rows, k = ta ? oa.rows : oa.cols;
        kb = tb ? ob.cols : ob.rows, n = tb ? ob.rows : ob.cols;
        bool fits = broadcast(&oa.batch, &ob.batch, &batches);
        batch = volume(&batches);
        if (k != kb) {
            snprintf(why, why_size, "%s is %s and %s %s: A's k (%zu%s) is not B's (%zu%s)",
                     fpd_printable(files->a, shown[0], sizeof shown[0]), dims(&a, dm[0], sizeof dm[0]),
                     fpd_printable(files->b, shown[1], sizeof shown[1]), dims(&b, dm[1], sizeof dm[1]), k,
                     ta ? ", its rows with --trans-a" : ", its columns", kb,
                     tb ? ", its columns with --trans-b" : ", its rows");
            rc = FPD_ERR_INPUT;
        } else if (!fits) {
            snprintf(why, why_size, "%s is %s and %s %s: their batch dimensions (all but the last two) do not "
                     "broadcast (each pair, from the last, equal or one of them 1)",
                     fpd_printable(files->a, shown[0], sizeof shown[0]), dims(&a, dm[0], sizeof dm[0]),
                     fpd_printable(files->b, shown[1], sizeof shown[1]), dims(&b, dm[1], sizeof dm[1]));
            rc = FPD_ERR_INPUT;
        }
    }
    static const char *const extent_names[] = {"batch", "m", "n", "k"};
    const size_t extents[] = {batch, m, n, k};
    for (size_t e = 0; rc == FPD_OK && e < 4; e++)
        rc = check_extent(extent_names[e], extents[e], fpd_case_dim_lowest((unsigned)e), why, why_size);
    if (rc == FPD_OK && files->bias && !(bias.count == n && (bias.ndim == 1 || (bias.ndim == 2 && bias.shape[0] == 1)))) {
        snprintf(why, why_size, "%s is %s: the bias is a row of n = %zu", fpd_printable(files->bias, shown[0], sizeof shown[0]),
                 dims(&bias, dm[0], sizeof dm[0]), n);
        rc = FPD_ERR_INPUT;
    }
    if (rc == FPD_OK && files->row >= 0 && (size_t)files->row >= batch * m) {
        snprintf(why, why_size, "--row %ld: the product has %zu rows (batch x m), 0 to %zu", files->row, batch * m,
                 batch * m - 1);
        rc = FPD_ERR_INPUT;
    }
    /* an output has the product's shape (a sum's: the kept axes'), dimensions of 1 aside */
    struct shape want = sum ? sum_shape : files->row >= 0 ? (struct shape){1, {n}} : batches;
    if (!sum && files->row < 0) /* the batch's dimensions, then m x n */
        want.dims[want.n++] = m, want.dims[want.n++] = n;
    for (int i = 0; rc == FPD_OK && i < 2; i++) {
        const struct fpd_npy *y = &out->outputs[i];
        if (!same_shape(want, y->shape, y->ndim)) {
            struct fpd_npy expected = {.ndim = want.n};
            memcpy(expected.shape, want.dims, sizeof want.dims);
            snprintf(why, why_size, "%s is %s; %s %s%s", fpd_printable(files->outputs[i], shown[0], sizeof shown[0]),
                     dims(y, dm[0], sizeof dm[0]), sum ? "the sums are" : files->row >= 0 ? "the row is" : "the product is",
                     dims(&expected, dm[1], sizeof dm[1]), sum || files->row >= 0 ? "" : " (the batch's dimensions, m, n), or one row of it with --row");
            rc = FPD_ERR_INPUT;
        }
    }
    /* the inputs, logical and packed: A's rows (all, or the one asked for) and B's entries */
    if (rc == FPD_OK) {
        out->batch = batch, out->m = m;
        size_t rows = files->row >= 0 ? 1 : batch * m, entries = files->row >= 0 ? 1 : batch;
        size_t first = files->row >= 0 ? (size_t)files->row : 0, es = a.element_size;
        unsigned char *la = malloc(rows * k * es + 1), *lb = malloc(entries * k * n * es + 1);
        out->data = (struct fpd_case_data){.batch = (uint32_t)entries, .m = (uint32_t)(rows / entries),
                                           .n = (uint32_t)n, .k = (uint32_t)k, .a = la, .b = lb};
        if (!la || !lb) {
            snprintf(why, why_size, "out of memory for the inputs");
            rc = FPD_ERR_NOMEM;
        }
        for (size_t r = 0; rc == FPD_OK && r < rows; r++) { /* r: the product's row first + r */
            size_t bi = (first + r) / m, i = (first + r) % m;
            const unsigned char *base = (const unsigned char *)a.data + entry_of(&oa, &batches, bi) * oa.rows * oa.cols * es;
            for (size_t p = 0; p < k; p++)
                memcpy(la + (r * k + p) * es, base + (ta ? p * oa.cols + i : i * oa.cols + p) * es, es);
        }
        for (size_t e = 0; rc == FPD_OK && e < entries; e++) {
            size_t bi = files->row >= 0 ? first / m : e;
            const unsigned char *base = (const unsigned char *)b.data + entry_of(&ob, &batches, bi) * ob.rows * ob.cols * es;
            for (size_t p = 0; p < k; p++)
                for (size_t j = 0; j < n; j++)
                    memcpy(lb + ((e * k + p) * n + j) * es, base + (tb ? j * ob.cols + p : p * ob.cols + j) * es,
                           es);
        }
        if (rc == FPD_OK && files->bias) {
            out->data.bias = bias.data; /* n elements, packed: taken as they are */
            bias.data = NULL;
        }
        c->batch = (uint32_t)entries, c->m = (uint32_t)(rows / entries), c->n = (uint32_t)n, c->k = (uint32_t)k;
        c->has_bias = files->bias != NULL;
        c->data = &out->data;
    }
    fpd_npy_free(&a), fpd_npy_free(&b), fpd_npy_free(&bias);
    if (rc != FPD_OK)
        fpd_judge_arrays_free(out);
    return rc;
}

void fpd_judge_arrays_free(struct fpd_judge_arrays *j)
{
    fpd_case_data_free(&j->data);
    fpd_npy_free(&j->outputs[0]);
    fpd_npy_free(&j->outputs[1]);
    j->c.data = NULL;
}
