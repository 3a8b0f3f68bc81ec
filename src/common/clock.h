/* clock.h — monotonic seconds, and a cheaper clock for summing many short intervals. */
#ifndef FPD_CLOCK_H
#define FPD_CLOCK_H

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/* Seconds on CLOCK_MONOTONIC: deadlines, timeouts, elapsed times. */
static inline double fpd_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The same clock up to one timer tick (1-4 ms) behind, for a fifth of the cost (5 ns against 23
 * here): for stamps taken on every check that only need to resolve milliseconds. */
static inline double fpd_now_coarse(void)
{
#if defined(CLOCK_MONOTONIC_COARSE)
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
#else
    return fpd_now();
#endif
}

/*
 * Ticks, for the GEMM calls of every check. On x86-64 the time-stamp counter: one read costs
 * about 10 ns here, against about 25 for clock_gettime, which was a tenth of a small check's time
 * when called around every product. Its rate is constant and the same on every core of current
 * x86-64 CPUs (the "invariant TSC"), but not known in advance: a caller turns ticks into seconds
 * by a rate measured over a long interval (ticks and CLOCK_MONOTONIC read at both ends).
 * Elsewhere, nanoseconds.
 */
static inline uint64_t fpd_ticks(void)
{
#if defined(__x86_64__)
    return __rdtsc();
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* Ticks since `start`: 0 where the counter went back (a time-stamp counter not kept in step across
 * sockets, read on another one), which CLOCK_MONOTONIC never does. */
static inline uint64_t fpd_ticks_since(uint64_t start)
{
    uint64_t now = fpd_ticks();
    return now > start ? now - start : 0;
}

#endif
