/*
 * thread_waits.h — no library thread spins while fpdiv waits.
 *
 * An OpenMP runtime, and OpenBLAS's own thread pool, keep their idle threads spinning for a while
 * after every parallel region, for the next one: oneMKL's Intel OpenMP 200 ms (KMP_BLOCKTIME),
 * libgomp (BLIS's, PyTorch's) up to 300,000 spins (GOMP_SPINCOUNT), OpenBLAS 2^28 cycles
 * (OPENBLAS_THREAD_TIMEOUT). fpdiv calls a library, compares, calls another: the spinning threads
 * burn the cores its other workers need, for nothing. Each library documents a variable that sends
 * its threads to sleep at once; fpdiv sets each the user has not set, before any library loads (a
 * runtime reads it when it starts), and the hosts, bridges and workers it starts inherit them.
 * Waiting never changes a result; how the threads wait is recorded in the environment all the same.
 */
#ifndef FPD_THREAD_WAITS_H
#define FPD_THREAD_WAITS_H

#include <jansson.h>

/* Sets every variable of the table the user has not set. */
void fpd_thread_waits_apply(void);
/* {"OMP_WAIT_POLICY": "passive", ...}: each variable's value, with " (the user's)" where fpdiv left
 * the user's. */
json_t *fpd_thread_waits_json(void);

#endif
