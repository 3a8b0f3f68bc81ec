/* reveal.c — the summation tree from cancellation queries: recursive grouping by subtree size. */
#include "explain/reveal.h"

#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/scratch.h"
#include "fpdiv_backend.h"
#include "gen/rng.h"

#define VERIFY_PAIRS 64

/* Terms known to form one subtree (sibling == 0), or a union of siblings of that size under one
 * fused add, to be attached to `parent` (FPD_NO_NODE: they are the whole tree). Sorted ascending.
 * The pivot is the first term, or the last when from_top: a pivot added last learns only that it
 * was, so the next try starts from the other end (a chain in descending order stays O(k)). */
struct task {
    uint32_t *terms;
    uint32_t count;
    uint32_t sibling;
    int32_t parent;
    bool from_top;
};

static uint32_t pivot_of(const struct task *tk) { return tk->terms[tk->from_top ? tk->count - 1 : 0]; }
/* The j-th of the other terms, j < count - 1. */
static uint32_t other_of(const struct task *tk, uint32_t j) { return tk->terms[tk->from_top ? j : j + 1]; }

struct task_list {
    struct task *task;
    size_t count, cap;
};

struct answer {
    uint32_t size, term;
};

struct builder {
    struct fpd_sumtree *tree;
    struct task_list *next;
    bool prefer_last; /* read an ambiguous group as more operands of the fused add just found */
    const struct fpd_reveal_oracle *oracle;
    bool alone;
    struct fpd_reveal_stats *stats;
    int32_t root;
    char *why;
    size_t why_size;
};

static int push_task(struct task_list *l, const struct answer *from, uint32_t count, uint32_t sibling, int32_t parent,
                     bool from_top)
{
    if (!FPD_ARRAY_RESERVE(l->task, l->cap, l->count + 1))
        return FPD_ERR_NOMEM;
    uint32_t *terms = malloc(count * sizeof *terms);
    if (!terms)
        return FPD_ERR_NOMEM;
    for (uint32_t i = 0; i < count; i++)
        terms[i] = from[i].term;
    /* answers come sorted by size, then term: restore term order */
    for (uint32_t i = 1; i < count; i++)
        for (uint32_t j = i; j > 0 && terms[j - 1] > terms[j]; j--) {
            uint32_t x = terms[j];
            terms[j] = terms[j - 1], terms[j - 1] = x;
        }
    l->task[l->count++] = (struct task){terms, count, sibling, parent, from_top};
    return FPD_OK;
}

static void attach(struct builder *b, int32_t parent, int32_t node)
{
    if (parent == FPD_NO_NODE)
        b->root = node;
    else
        fpd_sumtree_adopt(b->tree, parent, node);
}

static int by_size_then_term(const void *x, const void *y)
{
    const struct answer *a = x, *b = y;
    if (a->size != b->size)
        return (a->size > b->size) - (a->size < b->size);
    return (a->term > b->term) - (a->term < b->term);
}

/*
 * The pivot's path to the root of its subtree, from the answers about the other terms (sorted by
 * size). Every distinct size v with its group G of terms is the next node up the path, either
 *   an ordinary addition: v = (terms below so far) + |G|, and G is one subtree;
 *   a fused add of the path so far with |G| / s siblings of s = v - (terms so far) terms each; or
 *   more siblings of a fused add just found, of size v - (terms below it).
 * When the last two both fit, one more query decides (see reveal.h). Anything else fits no
 * summation tree.
 */
