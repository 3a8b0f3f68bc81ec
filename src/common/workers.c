/* workers.c — fork, pipes, poll, waitpid: a process pool (a campaign's checks, a replay's cases). */
#define _GNU_SOURCE
#include "common/workers.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/isolate.h"
#include "common/oversubscribed.h"

static volatile sig_atomic_t worker_stop;

static void on_stop_request(int sig)
{
    (void)sig;
    worker_stop = 1;
}

bool fpd_worker_should_stop(void) { return worker_stop != 0; }

/* Messages waiting in a ring at most (about 1 MiB of shared memory, touched only as used): a
 * worker that gets this far ahead waits for the pool. */
#define RING_SLOTS 1024
/* A worker wakes the pool at most this often (seconds), sooner when its ring is half full, and at
 * once for anything but a result. */
#define WAKE_INTERVAL 0.005
#define WAKE_INTERVAL_BUSY 0.0002

/*
 * `state` is index << 1 | busy, in one word so that no moment shows a half-updated pair: busy, the
 * worker is running check `index` (since started_ns, written first); idle, `index` is the next
 * check it would run. A worker killed anywhere is therefore resumed at the right index.
 */
struct fpd_worker_ring {
    _Atomic uint64_t head; /* messages published by the worker */
    _Atomic uint64_t tail; /* messages taken by the pool */
    _Atomic uint64_t state;
    _Atomic uint64_t started_ns; /* CLOCK_MONOTONIC (coarse: up to a tick early) when the running check started */
    _Atomic uint32_t items;      /* how many items' work the running one does (fpd_worker_doing_many) */
    struct fpd_worker_msg slot[RING_SLOTS];
};

static uint64_t running_state(uint64_t index) { return index << 1 | 1; }
static uint64_t idle_state(uint64_t next) { return next << 1; }

struct fpd_worker_channel {
    struct fpd_worker_ring *ring;
    int fd; /* write end of the wake-up pipe */
    double last_wake;
    uint64_t stride, end; /* between the worker's indices; and the work's end */
    unsigned alone;       /* items still to do one at a time (fpd_worker_alone) */
};

uint64_t fpd_worker_later_index(const struct fpd_worker_channel *ch, uint64_t index, unsigned ahead)
{
    uint64_t later = index + (uint64_t)ahead * ch->stride;
    return later < ch->end && later >= index ? later : UINT64_MAX;
}

void fpd_worker_doing_many(struct fpd_worker_channel *ch, unsigned items)
{
    atomic_store_explicit(&ch->ring->items, items > 1 ? items : 1, memory_order_relaxed);
}

bool fpd_worker_alone(const struct fpd_worker_channel *ch) { return ch->alone > 0; }

static uint64_t to_ns(double seconds) { return (uint64_t)(seconds * 1e9); }

/* FPD_OK, or FPD_ERR_INTERNAL when the pool is gone (the pipe's read end closed). */
static int wake(struct fpd_worker_channel *ch)
{
    char byte = 1;
    ssize_t n;
    while ((n = write(ch->fd, &byte, 1)) < 0 && errno == EINTR)
        ;
    ch->last_wake = fpd_now();
    return n == 1 ? FPD_OK : FPD_ERR_INTERNAL;
}

int fpd_worker_send(struct fpd_worker_channel *ch, enum fpd_worker_msg_type type, uint32_t index, const void *payload,
                    size_t size)
{
    if (size > FPD_WORKER_PAYLOAD)
        return FPD_ERR_INTERNAL;
    struct fpd_worker_ring *r = ch->ring;
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint64_t waiting;
    while ((waiting = head - atomic_load_explicit(&r->tail, memory_order_acquire)) >= RING_SLOTS) {
        if (wake(ch) != FPD_OK) /* full: make sure the pool knows, then give it time */
            return FPD_ERR_INTERNAL;
        struct timespec pause = {0, 50000};
        nanosleep(&pause, NULL);
    }
    struct fpd_worker_msg *slot = &r->slot[head % RING_SLOTS];
    slot->type = type, slot->index = index, slot->size = (uint32_t)size;
    if (size)
        memcpy(slot->payload, payload, size);
    atomic_store_explicit(&r->head, head + 1, memory_order_release); /* the slot is complete before it counts */
    /* there is one answer per item, so they wake the pool only now and then; any other message wakes
     * it at once. The coarse clock may wake the pool a tick late; a filling ring needs the exact one */
    if (type != FPD_MSG_ANSWER || fpd_now_coarse() - ch->last_wake >= WAKE_INTERVAL ||
        (waiting >= RING_SLOTS / 2 && fpd_now() - ch->last_wake >= WAKE_INTERVAL_BUSY))
        return wake(ch);
    return FPD_OK;
}

