/* sumtree.c — summation trees: building, the canonical form, comparison, and documented orders. */
#define _GNU_SOURCE /* qsort_r */
#include "explain/sumtree.h"

#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "fpdiv_backend.h"

void fpd_sumtree_init(struct fpd_sumtree *t, uint32_t leaves, bool has_bias)
{
    *t = (struct fpd_sumtree){.leaves = leaves, .has_bias = has_bias, .root = FPD_NO_NODE};
}

void fpd_sumtree_free(struct fpd_sumtree *t)
{
    free(t->node);
    free(t->leaf_node);
    *t = (struct fpd_sumtree){.root = FPD_NO_NODE};
}

static int32_t new_node(struct fpd_sumtree *t, int32_t leaf)
{
    if (t->count >= INT32_MAX)
        return FPD_NO_NODE;
    if (!FPD_ARRAY_RESERVE(t->node, t->cap, t->count + 1))
        return FPD_NO_NODE;
    t->node[t->count] = (struct fpd_sumnode){.leaf = leaf, .parent = FPD_NO_NODE, .first_child = FPD_NO_NODE,
                                             .next_sibling = FPD_NO_NODE};
    return (int32_t)t->count++;
}

int32_t fpd_sumtree_leaf(struct fpd_sumtree *t, uint32_t leaf) { return new_node(t, (int32_t)leaf); }
int32_t fpd_sumtree_internal(struct fpd_sumtree *t) { return new_node(t, -1); }

void fpd_sumtree_adopt(struct fpd_sumtree *t, int32_t parent, int32_t child)
{
    /* prepend: finish() sorts the children anyway */
    t->node[child].parent = parent;
    t->node[child].next_sibling = t->node[parent].first_child;
    t->node[parent].first_child = child;
    t->node[parent].children++;
}

static int by_min_leaf(const void *x, const void *y, void *nodes)
{
    const struct fpd_sumnode *n = nodes;
    uint32_t a = n[*(const int32_t *)x].min_leaf, b = n[*(const int32_t *)y].min_leaf;
    return (a > b) - (a < b);
}

/* Nodes in an order where every child comes before its parent (iterative: sequential trees are as
 * deep as k). Returns the number of nodes reached from the root. */
static size_t postorder(const struct fpd_sumtree *t, int32_t *order, int32_t *stack)
{
    size_t top = 0, out = 0;
    stack[top++] = t->root;
    while (top > 0) {
        int32_t v = stack[--top];
        order[out++] = v;
        for (int32_t c = t->node[v].first_child; c != FPD_NO_NODE; c = t->node[c].next_sibling)
            stack[top++] = c;
    }
    /* that is a preorder with children reversed; reversed, every child precedes its parent */
    for (size_t i = 0; i < out / 2; i++) {
        int32_t x = order[i];
        order[i] = order[out - 1 - i];
        order[out - 1 - i] = x;
    }
    return out;
}

int fpd_sumtree_finish(struct fpd_sumtree *t, int32_t root, char *why, size_t why_size)
{
    t->root = root;
    int32_t *order = malloc(t->count * sizeof *order), *stack = malloc(t->count * sizeof *stack),
            *kids = malloc(t->count * sizeof *kids);
    free(t->leaf_node);
    t->leaf_node = malloc((t->leaves ? t->leaves : 1) * sizeof *t->leaf_node);
    int rc = FPD_ERR_NOMEM;
    if (!order || !stack || !kids || !t->leaf_node)
        goto done;
    rc = FPD_ERR_INTERNAL;
    for (uint32_t i = 0; i < t->leaves; i++)
        t->leaf_node[i] = FPD_NO_NODE;
    size_t reached = postorder(t, order, stack);
    size_t leaves_seen = 0;
    for (size_t i = 0; i < reached; i++) {
        struct fpd_sumnode *v = &t->node[order[i]];
        if (v->leaf >= 0) {
            if ((uint32_t)v->leaf >= t->leaves || t->leaf_node[v->leaf] != FPD_NO_NODE) {
                snprintf(why, why_size, "summation tree: leaf %d is out of range or appears twice", v->leaf);
                goto done;
            }
            t->leaf_node[v->leaf] = order[i];
            v->size = 1, v->min_leaf = (uint32_t)v->leaf;
            leaves_seen++;
            continue;
        }
        if (v->children < 2) {
            snprintf(why, why_size, "summation tree: an addition with %u operand(s)", v->children);
            goto done;
        }
        size_t n = 0;
        v->size = 0, v->min_leaf = UINT32_MAX;
        for (int32_t c = v->first_child; c != FPD_NO_NODE; c = t->node[c].next_sibling) {
            kids[n++] = c;
            v->size += t->node[c].size;
            if (t->node[c].min_leaf < v->min_leaf)
                v->min_leaf = t->node[c].min_leaf;
        }
        qsort_r(kids, n, sizeof *kids, by_min_leaf, t->node);
        v->first_child = kids[0];
        for (size_t c = 0; c < n; c++)
            t->node[kids[c]].next_sibling = c + 1 < n ? kids[c + 1] : FPD_NO_NODE;
    }
    if (leaves_seen != t->leaves) {
        snprintf(why, why_size, "summation tree: %zu of %u terms are in the tree", leaves_seen, t->leaves);
        goto done;
    }
    t->node[root].depth = 0;
    for (size_t i = reached; i-- > 0;) /* parents before children */
        for (int32_t c = t->node[order[i]].first_child; c != FPD_NO_NODE; c = t->node[c].next_sibling)
            t->node[c].depth = t->node[order[i]].depth + 1;
    rc = FPD_OK;
done:
    if (rc == FPD_ERR_NOMEM)
        snprintf(why, why_size, "out of memory");
    free(order);
    free(stack);
    free(kids);
    return rc;
}

