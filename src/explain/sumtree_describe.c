/*
 * sumtree_describe.c — a summation tree in words.
 *
 * A tree is read level by level. At each level the terms (or the blocks of the level below) are
 * grouped into parts: maximal chains (one term added at a time) and fused adds of terms. The
 * partition is named by its shape (contiguous blocks: split-K; residue classes: interleaved lanes),
 * and the tree above the parts, with each part as one unit, is the next level. A level that is one
 * chain in order is "sequential"; one that is fpdiv's pairwise tree is "pairwise".
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "explain/sumtree.h"
#include "fpdiv_backend.h"

struct text {
    char *buf;
    size_t size, used;
};

__attribute__((format(printf, 2, 3))) static void say(struct text *t, const char *fmt, ...)
{
    if (t->used >= t->size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->used, t->size - t->used, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->used = t->used + (size_t)n < t->size ? t->used + (size_t)n : t->size;
}

static const struct fpd_sumnode *child(const struct fpd_sumtree *t, const struct fpd_sumnode *v, int i)
{
    int32_t c = v->first_child;
    while (i-- > 0)
        c = t->node[c].next_sibling;
    return &t->node[c];
}

static bool is_leaf(const struct fpd_sumnode *v) { return v->leaf >= 0; }

/* The leaves of a chain from the first addition up (units[0], units[1] are added first), or false
 * when v is not a chain. units has room for v->size. */
static bool chain_order(const struct fpd_sumtree *t, const struct fpd_sumnode *v, uint32_t *units)
{
    uint32_t n = v->size, at = n;
    while (!is_leaf(v)) {
        if (v->children != 2)
            return false;
        const struct fpd_sumnode *c0 = child(t, v, 0), *c1 = child(t, v, 1);
        if (is_leaf(c0) && is_leaf(c1)) {
            units[0] = (uint32_t)c0->leaf, units[1] = (uint32_t)c1->leaf;
            return at == 2;
        }
        if (!is_leaf(c0) && !is_leaf(c1))
            return false;
        units[--at] = (uint32_t)(is_leaf(c1) ? c1 : c0)->leaf;
        v = is_leaf(c1) ? c0 : c1;
    }
    return false; /* a single leaf is no chain */
}

static bool ascending(const uint32_t *u, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++)
        if (u[i] <= u[i - 1])
            return false;
    return true;
}

/* The largest two first (their order is not observable: they are added to each other), then down. */
static bool descending(const uint32_t *u, uint32_t n)
{
    for (uint32_t i = 2; i < n; i++)
        if (u[i] >= u[i - 1] || u[i] >= u[0])
            return false;
    return true;
}

static bool fused_terms(const struct fpd_sumtree *t, const struct fpd_sumnode *v)
{
    if (is_leaf(v) || v->children < 3)
        return false;
    for (int32_t c = v->first_child; c != FPD_NO_NODE; c = t->node[c].next_sibling)
        if (!is_leaf(&t->node[c]))
            return false;
    return true;
}

enum part_kind { PART_SINGLE, PART_CHAIN_UP, PART_CHAIN_OTHER, PART_FUSED };

struct part {
    int32_t node;
    enum part_kind kind;
    uint32_t size, min, max, stride; /* stride: common difference of the sorted units, 0 if none */
};