/* The worker's life: its share of the indices, then exit. Never returns. */
static void worker_main(struct fpd_pool *p, uint64_t first, unsigned alone, struct fpd_worker_ring *ring, int fd,
                        const sigset_t *parent_mask)
{
    struct sigaction sa = {.sa_handler = on_stop_request};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL); /* Ctrl-C reaches the whole process group: finish the check, then go */
    signal(SIGPIPE, SIG_IGN);
    sigprocmask(SIG_SETMASK, parent_mask, NULL); /* a stop request sent since the fork arrives now */
    uint64_t stride = (uint64_t)p->jobs * p->step;
    struct fpd_worker_channel ch = {.ring = ring, .fd = fd, .stride = stride, .end = p->end, .alone = alone};
    int status = 0;
    for (uint64_t i = first; i < p->end && !worker_stop; i += stride) {
        double now = fpd_now_coarse(); /* deadlines and --timeout: a few ms late is soon enough */
        if (p->deadline > 0 && now >= p->deadline)
            break;
        atomic_store_explicit(&ring->started_ns, to_ns(now), memory_order_relaxed);
        atomic_store_explicit(&ring->items, 1, memory_order_relaxed);
        atomic_store_explicit(&ring->state, running_state(i), memory_order_release);
        if (p->work(p->ctx, (uint32_t)i, &ch) != FPD_OK) {
            status = 3; /* no END, still busy: the pool reports the check as lost */
            break;
        }
        atomic_store_explicit(&ring->state, idle_state(i + stride), memory_order_release);
        if (ch.alone > 0)
            ch.alone--;
    }
    if (status == 0)
        fpd_worker_send(&ch, FPD_MSG_END, 0, NULL, 0);
    close(fd);
    _exit(status);
}

static int spawn(struct fpd_pool *p, struct fpd_worker *w, uint64_t first, unsigned alone)
{
    struct fpd_worker_ring *ring =
        mmap(NULL, sizeof *ring, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (ring == MAP_FAILED)
        return FPD_ERR_NOMEM;
    atomic_store(&ring->state, idle_state(first)); /* a worker that dies before starting resumes there */
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) { /* a backend's own children must not hold the pipe open */
        munmap(ring, sizeof *ring);
        return FPD_ERR_INTERNAL;
    }
    fflush(NULL); /* nothing buffered in the parent is written twice */
    /* no stop request may reach the child before it has its own handlers */
    sigset_t stops, before;
    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    sigprocmask(SIG_BLOCK, &stops, &before);
    pid_t pid = fork();
    if (pid < 0) {
        sigprocmask(SIG_SETMASK, &before, NULL);
        close(fds[0]);
        close(fds[1]);
        munmap(ring, sizeof *ring);
        return FPD_ERR_INTERNAL;
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* no orphans when the pool dies */
        fpd_stdout_to_stderr();           /* a worker's results go through its ring, never stdout */
        close(fds[0]);
        for (unsigned j = 0; j < p->jobs; j++) /* the other workers' pipes are not this one's business */
            if (p->workers[j].fd >= 0)
                close(p->workers[j].fd);
        worker_main(p, first, alone, ring, fds[1], &before);
    }
    sigprocmask(SIG_SETMASK, &before, NULL);
    close(fds[1]);
    *w = (struct fpd_worker){.pid = pid, .fd = fds[0], .ring = ring};
    return FPD_OK;
}

