/* host.c — starting a host, and the protocol both of its ends speak. */
#define _GNU_SOURCE
#include "backends/host.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/dtype.h"
#include "common/isolate.h"

extern char **environ;

/* The host finds its socket and its shared memory at these descriptors. */
enum { HOST_SOCKET_FD = 3, HOST_MEMORY_FD = 4 };

enum host_op { HOST_HELLO = 1, HOST_GEMM };

/* A GEMM's arguments with the pointers as offsets into the shared memory. Both ends are the same
 * binary, so the structs need no encoding. */
struct host_gemm {
    struct fpd_dtypes dt;
    uint64_t batch, m, n, k, lda, ldb, ldc, stride_a, stride_b, stride_c;
    uint64_t a, b, c, bias; /* offsets; bias NO_BIAS when there is none */
    uint8_t trans_a, trans_b;
    int32_t threads, algo, route;
};
#define NO_BIAS UINT64_MAX

struct host_request {
    uint32_t op, seq;
    uint64_t memory_size; /* the shared memory's size now: the host maps it again when it grew */
    struct host_gemm gemm;
};

/* The answer to a request, or the hello a host sends once it has opened its backend: status,
 * reason, and for the hello the provenance as "key\0value\0" pairs. */
struct host_reply {
    uint32_t op, seq;
    int32_t status;
    uint32_t text_len;
    char why[512];
    char text[8192];
};

struct fpd_host {
    char label[160]; /* in messages: "openblas@Haswell" */
    /* what it was started with, to start it again (fpd_host_renew) */
    char name[160], env_name[64], env_value[64];
    bool has_env;
    double timeout;
    pid_t pid, owner;
    int sock, memory;
    int err;          /* the read end of the host's stderr */
    char said[512];   /* the last of what it wrote there, for the reason it died */
    size_t said_len;
    unsigned char *map;
    size_t map_size;
    uint32_t seq;
    int cpu; /* the CPU the host runs on, which follows its client's; -1: not yet placed */
    bool dead;
    char death[320];  /* how it ended, when it died: "was killed by signal 4 (Illegal instruction)" */
    char *provenance; /* "key\0value\0" pairs */
    size_t provenance_len;
    struct host_reply reply; /* the latest: kept here, not allocated per request */
};

/* ---- the fpdiv that starts it ------------------------------------------------------------------ */

enum { MAX_GLOBAL_OPTIONS = 32 };
static char *global_options[MAX_GLOBAL_OPTIONS][2]; /* option, value */
static size_t n_global_options;

static char *program; /* NULL: fpdiv itself */

void fpd_host_set_program(const char *path)
{
    free(program);
    program = path ? strdup(path) : NULL;
}

int fpd_host_add_global_option(const char *option, const char *value)
{
    if (n_global_options == MAX_GLOBAL_OPTIONS)
        return FPD_ERR_INPUT;
    char *o = strdup(option), *v = strdup(value);
    if (!o || !v) {
        free(o), free(v);
        return FPD_ERR_NOMEM;
    }
    global_options[n_global_options][0] = o, global_options[n_global_options][1] = v;
    n_global_options++;
    return FPD_OK;
}

/* The environment with name=value in place of any value it had. NULL when out of memory. */
static char **environment_with(const char *name, const char *value)
{
    size_t n = 0, len = name ? strlen(name) : 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 2, sizeof *env), *pinned = name ? malloc(len + strlen(value) + 2) : NULL;
    if (!env || (name && !pinned)) {
        free(env);
        free(pinned);
        return NULL;
    }
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (!(name && strncmp(environ[i], name, len) == 0 && environ[i][len] == '='))
            env[kept++] = environ[i];
    if (name) {
        sprintf(pinned, "%s=%s", name, value);
        env[kept] = pinned;
    }
    return env;
}

size_t fpd_host_global_options(const char *const **pairs)
{
    *pairs = (const char *const *)global_options;
    return n_global_options;
}

static bool serving;

void fpd_host_set_serving(void) { serving = true; }
bool fpd_host_serving(void) { return serving; }

/* In the child, between fork and exec: system calls only (fpdiv has a BLAS's threads, and one of
 * them may hold a lock the child would wait on forever). */
