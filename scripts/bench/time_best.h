/* time_best.h — the benchmarks' timer: best seconds per call over several timed runs. */
#ifndef FPD_BENCH_TIME_BEST_H
#define FPD_BENCH_TIME_BEST_H

#include <math.h>

#include "common/clock.h"

/* best = the fewest seconds per call of `call` over 5 runs of at least 0.2 s each, after a
 * warm-up call: the machine is shared, and the best run is the one least disturbed. */
#define TIME_BEST(best, call)                                                                      \
    do {                                                                                           \
        call;                                                                                      \
        best = INFINITY;                                                                           \
        for (int r = 0; r < 5; r++) {                                                              \
            int calls = 0;                                                                         \
            double t0 = fpd_now(), t;                                                              \
            do {                                                                                   \
                call;                                                                              \
                calls++;                                                                           \
            } while ((t = fpd_now() - t0) < 0.2);                                                  \
            best = fmin(best, t / calls);                                                          \
        }                                                                                          \
    } while (0)

#endif
