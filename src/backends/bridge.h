/*
 * bridge.h — a framework served by a Python process: the bridge's client side.
 *
 * Frameworks (NumPy, PyTorch, JAX) bring their own BLAS, and a framework loaded into fpdiv's
 * process can pick up another library's symbols in place of its own (a prototype that embedded
 * CPython got OpenBLAS's sgemm_ for torch's, and 955 differing elements became 896). So each runs
 * in a server of its own, scripts/bridge/fpdiv_bridge.py, spoken to in JSON lines over a socket,
 * with the operands in shared memory (server.h); the protocol is written out in that file. A
 * request carries many GEMMs, since a round trip costs more than a small one. A server that dies,
 * hangs or answers nonsense makes the GEMM it was at fail with the reason, and is started afresh
 * for the ones it had not begun.
 */
#ifndef FPD_BRIDGE_H
#define FPD_BRIDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "fpdiv_backend.h"

struct fpd_bridge;

/* What a server is started with: `python server framework`. */
struct fpd_bridge_spec {
    const char *label;     /* in messages: the backend's name */
    const char *python;    /* the interpreter */
    const char *server;    /* fpdiv_bridge.py */
    const char *framework; /* its argument: a module of frameworks/, or a file */
    double timeout;        /* for its hello (importing torch takes seconds) and each answer; 0: none */
};

/* Starts a server and reads its hello: FPD_OK; FPD_ERR_UNAVAILABLE with the server's reason (the
 * framework is not installed); FPD_ERR_BACKEND when it died, timed out or said nonsense. */
int fpd_bridge_start(const struct fpd_bridge_spec *spec, struct fpd_bridge **out, char *why, size_t why_size);
/* Starts *b again when this process may not use it (it died, or this is a worker forked from the
 * process that started it). */
int fpd_bridge_renew(struct fpd_bridge **b, char *why, size_t why_size);
/* GEMMs in the server, those whose status[i] is FPD_BRIDGE_UNSETTLED, in as few requests as fit:
 * each gets its outcome in status[i], FPD_OK or FPD_ERR_BACKEND with the reason at why + i *
 * why_size (the framework's error, the server's death or hang, a malformed answer, a write past
 * C); except, when the server dies or hangs, those it had not begun, which stay unsettled for the
 * next server (fpd_bridge_renew). At least one is settled when the server was usable. */
#define FPD_BRIDGE_UNSETTLED (-1)
void fpd_bridge_gemm_many(struct fpd_bridge *b, size_t count, const struct fpd_gemm_args *const *args, int *status,
                          char *why, size_t why_size);
/* The same GEMMs (at most 64) in one request, which the server runs from as many threads at once,
 * started together (the concurrent relation: a framework called from several threads). */
void fpd_bridge_gemm_concurrent(struct fpd_bridge *b, size_t count, const struct fpd_gemm_args *const *args,
                                int *status, char *why, size_t why_size);
/* Whether the server said it computes these dtypes, and has a feature ("fused_bias", "vmap", …). */
bool fpd_bridge_supports(const struct fpd_bridge *b, const struct fpd_dtypes *dt);
bool fpd_bridge_has_feature(const struct fpd_bridge *b, const char *feature);
/* The provenance the server reported. */
void fpd_bridge_provenance(const struct fpd_bridge *b, fpd_provenance_fn emit, void *ctx);
void fpd_bridge_stop(struct fpd_bridge *b);

#endif
