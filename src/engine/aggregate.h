/*
 * aggregate.h — the aggregate precision test: all of a check's elements at once, each path against
 * the exact sum (check.c's exact report).
 *
 * The per-element threshold (probable.h) takes odds of 1e-13 for one element, which is right for
 * one and blind to a path a few times farther from the exact sum than the model allows on every
 * element. Here element i's error against the exact sum, less what is not random (the roundings
 * to the output type and of the inputs, and the terms lost whole: the per-element test's
 * allowance), is divided by its model scale u sqrt(energy) (probable.h: the worst tree shape's
 * expected energy, or the interleaved orders' measured on its terms, the larger; sqrt(T) g where
 * the terms are not exchangeable). Under the model's assumption (1), rounding errors independent
 * and mean zero with |delta| <= u, these z_i are independent, each sub-Gaussian with variance
 * proxy at most 1, and (Hsu, Kakade and Zhang 2012, quadratic forms of sub-Gaussian vectors)
 *     P(sum of N z_i^2 > N + 2 sqrt(N t) + 2 t) <= exp(-t),
 * t = 32: the per-element test's odds (e^-32 = 1.3e-14). Legitimate orders give z_i^2 of about a
 * third on average, so a path past it is several times the model's error on many elements.
 *
 * Assumption (1) fails on structured data: constant terms round the same way at every step, and
 * in every element alike, and elements of the same or nearly the same terms err alike (so they are
 * not independent either). A path past the threshold is then measured against what legitimate
 * orders give the same terms (probable.h's orders, each rounded in the accumulator's type): its
 * sum must also exceed FPD_PROBABLE_ORDER_MARGIN^2 times the sum, over the elements, of the largest
 * z_i^2 of those orders. What the per-element test assumes, that no library's order is more than
 * that margin worse than the worst of those orders on an element's data, then rules out an alarm
 * by itself, whatever the data: the aggregate test assumes nothing more.
 */
#ifndef FPD_AGGREGATE_H
#define FPD_AGGREGATE_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/probable.h"

/* t: the sum exceeds the threshold with probability at most exp(-t) */
#define FPD_AGGREGATE_LOG_ODDS 32.0

/* One path's sum over the elements, and the legitimate orders' on the same elements. */
struct fpd_aggregate {
    double sum;      /* of z_i^2 */
    size_t elements; /* N */
    bool orders_measured;
    double orders; /* of the largest z_i^2 of the orders at each element */
};

/* One element's z: its error from the exact sum, what of it is not random, and its scale
 * u sqrt(energy) (positive). */
static inline double fpd_aggregate_z(double err, double allowance, double scale)
{
    return err > allowance ? (err - allowance) / scale : 0;
}

/* N + 2 sqrt(N t) + 2 t */
double fpd_aggregate_threshold(size_t elements);

/* The path's sum against its alarm level: the threshold and, where the orders were measured,
 * FPD_PROBABLE_ORDER_MARGIN^2 times theirs. Over 1: `improbable`. 0 without elements. */
double fpd_aggregate_ratio(const struct fpd_aggregate *a);

#endif