static int by_unit(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

static void measure_part(struct part *p, uint32_t *units, uint32_t n)
{
    qsort(units, n, sizeof *units, by_unit);
    p->size = n, p->min = units[0], p->max = units[n - 1];
    p->stride = n > 1 ? units[1] - units[0] : 0;
    for (uint32_t i = 2; i < n; i++)
        if (units[i] - units[i - 1] != p->stride)
            p->stride = 0;
}

/* Maximal parts, in order of their smallest unit (children are sorted, and the walk is preorder). */
static int find_parts(const struct fpd_sumtree *t, struct part *parts, uint32_t *count, uint32_t *units,
                      int32_t *stack)
{
    size_t top = 0;
    *count = 0;
    stack[top++] = t->root;
    while (top > 0) {
        int32_t id = stack[--top];
        const struct fpd_sumnode *v = &t->node[id];
        struct part p = {.node = id};
        if (is_leaf(v)) {
            p.kind = PART_SINGLE;
            units[0] = (uint32_t)v->leaf;
        } else if (chain_order(t, v, units)) {
            p.kind = ascending(units, v->size) ? PART_CHAIN_UP : PART_CHAIN_OTHER;
        } else if (fused_terms(t, v)) {
            p.kind = PART_FUSED;
            uint32_t i = 0;
            for (int32_t c = v->first_child; c != FPD_NO_NODE; c = t->node[c].next_sibling)
                units[i++] = (uint32_t)t->node[c].leaf;
        } else {
            top = fpd_sumtree_push_children(t, id, stack, top); /* the smallest comes out first */
            continue;
        }
        measure_part(&p, units, v->size);
        parts[(*count)++] = p;
    }
    return FPD_OK;
}

/* What becomes of a node when a tree is copied: kept as it is, made a leaf (fate >= 0: that leaf,
 * its subtree not copied), dropped with its subtree, or spliced out (its children take its place). */
enum { FATE_KEEP = -1, FATE_DROP = -2, FATE_SPLICE = -3 };

/* A copy of t into out (leaves given), each node as fate[] says, the fates' array indexed by node. */
static int copy_tree(const struct fpd_sumtree *t, const int32_t *fate, uint32_t leaves, struct fpd_sumtree *out)
{
    fpd_sumtree_init(out, leaves, false);
    int32_t *mapped = malloc(t->count * sizeof *mapped), *queue = malloc(t->count * sizeof *queue);
    int32_t root = FPD_NO_NODE;
    int rc = mapped && queue ? FPD_OK : FPD_ERR_NOMEM;
    size_t head = 0, tail = 0;
    if (rc == FPD_OK)
        queue[tail++] = t->root;
    while (head < tail && rc == FPD_OK) { /* breadth first: a parent is mapped before its children */
        int32_t id = queue[head++];
        const struct fpd_sumnode *v = &t->node[id];
        if (fate[id] == FATE_DROP)
            continue;
        int32_t up = v->parent == FPD_NO_NODE ? FPD_NO_NODE : mapped[v->parent];
        if (fate[id] == FATE_SPLICE) {
            mapped[id] = up;
        } else {
            uint32_t leaf = fate[id] >= 0 ? (uint32_t)fate[id] : (uint32_t)v->leaf;
            int32_t n = fate[id] >= 0 || is_leaf(v) ? fpd_sumtree_leaf(out, leaf) : fpd_sumtree_internal(out);
            if (n == FPD_NO_NODE)
                rc = FPD_ERR_NOMEM;
            else if (up == FPD_NO_NODE)
                root = n;
            else
                fpd_sumtree_adopt(out, up, n);
            mapped[id] = n;
        }
        if (fate[id] < 0)
            for (int32_t c = v->first_child; c != FPD_NO_NODE; c = t->node[c].next_sibling)
                queue[tail++] = c;
    }
    free(mapped);
    free(queue);
    char why[128];
    return rc != FPD_OK || root == FPD_NO_NODE ? FPD_ERR_NOMEM : fpd_sumtree_finish(out, root, why, sizeof why);
}

/* The tree with each part as one leaf (numbered in order). */
static int quotient(const struct fpd_sumtree *t, const struct part *parts, uint32_t count, struct fpd_sumtree *q,
                    int32_t *fate)
{
    for (size_t i = 0; i < t->count; i++)
        fate[i] = FATE_KEEP;
    for (uint32_t i = 0; i < count; i++)
        fate[parts[i].node] = (int32_t)i;
    return copy_tree(t, fate, count, q);
}

/* Whether every node splits a contiguous range in two halves differing by at most one. */
static bool balanced(const struct fpd_sumtree *t)
{
    for (size_t i = 0; i < t->count; i++) {
        const struct fpd_sumnode *v = &t->node[i];
        if (is_leaf(v))
            continue;
        if (v->children != 2)
            return false;
        const struct fpd_sumnode *a = child(t, v, 0), *b = child(t, v, 1);
        uint32_t d = a->size > b->size ? a->size - b->size : b->size - a->size;
        if (d > 1 || b->min_leaf != a->min_leaf + a->size)
            return false;
    }
    /* contiguous children at every node, from the root's full range: the leaves are in order */
    return true;
}

/* Whether the parts are interleaved lanes inside each block of consecutive terms, as a vector
 * kernel that adds a block's terms in its registers' lanes makes them: parts of one size and one
 * stride (the lane count). Partitioning consecutive terms, such parts can be nothing else. */
static bool lanes_in_blocks(const struct part *parts, uint32_t count, uint32_t *lanes, uint32_t *block)
{
    uint32_t stride = parts[0].stride, size = parts[0].size;
    if (stride < 2 || size < 2)
        return false;
    for (uint32_t i = 0; i < count; i++)
        if (parts[i].stride != stride || parts[i].size != size)
            return false;
    *lanes = stride, *block = stride * size;
    return true;
}

static void name_partition(struct text *out, const struct part *parts, uint32_t count, const char **unit_word)
{
    bool contiguous = true, lanes = true;
    uint32_t multi = 0, stride = 0, singles = 0, width_of_block = 0;
    uint64_t residues = 0; /* lanes: each a distinct residue mod the stride (for strides up to 64) */
    for (uint32_t i = 0; i < count; i++) {
        const struct part *p = &parts[i];
        if (p->max - p->min + 1 != p->size)
            contiguous = false;
        if (p->size < 2) {
            singles += i + 1 < count || p->size < 1; /* a last block may be a single term */
            continue;
        }
        multi++;
        if (p->stride < 2 || p->stride > 64 || (stride && p->stride != stride) || (residues >> (p->min % p->stride) & 1))
            lanes = false;
        else
            residues |= 1ull << (p->min % p->stride);
        stride = p->stride;
    }
    if (contiguous && singles == 0) {
        bool equal = true;
        for (uint32_t i = 1; i + 1 < count; i++)
            equal = equal && parts[i].size == parts[0].size;
        if (equal && parts[count - 1].size == parts[0].size)
            say(out, "%u blocks of %u", count, parts[0].size);
        else if (equal)
            say(out, "%u blocks of %u (the last %u)", count, parts[0].size, parts[count - 1].size);
        else {
            say(out, "%u blocks (", count);
            for (uint32_t i = 0; i < count && i < 8; i++)
                say(out, "%s%u", i ? ", " : "", parts[i].size);
            say(out, "%s)", count > 8 ? ", …" : "");
        }
        *unit_word = "blocks";
    } else if (lanes && multi == stride) {
        say(out, "%u interleaved lanes (term p in lane p mod %u)", multi, stride);
        if (count > multi)
            say(out, " and %u single terms", count - multi);
        *unit_word = count > multi ? "parts" : "lanes";
    } else if (lanes_in_blocks(parts, count, &stride, &width_of_block)) {
        say(out, "%u interleaved lanes in each of %u blocks of %u consecutive terms", stride, count / stride,
            width_of_block);
        *unit_word = "lanes";
    } else {
        say(out, "%u groups", count);
        *unit_word = "groups";
    }
    /* how each part is summed */
    bool up = true, fused = true;
    uint32_t width = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (parts[i].size < 2)
            continue;
        up = up && parts[i].kind == PART_CHAIN_UP;
        fused = fused && parts[i].kind == PART_FUSED;
        width = !width || width == parts[i].size ? parts[i].size : UINT32_MAX;
    }
    if (width == 0) /* no part of two or more terms */
        return;
    if (up)
        say(out, ", each sequential");
    else if (fused && width != UINT32_MAX)
        say(out, ", each one fused add of %u", width);
    else if (fused)
        say(out, ", each one fused add");
    else
        say(out, ", each sequential or a fused add");
}

