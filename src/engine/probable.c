/* probable.c — the probabilistic threshold of one element: see probable.h. */
#include "engine/probable.h"

#include <math.h>

/* sum_{s=2..T} s (T - s) / (T - 1) and sum_{s=2..T} s^2, in closed form. */
static void chain_sums(double T, double *spread, double *drift)
{
    double s1 = T * (T + 1) / 2 - 1, s2 = T * (T + 1) * (2 * T + 1) / 6 - 1;
    *spread = T > 1 ? (T * s1 - s2) / (T - 1) : 0;
    *drift = s2;
}

/* The energy of the partial sums in L interleaved lanes (lane j adds x[j], x[j + L], ...), and
 * what exchangeable terms give: sum over lanes and steps of (t sigma^2 + t^2 mu^2). */
static void lane_energy(const double *x, size_t T, size_t L, double mu, double var, double *measured,
                        double *expected)
{
    *measured = *expected = 0;
    for (size_t j = 0; j < L && j < T; j++) {
        double s = 0;
        size_t t = 0;
        for (size_t p = j; p < T; p += L) {
            s += x[p];
            t++;
            *measured += s * s;
            *expected += (double)t * var + (double)t * (double)t * mu * mu;
        }
    }
}

void fpd_probable_element(const double *x, size_t T, double g, double u, double lambda,
                          struct fpd_probable_element *out)
{
    double sum = 0, squares = 0;
    for (size_t p = 0; p < T; p++)
        sum += x[p], squares += x[p] * x[p];
    double mu = sum / (double)T, var = fmax(squares / (double)T - mu * mu, 0);
    double spread, drift;
    chain_sums((double)T, &spread, &drift);
    /* the additions' rounding errors, and each product's own where it is rounded before it is
     * added (no FMA): one more independent error per term, of at most u |x_p| */
    double V = var * spread + mu * mu * drift + squares;
    *out = (struct fpd_probable_element){0};
    /* the orders a BLAS uses most (sequential, and in lanes) have the energy these data give them,
     * which may exceed the model's expectation: the larger is taken */
    double energy = V;
    for (size_t L = 1; L <= 64 && L <= T; L *= 2) {
        double measured, expected;
        lane_energy(x, T, L, mu, var, &measured, &expected);
        energy = fmax(energy, measured + squares);
        out->structure = fmax(out->structure, expected > 0 ? measured / expected : measured > 0 ? INFINITY : 0);
    }
    out->structured = !(out->structure <= FPD_PROBABLE_STRUCTURE_MAX);
    /* terms below half an ulp of the partial sums the model expects are lost whole, not rounded
     * at random: their magnitudes are allowed for in full */
    double reach = fabs(mu) * (double)T + lambda * sqrt(var * (double)T);
    for (size_t p = 0; p < T; p++)
        if (fabs(x[p]) < u * reach)
            out->stagnation += fabs(x[p]);
    double spread_bound = out->structured ? sqrt((double)T) * g : sqrt(energy);
    out->tau = lambda * u * spread_bound + out->stagnation;
}
