/* sumtree_render.c — a summation tree as Graphviz DOT, and drawn as an SVG dendrogram. */
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "explain/sumtree.h"
#include "fpdiv_backend.h"

static void leaf_label(const struct fpd_sumtree *t, const struct fpd_sumnode *v, char *buf, size_t size)
{
    if (t->has_bias && (uint32_t)v->leaf == t->leaves - 1)
        snprintf(buf, size, "bias");
    else
        snprintf(buf, size, "t%d", v->leaf);
}

/* XML and DOT both accept printable text without these characters: the rest is left out (a title
 * may quote a saved result's label, which is anyone's: common/text.h) */
static void put_plain(FILE *f, const char *s)
{
    while (*s) {
        size_t len = fpd_printable_length(s);
        if (len && !strchr("<>&\"\\", *s))
            fwrite(s, 1, len, f);
        s += len ? len : 1;
    }
}

int fpd_sumtree_write_dot(const struct fpd_sumtree *t, FILE *f, const char *title)
{
    fprintf(f, "digraph sum {\n  labelloc=t;\n  label=\"");
    put_plain(f, title);
    fprintf(f, "\";\n  node [shape=circle, fontsize=10, width=0.3, fixedsize=true];\n");
    char label[32];
    for (size_t i = 0; i < t->count; i++) {
        const struct fpd_sumnode *v = &t->node[i];
        if (v->leaf >= 0) {
            leaf_label(t, v, label, sizeof label);
            fprintf(f, "  n%zu [label=\"%s\", shape=box];\n", i, label);
        } else if (v->children == 2) {
            fprintf(f, "  n%zu [label=\"+\"];\n", i);
        } else {
            fprintf(f, "  n%zu [label=\"+%u\", shape=doublecircle];\n", i, v->children); /* fused add */
        }
        for (int32_t c = v->first_child; c != FPD_NO_NODE; c = t->node[c].next_sibling)
            fprintf(f, "  n%zu -> n%d;\n", i, c);
    }
    fprintf(f, "}\n");
    return ferror(f) ? FPD_ERR_INPUT : FPD_OK;
}

/* Leaves left to right in tree order (which is k order where the tree allows), every addition at
 * the height of its tallest operand plus one, drawn as a bracket over its operands. */
int fpd_sumtree_write_svg(const struct fpd_sumtree *t, FILE *f, const char *title)
{
    size_t n = t->count;
    double *x = malloc(n * sizeof *x);
    uint32_t *height = malloc(n * sizeof *height);
    int32_t *stack = malloc(n * sizeof *stack), *order = malloc(n * sizeof *order);
    if (!x || !height || !stack || !order) {
        free(x), free(height), free(stack), free(order);
        return FPD_ERR_NOMEM;
    }
    /* preorder, children in canonical order: leaves come out left to right */
    size_t top = 0, seen = 0, leaf_at = 0;
    int32_t leftmost = t->root, rightmost = t->root;
    stack[top++] = t->root;
    while (top > 0) {
        int32_t id = stack[--top];
        order[seen++] = id;
        if (t->node[id].leaf >= 0) {
            if (leaf_at == 0)
                leftmost = id;
            rightmost = id;
            x[id] = (double)leaf_at++;
        }
        top = fpd_sumtree_push_children(t, id, stack, top);
    }
    uint32_t tallest = 0;
    for (size_t i = seen; i-- > 0;) { /* children before parents */
        struct fpd_sumnode *v = &t->node[order[i]];
        if (v->leaf >= 0) {
            height[order[i]] = 0;
            continue;
        }
        uint32_t h = 0;
        double sum = 0;
        for (int32_t c = v->first_child; c != FPD_NO_NODE; c = t->node[c].next_sibling) {
            h = height[c] > h ? height[c] : h;
            sum += x[c];
        }
        height[order[i]] = h + 1;
        x[order[i]] = sum / v->children;
        tallest = h + 1 > tallest ? h + 1 : tallest;
    }
    double dx = t->leaves <= 64 ? 18 : t->leaves <= 512 ? 6 : 3;
    double dy = tallest == 0 ? 20 : tallest * 14.0 <= 700 ? 14 : 700.0 / tallest;
    double left = 20, top_y = 40, plot_h = tallest * dy;
    double width = left * 2 + dx * (t->leaves > 1 ? t->leaves - 1 : 1), canvas_h = top_y + plot_h + 40;
#define PX(id) (left + x[id] * dx)
#define PY(id) (top_y + (double)(tallest - height[id]) * dy)
    double title_w = left * 2 + 7.0 * (double)strlen(title); /* about 7 px a character at 12 px */
    double canvas_w = width < title_w ? title_w : width;
    /* the viewBox lets a page scale a wide tree down to its width */
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"sumtree\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"10\">\n<title>",
            canvas_w, canvas_h, canvas_w, canvas_h);
    put_plain(f, title);
    fprintf(f, "</title>\n<text x=\"%.0f\" y=\"18\" font-size=\"12\">", left);
    put_plain(f, title);
    fprintf(f, "</text>\n<g stroke=\"#333\" stroke-width=\"1\" fill=\"none\">\n");
    for (size_t i = 0; i < seen; i++) {
        int32_t id = order[i];
        const struct fpd_sumnode *v = &t->node[id];
        if (v->leaf >= 0)
            continue;
        const char *colour = v->children > 2 ? " stroke=\"#c03\"" : ""; /* fused adds stand out */
        double lo = PX(id), hi = PX(id);
        for (int32_t c = v->first_child; c != FPD_NO_NODE; c = t->node[c].next_sibling) {
            lo = PX(c) < lo ? PX(c) : lo;
            hi = PX(c) > hi ? PX(c) : hi;
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"%s/>\n", PX(c), PY(c), PX(c), PY(id), colour);
        }
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"%s/>\n", lo, PY(id), hi, PY(id), colour);
    }
    fprintf(f, "</g>\n");
    if (t->leaves <= 64) {
        char label[32];
        for (size_t i = 0; i < seen; i++) {
            const struct fpd_sumnode *v = &t->node[order[i]];
            if (v->leaf < 0)
                continue;
            leaf_label(t, v, label, sizeof label);
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" transform=\"rotate(-90 %.1f %.1f)\">%s</text>\n",
                    PX(order[i]), PY(order[i]) + 6, PX(order[i]), PY(order[i]) + 6, label);
        }
    } else { /* only the ends are labelled: the leaves are in tree order, which need not be k order */
        char first[32], last[32];
        leaf_label(t, &t->node[leftmost], first, sizeof first);
        leaf_label(t, &t->node[rightmost], last, sizeof last);
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%s</text>\n",
                left, top_y + plot_h + 16, first, width - left, top_y + plot_h + 16, last);
    }
    fprintf(f, "</svg>\n");
#undef PX
#undef PY
    free(x), free(height), free(stack), free(order);
    return ferror(f) ? FPD_ERR_INPUT : FPD_OK;
}
