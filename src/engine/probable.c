/* probable.c — the probabilistic threshold of one element: see probable.h. */
#include "engine/probable.h"

#include <math.h>
#include <string.h>

#include "common/dtype.h"

/* sum_{t=1..n} t and sum_{t=1..n} t^2, in closed form. */
static void power_sums(double n, double *t1, double *t2)
{
    *t1 = n * (n + 1) / 2;
    *t2 = n * (n + 1) * (2 * n + 1) / 6;
}

/* sum_{s=2..T} s (T - s) / (T - 1) and sum_{s=2..T} s^2, in closed form. */
static void chain_sums(double T, double *spread, double *drift)
{
    double s1, s2;
    power_sums(T, &s1, &s2);
    s1 -= 1, s2 -= 1;
    *spread = T > 1 ? (T * s1 - s2) / (T - 1) : 0;
    *drift = s2;
}

enum { LANES_MAX = 64, LANE_COUNTS = 7 }; /* L = 1, 2, 4, ..., 64 lanes */

/* The partial sums in L interleaved lanes (lane j adds x[j], x[j + L], ...) and their energies
 * (sums of squares), lane by lane. */
struct lanes {
    double s[LANES_MAX], energy[LANES_MAX];
};

/* The next `count` terms into the lanes, L at a time (every run but the last a multiple of L). */
static void add_to_lanes(struct lanes *ls, const double *x, size_t count, size_t L)
{
    size_t whole = count / L * L;
    for (size_t p = 0; p < whole; p += L)
        for (size_t j = 0; j < L; j++) {
            ls->s[j] += x[p + j];
            ls->energy[j] += ls->s[j] * ls->s[j];
        }
    for (size_t j = 0; whole + j < count; j++) {
        ls->s[j] += x[whole + j];
        ls->energy[j] += ls->s[j] * ls->s[j];
    }
}

/* For each lane count L up to T: the lanes' energy, and what exchangeable terms give: sum over
 * lanes and steps of (t sigma^2 + t^2 mu^2). The terms are read once, LANES_MAX at a time, every
 * count's lanes taking them while they are in cache (a pass per count, or per lane, read a long
 * sum's terms 7 or 127 times from memory: most of a 2^21-term check's time). */
static void lane_energies(const double *x, size_t T, double mu, double var, double measured[LANE_COUNTS],
                          double expected[LANE_COUNTS])
{
    struct lanes ls[LANE_COUNTS];
    memset(ls, 0, sizeof ls);
    size_t blocks = T / LANES_MAX * LANES_MAX;
    for (size_t p = 0; p < blocks; p += LANES_MAX)
        for (size_t l = 0, L = 1; l < LANE_COUNTS; l++, L *= 2)
            add_to_lanes(&ls[l], x + p, LANES_MAX, L);
    for (size_t l = 0, L = 1; l < LANE_COUNTS && L <= T; l++, L *= 2) {
        add_to_lanes(&ls[l], x + blocks, T - blocks, L);
        measured[l] = expected[l] = 0;
        for (size_t j = 0; j < L; j++) {
            double t1, t2; /* over lane j's steps t: the sum of t, and of t^2 */
            power_sums((double)((T - j + L - 1) / L), &t1, &t2);
            measured[l] += ls[l].energy[j];
            expected[l] += t1 * var + t2 * mu * mu;
        }
    }
}

/* Two lanes as one value, four of each sum: the compiler keeps them in registers on every x86-64
 * (an array of lanes, or one wider value, it kept in memory, a store and a load per term). */
typedef double two_lanes __attribute__((vector_size(2 * sizeof(double))));

/* The lanes of the sums and of the squares, four two-lane values each, as locals of the function
 * (in a struct or an array, or added in a loop, gcc kept them in memory); eight terms into them;
 * their totals, then the `count` terms past the last whole eight, one by one. */
#define SUM_LANES two_lanes s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, q0 = {0}, q1 = {0}, q2 = {0}, q3 = {0}
#define ADD_EIGHT(x)                                                                               \
    do {                                                                                           \
        two_lanes v_[4];                                                                           \
        memcpy(v_, (x), sizeof v_);                                                                \
        s0 += v_[0], s1 += v_[1], s2 += v_[2], s3 += v_[3];                                        \
        q0 += v_[0] * v_[0], q1 += v_[1] * v_[1], q2 += v_[2] * v_[2], q3 += v_[3] * v_[3];        \
    } while (0)
