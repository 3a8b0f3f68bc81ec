/*
 * workers.h — running a campaign's work in worker processes, so that a backend that crashes or
 * hangs costs one item of it (a check), not the campaign.
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

#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fpdiv_backend.h" /* the status codes */

/* What a message is to the pool. FPD_MSG_ANSWER settles its index: one per index, whether a
 * result or word that it was not run. FPD_MSG_NOTE is anything else, and wakes the pool at once.
 * FPD_MSG_END: the worker leaves normally (indices, time or a stop request ran out). What a
 * message says, its payload, is the work's own: the pool passes it on untouched. */
enum fpd_worker_msg_type { FPD_MSG_ANSWER = 1, FPD_MSG_NOTE, FPD_MSG_END };

/* A payload's size at most: a campaign's answer (a check's result and its time, campaign.h) fits. */
#define FPD_WORKER_PAYLOAD 800

/* One message, as it sits in a worker's ring (copied whole: the pool sees it only once it is
 * complete). */
struct fpd_worker_msg {
    uint32_t type, index;
    uint32_t size; /* of the payload */
    alignas(16) unsigned char payload[FPD_WORKER_PAYLOAD];
};

/* A worker's side of its ring. */
struct fpd_worker_channel;

/* Runs in the worker: does item `index` of the work, and sends its FPD_MSG_ANSWER (and any notes)
 * on ch. */
typedef int (*fpd_work_fn)(void *ctx, uint32_t index, struct fpd_worker_channel *ch);

/* Sends a message about item `index` with `size` bytes of payload (at most FPD_WORKER_PAYLOAD). */
int fpd_worker_send(struct fpd_worker_channel *ch, enum fpd_worker_msg_type type, uint32_t index, const void *payload,
                    size_t size);

enum fpd_pool_event_type { FPD_EVENT_MESSAGE, FPD_EVENT_LOST, FPD_EVENT_IDLE, FPD_EVENT_DONE };

struct fpd_pool_event {
    enum fpd_pool_event_type type;
    struct fpd_worker_msg msg; /* FPD_EVENT_MESSAGE */
    uint32_t index;            /* FPD_EVENT_LOST: the check that was running */
    double seconds;            /* FPD_EVENT_LOST: how long it had run */
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

/* In a worker: the index it is given `ahead` items after `index` (its share, above), or
 * UINT64_MAX when the work ends before. For work that does items ahead of their turn. */
uint64_t fpd_worker_later_index(const struct fpd_worker_channel *ch, uint64_t index, unsigned ahead);
/* In a worker: the item under way does the work of `items` items (those ahead of their turn too),
 * within the one item's timeout. A worker that dies or times out then is not blamed on the item:
 * its replacement starts at that item again, with them to do one at a time (fpd_worker_alone), so
 * the one to blame dies alone, and a batch slower than the timeout costs its time twice. */
void fpd_worker_doing_many(struct fpd_worker_channel *ch, unsigned items);
/* In a worker: whether it must do this item on its own, being the replacement of one that died
 * doing several at once. */
bool fpd_worker_alone(const struct fpd_worker_channel *ch);

/* In a worker: whether it was asked to stop (checked between checks). */
bool fpd_worker_should_stop(void);

#endif
