/*
 * probe.h — cancellation queries on a real backend: the oracle behind `fpdiv explain`.
 *
 * A is all ones; column j of B holds one query: +M and -M at terms p and q, `one` everywhere else
 * (or ±M in bias[j] when the bias is a term). Every column of B is a query, so one GEMM call asks n
 * of them. M and `one` are powers of two chosen per dtype: M / one is large enough that the
 * accumulator absorbs every one added to ±M, and every count of ones is exact in the accumulator
 * and in the output.
 */
#ifndef FPD_PROBE_H
#define FPD_PROBE_H

#include "backends/backend.h"
#include "explain/reveal.h"

struct fpd_probe_target {
    struct fpd_backend_slot *backend;
    struct fpd_dtypes dt;
    size_t batch, m, n, k;
    bool trans_a, trans_b;
    bool bias; /* the backend's fused bias is a term (leaf k) */
    int threads, algo;
    enum fpd_route route; /* the library's gemm, or its gemv or dot (fpdiv_backend.h) */
    size_t at_batch, at_row, at_col; /* the element explained */
};

struct fpd_probe {
    struct fpd_probe_target target;
    int one_exp, big_exp; /* one = 2^one_exp, M = 2^big_exp */
    uint32_t leaves;
    void *a, *b, *c, *bias;
    size_t lda, ldb, ldc;
    size_t calls; /* GEMM calls made */
    /* Where batched queries go: columns[0..usable) of B, query i's answer read in row
     * read_row[columns[i]] (of batch entry at_batch). At first every column, read in at_row; after
     * the oracle's narrow, the columns with an element summed as the explained one, read there. */
    size_t *columns, *read_row, usable;
    size_t fingerprints; /* the pairs narrow asked in every column (0: it has not) */
};

/* Checks the target and chooses M; FPD_ERR_INPUT (why says what to change) when no M works for
 * these dtypes and k, FPD_ERR_UNAVAILABLE when the backend cannot run here. */
int fpd_probe_open(struct fpd_probe *p, const struct fpd_probe_target *t, char *why, size_t why_size);
void fpd_probe_close(struct fpd_probe *p);
/* The oracle for fpd_reveal. */
struct fpd_reveal_oracle fpd_probe_oracle(struct fpd_probe *p);

#endif