#define FINISH(rest, count, sum, squares)                                                          \
    do {                                                                                           \
        two_lanes s_ = (s0 + s1) + (s2 + s3), q_ = (q0 + q1) + (q2 + q3);                          \
        *(sum) = s_[0] + s_[1], *(squares) = q_[0] + q_[1];                                        \
        for (size_t p_ = 0; p_ < (count); p_++)                                                    \
            *(sum) += (rest)[p_], *(squares) += (rest)[p_] * (rest)[p_];                           \
    } while (0)

void fpd_probable_sums(const double *x, size_t T, double *sum, double *squares)
{
    SUM_LANES;
    size_t whole = T / 8 * 8;
    for (size_t p = 0; p < whole; p += 8)
        ADD_EIGHT(x + p);
    FINISH(x + whole, T - whole, sum, squares);
}

void fpd_probable_product_sums(const double *a, const double *b, size_t k, const double *bias, double *sum,
                               double *squares)
{
    SUM_LANES;
    size_t T = k + (bias != NULL), whole = T / 8 * 8, p = 0;
    double eight[8];
    for (; p + 8 <= k; p += 8) { /* the products, eight at a time */
        for (size_t i = 0; i < 8; i++)
            eight[i] = a[p + i] * b[p + i];
        ADD_EIGHT(eight);
    }
    if (p < whole) { /* the last whole eight, the bias its last */
        for (size_t i = 0; i < 8; i++)
            eight[i] = p + i < k ? a[p + i] * b[p + i] : *bias;
        ADD_EIGHT(eight);
        p += 8;
    }
    for (size_t i = 0; p + i < T; i++)
        eight[i] = p + i < k ? a[p + i] * b[p + i] : *bias;
    FINISH(eight, T - whole, sum, squares);
}
#undef SUM_LANES
#undef ADD_EIGHT
#undef FINISH

double fpd_probable_model_energy(double sum, double squares, size_t T)
{
    double mu = sum / (double)T, var = fmax(squares / (double)T - mu * mu, 0);
    double spread, drift;
    chain_sums((double)T, &spread, &drift);
    /* the additions' rounding errors, and each product's own where it is rounded before it is
     * added (no FMA): one more independent error per term, of at most u |x_p| */
    return var * spread + mu * mu * drift + squares;
}

void fpd_probable_element(const double *x, size_t T, double g, double u, double lambda,
                          struct fpd_probable_element *out)
{
    double sum, squares;
    fpd_probable_sums(x, T, &sum, &squares);
    double mu = sum / (double)T, var = fmax(squares / (double)T - mu * mu, 0);
    double V = fpd_probable_model_energy(sum, squares, T);
    *out = (struct fpd_probable_element){0};
    /* the orders a BLAS uses most (sequential, and in lanes) have the energy these data give them,
     * which may exceed the model's expectation: the larger is taken */
    double energy = V, measured[LANE_COUNTS], expected[LANE_COUNTS];
    lane_energies(x, T, mu, var, measured, expected);
    for (size_t l = 0, L = 1; l < LANE_COUNTS && L <= T; l++, L *= 2) {
        energy = fmax(energy, measured[l] + squares);
        double ratio = expected[l] > 0 ? measured[l] / expected[l] : measured[l] > 0 ? INFINITY : 0;
        out->structure = fmax(out->structure, ratio);
    }
    out->structured = !(out->structure <= FPD_PROBABLE_STRUCTURE_MAX);
    /* terms below half an ulp of the partial sums the model expects are lost whole, not rounded
     * at random: their magnitudes are allowed for in full */
    double reach = fabs(mu) * (double)T + lambda * sqrt(var * (double)T);
    for (size_t p = 0; p < T; p++)
        if (fabs(x[p]) < u * reach)
            out->stagnation += fabs(x[p]);
    out->scale = out->structured ? sqrt((double)T) * g : sqrt(energy);
    out->tau = lambda * u * out->scale + out->stagnation;
}

/* ---- what legitimate orders do on the data ------------------------------------------------------- */

/* A sum in the accumulator's type: each addition rounded once (binary64 and binary32 by the
 * hardware, the 16-bit types by fpd_round). */
