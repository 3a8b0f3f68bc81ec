/* sumtree_json.c — a summation tree as JSON, to be saved beside a corpus and drawn again later.
 *
 * {"terms": K, "bias": B, "parent": [...]}: node i < terms (plus one with the bias) is term i, the
 * rest are additions in preorder; parent[i] is the addition node i is an operand of, -1 for the
 * root. A flat array, not nested ones: a sequential sum over k = 100,000 is 100,000 deep, past any
 * JSON parser's nesting limit. The same tree always gives the same text. */
#include <stdlib.h>

#include "explain/sumtree.h"
#include "fpdiv_backend.h"

/* Terms (leaves) a saved tree may have: explain's own limit is memory, the page's is far lower. */
#define MAX_TERMS (1u << 24)

json_t *fpd_sumtree_json(const struct fpd_sumtree *t)
{
    size_t n = t->count;
    int32_t *number = malloc(n * sizeof *number), *stack = malloc(n * sizeof *stack);
    json_t *parent = json_array(), *out = NULL;
    if (!number || !stack || !parent)
        goto done;
    for (size_t i = 0; i < n; i++)
        number[i] = -1;
    int32_t next_addition = (int32_t)t->leaves;
    size_t top = 0, reached = 0;
    stack[top++] = t->root;
    while (top > 0) { /* preorder, children in canonical order */
        int32_t id = stack[--top];
        const struct fpd_sumnode *v = &t->node[id];
        number[id] = v->leaf >= 0 ? v->leaf : next_addition++;
        reached++;
        top = fpd_sumtree_push_children(t, id, stack, top);
    }
    int32_t *by_number = stack; /* the stack is empty: reused */
    for (size_t i = 0; i < n; i++)
        if (number[i] >= 0)
            by_number[number[i]] = (int32_t)i;
    for (size_t j = 0; j < reached; j++) {
        int32_t p = t->node[by_number[j]].parent;
        if (json_array_append_new(parent, json_integer(p == FPD_NO_NODE ? -1 : number[p])) != 0)
            goto done;
    }
    out = json_pack("{s:I, s:b, s:O}", "terms", (json_int_t)(t->leaves - (t->has_bias ? 1 : 0)), "bias",
                    t->has_bias, "parent", parent);
done:
    json_decref(parent);
    free(number);
    free(stack);
    return out;
}

/* Every node reaches the root: a cycle among additions is in no tree. */
static bool all_reached(const struct fpd_sumtree *t)
{
    int32_t *stack = malloc(t->count * sizeof *stack);
    if (!stack)
        return false;
    size_t top = 0, reached = 0;
    stack[top++] = t->root;
    while (top > 0 && reached <= t->count) {
        int32_t id = stack[--top];
        reached++;
        for (int32_t c = t->node[id].first_child; c != FPD_NO_NODE; c = t->node[c].next_sibling)
            stack[top++] = c;
    }
    free(stack);
    return reached == t->count;
}

int fpd_sumtree_from_json(json_t *j, struct fpd_sumtree *t, char *why, size_t why_size)
{
    json_t *terms = json_object_get(j, "terms"), *bias = json_object_get(j, "bias"),
           *parent = json_object_get(j, "parent");
    fpd_sumtree_init(t, 0, false);
    if (!json_is_integer(terms) || json_integer_value(terms) < 1 || json_integer_value(terms) > MAX_TERMS ||
        !json_is_boolean(bias) || !json_is_array(parent)) {
        snprintf(why, why_size, "a tree needs \"terms\" (1 to %u), \"bias\" (true or false) and \"parent\" (an array)",
                 MAX_TERMS);
        return FPD_ERR_INPUT;
    }
    uint32_t leaves = (uint32_t)json_integer_value(terms) + json_is_true(bias);
    size_t n = json_array_size(parent);
    if (n < leaves || n > 2 * (size_t)leaves - 1) { /* every addition has two operands or more */
        snprintf(why, why_size, "a tree of %u leaves has %u to %u nodes, not %zu", leaves, leaves, 2 * leaves - 1, n);
        return FPD_ERR_INPUT;
    }
    fpd_sumtree_init(t, leaves, json_is_true(bias));
    int32_t root = FPD_NO_NODE;
    for (size_t i = 0; i < n; i++)
        if ((i < leaves ? fpd_sumtree_leaf(t, (uint32_t)i) : fpd_sumtree_internal(t)) == FPD_NO_NODE) {
            snprintf(why, why_size, "out of memory");
            fpd_sumtree_free(t);
            return FPD_ERR_NOMEM;
        }
    for (size_t i = 0; i < n; i++) {
        json_t *p = json_array_get(parent, i);
        json_int_t v = json_is_integer(p) ? json_integer_value(p) : -2;
        if (v == -1 && root == FPD_NO_NODE) {
            root = (int32_t)i;
            continue;
        }
        if (v < (json_int_t)leaves || v >= (json_int_t)n || (size_t)v == i) {
            snprintf(why, why_size, "parent[%zu]: %s", i,
                     v == -1 ? "a second root" : "not the index of an addition node (one past the leaves or more)");
            fpd_sumtree_free(t);
            return FPD_ERR_INPUT;
        }
        fpd_sumtree_adopt(t, (int32_t)v, (int32_t)i);
    }
    int rc = root == FPD_NO_NODE ? FPD_ERR_INPUT : fpd_sumtree_finish(t, root, why, why_size);
    if (root == FPD_NO_NODE)
        snprintf(why, why_size, "no root: no node has parent -1");
    else if (rc == FPD_OK && !all_reached(t))
        snprintf(why, why_size, "some additions are not in the tree (a cycle)"), rc = FPD_ERR_INPUT;
    if (rc != FPD_OK) {
        if (rc == FPD_ERR_INTERNAL)
            rc = FPD_ERR_INPUT; /* a malformed file, not fpdiv's fault */
        fpd_sumtree_free(t);
    }
    return rc;
}