int fpd_pool_start(struct fpd_pool *p, unsigned jobs, uint64_t first, uint64_t step, uint64_t end, double deadline,
                   double timeout, fpd_work_fn work, void *ctx)
{
    *p = (struct fpd_pool){.jobs = jobs, .end = end, .step = step, .deadline = deadline, .timeout = timeout,
                           .work = work, .ctx = ctx};
    p->workers = calloc(jobs, sizeof *p->workers);
    if (!p->workers)
        return FPD_ERR_NOMEM;
    for (unsigned j = 0; j < jobs; j++)
        p->workers[j] = (struct fpd_worker){.pid = -1, .fd = -1};
    fpd_oversubscribed_neighbours(jobs - 1); /* each worker's library threads beside the others' */
    for (unsigned j = 0; j < jobs; j++) {
        if (first + j * step >= end)
            continue;
        int rc = spawn(p, &p->workers[j], first + j * step, 0);
        if (rc != FPD_OK)
            return rc;
    }
    return FPD_OK;
}

/* What a worker is doing: the check it runs (true), or the next one it would (false). */
static bool worker_state(const struct fpd_worker *w, uint64_t *index)
{
    uint64_t state = atomic_load_explicit(&w->ring->state, memory_order_acquire);
    *index = state >> 1;
    return state & 1;
}

/* A worker is gone and its ring drained: reap it, report a lost check if one was running and not
 * answered, and replace it at the check it would have done next unless it had finished. */