static int describe_level(const struct fpd_sumtree *t, struct text *out, int depth)
{
    uint32_t n = t->leaves;
    const struct fpd_sumnode *root = &t->node[t->root];
    if (n == 1) {
        say(out, "a single term");
        return FPD_OK;
    }
    if (fused_terms(t, root)) {
        say(out, "one fused add of all %u", n);
        return FPD_OK;
    }
    uint32_t *units = malloc(n * sizeof *units);
    if (!units)
        return FPD_ERR_NOMEM;
    if (chain_order(t, root, units)) {
        if (ascending(units, n))
            say(out, "sequential");
        else if (descending(units, n))
            say(out, "sequential from the last down");
        else
            say(out, "one at a time in another order (%u, %u, %u, …)", units[0], units[1], units[2]);
        free(units);
        return FPD_OK;
    }
    const char *known = fpd_sumtree_known_order(t); /* builds trees of n leaves: only past the cheap tests */
    if (known && strcmp(known, "pairwise") == 0) {
        say(out, "pairwise");
        free(units);
        return FPD_OK;
    }
    if (balanced(t)) {
        say(out, "a balanced binary tree");
        free(units);
        return FPD_OK;
    }
    struct part *parts = malloc(n * sizeof *parts);
    int32_t *scratch = malloc(2 * t->count * sizeof *scratch); /* a stack, then the fates */
    struct fpd_sumtree q = {0};
    int rc = FPD_ERR_NOMEM;
    uint32_t count;
    if (parts && scratch && find_parts(t, parts, &count, units, scratch) == FPD_OK) {
        const char *word = "groups";
        name_partition(out, parts, count, &word);
        rc = quotient(t, parts, count, &q, scratch + t->count);
        if (rc == FPD_OK) {
            say(out, "; then the %u %s: ", count, word);
            rc = depth < 16 ? describe_level(&q, out, depth + 1) : FPD_OK;
            if (depth >= 16)
                say(out, "(deeper levels not described)");
        }
    }
    fpd_sumtree_free(&q);
    free(parts);
    free(scratch);
    free(units);
    return rc;
}