static void become_host(pid_t parent, int sock, int memory, int devnull, int err, const char *exe, char **argv,
                        char **env)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* it ends with the process it serves */
    if (getppid() != parent)
        _exit(127);
    setpgid(0, 0); /* a Ctrl-C meant for fpdiv's workers is not for the hosts they use */
    /* all four above the numbers they go to first: with fpdiv's own stdin or stdout closed, one of
     * them may sit at 0-4 and be overwritten by another's dup2 */
    int s = fcntl(sock, F_DUPFD, 16), m = fcntl(memory, F_DUPFD, 16), n = fcntl(devnull, F_DUPFD, 16),
        e = fcntl(err, F_DUPFD, 16);
    if (s < 0 || m < 0 || n < 0 || e < 0 || dup2(s, HOST_SOCKET_FD) < 0 || dup2(m, HOST_MEMORY_FD) < 0 ||
        dup2(n, 0) < 0 || dup2(n, 1) < 0 || dup2(e, 2) < 0)
        _exit(127);
    /* nothing else of fpdiv's: a worker's pipe held open here would keep its pool waiting */
    if (syscall(SYS_close_range, HOST_MEMORY_FD + 1, ~0u, 0) != 0)
        for (int fd = HOST_MEMORY_FD + 1; fd < 4096; fd++)
            close(fd);
    execve(exe, argv, env);
    _exit(127);
}

/* Reads what the host wrote to its stderr (a library's message, a sanitizer's report), keeping the
 * end of it: it is the host's to say why it failed, and not for fpdiv's own stderr. A host that
 * writes more than a pipe holds is never blocked by it: every wait for an answer drains it. */
static void drain(struct fpd_host *h)
{
    char buf[4096];
    ssize_t got = 0;
    while (h->err >= 0 && (got = read(h->err, buf, sizeof buf)) > 0) {
        size_t n = (size_t)got, keep = sizeof h->said - 1;
        if (n >= keep) {
            memcpy(h->said, buf + n - keep, keep);
            h->said_len = keep;
        } else {
            size_t old = h->said_len + n > keep ? keep - n : h->said_len;
            memmove(h->said, h->said + h->said_len - old, old);
            memcpy(h->said + old, buf, n);
            h->said_len = old + n;
        }
        h->said[h->said_len] = '\0';
    }
    if (h->err >= 0 && got == 0) { /* its stderr closed: polled no more, lest poll answer at once forever */
        close(h->err);
        h->err = -1;
    }
}

/* The last line the host wrote, or "". */
static const char *last_said(struct fpd_host *h)
{
    while (h->said_len > 0 && (h->said[h->said_len - 1] == '\n' || h->said[h->said_len - 1] == ' '))
        h->said[--h->said_len] = '\0';
    const char *line = strrchr(h->said, '\n');
    return line ? line + 1 : h->said;
}

/* Waits for the host's end (killing it first when `killed` says why) and says how it ended, with
 * the last line it wrote. */
static void reap(struct fpd_host *h, const char *killed, char *why, size_t why_size)
{
    int status = 0;
    if (killed)
        kill(h->pid, SIGKILL);
    while (waitpid(h->pid, &status, 0) < 0 && errno == EINTR)
        ;
    drain(h);
    h->dead = true;
    char death[160] = "was ";
    if (killed)
        snprintf(death, sizeof death, "%s", killed);
    else if (WIFEXITED(status))
        snprintf(death, sizeof death, "exited with status %d", WEXITSTATUS(status));
    else
        fpd_describe_death(status, false, 0, death + 4, sizeof death - 4);
    const char *said = last_said(h);
    snprintf(h->death, sizeof h->death, "%s%s%.100s", death, *said ? ", saying: " : "", said);
    snprintf(why, why_size, "the host process running %s %s", h->label, h->death);
}

/* Waits for the reply to request `seq` (or the hello, seq 0): FPD_OK, or FPD_ERR_BACKEND with why
 * once the host is dead or past the deadline (then killed). */