static int build_path(struct builder *b, const struct task *tk, const struct answer *ans, uint32_t count, int32_t *top)
{
    struct fpd_sumtree *t = b->tree;
    uint32_t pivot = pivot_of(tk);
    int32_t cur = fpd_sumtree_leaf(t, pivot), last = FPD_NO_NODE;
    uint32_t below = 1, below_last = 0;
    uint32_t x_term = 0, x_size = 0; /* a term of an operand of `last` other than the pivot's, and its size */
    if (cur == FPD_NO_NODE)
        return FPD_ERR_NOMEM;
    for (uint32_t i = 0; i < count;) {
        uint32_t v = ans[i].size, g = 0;
        while (i + g < count && ans[i + g].size == v)
            g++;
        const struct answer *group = ans + i;
        i += g;
        int rc;
        bool binary = v == below + g;
        bool new_fused = !binary && v > below && g % (v - below) == 0;
        bool into_last = !binary && last != FPD_NO_NODE && v > below_last && g % (v - below_last) == 0;
        if (new_fused && into_last) {
            /* Both fit the pivot's answers. x (an operand of the last fused add) meets this group's
             * term y in that add (x_size + s) or in a new add over it (v): one more query decides. */
            uint32_t pair[2] = {x_term, group[0].term}, answer, if_last = x_size + v - below_last;
            if (if_last == v) {
                new_fused = !b->prefer_last; /* no query tells them apart here: see reveal.h */
            } else {
                int asked = b->oracle->query(b->oracle->ctx, pair, 1, b->alone, &answer, b->why, b->why_size);
                if (asked != FPD_OK)
                    return asked;
                b->stats->queries++;
                new_fused = answer == v;
                if (answer != v && answer != if_last) {
                    snprintf(b->why, b->why_size, "terms %u and %u: the answer %u fits neither %u nor %u", x_term,
                             group[0].term, answer, v, if_last);
                    return FPD_ERR_BACKEND;
                }
            }
        }
        if (binary || new_fused) {
            int32_t node = fpd_sumtree_internal(t);
            if (node == FPD_NO_NODE)
                return FPD_ERR_NOMEM;
            fpd_sumtree_adopt(t, node, cur);
            bool pivot_was_last = g == count && binary; /* it joined everything else at once */
            rc = push_task(b->next, group, g, binary ? 0 : v - below, node, pivot_was_last && !tk->from_top);
            below_last = below;
            below += g;
            cur = last = node;
            x_term = group[0].term, x_size = binary ? g : v - below_last;
        } else if (into_last) {
            rc = push_task(b->next, group, g, v - below_last, last, false);
            below += g;
        } else {
            snprintf(b->why, b->why_size,
                     "terms %u and %u: the answer %u fits no summation tree (the subtree of term %u holds %u terms "
                     "so far)",
                     pivot, group[0].term, v, pivot, below);
            return FPD_ERR_BACKEND;
        }
        if (rc != FPD_OK)
            return rc;
    }
    *top = cur;
    return FPD_OK;
}

/* One task, given the pivot's answers about its other terms. */
static int settle(struct builder *b, const struct task *tk, struct answer *ans)
{
    uint32_t pivot = pivot_of(tk), n = tk->count - 1;
    qsort(ans, n, sizeof *ans, by_size_then_term);
    uint32_t own = n;
    if (tk->sibling > 0 && tk->sibling < tk->count) {
        /* the pivot's sibling answers at most its size; the other siblings meet it in the fused add */
        own = 0;
        while (own < n && ans[own].size <= tk->sibling)
            own++;
        for (uint32_t i = own; i <= n; i++)
            if (i == n ? own + 1 != tk->sibling : ans[i].size != 2 * tk->sibling) {
                uint32_t other = i == n ? ans[0].term : ans[i].term, size = i == n ? ans[0].size : ans[i].size;
                snprintf(b->why, b->why_size, "terms %u and %u: the answer %u does not fit a fused add of %u-term operands",
                         pivot, other, size, tk->sibling);
                return FPD_ERR_BACKEND;
            }
        if (tk->sibling == 1) { /* every other term answered 2: all are single operands */
            for (uint32_t i = 0; i <= n; i++) {
                int32_t leaf = fpd_sumtree_leaf(b->tree, i == n ? pivot : ans[i].term);
                if (leaf == FPD_NO_NODE)
                    return FPD_ERR_NOMEM;
                attach(b, tk->parent, leaf);
            }
            return FPD_OK;
        }
        if (own < n) {
            int rc = push_task(b->next, ans + own, n - own, tk->sibling, tk->parent, false);
            if (rc != FPD_OK)
                return rc;
        }
    }
    int32_t top;
    int rc = build_path(b, tk, ans, own, &top);
    if (rc == FPD_OK)
        attach(b, tk->parent, top);
    return rc;
}

