/* aggregate.c — the aggregate precision test's threshold and alarm level: see aggregate.h. */
#include "engine/aggregate.h"

#include <math.h>

double fpd_aggregate_threshold(size_t elements)
{
    double n = (double)elements, t = FPD_AGGREGATE_LOG_ODDS;
    return n + 2 * sqrt(n * t) + 2 * t;
}

double fpd_aggregate_ratio(const struct fpd_aggregate *a)
{
    if (!a->elements)
        return 0;
    double level = fpd_aggregate_threshold(a->elements);
    if (a->orders_measured)
        level = fmax(level, FPD_PROBABLE_ORDER_MARGIN * FPD_PROBABLE_ORDER_MARGIN * a->orders);
    return a->sum / level;
}