static double add(enum fpd_dtype acc, double s, double x)
{
    switch (acc) {
    case FPD_F64: return s + x;
    case FPD_F32: return (double)(float)(s + x);
    default: return fpd_round(acc, s + x);
    }
}

static double sequential(const double *x, size_t from, size_t to, size_t stride, enum fpd_dtype acc)
{
    double s = 0;
    for (size_t p = from; p < to; p += stride)
        s = add(acc, s, x[p]);
    return s;
}

static double reversed(const double *x, size_t T, enum fpd_dtype acc)
{
    double s = 0;
    for (size_t p = T; p-- > 0;)
        s = add(acc, s, x[p]);
    return s;
}

/* Halves summed apart, then added (leaves of up to 8 terms, sequential). */
static double pairwise(const double *x, size_t T, enum fpd_dtype acc)
{
    if (T <= 8)
        return sequential(x, 0, T, 1, acc);
    size_t half = T / 2;
    return add(acc, pairwise(x, half, acc), pairwise(x + half, T - half, acc));
}

/* L interleaved lanes (lane j adds x[j], x[j + L], ...), then the lanes added in turn: how a SIMD
 * kernel of L lanes sums one element's terms. */
static double lanes(const double *x, size_t T, size_t L, enum fpd_dtype acc)
{
    double s = 0;
    for (size_t j = 0; j < L && j < T; j++)
        s = add(acc, s, sequential(x, j, T, L, acc));
    return s;
}

/* Blocks of B terms, each summed from zero, added to the running result: a GEMM's k-blocking,
 * where a block's product is added to C. */
static double blocks(const double *x, size_t T, size_t B, enum fpd_dtype acc)
{
    double s = 0;
    for (size_t from = 0; from < T; from += B)
        s = add(acc, s, sequential(x, from, from + B < T ? from + B : T, 1, acc));
    return s;
}

/* The exact sum, to about twice binary64's precision (the terms' own errors, where they have any,
 * are every order's alike): TwoSum into hi, the rest into lo. */
static void exact_sum(const double *x, size_t T, double *hi, double *lo)
{
    double s = 0, c = 0;
    for (size_t p = 0; p < T; p++) {
        double t = s + x[p], z = t - s;
        c += (s - (t - z)) + (x[p] - z);
        s = t;
    }
    *hi = s, *lo = c;
}

/* The orders, as BLAS kernels sum: the sequential chain (both ways), a tree, SIMD lanes, k-blocks,
 * and k split into 2 to 16 parts (threads or a GPU's split-k, each part summed alone, then added). */
static const struct {
    enum { SEQUENTIAL, REVERSED, PAIRWISE, LANES, BLOCKS, PARTS } kind;
    size_t n;
} orders[] = {
    {SEQUENTIAL, 0}, {REVERSED, 0}, {PAIRWISE, 0}, {LANES, 2},    {LANES, 4},    {LANES, 8},    {LANES, 16},
    {LANES, 32},     {LANES, 64},   {BLOCKS, 64},  {BLOCKS, 128}, {BLOCKS, 192}, {BLOCKS, 256}, {BLOCKS, 384},
    {BLOCKS, 512},   {PARTS, 2},    {PARTS, 3},    {PARTS, 4},    {PARTS, 8},    {PARTS, 16},
};

double fpd_probable_orders(const double *x, size_t T, enum fpd_dtype acc)
{
    double hi, lo, largest = 0;
    exact_sum(x, T, &hi, &lo);
    for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++) {
        if (orders[o].kind != SEQUENTIAL && orders[o].kind != REVERSED && orders[o].kind != PAIRWISE &&
            orders[o].n >= T)
            continue; /* the sequential sum again */
        double s;
        switch (orders[o].kind) {
        case SEQUENTIAL: s = sequential(x, 0, T, 1, acc); break;
        case REVERSED: s = reversed(x, T, acc); break;
        case PAIRWISE: s = pairwise(x, T, acc); break;
        case LANES: s = lanes(x, T, orders[o].n, acc); break;
        case BLOCKS: s = blocks(x, T, orders[o].n, acc); break;
        default: s = blocks(x, T, (T + orders[o].n - 1) / orders[o].n, acc); break; /* parts of ceil(T / n) */
        }
        double err = fabs((s - hi) - lo);
        if (isfinite(err))
            largest = fmax(largest, err);
    }
    return largest;
}