static void free_tasks(struct task_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->task[i].terms);
    l->count = 0;
}

static int reveal_once(uint32_t leaves, const struct fpd_reveal_oracle *o, bool alone, bool prefer_last,
                       struct fpd_sumtree *t, struct fpd_reveal_stats *st, char *why, size_t why_size)
{
    struct task_list lists[2] = {{0}};
    struct task_list *now = &lists[0], *next = &lists[1];
    uint32_t *pairs = NULL, *sizes = NULL;
    struct answer *ans = NULL;
    size_t pair_cap = 0, size_cap = 0, ans_cap = 0;
    struct builder b = {.tree = t, .prefer_last = prefer_last, .oracle = o, .alone = alone, .stats = st,
                        .root = FPD_NO_NODE, .why = why, .why_size = why_size};
    int rc = FPD_ERR_NOMEM;

    uint32_t *all = malloc(leaves * sizeof *all);
    if (!all)
        goto done;
    for (uint32_t i = 0; i < leaves; i++)
        all[i] = i;
    now->task = malloc(sizeof *now->task);
    if (!now->task) {
        free(all);
        goto done;
    }
    now->cap = 1, now->count = 1;
    now->task[0] = (struct task){all, leaves, 0, FPD_NO_NODE, false};

    while (now->count > 0) {
        size_t count = 0;
        for (size_t i = 0; i < now->count; i++)
            count += now->task[i].count - 1;
        if (fpd_grow((void **)&pairs, &pair_cap, 2 * count * sizeof *pairs) != FPD_OK ||
            fpd_grow((void **)&sizes, &size_cap, count * sizeof *sizes) != FPD_OK)
            goto done;
        size_t at = 0;
        for (size_t i = 0; i < now->count; i++)
            for (uint32_t j = 0; j + 1 < now->task[i].count; j++) {
                pairs[2 * at] = pivot_of(&now->task[i]);
                pairs[2 * at + 1] = other_of(&now->task[i], j);
                at++;
            }
        if (count > 0) {
            rc = o->query(o->ctx, pairs, count, alone, sizes, why, why_size);
            if (rc != FPD_OK)
                goto done;
            st->queries += count;
            st->rounds++;
        }
        b.next = next;
        at = 0;
        for (size_t i = 0; i < now->count; i++) {
            const struct task *tk = &now->task[i];
            if (tk->count == 1) {
                int32_t leaf = fpd_sumtree_leaf(t, tk->terms[0]);
                if (leaf == FPD_NO_NODE) {
                    rc = FPD_ERR_NOMEM;
                    goto done;
                }
                attach(&b, tk->parent, leaf);
                continue;
            }
            rc = FPD_ERR_NOMEM;
            if (fpd_grow((void **)&ans, &ans_cap, (tk->count - 1) * sizeof *ans) != FPD_OK)
                goto done;
            for (uint32_t j = 0; j + 1 < tk->count; j++, at++)
                ans[j] = (struct answer){sizes[at], other_of(tk, j)};
            rc = settle(&b, tk, ans);
            if (rc != FPD_OK)
                goto done;
        }
        free_tasks(now);
        struct task_list *x = now;
        now = next, next = x;
    }
    rc = fpd_sumtree_finish(t, b.root, why, why_size);
done:
    if (rc == FPD_ERR_NOMEM)
        snprintf(why, why_size, "out of memory");
    free_tasks(&lists[0]);
    free_tasks(&lists[1]);
    free(lists[0].task);
    free(lists[1].task);
    fpd_release((void **)&pairs, &pair_cap);
    fpd_release((void **)&sizes, &size_cap);
    fpd_release((void **)&ans, &ans_cap);
    return rc;
}