static int receive(struct fpd_host *h, uint32_t seq, double timeout, struct host_reply *r, char *why, size_t why_size)
{
    double deadline = timeout > 0 ? fpd_now() + timeout : 0;
    for (;;) {
        int wait_ms = -1;
        if (deadline > 0) {
            double left = deadline - fpd_now();
            if (left <= 0) {
                char what[96];
                snprintf(what, sizeof what, "did not answer within %g s (killed)", timeout);
                reap(h, what, why, why_size);
                return FPD_ERR_BACKEND;
            }
            wait_ms = (int)(left * 1000) + 1;
        }
        struct pollfd p[2] = {{.fd = h->sock, .events = POLLIN}, {.fd = h->err, .events = POLLIN}};
        int ready = poll(p, 2, wait_ms);
        if (ready < 0 && errno == EINTR)
            continue;
        if (p[1].revents)
            drain(h);
        if (ready == 0 || !p[0].revents)
            continue; /* the deadline, next time round; or only its stderr spoke */
        ssize_t got = recv(h->sock, r, sizeof *r, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) { /* the other end is gone: the host died */
            reap(h, NULL, why, why_size);
            return FPD_ERR_BACKEND;
        }
        if ((size_t)got < offsetof(struct host_reply, text) || r->text_len > sizeof r->text) {
            reap(h, "sent a malformed answer (killed)", why, why_size);
            return FPD_ERR_BACKEND;
        }
        if (r->seq == seq)
            return FPD_OK;
        /* an answer to an earlier request it was given up on: not this one's */
    }
}

int fpd_host_start(const char *label, const char *name, const char *env_name, const char *env_value, double timeout,
                   struct fpd_host **out, char *why, size_t why_size)
{
    *out = NULL;
    struct fpd_host *h = calloc(1, sizeof *h);
    /* /proc/self/exe, not the path it links to: that is fpdiv even if its file was replaced or
     * deleted since it started (a rebuild during a long campaign) */
    char exe[PATH_MAX];
    ssize_t exe_len = (ssize_t)snprintf(exe, sizeof exe, "%s", program ? program : "/proc/self/exe");
    char **env = environment_with(env_name, env_value);
    char *argv[2 * MAX_GLOBAL_OPTIONS + 4];
    int sv[2] = {-1, -1}, err[2] = {-1, -1}, devnull = -1, rc = FPD_ERR_BACKEND;
    if (h)
        h->sock = h->memory = h->err = h->cpu = -1;
    if (!h || !env) {
        snprintf(why, why_size, "out of memory");
        rc = FPD_ERR_NOMEM;
        goto done;
    }
    snprintf(h->label, sizeof h->label, "%s", label);
    snprintf(h->name, sizeof h->name, "%s", name);
    h->has_env = env_name != NULL;
    snprintf(h->env_name, sizeof h->env_name, "%s", env_name ? env_name : "");
    snprintf(h->env_value, sizeof h->env_value, "%s", env_value ? env_value : "");
    h->timeout = timeout;
    if (exe_len <= 0 || (size_t)exe_len >= sizeof exe) {
        snprintf(why, why_size, "the fpdiv executable's name is too long to start a host process");
        goto done;
    }
    size_t argc = 0;
    argv[argc++] = exe;
    for (size_t i = 0; i < n_global_options; i++) {
        argv[argc++] = global_options[i][0];
        argv[argc++] = global_options[i][1];
    }
    argv[argc++] = "__host";
    argv[argc++] = (char *)name;
    argv[argc] = NULL;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0 ||
        (h->memory = memfd_create("fpdiv-host", MFD_CLOEXEC)) < 0 ||
        (devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0 || pipe2(err, O_CLOEXEC) != 0 ||
        fcntl(err[0], F_SETFL, O_NONBLOCK) != 0) {
        snprintf(why, why_size, "cannot set up a host process: %s", strerror(errno));
        goto done;
    }
    fflush(NULL); /* nothing buffered is written twice */
    pid_t parent = getpid();
    h->pid = fork();
    if (h->pid < 0) {
        snprintf(why, why_size, "cannot start a host process: %s", strerror(errno));
        goto done;
    }
    if (h->pid == 0)
        become_host(parent, sv[1], h->memory, devnull, err[1], exe, argv, env);
    h->owner = parent;
    h->sock = sv[0];
    h->err = err[0];
    sv[0] = err[0] = -1;
    struct host_reply *hello = &h->reply;
    rc = receive(h, 0, timeout, hello, why, why_size);
    if (rc == FPD_OK && hello->status != FPD_OK) {
        snprintf(why, why_size, "%.*s", (int)sizeof hello->why, hello->why);
        rc = FPD_ERR_UNAVAILABLE;
    }
    if (rc == FPD_OK && !(h->provenance = malloc(hello->text_len + 1))) {
        snprintf(why, why_size, "out of memory");
        rc = FPD_ERR_NOMEM;
    }
    if (rc == FPD_OK) {
        memcpy(h->provenance, hello->text, hello->text_len);
        h->provenance_len = hello->text_len;
        *out = h;
        h = NULL;
    }
done:
    for (int i = 0; i < 2; i++) {
        if (sv[i] >= 0)
            close(sv[i]);
        if (err[i] >= 0)
            close(err[i]);
    }
    if (devnull >= 0)
        close(devnull);
    if (env) {
        for (size_t i = 0; env_name && env[i]; i++)
            if (!env[i + 1])
                free(env[i]); /* the pinned variable, last: the others are environ's */
        free(env);
    }
    fpd_host_stop(h);
    return rc;
}