/* The tree without its bias leaf, and where the bias was added. */
static int split_bias(const struct fpd_sumtree *t, struct fpd_sumtree *rest, struct text *where)
{
    int32_t b = t->leaf_node[t->leaves - 1], parent = t->node[b].parent;
    const struct fpd_sumnode *p = &t->node[parent];
    const struct fpd_sumnode *other = &t->node[p->first_child == b ? p->next_sibling : p->first_child];
    if (parent == t->root)
        say(where, p->children == 2 ? "; the bias added last" : "; the bias in the last fused add");
    else if (p->children > 2)
        say(where, "; the bias in a fused add with %u other operands", p->children - 1);
    else if (is_leaf(other) && other->leaf == 0)
        say(where, "; the sum starts from the bias");
    else if (is_leaf(other))
        say(where, "; the bias first added to term %d", other->leaf);
    else
        say(where, "; the bias added to a partial sum of %u terms", p->size - 1);
    /* copy, leaving the bias out (and its addition, when it had one other operand) */
    int32_t *fate = malloc(t->count * sizeof *fate);
    if (!fate)
        return FPD_ERR_NOMEM;
    for (size_t i = 0; i < t->count; i++)
        fate[i] = FATE_KEEP;
    fate[b] = FATE_DROP;
    if (p->children == 2)
        fate[parent] = FATE_SPLICE;
    int rc = copy_tree(t, fate, t->leaves - 1, rest);
    free(fate);
    return rc;
}

void fpd_sumtree_describe(const struct fpd_sumtree *t, char *buf, size_t size)
{
    struct text out = {buf, size, 0};
    buf[0] = '\0';
    char where_buf[128] = "";
    struct text where = {where_buf, sizeof where_buf, 0};
    struct fpd_sumtree rest = {0};
    const struct fpd_sumtree *terms = t;
    if (t->has_bias) {
        if (t->leaves == 1) {
            say(&out, "the bias alone");
            return;
        }
        if (split_bias(t, &rest, &where) != FPD_OK) {
            say(&out, "(out of memory)");
            fpd_sumtree_free(&rest);
            return;
        }
        terms = &rest;
    }
    size_t start = out.used;
    if (describe_level(terms, &out, 0) != FPD_OK)
        say(&out, "(out of memory)");
    /* a whole-tree shape says what it is over */
    static const char *const whole[][2] = {
        {"sequential", "sequential over k"},
        {"pairwise", "pairwise over k"},
        {"a balanced binary tree", "a balanced binary tree over k"},
        {"sequential from the last down", "sequential over k, from the last term down"},
    };
    for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++)
        if (strcmp(buf + start, whole[i][0]) == 0) {
            out.used = start;
            say(&out, "%s", whole[i][1]);
            break;
        }
    say(&out, "%s", where_buf);
    fpd_sumtree_free(&rest);
}
