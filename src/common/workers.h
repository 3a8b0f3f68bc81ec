/*
 * workers.h — running a campaign's checks in worker processes, so that a backend that crashes or
 * hangs costs one check, not the campaign.
 *
 * Worker w of N takes case indices first + w·step, first + (w + N)·step, … (step > 1 for shards:
 * so the union of all workers of all shards is a single-process run). Its messages (each check's
 * result, saved files, and a last message when it leaves normally) go into a ring in memory shared
 * with the pool, next to the index it is running and since when; a pipe only wakes the pool, a few
 * hundred times a second at most, because a wake-up per check would cost small cases a fifth of
 * their time. Results a worker published survive it: if it dies (a signal) or overruns the timeout
 * (the pool kills it) during a check, the pool reads which check from the shared memory, reports
 * it as lost with the reason, and starts a replacement at the worker's next index.
 */
#ifndef FPD_WORKERS_H
#define FPD_WORKERS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine/check.h"

/* FPD_MSG_SKIPPED: the check was not run (the campaign knows why), which answers it all the same.
 * FPD_MSG_END: the worker leaves normally (indices, time or a stop request ran out). */
enum fpd_worker_msg_type { FPD_MSG_RESULT = 1, FPD_MSG_SKIPPED, FPD_MSG_SAVED, FPD_MSG_END };

/* One message, as it sits in a worker's ring (copied whole: the pool sees it only once it is
 * complete). A message carries a result or a saved path, never both, so the two share their space. */
struct fpd_worker_msg {
    uint32_t type, index;
    union {
        struct {                         /* FPD_MSG_RESULT */
            struct fpd_check_result res;
            uint64_t gemm_ticks; /* the check's time in GEMM arithmetic (clock.h) */
        };
        char text[512]; /* FPD_MSG_SAVED: the saved file's path */
    };
};

/* A worker's side of its ring. */
struct fpd_worker_channel;

/* Runs in the worker: does check `index`, sends FPD_MSG_RESULT (and any FPD_MSG_SAVED) or
 * FPD_MSG_SKIPPED on ch. */
typedef int (*fpd_work_fn)(void *ctx, uint32_t index, struct fpd_worker_channel *ch);

int fpd_worker_send(struct fpd_worker_channel *ch, const struct fpd_worker_msg *m);

enum fpd_pool_event_type { FPD_EVENT_MESSAGE, FPD_EVENT_LOST, FPD_EVENT_IDLE, FPD_EVENT_DONE };

struct fpd_pool_event {
    enum fpd_pool_event_type type;
    struct fpd_worker_msg msg; /* FPD_EVENT_MESSAGE */
    uint32_t index;            /* FPD_EVENT_LOST: the check that was running */
    char reason[160];          /* FPD_EVENT_LOST: "killed by signal 11 (Segmentation fault)", … */
};

struct fpd_worker_ring; /* shared with the worker: workers.c */

struct fpd_worker {
    pid_t pid;
    int fd;                      /* read end of the wake-up pipe */
    struct fpd_worker_ring *ring;
    bool eof;                    /* the pipe closed, or the worker was reaped: gone once its ring is drained */
    bool exited;                 /* already reaped (status below) */
    int status;
    bool ended;                  /* it said FPD_MSG_END */
    bool have_result;
    uint32_t last_result;        /* the index of its latest FPD_MSG_RESULT or FPD_MSG_SKIPPED */
    bool timed_out;
    bool cut_short;              /* killed in a check for running past the campaign's end */
};

struct fpd_pool {
    struct fpd_worker *workers;
    unsigned jobs;
    uint64_t end;       /* indices below this */
    uint64_t step;      /* distance between consecutive indices of the campaign (the shard count) */
    double deadline;    /* CLOCK_MONOTONIC seconds; 0: none */
    double timeout;     /* per check; 0: none */
    size_t cut_short;   /* checks (or savings of their findings) stopped unfinished at the end of the
                           campaign's time; a check stopped before its result is no result */
    fpd_work_fn work;
    void *ctx;
    bool stopping;      /* no more replacements: the campaign is winding down */
};

/* How long a check under way may run past the deadline when there is no timeout: a campaign's
 * time is bounded whatever a backend does. With a timeout, it finishes or times out. */
#define FPD_POOL_OVERRUN 10.0

/* Starts `jobs` workers over first, first + step, … below end. */
int fpd_pool_start(struct fpd_pool *p, unsigned jobs, uint64_t first, uint64_t step, uint64_t end, double deadline,
                   double timeout, fpd_work_fn work, void *ctx);
/* Waits up to `wait` seconds for the next event. FPD_EVENT_DONE once every worker has finished. */
int fpd_pool_next(struct fpd_pool *p, double wait, struct fpd_pool_event *ev);
/* Asks the workers to stop after their current check (SIGTERM), and starts no replacements. */
void fpd_pool_stop(struct fpd_pool *p);
/* Kills every worker at once. */
void fpd_pool_kill(struct fpd_pool *p);
void fpd_pool_free(struct fpd_pool *p);

/* In a worker: whether it was asked to stop (checked between checks). */
bool fpd_worker_should_stop(void);

#endif
