/* workers.c — fork, pipes, poll, waitpid: the campaign's process pool. */
#define _GNU_SOURCE
#include "workers.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double fpd_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile sig_atomic_t worker_stop;

static void on_stop_request(int sig)
{
    (void)sig;
    worker_stop = 1;
}

bool fpd_worker_should_stop(void) { return worker_stop != 0; }

int fpd_worker_send(int fd, const struct fpd_worker_msg *m)
{
    const char *p = (const char *)m;
    size_t left = sizeof *m;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return FPD_ERR_INTERNAL;
        p += n, left -= (size_t)n;
    }
    return FPD_OK;
}

/* The worker's life: its share of the indices, then exit. Never returns. */
static void worker_main(struct fpd_pool *p, uint64_t first, int fd)
{
    struct sigaction sa = {.sa_handler = on_stop_request};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL); /* Ctrl-C reaches the whole process group: finish the check, then go */
    int status = 0;
    for (uint64_t i = first; i < p->end && !worker_stop; i += (uint64_t)p->jobs * p->step) {
        if (p->deadline > 0 && fpd_now() >= p->deadline)
            break;
        if (p->work(p->ctx, (uint32_t)i, fd) != FPD_OK) {
            status = 3; /* no END: the pool reports the check as lost */
            break;
        }
    }
    struct fpd_worker_msg end = {.type = FPD_MSG_END};
    if (status == 0)
        fpd_worker_send(fd, &end);
    close(fd);
    _exit(status);
}

static int spawn(struct fpd_pool *p, struct fpd_worker *w, uint64_t first)
{
    int fds[2];
    if (pipe(fds) != 0)
        return FPD_ERR_INTERNAL;
    fflush(NULL); /* nothing buffered in the parent is written twice */
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return FPD_ERR_INTERNAL;
    }
    if (pid == 0) {
        close(fds[0]);
        for (unsigned j = 0; j < p->jobs; j++) /* the other workers' pipes are not this one's business */
            if (p->workers[j].fd >= 0)
                close(p->workers[j].fd);
        worker_main(p, first, fds[1]);
    }
    close(fds[1]);
    *w = (struct fpd_worker){.pid = pid, .fd = fds[0], .busy = true, .running = (uint32_t)first, .started = fpd_now()};
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
    for (unsigned j = 0; j < jobs; j++) {
        if (first + j * step >= end)
            continue;
        int rc = spawn(p, &p->workers[j], first + j * step);
        if (rc != FPD_OK)
            return rc;
    }
    return FPD_OK;
}

static void describe_death(int status, bool timed_out, double timeout, char *buf, size_t size)
{
    if (timed_out)
        snprintf(buf, size, "timed out after %g s (worker killed)", timeout);
    else if (WIFSIGNALED(status))
        snprintf(buf, size, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(buf, size, "worker exited with status %d in the middle of the check", WEXITSTATUS(status));
}

/* A worker's pipe closed: reap it, report a lost check if one was running, replace it. */
static int reap(struct fpd_pool *p, struct fpd_worker *w, struct fpd_pool_event *ev)
{
    int status = 0;
    while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
        ;
    close(w->fd);
    bool lost = w->busy;
    uint32_t index = w->running;
    uint64_t resume = w->busy ? (uint64_t)w->running + (uint64_t)p->jobs * p->step : p->end;
    *ev = (struct fpd_pool_event){.type = lost ? FPD_EVENT_LOST : FPD_EVENT_IDLE, .index = index};
    if (lost)
        describe_death(status, w->timed_out, p->timeout, ev->reason, sizeof ev->reason);
    *w = (struct fpd_worker){.pid = -1, .fd = -1};
    bool more_time = p->deadline <= 0 || fpd_now() < p->deadline;
    if (lost && !p->stopping && more_time && resume < p->end)
        return spawn(p, w, resume);
    return FPD_OK;
}

int fpd_pool_next(struct fpd_pool *p, double wait, struct fpd_pool_event *ev)
{
    struct pollfd fds[64];
    unsigned map[64], n = 0;
    double now = fpd_now();
    for (unsigned j = 0; j < p->jobs && n < 64; j++) {
        struct fpd_worker *w = &p->workers[j];
        if (w->fd < 0)
            continue;
        if (w->busy && p->timeout > 0 && !w->timed_out && now - w->started > p->timeout) {
            kill(w->pid, SIGKILL); /* the pipe closes; the next poll reaps it */
            w->timed_out = true;
        }
        fds[n] = (struct pollfd){.fd = w->fd, .events = POLLIN};
        map[n++] = j;
    }
    if (n == 0) {
        ev->type = FPD_EVENT_DONE;
        return FPD_OK;
    }
    int ready = poll(fds, n, (int)(wait * 1000));
    if (ready <= 0) {
        ev->type = FPD_EVENT_IDLE; /* nothing yet (or a signal arrived): the caller looks around */
        return FPD_OK;
    }
    for (unsigned i = 0; i < n; i++) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        struct fpd_worker *w = &p->workers[map[i]];
        struct fpd_worker_msg m;
        size_t got = 0;
        while (got < sizeof m) {
            ssize_t r = read(w->fd, (char *)&m + got, sizeof m - got);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        if (got < sizeof m)
            return reap(p, w, ev);
        if (m.type == FPD_MSG_RESULT) { /* the worker goes straight on to its next index */
            w->running = (uint32_t)(m.index + (uint64_t)p->jobs * p->step);
            w->busy = m.index + (uint64_t)p->jobs * p->step < p->end;
            w->started = fpd_now();
        } else if (m.type == FPD_MSG_END) {
            w->busy = false;
        }
        ev->type = FPD_EVENT_MESSAGE;
        ev->msg = m;
        return FPD_OK;
    }
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
        if (p->workers[j].pid > 0)
            waitpid(p->workers[j].pid, NULL, 0);
    }
    free(p->workers);
    p->workers = NULL;
}