/* SplitMix64 from a fixed state, so a verification is reproducible */
static uint64_t next_random(uint64_t *s) { return fpd_rng_mix64(*s += FPD_RNG_GAMMA); }

/* Random pairs asked alone must get the answers the tree predicts. 1: they do; 0: not; <0: status. */
static int verify(const struct fpd_sumtree *t, const struct fpd_reveal_oracle *o, struct fpd_reveal_stats *st,
                  char *why, size_t why_size)
{
    uint32_t pairs[2 * VERIFY_PAIRS], sizes[VERIFY_PAIRS];
    uint64_t all = (uint64_t)t->leaves * (t->leaves - 1) / 2, state = 2026;
    size_t count = all < VERIFY_PAIRS ? (size_t)all : VERIFY_PAIRS;
    for (size_t i = 0; i < count; i++) {
        uint32_t p = (uint32_t)(next_random(&state) % t->leaves), q = (uint32_t)(next_random(&state) % (t->leaves - 1));
        if (all <= VERIFY_PAIRS) { /* few terms: every pair, in order */
            uint64_t r = i;
            for (p = 0; r >= t->leaves - 1 - p; p++)
                r -= t->leaves - 1 - p;
            q = p + 1 + (uint32_t)r;
        } else if (q >= p) {
            q++;
        }
        pairs[2 * i] = p < q ? p : q;
        pairs[2 * i + 1] = p < q ? q : p;
    }
    if (count == 0)
        return 1;
    int rc = o->query(o->ctx, pairs, count, true, sizes, why, why_size);
    if (rc != FPD_OK)
        return -rc;
    st->verify_queries += count;
    for (size_t i = 0; i < count; i++)
        if (sizes[i] != fpd_sumtree_query_size(t, pairs[2 * i], pairs[2 * i + 1])) {
            snprintf(why, why_size, "terms %u and %u: asked alone the answer is %u, the revealed tree says %u",
                     pairs[2 * i], pairs[2 * i + 1], sizes[i], fpd_sumtree_query_size(t, pairs[2 * i], pairs[2 * i + 1]));
            return 0;
        }
    return 1;
}

int fpd_reveal(uint32_t leaves, bool has_bias, const struct fpd_reveal_oracle *o, bool alone,
               struct fpd_sumtree *out, struct fpd_reveal_stats *st, char *why, size_t why_size)
{
    *st = (struct fpd_reveal_stats){0};
    if (leaves == 0) {
        snprintf(why, why_size, "no terms to reveal");
        return FPD_ERR_INPUT;
    }
    /* batched, then batched where the oracle narrows the queries to, then alone; each reading fused
     * adds as accumulating first, then the other way */
    for (int attempt = alone ? 2 : 0; attempt < 4; attempt++) {
        fpd_sumtree_init(out, leaves, has_bias);
        st->queries = st->rounds = 0;
        st->alone = attempt >= 2;
        int rc = reveal_once(leaves, o, st->alone, attempt & 1, out, st, why, why_size);
        if (rc == FPD_OK) {
            int ok = verify(out, o, st, why, why_size);
            if (ok == 1)
                return FPD_OK;
            rc = ok < 0 ? -ok : FPD_ERR_BACKEND;
        }
        fpd_sumtree_free(out);
        if (rc != FPD_ERR_BACKEND)
            return rc;
        /* batched answers may come from elements summed in another order: ask only at elements
         * summed as this one, where the oracle can tell them, else at the element alone */
        if (attempt == 1) {
            st->batch_mismatch = true;
            bool again = false;
            if (!st->narrowed && o->narrow && (rc = o->narrow(o->ctx, &again, why, why_size)) != FPD_OK)
                return rc;
            if (again) {
                st->narrowed = true;
                attempt = -1;
            }
        }
    }
    size_t used = strlen(why);
    snprintf(why + used, why_size - used, "; is the backend deterministic, and exact inside its fused adds?");
    return FPD_ERR_BACKEND;
}
