/* server.c — starting a process that computes for fpdiv, waiting on it, and sharing operands. */
#define _GNU_SOURCE
#include "backends/server.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/backend_util.h"
#include "common/clock.h"
#include "common/dtype.h"
#include "common/isolate.h"

/* In the child, between clone and exec: system calls only (fpdiv has a BLAS's threads, and one of
 * them may hold a lock the child would wait on forever). */
static void become_server(pid_t parent, int sock, int memory, int devnull, int err, char *const argv[],
                          char *const env[])
{
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* it ends with the process it serves */
    if (getppid() != parent)
        _exit(127);
    setpgid(0, 0); /* a Ctrl-C meant for fpdiv's workers is not for the servers they use */
    /* all four above the numbers they go to first: with fpdiv's own stdin or stdout closed, one of
     * them may sit at 0-4 and be overwritten by another's dup2 */
    int s = fcntl(sock, F_DUPFD, 16), m = fcntl(memory, F_DUPFD, 16), n = fcntl(devnull, F_DUPFD, 16),
        e = fcntl(err, F_DUPFD, 16);
    if (s < 0 || m < 0 || n < 0 || e < 0 || dup2(s, FPD_SERVER_SOCKET_FD) < 0 || dup2(m, FPD_SERVER_MEMORY_FD) < 0 ||
        dup2(n, 0) < 0 || dup2(n, 1) < 0 || dup2(e, 2) < 0)
        _exit(127);
    /* nothing else of fpdiv's: a worker's pipe held open here would keep its pool waiting */
    if (syscall(SYS_close_range, FPD_SERVER_MEMORY_FD + 1, ~0u, 0) != 0)
        for (int fd = FPD_SERVER_MEMORY_FD + 1; fd < 4096; fd++)
            close(fd);
    execve(argv[0], argv, env);
    _exit(127);
}

/* The child's part of fpd_server_start, and what it needs. */
struct server_child {
    pid_t parent;
    int sock, memory, devnull, err;
    char *const *argv, *const *env;
    sigset_t mask; /* the parent's signal mask, the child's once its handlers are reset */
};

/* It shares the parent's memory, on a stack of its own, until it execs (clone(CLONE_VM), as
 * posix_spawn does): the parent's page tables are not copied, and not torn down by the exec
 * either (a worker's, with its buffers, took 6% of a campaign's time in fork and exec). A
 * handler of the parent's must not run here: they are reset first (in the child's own table),
 * then the parent's mask comes back (all signals were blocked across the clone). */
static int server_child_main(void *arg)
{
    const struct server_child *c = arg;
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction sa;
        if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN) {
            sa = (struct sigaction){.sa_handler = SIG_DFL};
            sigaction(sig, &sa, NULL);
        }
    }
    pthread_sigmask(SIG_SETMASK, &c->mask, NULL);
    become_server(c->parent, c->sock, c->memory, c->devnull, c->err, c->argv, c->env);
    return 127;
}

int fpd_server_start(struct fpd_server *s, const char *role, const char *label, char *const argv[], char *const env[],
                     int sock_type, char *why, size_t why_size)
{
    enum { CHILD_STACK = 64 * 1024 }; /* system calls only, and become_server's few locals */
    *s = (struct fpd_server){.sock = -1, .memory = -1, .err = -1, .cpu = -1};
    snprintf(s->role, sizeof s->role, "%s", role);
    snprintf(s->label, sizeof s->label, "%s", label);
    int sv[2] = {-1, -1}, err[2] = {-1, -1}, devnull = -1, rc = FPD_ERR_BACKEND;
    if (socketpair(AF_UNIX, sock_type | SOCK_CLOEXEC, 0, sv) != 0 ||
        (s->memory = memfd_create("fpdiv-server", MFD_CLOEXEC)) < 0 ||
        (devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0 || pipe2(err, O_CLOEXEC) != 0 ||
        fcntl(err[0], F_SETFL, O_NONBLOCK) != 0) {
        snprintf(why, why_size, "cannot set up a %s process: %s", role, strerror(errno));
        goto done;
    }
    fflush(NULL); /* nothing buffered is written twice */
    char *stack = malloc(CHILD_STACK);
    if (!stack) {
        snprintf(why, why_size, "cannot start a %s process: out of memory", role);
        goto done;
    }
    struct server_child child = {getpid(), sv[1], s->memory, devnull, err[1], argv, env, {{0}}};
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &child.mask);
    s->pid = clone(server_child_main, stack + CHILD_STACK, CLONE_VM | CLONE_VFORK | SIGCHLD, &child);
    int clone_errno = errno;
    pthread_sigmask(SIG_SETMASK, &child.mask, NULL);
    free(stack); /* CLONE_VFORK: the child has exec'd, or exited */
    if (s->pid < 0) {
        snprintf(why, why_size, "cannot start a %s process: %s", role, strerror(clone_errno));
        goto done;
    }
    s->owner = child.parent;
    s->sock = sv[0];
    s->err = err[0];
    sv[0] = err[0] = -1;
    rc = FPD_OK;
done:
    for (int i = 0; i < 2; i++) {
        if (sv[i] >= 0)
            close(sv[i]);
        if (err[i] >= 0)
            close(err[i]);
    }
    if (devnull >= 0)
        close(devnull);
    if (rc != FPD_OK) {
        if (s->memory >= 0)
            close(s->memory);
        s->memory = -1;
        s->dead = true;
    }
    return rc;
}

