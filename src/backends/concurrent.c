/* concurrent.c — GEMMs released together on threads of their own. */
#include "backends/concurrent.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdbool.h>

#include "common/fpenv.h"

/* Where the callers meet before they call: each counts itself in and waits, spinning, for the
 * others, so that they leave together. A sleeping wait would not do: a wake-up takes tens of
 * microseconds, longer than a small GEMM, and calls that do not overlap show no race. Past a
 * while (more callers than cores, a busy machine) a waiter yields its core to the others. */
struct meeting {
    atomic_uint arrived;
    unsigned expected;
};

static void meet(struct meeting *m)
{
    atomic_fetch_add_explicit(&m->arrived, 1, memory_order_acq_rel);
    for (unsigned long spins = 0; atomic_load_explicit(&m->arrived, memory_order_acquire) < m->expected; spins++)
        if (spins > (1ul << 16))
            sched_yield();
}

struct caller {
    fpd_gemm_fn gemm;
    void *state;
    size_t index;
    const struct fpd_gemm_args *args;
    struct meeting *meeting;
    int status;
    char *why;
    size_t why_size;
};

static void *call(void *arg)
{
    struct caller *c = arg;
    meet(c->meeting);
    c->why[0] = '\0';
    c->status = c->gemm(c->state, c->index, c->args, c->why, c->why_size);
    /* each thread's environment is its own: the caller's check after the call cannot see this one */
    if (c->status == FPD_OK && !fpd_fpenv_is_default()) {
        char changed[200];
        fpd_fpenv_describe(changed, sizeof changed);
        snprintf(c->why, c->why_size, "a concurrent call returned with the floating-point environment changed (%s)",
                 changed);
        c->status = FPD_ERR_BACKEND;
    }
    return NULL;
}

void fpd_gemm_concurrently(fpd_gemm_fn gemm, void *state, size_t count, const struct fpd_gemm_args *const *args,
                           int *status, char *why, size_t why_size)
{
    struct meeting meeting = {0, (unsigned)count};
    struct caller callers[FPD_MAX_CALLERS];
    pthread_t threads[FPD_MAX_CALLERS];
    bool started[FPD_MAX_CALLERS];
    if (count > FPD_MAX_CALLERS)
        count = FPD_MAX_CALLERS;
    for (size_t i = 0; i < count; i++) {
        callers[i] = (struct caller){gemm, state, i, args[i], &meeting, FPD_OK, why + i * why_size, why_size};
        started[i] = pthread_create(&threads[i], NULL, call, &callers[i]) == 0;
        if (!started[i]) { /* counted in, so that the others do not wait for it */
            snprintf(callers[i].why, why_size, "could not start a thread for concurrent call %zu", i);
            callers[i].status = FPD_ERR_BACKEND;
            atomic_fetch_add_explicit(&meeting.arrived, 1, memory_order_acq_rel);
        }
    }
    for (size_t i = 0; i < count; i++) {
        if (started[i])
            pthread_join(threads[i], NULL);
        status[i] = callers[i].status;
    }
}
