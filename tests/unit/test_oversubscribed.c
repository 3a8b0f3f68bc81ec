/*
 * Wake-ups while a library runs more threads than the cores (oversubscribed.h): they run then and
 * only then, through the backend layer as through the module, and a forked child starts its own.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include <criterion/criterion.h>
#include <sched.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backends/backend.h"
#include "common/oversubscribed.h"

static unsigned cores(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 ? (unsigned)CPU_COUNT(&set) : 1;
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, ms % 1000 * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
}

/* Whether wake-ups happen within `ms` (many periods: a busy machine delays a thread's wake-up). */
static bool wakes_within(long ms)
{
    unsigned long before = fpd_oversubscribed_wakeups();
    for (long waited = 0; waited < ms; waited += 5) {
        sleep_ms(5);
        if (fpd_oversubscribed_wakeups() != before)
            return true;
    }
    return false;
}

/* Whether the wake-ups stop: none for 50 ms, seen within 5 s (a waker ends the period it was in). */
static bool quiet_within(long ms)
{
    for (long waited = 0; waited < ms; waited += 50) {
        unsigned long before = fpd_oversubscribed_wakeups();
        sleep_ms(50);
        if (fpd_oversubscribed_wakeups() == before)
            return true;
    }
    return false;
}

Test(oversubscribed, threads_the_cores_hold_start_nothing)
{
    cr_assert(!fpd_oversubscribed_enter(1));
    cr_assert(!fpd_oversubscribed_enter(cores()));
    cr_assert(!wakes_within(50));
}

Test(oversubscribed, more_threads_than_cores_wake_until_the_call_ends)
{
    bool entered = fpd_oversubscribed_enter(cores() + 1);
    cr_assert(entered);
    cr_assert(wakes_within(5000), "no wake-up while a call ran %u threads on %u cores", cores() + 1, cores());
    fpd_oversubscribed_leave(entered);
    cr_assert(quiet_within(5000), "the wake-ups went on after the call");
    /* and again, from the wakers now waiting */
    entered = fpd_oversubscribed_enter(2 * cores() + 1);
    cr_assert(entered && wakes_within(5000));
    fpd_oversubscribed_leave(entered);
    cr_assert(quiet_within(5000));
}

Test(oversubscribed, other_workers_count)
{
    fpd_oversubscribed_neighbours(cores());
    bool entered = fpd_oversubscribed_enter(1);
    cr_assert(entered, "one thread beside %u busy workers on %u cores", cores(), cores());
    fpd_oversubscribed_leave(entered);
    fpd_oversubscribed_neighbours(0);
}

Test(oversubscribed, a_forked_child_starts_its_own)
{
    bool entered = fpd_oversubscribed_enter(cores() + 1);
    cr_assert(entered && wakes_within(5000));
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        /* the parent's call is not the child's, and its wakers are not here */
        if (wakes_within(100))
            _exit(1);
        bool own = fpd_oversubscribed_enter(cores() + 1);
        if (!own || !wakes_within(5000))
            _exit(2);
        fpd_oversubscribed_leave(own);
        _exit(quiet_within(5000) ? 0 : 3);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: %d (1: woken by nothing of its own; 2: not "
              "woken in its own call; 3: not quiet after it)", WEXITSTATUS(status));
    fpd_oversubscribed_leave(entered);
}

/* ---- through the backend layer: a library's own threads, and a concurrent call's callers ---------- */

static unsigned long woken_in_call;

/* Counts the wake-ups while it runs: long enough for several periods. */
static int watching_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    (void)state, (void)g, (void)why, (void)why_size;
    unsigned long before = fpd_oversubscribed_wakeups();
    for (int waited = 0; waited < 2000 && fpd_oversubscribed_wakeups() == before; waited++)
        sleep_ms(1);
    woken_in_call = fpd_oversubscribed_wakeups() - before;
    return FPD_OK;
}

static void watching_concurrent(void *state, size_t count, const struct fpd_gemm_args *const *args, int *status,
                                char *why, size_t why_size)
{
    for (size_t i = 0; i < count; i++)
        status[i] = i ? FPD_OK : watching_gemm(state, args[i], why, why_size);
}

static int open_nothing(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    (void)self, (void)why, (void)why_size;
    *state = NULL;
    return FPD_OK;
}

static void slot_of(struct fpd_backend_slot *slot, const struct fpd_backend *b)
{
    *slot = (struct fpd_backend_slot){.impl = b, .own = b, .state = FPD_SLOT_OPEN};
}

Test(oversubscribed, a_library_call_of_more_threads_than_cores_is_woken)
{
    const struct fpd_backend threaded = {.abi = FPDIV_BACKEND_ABI, .name = "threaded", .features = FPD_FEAT_THREADS,
                                         .open = open_nothing, .gemm = watching_gemm};
    const struct fpd_backend unthreaded = {.abi = FPDIV_BACKEND_ABI, .name = "unthreaded", .open = open_nothing,
                                           .gemm = watching_gemm};
    struct fpd_backend_slot slot;
    struct fpd_gemm_args g = {.threads = (int)cores() + 1};
    char why[256];
    slot_of(&slot, &threaded);
    cr_assert_eq(fpd_backend_gemm(&slot, &g, why, sizeof why), FPD_OK);
    cr_assert_gt(woken_in_call, 0, "%d threads on %u cores ran without wake-ups", g.threads, cores());
    cr_assert(quiet_within(5000));
    /* a backend that does not take a thread count runs one, whatever the arguments ask */
    slot_of(&slot, &unthreaded);
    cr_assert_eq(fpd_backend_gemm(&slot, &g, why, sizeof why), FPD_OK);
    cr_assert_eq(woken_in_call, 0);
    g.threads = 1;
    slot_of(&slot, &threaded);
    cr_assert_eq(fpd_backend_gemm(&slot, &g, why, sizeof why), FPD_OK);
    cr_assert_eq(woken_in_call, 0);
}

Test(oversubscribed, concurrent_callers_count_together)
{
    const struct fpd_backend callers = {.abi = FPDIV_BACKEND_ABI, .name = "callers",
                                        .features = FPD_FEAT_THREADS | FPD_FEAT_CONCURRENT, .open = open_nothing,
                                        .gemm = watching_gemm, .gemm_concurrent = watching_concurrent};
    struct fpd_backend_slot slot;
    slot_of(&slot, &callers);
    size_t count = cores() + 1 <= FPD_MAX_CALLERS ? cores() + 1 : FPD_MAX_CALLERS;
    struct fpd_gemm_args g = {.threads = 1};
    const struct fpd_gemm_args *each[FPD_MAX_CALLERS];
    for (size_t i = 0; i < count; i++)
        each[i] = &g;
    int status[FPD_MAX_CALLERS];
    char why[FPD_MAX_CALLERS][256];
    fpd_backend_gemm_concurrent(&slot, count, each, status, why[0], sizeof why[0]);
    cr_assert_eq(status[0], FPD_OK, "%s", why[0]);
    /* callers of one thread each, as many as the cores: only where the machine has fewer */
    if (count > cores())
        cr_assert_gt(woken_in_call, 0, "%zu callers on %u cores ran without wake-ups", count, cores());
    else
        cr_assert_eq(woken_in_call, 0);
}