/* Reads what the server wrote to its stderr (a library's message, a traceback), keeping the end
 * of it: it is the server's to say why it failed, and not for fpdiv's own stderr. A server that
 * writes more than a pipe holds is never blocked by it: every wait for an answer drains it. */
static void drain(struct fpd_server *s)
{
    char buf[4096];
    ssize_t got = 0;
    while (s->err >= 0 && (got = read(s->err, buf, sizeof buf)) > 0) {
        size_t n = (size_t)got, keep = sizeof s->said - 1;
        if (n >= keep) {
            memcpy(s->said, buf + n - keep, keep);
            s->said_len = keep;
        } else {
            size_t old = s->said_len + n > keep ? keep - n : s->said_len;
            memmove(s->said, s->said + s->said_len - old, old);
            memcpy(s->said + old, buf, n);
            s->said_len = old + n;
        }
        s->said[s->said_len] = '\0';
    }
    if (s->err >= 0 && got == 0) { /* its stderr closed: polled no more, lest poll answer at once forever */
        close(s->err);
        s->err = -1;
    }
}

/* The last line the server wrote, or "". */
static const char *last_said(struct fpd_server *s)
{
    while (s->said_len > 0 && (s->said[s->said_len - 1] == '\n' || s->said[s->said_len - 1] == ' '))
        s->said[--s->said_len] = '\0';
    const char *line = strrchr(s->said, '\n');
    return line ? line + 1 : s->said;
}

void fpd_server_reap(struct fpd_server *s, const char *killed, char *why, size_t why_size)
{
    int status = 0;
    if (killed)
        kill(s->pid, SIGKILL);
    while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR)
        ;
    drain(s);
    s->dead = true;
    char death[160] = "was ";
    if (killed)
        snprintf(death, sizeof death, "%s", killed);
    else if (WIFEXITED(status))
        snprintf(death, sizeof death, "exited with status %d", WEXITSTATUS(status));
    else
        fpd_describe_death(status, false, 0, death + 4, sizeof death - 4);
    const char *said = last_said(s);
    snprintf(s->death, sizeof s->death, "%s%s%.100s", death, *said ? ", saying: " : "", said);
    snprintf(why, why_size, "the %s process running %s %s", s->role, s->label, s->death);
}

int fpd_server_wait(struct fpd_server *s, struct fpd_server_patience *patience, char *why, size_t why_size)
{
    for (;;) {
        int wait_ms = -1;
        if (patience->deadline > 0) {
            double left = patience->deadline - fpd_now();
            if (left <= 0 && patience->moving && patience->moving(patience->ctx)) {
                patience->deadline = fpd_now() + patience->timeout;
                continue;
            }
            if (left <= 0) {
                char what[96];
                snprintf(what, sizeof what, "did not answer within %g s (killed)", patience->timeout);
                fpd_server_reap(s, what, why, why_size);
                return FPD_ERR_BACKEND;
            }
            wait_ms = (int)(left * 1000) + 1;
        }
        struct pollfd p[2] = {{.fd = s->sock, .events = POLLIN}, {.fd = s->err, .events = POLLIN}};
        int ready = poll(p, 2, wait_ms);
        if (ready < 0 && errno == EINTR)
            continue;
        if (p[1].revents)
            drain(s);
        if (ready > 0 && p[0].revents)
            return FPD_OK; /* else the deadline, next time round; or only its stderr spoke */
    }
}

bool fpd_server_usable(const struct fpd_server *s) { return s && !s->dead && s->owner == getpid(); }

