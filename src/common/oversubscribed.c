/* oversubscribed.c — wake-ups on every core while a library runs more threads than the cores
 * (oversubscribed.h). */
#define _GNU_SOURCE /* sched_getaffinity, pthread_setaffinity_np */
#include "common/oversubscribed.h"

#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The cores of a machine the wake-ups cover at most: one thread each. */
enum { MOST_CORES = 256 };

static unsigned neighbours;
/* The cores this process may run on (read once: a syscall would be a tenth of a small check). */
static atomic_uint cores_cached;
/* Calls in progress that want the wake-ups: the wakers sleep on this word while it is 0. */
static atomic_uint wanted;
/* The process whose wakers run (a forked child has none of its parent's threads); 0: none yet. */
static atomic_int wakers_of;
static atomic_ulong wakeups;

static void futex_wait(atomic_uint *word, unsigned value)
{
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
}

static void futex_wake_all(atomic_uint *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* The cores this process may run on, as the scheduler counts them. */
static unsigned usable_cores(cpu_set_t *set)
{
    if (sched_getaffinity(0, sizeof *set, set) != 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        CPU_ZERO(set);
        return online > 0 ? (unsigned)online : 1;
    }
    return (unsigned)CPU_COUNT(set);
}

static void *waker(void *core)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET((int)(long)core, &one);
    /* on its own core, or (where that is refused) wherever the scheduler puts it */
    pthread_setaffinity_np(pthread_self(), sizeof one, &one);
    const struct timespec period = {0, FPD_OVERSUBSCRIBED_PERIOD_US * 1000L};
    for (;;) {
        if (atomic_load_explicit(&wanted, memory_order_acquire) == 0) {
            futex_wait(&wanted, 0);
            continue;
        }
        clock_nanosleep(CLOCK_MONOTONIC, 0, &period, NULL);
        atomic_fetch_add_explicit(&wakeups, 1, memory_order_relaxed);
    }
    return NULL;
}

/* A child forked during a call (a host started for it) has none of the call, nor any waker. */
static void forked_child(void) { atomic_store(&wanted, 0); }

/* One waker per core, each for the life of the process; once per process, forked ones included. */
static void start_wakers(void)
{
    static bool fork_handled; /* inherited by the children, as the handler is */
    int self = (int)getpid(), other = atomic_load(&wakers_of);
    if (other == self || !atomic_compare_exchange_strong(&wakers_of, &other, self))
        return;
    if (!fork_handled)
        fork_handled = pthread_atfork(NULL, NULL, forked_child) == 0;
    cpu_set_t cores;
    unsigned count = usable_cores(&cores);
    pthread_attr_t attr;
    sigset_t all, before;
    if (pthread_attr_init(&attr) != 0)
        return;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    sigfillset(&all); /* a signal meant for the process is never a waker's to take */
    pthread_sigmask(SIG_SETMASK, &all, &before);
    for (int core = 0, started = 0; core < MOST_CORES && (unsigned)started < count; core++)
        if (CPU_COUNT(&cores) == 0 || CPU_ISSET(core, &cores)) {
            pthread_t t;
            started += pthread_create(&t, &attr, waker, (void *)(long)core) == 0;
        }
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    pthread_attr_destroy(&attr);
}

void fpd_oversubscribed_neighbours(unsigned busy) { neighbours = busy; }

bool fpd_oversubscribed_enter(unsigned threads)
{
    if (threads + neighbours <= 1)
        return false;
    unsigned cores = atomic_load_explicit(&cores_cached, memory_order_relaxed);
    if (!cores) {
        cpu_set_t set;
        cores = usable_cores(&set);
        atomic_store_explicit(&cores_cached, cores, memory_order_relaxed);
    }
    if (threads + neighbours <= cores)
        return false;
    start_wakers();
    if (atomic_fetch_add_explicit(&wanted, 1, memory_order_acq_rel) == 0)
        futex_wake_all(&wanted);
    return true;
}

void fpd_oversubscribed_leave(bool entered)
{
    if (entered)
        atomic_fetch_sub_explicit(&wanted, 1, memory_order_acq_rel);
}

unsigned long fpd_oversubscribed_wakeups(void) { return atomic_load(&wakeups); }