static int reap(struct fpd_pool *p, struct fpd_worker *w, struct fpd_pool_event *ev)
{
    int status = w->status;
    while (!w->exited && waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
        ;
    close(w->fd);
    uint64_t index;
    bool busy = worker_state(w, &index);
    bool answered = w->have_result && w->last_result == index; /* it may die between the two */
    bool lost = busy && !answered && !w->ended && !w->cut_short;
    /* A worker that died doing the work of several items at once (fpd_worker_doing_many) leaves
     * unknown which one killed it: its replacement does them again, one at a time, from the
     * first, and the one to blame dies alone (a hang costs its time twice). */
    unsigned items = atomic_load_explicit(&w->ring->items, memory_order_relaxed), alone = 0;
    bool retried = lost && items > 1;
    if (retried) {
        lost = false;
        alone = items;
    }
    if (w->cut_short && busy)
        p->cut_short++;
    bool ended = w->ended; /* a worker that left without saying so is replaced, in a check or not */
    uint64_t resume = busy && !retried ? index + (uint64_t)p->jobs * p->step : index;
    *ev = (struct fpd_pool_event){.type = lost ? FPD_EVENT_LOST : FPD_EVENT_IDLE, .index = (uint32_t)index};
    if (lost) {
        fpd_describe_death(status, w->timed_out, p->timeout, ev->reason, sizeof ev->reason);
        ev->seconds = fpd_now() - (double)atomic_load(&w->ring->started_ns) * 1e-9;
    }
    munmap(w->ring, sizeof *w->ring);
    *w = (struct fpd_worker){.pid = -1, .fd = -1};
    bool more_time = p->deadline <= 0 || fpd_now() < p->deadline;
    if (!ended && !p->stopping && more_time && resume < p->end)
        return spawn(p, w, resume, alone);
    return FPD_OK;
}

/* The next message of a worker's ring, or false when there is none. */
static bool take(struct fpd_worker *w, struct fpd_pool_event *ev)
{
    struct fpd_worker_ring *r = w->ring;
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    if (tail == atomic_load_explicit(&r->head, memory_order_acquire))
        return false;
    ev->type = FPD_EVENT_MESSAGE;
    ev->msg = r->slot[tail % RING_SLOTS];
    atomic_store_explicit(&r->tail, tail + 1, memory_order_release);
    if (ev->msg.type == FPD_MSG_ANSWER) {
        w->have_result = true;
        w->last_result = ev->msg.index;
    } else if (ev->msg.type == FPD_MSG_END) {
        w->ended = true;
    }
    return true;
}

/* A message or a departure, if any worker has one. */
static bool ready_event(struct fpd_pool *p, struct fpd_pool_event *ev, int *rc)
{
    for (unsigned j = 0; j < p->jobs; j++) {
        struct fpd_worker *w = &p->workers[j];
        if (w->fd >= 0 && take(w, ev))
            return true;
    }
    for (unsigned j = 0; j < p->jobs; j++) {
        struct fpd_worker *w = &p->workers[j];
        if (w->fd >= 0 && w->eof) {
            *rc = reap(p, w, ev);
            return true;
        }
    }
    return false;
}

int fpd_pool_next(struct fpd_pool *p, double wait, struct fpd_pool_event *ev)
{
    int rc = FPD_OK;
    if (ready_event(p, ev, &rc))
        return rc;
    struct pollfd fds[64];
    unsigned map[64], n = 0;
    double now = fpd_now();
    for (unsigned j = 0; j < p->jobs && n < 64; j++) {
        struct fpd_worker *w = &p->workers[j];
        if (w->fd < 0)
            continue;
        /* a check (its result sent or not: saving a finding may call the backend again) over time */
        uint64_t index, again;
        bool busy = worker_state(w, &index);
        double started = (double)atomic_load(&w->ring->started_ns) * 1e-9;
        bool same_check = worker_state(w, &again) == busy && again == index; /* started is that check's */
        if (p->timeout > 0 && !w->timed_out && busy && same_check && now - started > p->timeout) {
            kill(w->pid, SIGKILL); /* the pipe closes; the next poll reaps it */
            w->timed_out = true;
        }
        if (p->timeout <= 0 && p->deadline > 0 && !w->cut_short && busy && now > p->deadline + FPD_POOL_OVERRUN) {
            kill(w->pid, SIGKILL);
            w->cut_short = true;
        }
        /* a process that has gone but whose pipe someone else still holds open counts as gone */
        if (!w->exited && waitpid(w->pid, &w->status, WNOHANG) == w->pid)
            w->exited = w->eof = true;
        fds[n] = (struct pollfd){.fd = w->fd, .events = POLLIN};
        map[n++] = j;
    }
    if (n == 0) {
        ev->type = FPD_EVENT_DONE;
        return FPD_OK;
    }
    int ready = poll(fds, n, (int)(wait * 1000));
    for (unsigned i = 0; ready > 0 && i < n; i++) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        struct fpd_worker *w = &p->workers[map[i]];
        char bytes[4096]; /* wake-ups carry no data */
        ssize_t r;
        while ((r = read(w->fd, bytes, sizeof bytes)) < 0 && errno == EINTR)
            ;
        if (r <= 0)
            w->eof = true;
    }
    /* results may arrive without a wake-up (one sent within WAKE_INTERVAL of the last, followed by
     * a long check, waits for the next message or for this poll's `wait`): look whether or not */
    if (ready_event(p, ev, &rc))
        return rc;
    ev->type = FPD_EVENT_IDLE;
    return FPD_OK;
}

void fpd_pool_stop(struct fpd_pool *p)
{
    p->stopping = true;
    for (unsigned j = 0; j < p->jobs; j++)
        if (p->workers[j].pid > 0)
            kill(p->workers[j].pid, SIGTERM);
}

void fpd_pool_kill(struct fpd_pool *p)
{
    p->stopping = true;
    for (unsigned j = 0; j < p->jobs; j++)
        if (p->workers[j].pid > 0)
            kill(p->workers[j].pid, SIGKILL);
}

void fpd_pool_free(struct fpd_pool *p)
{
    for (unsigned j = 0; p->workers && j < p->jobs; j++) {
        if (p->workers[j].fd >= 0)
            close(p->workers[j].fd);
        if (p->workers[j].pid > 0 && !p->workers[j].exited) {
            kill(p->workers[j].pid, SIGKILL); /* one still running would wait for a reader forever */
            waitpid(p->workers[j].pid, NULL, 0);
        }
        if (p->workers[j].ring)
            munmap(p->workers[j].ring, sizeof *p->workers[j].ring);
    }
    free(p->workers);
    p->workers = NULL;
}