/* Elements a strided operand spans: batch entries of rows of ld, the last row `cols` long. */
static size_t span(size_t batch, size_t stride, size_t rows, size_t ld, size_t cols)
{
    return batch && rows && cols ? (batch - 1) * stride + (rows - 1) * ld + cols : 0;
}

static size_t align64(size_t x) { return (x + 63) & ~(size_t)63; }

#define GUARD_BYTE 0x5a

/* Grows the shared memory to at least `size` bytes. */
static int ensure_memory(struct fpd_host *h, size_t size)
{
    if (size <= h->map_size)
        return FPD_OK;
    size_t grown = (size + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
    if (ftruncate(h->memory, (off_t)grown) != 0)
        return FPD_ERR_NOMEM;
    void *map = mmap(NULL, grown, PROT_READ | PROT_WRITE, MAP_SHARED, h->memory, 0);
    if (map == MAP_FAILED)
        return FPD_ERR_NOMEM;
    if (h->map)
        munmap(h->map, h->map_size);
    h->map = map;
    h->map_size = grown;
    return FPD_OK;
}

/* Places the host's thread on the CPU this process runs on. The two never compute at once: on one
 * CPU, a request and its answer are plain switches from one to the other, where on two each is a
 * wake-up across CPUs, which a virtual machine's hypervisor makes slow (a round trip of 45 us
 * against 7 us, bench_host). Only the host moves; its library's other threads stay free. */
static void follow(struct fpd_host *h)
{
    int cpu = sched_getcpu();
    if (cpu < 0 || cpu == h->cpu)
        return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(h->pid, sizeof one, &one) == 0)
        h->cpu = cpu;
}

int fpd_host_renew(struct fpd_host **h, char *why, size_t why_size)
{
    if (fpd_host_usable(*h))
        return FPD_OK;
    struct fpd_host *old = *h, *fresh;
    int rc = fpd_host_start(old->label, old->name, old->has_env ? old->env_name : NULL, old->env_value, old->timeout,
                            &fresh, why, why_size);
    if (rc != FPD_OK)
        return rc;
    fpd_host_stop(old);
    *h = fresh;
    return FPD_OK;
}

