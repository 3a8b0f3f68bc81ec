/*
 * reveal.h — rebuild a summation tree from cancellation queries.
 *
 * A query puts +M and -M on two terms p and q and ones on every other term, with M large enough that
 * adding any number of ones to ±M gives ±M back. The pair cancels where their sum is formed; the
 * ones added inside the two operands that held ±M are lost, every other one is counted. So the
 * output tells size(child of the LCA holding p) + size(child holding q): for an ordinary two-operand
 * addition, the size of the smallest subtree holding both; for a fused multi-term add, less.
 *
 * From one pivot's queries against every other term of a subtree, the pivot's path to the subtree's
 * root is known (the answers, grouped, are the sizes along it); each group is a subtree, revealed
 * the same way. That is O(k · depth) queries: k - 1 for a sequential sum, about k/2 · log2 k for a
 * pairwise tree, instead of the k² of asking every pair. The queries of all subtrees pending at
 * one depth are asked together, so a backend can answer many in one call.
 *
 * Fused adds (nodes with more than two operands) are read on the assumption that they are exact
 * before their one rounding. Two readings of a pivot's answers can then fit: more operands of the
 * fused add just found, or a new fused add over it; one extra query tells them apart where any
 * can. Some trees answer every query alike — ((t0 t1) t2 t3) and (t0 t1 (t2 t3)), both fused at
 * the root — and then the accumulating reading (a new add over the last, as tensor cores do) is
 * reported, or the other where that one fails the check below.
 */
#ifndef FPD_REVEAL_H
#define FPD_REVEAL_H

#include "explain/sumtree.h"

struct fpd_reveal_oracle {
    /* For each pair (pairs[2i], pairs[2i+1]) the measured size, into sizes[i]. alone: each query on
     * its own, at exactly the element being explained (no batching). A status on failure, with why. */
    int (*query)(void *ctx, const uint32_t *pairs, size_t count, bool alone, uint32_t *sizes, char *why,
                 size_t why_size);
    void *ctx;
    /* Optional (NULL: none). Called once batched answers disagreed with the element's own: moves
     * the batched queries to elements summed in the explained element's order, where it can tell
     * them (a library's edge kernels sum some rows and columns in another order than its main
     * kernel). *narrowed: whether batching is worth another try. A status on failure. */
    int (*narrow)(void *ctx, bool *narrowed, char *why, size_t why_size);
};

struct fpd_reveal_stats {
    size_t queries;        /* to build the tree, in the last attempt */
    size_t rounds;         /* batches of queries asked together (the tree's depth, about) */
    size_t verify_queries; /* random pairs asked again, alone, and checked against the tree */
    bool alone;            /* whether the tree was revealed with every query on its own */
    bool batch_mismatch;   /* the batched answers disagreed with the element's own: narrowed, or redone alone */
    bool narrowed;         /* then asked again, batched where the oracle's narrow placed them */
};

/* Reveals the tree over `leaves` terms (the last being the bias when has_bias), then checks it
 * against random pairs asked alone; when batched answers disagree, starts again batched where the
 * oracle's narrow puts them, and when those disagree too (or it cannot), with every query alone. FPD_ERR_BACKEND when the answers fit no summation tree or a query failed (why says which). */
int fpd_reveal(uint32_t leaves, bool has_bias, const struct fpd_reveal_oracle *o, bool alone,
               struct fpd_sumtree *out, struct fpd_reveal_stats *st, char *why, size_t why_size);

#endif