int fpd_sumtree_append_bias(struct fpd_sumtree *t, char *why, size_t why_size)
{
    int32_t top = fpd_sumtree_internal(t), bias = fpd_sumtree_leaf(t, t->leaves);
    if (top == FPD_NO_NODE || bias == FPD_NO_NODE) {
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    fpd_sumtree_adopt(t, top, t->root);
    fpd_sumtree_adopt(t, top, bias);
    t->leaves++, t->has_bias = true;
    return fpd_sumtree_finish(t, top, why, why_size);
}

size_t fpd_sumtree_push_children(const struct fpd_sumtree *t, int32_t id, int32_t *stack, size_t top)
{
    size_t first = top;
    for (int32_t c = t->node[id].first_child; c != FPD_NO_NODE; c = t->node[c].next_sibling)
        stack[top++] = c;
    for (size_t lo = first, hi = top; lo + 1 < hi; lo++, hi--) { /* reversed: the first comes out first */
        int32_t s = stack[lo];
        stack[lo] = stack[hi - 1], stack[hi - 1] = s;
    }
    return top;
}

bool fpd_sumtree_equal(const struct fpd_sumtree *a, const struct fpd_sumtree *b)
{
    if (a->leaves != b->leaves || a->has_bias != b->has_bias || a->count != b->count)
        return false;
    int32_t *stack = malloc(2 * a->count * sizeof *stack);
    if (!stack)
        return false;
    size_t top = 0;
    bool same = true;
    stack[top++] = a->root, stack[top++] = b->root;
    while (same && top > 0) {
        const struct fpd_sumnode *y = &b->node[stack[--top]], *x = &a->node[stack[--top]];
        if (x->leaf != y->leaf || x->children != y->children) {
            same = false;
            break;
        }
        for (int32_t cx = x->first_child, cy = y->first_child; cx != FPD_NO_NODE;
             cx = a->node[cx].next_sibling, cy = b->node[cy].next_sibling)
            stack[top++] = cx, stack[top++] = cy;
    }
    free(stack);
    return same;
}

uint32_t fpd_sumtree_query_size(const struct fpd_sumtree *t, uint32_t leaf_p, uint32_t leaf_q)
{
    int32_t p = t->leaf_node[leaf_p], q = t->leaf_node[leaf_q];
    /* a leaf is nobody's ancestor, so at equal depth p != q; then climb until they are siblings */
    while (t->node[p].depth > t->node[q].depth)
        p = t->node[p].parent;
    while (t->node[q].depth > t->node[p].depth)
        q = t->node[q].parent;
    while (t->node[p].parent != t->node[q].parent) {
        p = t->node[p].parent;
        q = t->node[q].parent;
    }
    return t->node[p].size + t->node[q].size;
}

uint32_t fpd_sumtree_depth(const struct fpd_sumtree *t)
{
    uint32_t d = 0;
    for (uint32_t i = 0; i < t->leaves; i++)
        if (t->node[t->leaf_node[i]].depth > d)
            d = t->node[t->leaf_node[i]].depth;
    return d;
}

/* ---- documented orders ---- */

static int32_t add2(struct fpd_sumtree *t, int32_t x, int32_t y)
{
    int32_t n = fpd_sumtree_internal(t);
    if (n != FPD_NO_NODE && x != FPD_NO_NODE && y != FPD_NO_NODE) {
        fpd_sumtree_adopt(t, n, x);
        fpd_sumtree_adopt(t, n, y);
        return n;
    }
    return FPD_NO_NODE;
}

/* Terms [from, to) added one at a time in increasing order. */
static int32_t chain(struct fpd_sumtree *t, uint32_t from, uint32_t to)
{
    int32_t acc = fpd_sumtree_leaf(t, from);
    for (uint32_t p = from + 1; p < to; p++)
        acc = add2(t, acc, fpd_sumtree_leaf(t, p));
    return acc;
}

static int finish_built(struct fpd_sumtree *t, int32_t root)
{
    char why[128];
    return root == FPD_NO_NODE ? FPD_ERR_NOMEM : fpd_sumtree_finish(t, root, why, sizeof why);
}

int fpd_sumtree_build_sequential(struct fpd_sumtree *t, uint32_t k)
{
    fpd_sumtree_init(t, k, false);
    if (k == 0)
        return FPD_ERR_INPUT;
    return finish_built(t, chain(t, 0, k));
}

/* kernels/cpu/pairwise.c: complete power-of-two subtrees on a stack, like a binary counter, then the
 * stack added from the top (smallest) down. */
int fpd_sumtree_build_pairwise(struct fpd_sumtree *t, uint32_t k)
{
    fpd_sumtree_init(t, k, false);
    if (k == 0)
        return FPD_ERR_INPUT;
    int32_t sum[64];
    uint64_t size[64];
    int top = 0;
    for (uint32_t p = 0; p < k; p++) {
        int32_t x = fpd_sumtree_leaf(t, p);
        uint64_t s = 1;
        while (top > 0 && size[top - 1] == s) {
            x = add2(t, sum[--top], x);
            s *= 2;
        }
        sum[top] = x, size[top++] = s;
    }
    int32_t acc = sum[--top];
    while (top > 0)
        acc = add2(t, sum[--top], acc);
    return finish_built(t, acc);
}

/* kernels/cpu/splitk.c: `parts` contiguous parts of ceil(k / parts), each sequential, then added in
 * order. An empty part adds +0, which rounds nothing and is no term. */
int fpd_sumtree_build_splitk(struct fpd_sumtree *t, uint32_t k, uint32_t parts)
{
    fpd_sumtree_init(t, k, false);
    if (k == 0 || parts == 0)
        return FPD_ERR_INPUT;
    uint32_t len = (k + parts - 1) / parts;
    int32_t total = FPD_NO_NODE;
    for (uint32_t s = 0; s < parts && s * len < k; s++) {
        uint32_t end = (s + 1) * len < k ? (s + 1) * len : k;
        int32_t part = chain(t, s * len, end);
        total = s == 0 ? part : add2(t, total, part);
    }
    return finish_built(t, total);
}

static int build_splitk4(struct fpd_sumtree *t, uint32_t k) { return fpd_sumtree_build_splitk(t, k, 4); }

static const struct known_order {
    int (*build)(struct fpd_sumtree *t, uint32_t k);
    const char *kernels;
} known_orders[] = {
    {fpd_sumtree_build_sequential, "seq, blocked, cuda-seq, cuda-tiled"},
    {fpd_sumtree_build_pairwise, "pairwise"},
    {build_splitk4, "splitk, cuda-splitk"},
};

const char *fpd_sumtree_known_order(const struct fpd_sumtree *t)
{
    static __thread char names[256];
    names[0] = '\0';
    if (t->has_bias || t->leaves == 0)
        return NULL;
    for (size_t i = 0; i < sizeof known_orders / sizeof known_orders[0]; i++) {
        struct fpd_sumtree doc;
        if (known_orders[i].build(&doc, t->leaves) == FPD_OK && fpd_sumtree_equal(t, &doc)) {
            size_t used = strlen(names);
            snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", known_orders[i].kernels);
        }
        fpd_sumtree_free(&doc);
    }
    return names[0] ? names : NULL;
}