int fpd_host_gemm(struct fpd_host *h, const struct fpd_gemm_args *g, double timeout, char *why, size_t why_size)
{
    if (!fpd_host_usable(h)) {
        snprintf(why, why_size, "the host process running %s is gone", h->label);
        return FPD_ERR_BACKEND;
    }
    size_t in = fpd_dtype_info(g->dt.in)->size, out = fpd_dtype_info(g->dt.out)->size;
    size_t a_bytes = span(g->batch, g->stride_a, g->trans_a ? g->k : g->m, g->lda, g->trans_a ? g->m : g->k) * in;
    size_t b_bytes = span(g->batch, g->stride_b, g->trans_b ? g->n : g->k, g->ldb, g->trans_b ? g->k : g->n) * in;
    size_t c_bytes = span(g->batch, g->stride_c, g->m, g->ldc, g->n) * out;
    size_t bias_bytes = g->bias ? g->n * out : 0, guard = g->ldc * out > 64 ? g->ldc * out : 64;
    struct host_request req = {.op = HOST_GEMM, .seq = ++h->seq};
    struct host_gemm *hg = &req.gemm;
    *hg = (struct host_gemm){
        .dt = g->dt, .batch = g->batch, .m = g->m, .n = g->n, .k = g->k, .lda = g->lda, .ldb = g->ldb,
        .ldc = g->ldc, .stride_a = g->stride_a, .stride_b = g->stride_b, .stride_c = g->stride_c,
        .trans_a = g->trans_a, .trans_b = g->trans_b, .threads = g->threads, .algo = g->algo, .route = (int32_t)g->route,
    };
    hg->a = 0;
    hg->b = align64(a_bytes);
    hg->bias = g->bias ? align64(hg->b + b_bytes) : NO_BIAS;
    hg->c = align64((g->bias ? hg->bias + bias_bytes : hg->b + b_bytes));
    if (ensure_memory(h, hg->c + c_bytes + guard) != FPD_OK) {
        snprintf(why, why_size, "out of memory for the operands shared with the host process running %s", h->label);
        return FPD_ERR_NOMEM;
    }
    req.memory_size = h->map_size;
    follow(h);
    /* C goes over whole, its row padding too: the caller's canaries there come back as the
     * backend left them. Past its end, a guard of our own. */
    memcpy(h->map + hg->a, g->a, a_bytes);
    memcpy(h->map + hg->b, g->b, b_bytes);
    if (g->bias)
        memcpy(h->map + hg->bias, g->bias, bias_bytes);
    memcpy(h->map + hg->c, g->c, c_bytes);
    memset(h->map + hg->c + c_bytes, GUARD_BYTE, guard);
    if (send(h->sock, &req, sizeof req, MSG_NOSIGNAL) != (ssize_t)sizeof req) {
        reap(h, "could not be sent a request (killed)", why, why_size);
        return FPD_ERR_BACKEND;
    }
    struct host_reply *r = &h->reply;
    int rc = receive(h, req.seq, timeout, r, why, why_size);
    if (rc == FPD_OK && r->status != FPD_OK) { /* the backend's own failure, in its own words */
        snprintf(why, why_size, "%.*s", (int)sizeof r->why, r->why);
        rc = FPD_ERR_BACKEND;
    }
    if (rc != FPD_OK)
        return rc;
    for (size_t i = 0; i < guard; i++)
        if (h->map[hg->c + c_bytes + i] != GUARD_BYTE) {
            snprintf(why, why_size, "%s wrote past the end of C", h->label);
            return FPD_ERR_BACKEND;
        }
    memcpy(g->c, h->map + hg->c, c_bytes);
    return FPD_OK;
}

void fpd_host_provenance(const struct fpd_host *h, fpd_provenance_fn emit, void *ctx)
{
    for (size_t at = 0; at < h->provenance_len;) {
        const char *key = h->provenance + at;
        size_t key_len = strnlen(key, h->provenance_len - at);
        if (at + key_len + 1 >= h->provenance_len)
            break;
        const char *value = key + key_len + 1;
        emit(ctx, key, value);
        at += key_len + 1 + strnlen(value, h->provenance_len - at - key_len - 1) + 1;
    }
}

bool fpd_host_usable(const struct fpd_host *h) { return h && !h->dead && h->owner == getpid(); }

const char *fpd_host_death(const struct fpd_host *h) { return h && h->death[0] ? h->death : NULL; }

void fpd_host_retire(struct fpd_host *h)
{
    if (!h)
        return;
    if (h->sock >= 0)
        close(h->sock); /* the host sees the end of its requests and leaves */
    if (h->memory >= 0)
        close(h->memory);
    if (h->map)
        munmap(h->map, h->map_size);
    h->sock = h->memory = -1;
    h->map = NULL;
    h->map_size = 0;
    if (h->pid > 0 && !h->dead && h->owner == getpid()) {
        int status;
        double deadline = fpd_now() + 2;
        while (waitpid(h->pid, &status, WNOHANG) == 0) {
            drain(h); /* what it says as it leaves, so that a full pipe does not hold it */
            if (fpd_now() > deadline) { /* busy in a GEMM it will never be asked for */
                kill(h->pid, SIGKILL);
                waitpid(h->pid, &status, 0);
                break;
            }
            usleep(1000);
        }
    }
    if (h->err >= 0)
        close(h->err);
    h->err = -1;
    h->dead = true;
}

