/*
 * server.h — a process that computes GEMMs for fpdiv: started with a socket on descriptor 3 and
 * a shared-memory file on descriptor 4, its stderr kept for the reason it fails.
 *
 * Two kinds speak over it: hosts (fpdiv itself running a backend elsewhere: host.h) and the
 * bridge's servers (a framework in Python: bridge.h). Both put a GEMM's operands in the shared
 * memory, send a request, and wait for the answer with a deadline; a server that dies, hangs or
 * answers nonsense is reaped, and how it ended becomes the reason. A server belongs to the process
 * that started it: one forked from that process (a worker) starts its own, since two processes
 * talking over one socket would mix their answers.
 */
#ifndef FPD_SERVER_H
#define FPD_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fpdiv_backend.h"

enum { FPD_SERVER_SOCKET_FD = 3, FPD_SERVER_MEMORY_FD = 4 };

struct fpd_server {
    char role[32];   /* in messages: "host", "bridge server" */
    char label[160]; /* and what it runs: "openblas@Haswell", "torch" */
    pid_t pid, owner;
    int sock, memory;
    int err;        /* the read end of the server's stderr */
    char said[512]; /* the last of what it wrote there */
    size_t said_len;
    unsigned char *map;
    size_t map_size;
    bool follows; /* placed on its client's CPU before each request (see fpd_server_stage) */
    int cpu;      /* the CPU the server's thread is placed on; -1: not yet */
    bool dead;
    char death[320]; /* how it ended: "was killed by signal 4 (Illegal instruction)" */
};

/* Starts argv[0] with argv and env (NULL-terminated) on a socket of type sock_type (SOCK_SEQPACKET,
 * SOCK_STREAM). Messages call it "the ROLE process running LABEL". FPD_OK, or FPD_ERR_BACKEND with
 * why. */
int fpd_server_start(struct fpd_server *s, const char *role, const char *label, char *const argv[], char *const env[],
                     int sock_type, char *why, size_t why_size);
/* How long a wait may last: until `deadline` (fpd_now() seconds; 0: no limit), and, each time it
 * comes while `moving` (when given) says the server got on with its work since it was last
 * asked, `timeout` seconds more. The reason for a server killed at the deadline names `timeout`. */
struct fpd_server_patience {
    double deadline, timeout;
    bool (*moving)(void *ctx);
    void *ctx;
};
/* Waits until the socket has something to read (or its end closed): FPD_OK. FPD_ERR_BACKEND with
 * why once the server has died, or at the deadline (then killed). */
int fpd_server_wait(struct fpd_server *s, struct fpd_server_patience *patience, char *why, size_t why_size);
/* Kills the server when `killed` says why ("sent a malformed answer (killed)"), waits for its end,
 * and says how it ended, with the last line it wrote to stderr. */
void fpd_server_reap(struct fpd_server *s, const char *killed, char *why, size_t why_size);
/* Whether this process may use it: it started it, and it has not died. */
bool fpd_server_usable(const struct fpd_server *s);
/* Ends it (when this process started it): its socket closed, it leaves, or is killed after 2 s. */
void fpd_server_retire(struct fpd_server *s);

/* Where a GEMM's operands lie in the shared memory (byte offsets), and the guard after C. */
struct fpd_server_layout {
    size_t a, b, bias, c, end, guard;
    size_t a_bytes, b_bytes, bias_bytes, c_bytes;
};
/* Puts A, B, the bias and C (whole, with its row padding) into the shared memory from byte `at`
 * on (several GEMMs go one after the other: the next from l->end), grown as needed and keeping
 * what is below `at`, with a guard after C, and, for a server that `follows`, places its thread
 * on this CPU. FPD_ERR_NOMEM. */
int fpd_server_stage(struct fpd_server *s, const struct fpd_gemm_args *g, size_t at, struct fpd_server_layout *l);
/* After the answer: C back into the caller's, or FPD_ERR_BACKEND when the server wrote past it. */
int fpd_server_unstage(struct fpd_server *s, const struct fpd_gemm_args *g, const struct fpd_server_layout *l,
                       char *why, size_t why_size);

#endif
