/*
 * sumtree.h — summation trees: the order in which a backend adds the terms of one output element.
 *
 * Leaves are the k products A[i][p]*B[p][j] (leaf p) and, when the bias is part of the sum, the bias
 * (leaf k). An internal node adds its children and rounds once: two children for an ordinary
 * addition or FMA, more for a fused multi-term add (tensor cores). Trees are built by `explain`
 * (reveal.c) and compared, described and drawn here.
 */
#ifndef FPD_SUMTREE_H
#define FPD_SUMTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#define FPD_NO_NODE (-1)

struct fpd_sumnode {
    int32_t leaf;   /* the term's index, or -1 for an internal node */
    int32_t parent; /* FPD_NO_NODE for the root */
    int32_t first_child, next_sibling;
    uint32_t children;
    /* after fpd_sumtree_finish: */
    uint32_t size; /* leaves below */
    uint32_t min_leaf;
    uint32_t depth; /* the root's is 0 */
};

struct fpd_sumtree {
    struct fpd_sumnode *node;
    size_t count, cap;
    uint32_t leaves; /* k, plus one when the bias is a leaf */
    bool has_bias;   /* leaf `leaves - 1` is the bias */
    int32_t root;
    int32_t *leaf_node; /* after fpd_sumtree_finish: the node of each leaf */
};

void fpd_sumtree_init(struct fpd_sumtree *t, uint32_t leaves, bool has_bias);
void fpd_sumtree_free(struct fpd_sumtree *t);
/* New nodes: their index, or FPD_NO_NODE when out of memory. */
int32_t fpd_sumtree_leaf(struct fpd_sumtree *t, uint32_t leaf);
int32_t fpd_sumtree_internal(struct fpd_sumtree *t);
/* Makes child the next child of parent. */
void fpd_sumtree_adopt(struct fpd_sumtree *t, int32_t parent, int32_t child);
/* Fixes the root, computes sizes and sorts every node's children by their smallest leaf (a canonical
 * form). FPD_OK, or FPD_ERR_INTERNAL when the nodes do not form one tree over every leaf once. */
int fpd_sumtree_finish(struct fpd_sumtree *t, int32_t root, char *why, size_t why_size);

/* Adds a bias leaf at the top of a finished tree without one: the bias added last, as fpdiv adds it
 * after a GEMM that has no fused bias. */
int fpd_sumtree_append_bias(struct fpd_sumtree *t, char *why, size_t why_size);

/* Pushes node id's children onto stack[top...] so that its first child (canonical order) is popped
 * first: a walk in preorder, children in order, with an explicit stack. Returns the new top. */
size_t fpd_sumtree_push_children(const struct fpd_sumtree *t, int32_t id, int32_t *stack, size_t top);

/* Structural equality of two finished trees (children in canonical order). */
bool fpd_sumtree_equal(const struct fpd_sumtree *a, const struct fpd_sumtree *b);
/* The lowest common ancestor of two leaves' nodes, and the sizes of its children holding each: what
 * a ±M query at those leaves measures is the sum of the two sizes. */
uint32_t fpd_sumtree_query_size(const struct fpd_sumtree *t, uint32_t leaf_p, uint32_t leaf_q);
/* Depth of the deepest leaf (a single leaf has depth 0). */
uint32_t fpd_sumtree_depth(const struct fpd_sumtree *t);

/* Documented orders, built as trees (finished): the orders of fpdiv's own kernels. A sum of no
 * terms (k = 0) has no tree: FPD_ERR_INPUT, and t is left empty. */
int fpd_sumtree_build_sequential(struct fpd_sumtree *t, uint32_t k);
int fpd_sumtree_build_pairwise(struct fpd_sumtree *t, uint32_t k);
int fpd_sumtree_build_splitk(struct fpd_sumtree *t, uint32_t k, uint32_t parts);

/* Which documented orders a tree is: names of fpdiv's own kernels ("seq, blocked, cuda-seq,
 * cuda-tiled"), or NULL. Only trees without a bias leaf are recognised. */
const char *fpd_sumtree_known_order(const struct fpd_sumtree *t);

/* One line (no newline) saying how the terms are added, e.g. "sequential over k",
 * "8 interleaved lanes, each sequential; then the 8 lanes: pairwise". */
void fpd_sumtree_describe(const struct fpd_sumtree *t, char *buf, size_t size);

/* A finished tree as JSON, {"terms", "bias", "parent"} (sumtree_json.c), or NULL when out of memory;
 * and back, checked as untrusted input: FPD_ERR_INPUT with why, FPD_ERR_NOMEM, or FPD_OK with a
 * finished tree. */
json_t *fpd_sumtree_json(const struct fpd_sumtree *t);
int fpd_sumtree_from_json(json_t *j, struct fpd_sumtree *t, char *why, size_t why_size);

/* Graphviz DOT and a drawn SVG (leaves left to right in k order, additions above them). */
int fpd_sumtree_write_dot(const struct fpd_sumtree *t, FILE *f, const char *title);
int fpd_sumtree_write_svg(const struct fpd_sumtree *t, FILE *f, const char *title);

#endif