void fpd_host_stop(struct fpd_host *h)
{
    fpd_host_retire(h);
    if (h)
        free(h->provenance);
    free(h);
}

/* ---- the host ---------------------------------------------------------------------------------- */

static void append_pair(void *ctx, const char *key, const char *value)
{
    struct host_reply *r = ctx;
    size_t k = strlen(key) + 1, v = strlen(value ? value : "") + 1;
    if (r->text_len + k + v > sizeof r->text)
        return;
    memcpy(r->text + r->text_len, key, k);
    memcpy(r->text + r->text_len + k, value ? value : "", v);
    r->text_len += (uint32_t)(k + v);
}

static bool reply(const struct host_reply *r)
{
    size_t len = offsetof(struct host_reply, text) + r->text_len;
    return send(HOST_SOCKET_FD, r, len, MSG_NOSIGNAL) == (ssize_t)len;
}

/* Whether the request's operands lie inside the shared memory. */
static bool inside(const struct host_gemm *g, size_t size)
{
    size_t in = fpd_dtype_info(g->dt.in)->size, out = fpd_dtype_info(g->dt.out)->size;
    size_t ends[] = {
        g->a + span(g->batch, g->stride_a, g->trans_a ? g->k : g->m, g->lda, g->trans_a ? g->m : g->k) * in,
        g->b + span(g->batch, g->stride_b, g->trans_b ? g->n : g->k, g->ldb, g->trans_b ? g->k : g->n) * in,
        g->c + span(g->batch, g->stride_c, g->m, g->ldc, g->n) * out,
        g->bias == NO_BIAS ? 0 : g->bias + g->n * out,
    };
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++)
        if (ends[i] > size)
            return false;
    return true;
}

int fpd_host_serve(struct fpd_backend_slot *slot, const char *why_unavailable)
{
    struct host_reply *r = calloc(1, sizeof *r);
    if (!r)
        return FPD_ERR_NOMEM;
    r->op = HOST_HELLO;
    r->status = why_unavailable ? FPD_ERR_UNAVAILABLE : FPD_OK;
    if (why_unavailable)
        snprintf(r->why, sizeof r->why, "%s", why_unavailable);
    else if (slot->impl->provenance)
        slot->impl->provenance(slot->handle, append_pair, r);
    bool going = reply(r) && !why_unavailable;
    unsigned char *map = NULL;
    size_t map_size = 0;
    while (going) {
        struct host_request req;
        ssize_t got = recv(HOST_SOCKET_FD, &req, sizeof req, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got != (ssize_t)sizeof req || req.op != HOST_GEMM)
            break; /* fpdiv has gone (or speaks nonsense): so does the host */
        *r = (struct host_reply){.op = HOST_GEMM, .seq = req.seq};
        if (req.memory_size > map_size) {
            if (map)
                munmap(map, map_size);
            map = mmap(NULL, req.memory_size, PROT_READ | PROT_WRITE, MAP_SHARED, HOST_MEMORY_FD, 0);
            map_size = map == MAP_FAILED ? 0 : req.memory_size;
            if (map == MAP_FAILED)
                map = NULL;
        }
        const struct host_gemm *g = &req.gemm;
        if (!map || !inside(g, map_size)) {
            r->status = FPD_ERR_INTERNAL;
            snprintf(r->why, sizeof r->why, "%s: the host could not map the operands", slot->impl->name);
        } else {
            struct fpd_gemm_args args = {
                .dt = g->dt, .batch = g->batch, .m = g->m, .n = g->n, .k = g->k, .trans_a = g->trans_a,
                .trans_b = g->trans_b, .a = map + g->a, .lda = g->lda, .stride_a = g->stride_a, .b = map + g->b,
                .ldb = g->ldb, .stride_b = g->stride_b, .c = map + g->c, .ldc = g->ldc, .stride_c = g->stride_c,
                .bias = g->bias == NO_BIAS ? NULL : map + g->bias, .threads = g->threads, .algo = g->algo,
                .route = (enum fpd_route)g->route,
            };
            r->status = fpd_backend_gemm(slot, &args, r->why, sizeof r->why);
        }
        going = reply(r);
    }
    if (map)
        munmap(map, map_size);
    free(r);
    return FPD_OK;
}