void fpd_server_retire(struct fpd_server *s)
{
    if (s->sock >= 0)
        close(s->sock); /* the server sees the end of its requests and leaves */
    if (s->memory >= 0)
        close(s->memory);
    if (s->map)
        munmap(s->map, s->map_size);
    s->sock = s->memory = -1;
    s->map = NULL;
    s->map_size = 0;
    if (s->pid > 0 && !s->dead && s->owner == getpid()) {
        int status;
        double deadline = fpd_now() + 2;
        while (waitpid(s->pid, &status, WNOHANG) == 0) {
            drain(s); /* what it says as it leaves, so that a full pipe does not hold it */
            if (fpd_now() > deadline) { /* busy in a GEMM it will never be asked for */
                kill(s->pid, SIGKILL);
                waitpid(s->pid, &status, 0);
                break;
            }
            usleep(1000);
        }
    }
    if (s->err >= 0)
        close(s->err);
    s->err = -1;
    s->dead = true;
}

static size_t align64(size_t x) { return (x + 63) & ~(size_t)63; }

#define GUARD_BYTE 0x5a

/* Grows the shared memory to at least `size` bytes. */
static int ensure_memory(struct fpd_server *s, size_t size)
{
    if (size <= s->map_size)
        return FPD_OK;
    size_t grown = (size + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
    if (ftruncate(s->memory, (off_t)grown) != 0)
        return FPD_ERR_NOMEM;
    void *map = mmap(NULL, grown, PROT_READ | PROT_WRITE, MAP_SHARED, s->memory, 0);
    if (map == MAP_FAILED)
        return FPD_ERR_NOMEM;
    if (s->map)
        munmap(s->map, s->map_size);
    s->map = map;
    s->map_size = grown;
    return FPD_OK;
}

/* Places the server's thread on the CPU this process runs on. A host and its client never compute
 * at once: on one CPU, a request and its answer are plain switches from one to the other, where on
 * two each is a wake-up across CPUs, which a virtual machine's hypervisor makes slow (a round trip
 * of 45 us against 7 us, bench_host). Only the server moves; its library's other threads stay free.
 * A bridge server is not placed: after its answer the Python interpreter goes on working (back to
 * its read), which on the client's CPU would hold the client back (6.2k against 8.4k checks/s on
 * NumPy at max-dim 64, bench_bridge). */
static void follow(struct fpd_server *s)
{
    int cpu = sched_getcpu();
    if (cpu < 0 || cpu == s->cpu)
        return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(s->pid, sizeof one, &one) == 0)
        s->cpu = cpu;
}

int fpd_server_stage(struct fpd_server *s, const struct fpd_gemm_args *g, size_t at, struct fpd_server_layout *l)
{
    size_t out = fpd_dtype_info(g->dt.out)->size;
    struct fpd_gemm_extent extent = fpd_gemm_extent(g);
    *l = (struct fpd_server_layout){
        .a_bytes = extent.a, .b_bytes = extent.b, .c_bytes = extent.c,
        .bias_bytes = g->bias ? g->n * out : 0,
        .guard = g->ldc * out > 64 ? g->ldc * out : 64,
    };
    l->a = align64(at);
    l->b = align64(l->a + l->a_bytes);
    l->bias = align64(l->b + l->b_bytes);
    l->c = align64(l->bias + l->bias_bytes);
    l->end = l->c + l->c_bytes + l->guard;
    if (ensure_memory(s, l->end) != FPD_OK)
        return FPD_ERR_NOMEM;
    if (s->follows)
        follow(s);
    /* C goes over whole, its row padding too: the caller's canaries there come back as the
     * server left them. Past its end, a guard of our own. */
    memcpy(s->map + l->a, g->a, l->a_bytes);
    memcpy(s->map + l->b, g->b, l->b_bytes);
    if (g->bias)
        memcpy(s->map + l->bias, g->bias, l->bias_bytes);
    memcpy(s->map + l->c, g->c, l->c_bytes);
    memset(s->map + l->c + l->c_bytes, GUARD_BYTE, l->guard);
    return FPD_OK;
}

int fpd_server_unstage(struct fpd_server *s, const struct fpd_gemm_args *g, const struct fpd_server_layout *l,
                       char *why, size_t why_size)
{
    for (size_t i = 0; i < l->guard; i++)
        if (s->map[l->c + l->c_bytes + i] != GUARD_BYTE) {
            snprintf(why, why_size, "%s wrote past the end of C", s->label);
            return FPD_ERR_BACKEND;
        }
    memcpy(g->c, s->map + l->c, l->c_bytes);
    return FPD_OK;
}
