/*
 * oversubscribed.h — a library's threads on more threads than there are cores: wake-ups often
 * enough that a thread spinning at a barrier gives its core to the partner it waits for.
 *
 * BLIS's threads meet at barriers that spin without yielding (bli_thrcomm_barrier_atomic); a
 * spinning thread keeps its core until the scheduler's next tick (4 ms at 250 Hz), while the
 * thread it waits for, runnable on the same core, cannot run. A `concurrent` check of 4 callers of
 * 2 threads each on 2 cores took 0.8-1.6 s, nearly all of it in that spin. A thread that wakes on
 * a core preempts what runs there (the scheduler favours a thread that has slept), and when it
 * sleeps again the scheduler picks the thread that has waited longest: so while a library call
 * runs more threads than the cores (with what the other workers run), one sleeping thread per core
 * wakes every FPD_OVERSUBSCRIBED_PERIOD_US; the same check then takes 0.05-0.13 s. Preempting a
 * thread never changes what it computes: results and verdicts are the same either way. The
 * wake-ups cost a few microseconds each and run only while such a call does.
 */
#ifndef FPD_OVERSUBSCRIBED_H
#define FPD_OVERSUBSCRIBED_H

#include <stdbool.h>

/* 50 us: against 200, `threads` on BLIS ran 245-272 checks/s against 174, `concurrent` 148-154
 * against 127, OpenBLAS's (whose threads yield) 4-7% fewer; the default campaign 3-5% more. */
enum { FPD_OVERSUBSCRIBED_PERIOD_US = 50 };

/* The threads this process's siblings keep busy beside it (a pool's other workers: jobs - 1),
 * inherited by the processes it starts. */
void fpd_oversubscribed_neighbours(unsigned busy);

/* Before a library call that runs `threads` threads (concurrent callers together): starts the
 * wake-ups where they and the neighbours exceed the cores this process may run on. Returns
 * whether it did, for fpd_oversubscribed_leave after the call. Nothing fails: a thread that cannot
 * be started leaves the call as it would have run without. */
bool fpd_oversubscribed_enter(unsigned threads);
void fpd_oversubscribed_leave(bool entered);

/* Wake-ups so far in this process (a test's evidence that they ran). */
unsigned long fpd_oversubscribed_wakeups(void);

#endif
