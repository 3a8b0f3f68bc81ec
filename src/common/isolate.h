/*
 * isolate.h — running one piece of work in a child process, so that a crash, a hang or an exit
 * in code fpdiv does not control (a backend, a GPU driver) costs the child and not fpdiv.
 * Linked into the CUDA plugin too, whose device probe runs this way.
 */
#ifndef FPD_ISOLATE_H
#define FPD_ISOLATE_H

#include <stdbool.h>
#include <stddef.h>

/* Runs fn(ctx) in a child process and returns what it returned (0..255), or -1 with why set when
 * the child died from a signal, ran past `timeout` seconds (0: no limit) and was killed, or exited
 * before fn returned (a backend calling exit). Standard output and error are shared; the child
 * flushes them before it exits. The child is killed if fpdiv dies. */
int fpd_run_isolated(int (*fn)(void *ctx), void *ctx, double timeout, char *why, size_t why_size);

/* In a process that computes and prints nothing of its own (a campaign's worker, a check's child):
 * what a library prints to standard output (OpenBLAS's xerbla: "On entry to SGEMMT parameter number
 * 10 had an illegal value") goes to standard error instead, never among fpdiv's results on standard
 * output (a --json line broken by it is lost to its reader). */
void fpd_stdout_to_stderr(void);

/* Why a child ended early, from its wait status: "killed by signal 11 (Segmentation fault)", "timed
 * out after 5 s (worker killed)" or the exit status. */
void fpd_describe_death(int status, bool timed_out, double timeout, char *buf, size_t size);

#endif
