/* explain: revealing summation trees, from simulated answers and from fpdiv's own kernels. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/backend.h"
#include "backends/builtin.h"
#include "common/dtype.h"
#include "explain/probe.h"
#include "explain/reveal.h"
#include "explain/sumtree.h"

/* ---- expected trees, written from the kernels' documentation (not with sumtree.c's builders) ---- */

static int32_t add(struct fpd_sumtree *t, int32_t x, int32_t y)
{
    int32_t n = fpd_sumtree_internal(t);
    fpd_sumtree_adopt(t, n, x);
    fpd_sumtree_adopt(t, n, y);
    return n;
}

static int32_t chain(struct fpd_sumtree *t, uint32_t from, uint32_t to)
{
    int32_t acc = fpd_sumtree_leaf(t, from);
    for (uint32_t p = from + 1; p < to; p++)
        acc = add(t, acc, fpd_sumtree_leaf(t, p));
    return acc;
}

/* pairwise.c: "the tree splits k into the largest power of two below it and the rest" */
static int32_t halves(struct fpd_sumtree *t, uint32_t from, uint32_t n)
{
    if (n == 1)
        return fpd_sumtree_leaf(t, from);
    uint32_t p = 1;
    while (2 * p < n)
        p *= 2;
    return add(t, halves(t, from, p), halves(t, from + p, n - p));
}

/* splitk.c: 4 parts of ceil(k/4), each sequential, then ((p0 + p1) + p2) + p3 */
static int32_t four_parts(struct fpd_sumtree *t, uint32_t k)
{
    uint32_t len = (k + 3) / 4;
    int32_t total = chain(t, 0, len < k ? len : k);
    for (uint32_t s = 1; s < 4 && s * len < k; s++)
        total = add(t, total, chain(t, s * len, (s + 1) * len < k ? (s + 1) * len : k));
    return total;
}

static int32_t sequential(struct fpd_sumtree *t, uint32_t k) { return chain(t, 0, k); }

/* the last term first: what a loop running backwards over k does */
static int32_t descending(struct fpd_sumtree *t, uint32_t k)
{
    int32_t acc = fpd_sumtree_leaf(t, k - 1);
    for (uint32_t p = k - 1; p-- > 0;)
        acc = add(t, acc, fpd_sumtree_leaf(t, p));
    return acc;
}
static int32_t pairwise(struct fpd_sumtree *t, uint32_t k) { return halves(t, 0, k); }

static void expect_tree(struct fpd_sumtree *t, uint32_t k, int32_t (*build)(struct fpd_sumtree *, uint32_t))
{
    char why[256];
    fpd_sumtree_init(t, k, false);
    cr_assert_eq(fpd_sumtree_finish(t, build(t, k), why, sizeof why), FPD_OK, "%s", why);
}

static void setup(void) { fpd_registry_init(); }
static void teardown(void) { fpd_registry_close_all(); }

/* Reveals backend's tree for element (0, n-1) of 1 x n x k. */
static int reveal_backend(const char *backend, const char *dtype, uint32_t n, uint32_t k, bool bias,
                          struct fpd_sumtree *out, struct fpd_reveal_stats *st, char *why, size_t why_size)
{
    struct fpd_probe_target t = {.backend = fpd_registry_find(backend), .batch = 1, .m = 1, .n = n, .k = k,
                                 .bias = bias, .at_col = n - 1};
    cr_assert_not_null(t.backend, "%s", backend);
    cr_assert_eq(fpd_dtypes_parse(dtype, &t.dt, why, why_size), FPD_OK);
    struct fpd_probe p;
    int rc = fpd_probe_open(&p, &t, why, why_size);
    if (rc != FPD_OK)
        return rc;
    struct fpd_reveal_oracle o = fpd_probe_oracle(&p);
    rc = fpd_reveal(p.leaves, bias, &o, false, out, st, why, why_size);
    fpd_probe_close(&p);
    return rc;
}

Test(explain, own_kernels_reveal_their_documented_orders, .init = setup, .fini = teardown)
{
    alarm(120); /* a hang fails the test (Criterion's .timeout leaks in its runner under LSan) */
    static const uint32_t ks[] = {1, 2, 3, 4, 5, 7, 16, 17, 100, 255, 1000, 4096};
    static const struct {
        const char *backend;
        int32_t (*order)(struct fpd_sumtree *, uint32_t);
    } kernels[] = {
        {"seq", sequential}, {"blocked", sequential}, {"pairwise", pairwise}, {"splitk", four_parts},
    };
    for (size_t b = 0; b < sizeof kernels / sizeof kernels[0]; b++)
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
            struct fpd_sumtree got, want;
            struct fpd_reveal_stats st;
            char why[512];
            int rc = reveal_backend(kernels[b].backend, "f32", 64, ks[i], false, &got, &st, why, sizeof why);
            cr_assert_eq(rc, FPD_OK, "%s k=%u: %s", kernels[b].backend, ks[i], why);
            expect_tree(&want, ks[i], kernels[b].order);
            cr_expect(fpd_sumtree_equal(&got, &want), "%s k=%u: revealed tree is not the documented order",
                      kernels[b].backend, ks[i]);
            cr_expect(!st.batch_mismatch, "%s k=%u: own kernels sum every column alike", kernels[b].backend, ks[i]);
            fpd_sumtree_free(&got);
            fpd_sumtree_free(&want);
        }
}

Test(explain, every_dtype_reveals_the_same_order, .init = setup, .fini = teardown)
{
    static const char *const dtypes[] = {"f64", "f32", "f16", "bf16", "f16:f16", "bf16:bf16", "f32:f32:f64"};
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++) {
        struct fpd_sumtree got, want;
        struct fpd_reveal_stats st;
        char why[512];
        uint32_t k = strstr(dtypes[d], "bf16:") ? 200 : 1000; /* bf16 outputs count to 256 */
        cr_assert_eq(reveal_backend("pairwise", dtypes[d], 16, k, false, &got, &st, why, sizeof why), FPD_OK, "%s: %s",
                     dtypes[d], why);
        expect_tree(&want, k, pairwise);
        cr_expect(fpd_sumtree_equal(&got, &want), "%s", dtypes[d]);
        fpd_sumtree_free(&got);
        fpd_sumtree_free(&want);
    }
}

Test(explain, narrow_types_are_refused_with_the_limit, .init = setup, .fini = teardown)
{
    struct fpd_sumtree got;
    struct fpd_reveal_stats st;
    char why[512];
    /* an f16 output counts exactly only to 2048; a bf16 output to 256 */
    cr_expect_eq(reveal_backend("seq", "f16:f16", 8, 4096, false, &got, &st, why, sizeof why), FPD_ERR_INPUT);
    cr_expect(strstr(why, "2048"), "%s", why);
    cr_expect_eq(reveal_backend("seq", "bf16:bf16", 8, 300, false, &got, &st, why, sizeof why), FPD_ERR_INPUT);
    cr_expect(strstr(why, "256"), "%s", why);
    /* f16 inputs need subnormal ones to absorb 4096 of them in f32, and get them */
    cr_assert_eq(reveal_backend("seq", "f16", 8, 4096, false, &got, &st, why, sizeof why), FPD_OK, "%s", why);
    fpd_sumtree_free(&got);
}

Test(explain, the_bias_is_a_term, .init = setup, .fini = teardown)
{
    struct fpd_sumtree got;
    struct fpd_reveal_stats st;
    char why[512], text[512];
    cr_assert_eq(reveal_backend("seq", "f32", 8, 100, true, &got, &st, why, sizeof why), FPD_OK, "%s", why);
    fpd_sumtree_describe(&got, text, sizeof text);
    cr_expect_str_eq(text, "sequential over k; the sum starts from the bias");
    fpd_sumtree_free(&got);
    cr_assert_eq(reveal_backend("pairwise", "f32", 8, 100, true, &got, &st, why, sizeof why), FPD_OK, "%s", why);
    fpd_sumtree_describe(&got, text, sizeof text);
    cr_expect_str_eq(text, "pairwise over k; the bias added last");
    fpd_sumtree_free(&got);
}

/* ---- the algorithm, on simulated answers ---- */

struct simulated {
    const struct fpd_sumtree *batched, *alone; /* answers in a batch, and asked alone */
    size_t asked;
};

static int simulate(void *ctx, const uint32_t *pairs, size_t count, bool alone, uint32_t *sizes, char *why,
                    size_t why_size)
{
    (void)why, (void)why_size;
    struct simulated *s = ctx;
    for (size_t i = 0; i < count; i++)
        sizes[i] = fpd_sumtree_query_size(alone ? s->alone : s->batched, pairs[2 * i], pairs[2 * i + 1]);
    s->asked += count;
    return FPD_OK;
}

static void check_reveals(const struct fpd_sumtree *truth, size_t max_queries)
{
    struct simulated s = {truth, truth, 0};
    struct fpd_reveal_oracle o = {simulate, &s, NULL};
    struct fpd_sumtree got;
    struct fpd_reveal_stats st;
    char why[512];
    cr_assert_eq(fpd_reveal(truth->leaves, false, &o, false, &got, &st, why, sizeof why), FPD_OK, "%s", why);
    cr_expect(fpd_sumtree_equal(&got, truth), "k=%u: revealed tree differs", truth->leaves);
    cr_expect_leq(st.queries, max_queries, "k=%u: %zu queries", truth->leaves, st.queries);
    fpd_sumtree_free(&got);
}

Test(explain, few_queries_for_common_trees)
{
    struct fpd_sumtree t;
    expect_tree(&t, 4096, sequential);
    check_reveals(&t, 4095); /* one round: the pivot against every other term */
    fpd_sumtree_free(&t);
    expect_tree(&t, 4096, descending);
    check_reveals(&t, 2 * 4095); /* the first pivot, added last, learns little; the next starts at the top */
    fpd_sumtree_free(&t);
    expect_tree(&t, 4096, pairwise);
    check_reveals(&t, 4096 * 12 / 2); /* k/2 log2 k */
    fpd_sumtree_free(&t);
    expect_tree(&t, 4096, four_parts);
    check_reveals(&t, 2 * 4096);
    fpd_sumtree_free(&t);
}

/* A sum of no terms has no documented tree: each builder says so (the pairwise one read below its
 * stack when k was 0, which the sanitizer build reports). */
Test(explain, no_terms_no_tree)
{
    struct fpd_sumtree t;
    cr_expect_eq(fpd_sumtree_build_sequential(&t, 0), FPD_ERR_INPUT);
    fpd_sumtree_free(&t);
    cr_expect_eq(fpd_sumtree_build_pairwise(&t, 0), FPD_ERR_INPUT);
    fpd_sumtree_free(&t);
    cr_expect_eq(fpd_sumtree_build_splitk(&t, 0, 4), FPD_ERR_INPUT);
    fpd_sumtree_free(&t);
    cr_expect_eq(fpd_sumtree_build_splitk(&t, 5, 0), FPD_ERR_INPUT);
    fpd_sumtree_free(&t);
    cr_expect_eq(fpd_sumtree_build_pairwise(&t, 1), FPD_OK);
    cr_expect_eq(fpd_sumtree_depth(&t), 0u);
    fpd_sumtree_free(&t);
}

/* Random binary trees over terms in random positions: any tree of two-operand additions. */
static int32_t random_tree(struct fpd_sumtree *t, const uint32_t *terms, uint32_t n, uint64_t *state)
{
    if (n == 1)
        return fpd_sumtree_leaf(t, terms[0]);
    *state = *state * 6364136223846793005u + 1442695040888963407u;
    uint32_t left = 1 + (uint32_t)((*state >> 33) % (n - 1));
    return add(t, random_tree(t, terms, left, state), random_tree(t, terms + left, n - left, state));
}

Test(explain, any_binary_tree_is_revealed)
{
    uint64_t state = 7;
    for (uint32_t trial = 0; trial < 200; trial++) {
        uint32_t k = 2 + trial % 97, terms[128];
        for (uint32_t i = 0; i < k; i++)
            terms[i] = i;
        for (uint32_t i = k - 1; i > 0; i--) { /* shuffle */
            state = state * 6364136223846793005u + 1442695040888963407u;
            uint32_t j = (uint32_t)((state >> 33) % (i + 1)), x = terms[i];
            terms[i] = terms[j], terms[j] = x;
        }
        struct fpd_sumtree t;
        char why[256];
        fpd_sumtree_init(&t, k, false);
        cr_assert_eq(fpd_sumtree_finish(&t, random_tree(&t, terms, k, &state), why, sizeof why), FPD_OK);
        check_reveals(&t, (size_t)k * k);
        fpd_sumtree_free(&t);
    }
}

/* A tensor-core-like order: fused adds of the accumulator and 4 products at a time. */
static int32_t fused4(struct fpd_sumtree *t, uint32_t k)
{
    int32_t acc = FPD_NO_NODE;
    for (uint32_t p = 0; p < k; p += 4) {
        int32_t n = fpd_sumtree_internal(t);
        if (acc != FPD_NO_NODE)
            fpd_sumtree_adopt(t, n, acc);
        for (uint32_t q = p; q < p + 4; q++)
            fpd_sumtree_adopt(t, n, fpd_sumtree_leaf(t, q));
        acc = n;
    }
    return acc;
}

Test(explain, fused_multi_term_adds_are_nodes_with_more_children)
{
    struct fpd_sumtree t;
    expect_tree(&t, 64, fused4);
    check_reveals(&t, 64 * 64);
    char text[256];
    fpd_sumtree_describe(&t, text, sizeof text);
    cr_expect(strstr(text, "fused"), "%s", text);
    fpd_sumtree_free(&t);
}

Test(explain, batched_answers_from_another_order_are_redone_alone)
{
    struct fpd_sumtree seq, pw, got;
    expect_tree(&seq, 100, sequential);
    expect_tree(&pw, 100, pairwise);
    struct simulated s = {&seq, &pw, 0};
    struct fpd_reveal_oracle o = {simulate, &s, NULL};
    struct fpd_reveal_stats st;
    char why[512];
    cr_assert_eq(fpd_reveal(100, false, &o, false, &got, &st, why, sizeof why), FPD_OK, "%s", why);
    cr_expect(st.batch_mismatch && st.alone);
    cr_expect(fpd_sumtree_equal(&got, &pw));
    fpd_sumtree_free(&got), fpd_sumtree_free(&seq), fpd_sumtree_free(&pw);
}

/* A narrow that moves the batched queries to elements summed as the explained one: the batched
 * answers are then the element's own (`works`), or it finds none (`!works`). */
struct narrowing {
    struct simulated sim;
    const struct fpd_sumtree *after; /* the batched answers once narrowed */
    bool works;
    int calls;
};

static int narrowing_query(void *ctx, const uint32_t *pairs, size_t count, bool alone, uint32_t *sizes, char *why,
                           size_t why_size)
{
    return simulate(&((struct narrowing *)ctx)->sim, pairs, count, alone, sizes, why, why_size);
}

static int narrowing_narrow(void *ctx, bool *narrowed, char *why, size_t why_size)
{
    (void)why, (void)why_size;
    struct narrowing *n = ctx;
    n->calls++;
    if (n->works)
        n->sim.batched = n->after;
    *narrowed = n->works;
    return FPD_OK;
}

Test(explain, batched_answers_from_another_order_are_narrowed_first)
{
    struct fpd_sumtree seq, pw, got;
    expect_tree(&seq, 100, sequential);
    expect_tree(&pw, 100, pairwise);
    struct fpd_reveal_stats st;
    char why[512];
    /* narrowed to elements summed as this one: batched again, and right */
    struct narrowing n = {{&seq, &pw, 0}, &pw, true, 0};
    struct fpd_reveal_oracle o = {narrowing_query, &n, narrowing_narrow};
    cr_assert_eq(fpd_reveal(100, false, &o, false, &got, &st, why, sizeof why), FPD_OK, "%s", why);
    cr_expect(st.batch_mismatch && st.narrowed && !st.alone && n.calls == 1);
    cr_expect(fpd_sumtree_equal(&got, &pw));
    fpd_sumtree_free(&got);
    /* narrowed, and still another order: alone, with narrow asked once */
    n = (struct narrowing){{&seq, &pw, 0}, &seq, true, 0};
    cr_assert_eq(fpd_reveal(100, false, &o, false, &got, &st, why, sizeof why), FPD_OK, "%s", why);
    cr_expect(st.batch_mismatch && st.narrowed && st.alone && n.calls == 1);
    cr_expect(fpd_sumtree_equal(&got, &pw));
    fpd_sumtree_free(&got);
    /* nothing to narrow to: alone */
    n = (struct narrowing){{&seq, &pw, 0}, NULL, false, 0};
    cr_assert_eq(fpd_reveal(100, false, &o, false, &got, &st, why, sizeof why), FPD_OK, "%s", why);
    cr_expect(st.batch_mismatch && !st.narrowed && st.alone && n.calls == 1);
    cr_expect(fpd_sumtree_equal(&got, &pw));
    fpd_sumtree_free(&got), fpd_sumtree_free(&seq), fpd_sumtree_free(&pw);
}

static int nonsense(void *ctx, const uint32_t *pairs, size_t count, bool alone, uint32_t *sizes, char *why,
                    size_t why_size)
{
    (void)ctx, (void)pairs, (void)alone, (void)why, (void)why_size;
    for (size_t i = 0; i < count; i++)
        sizes[i] = 3 + (uint32_t)(i % 5) * 7; /* sizes no tree has */
    return FPD_OK;
}

Test(explain, answers_that_fit_no_tree_are_an_error)
{
    struct fpd_reveal_oracle o = {nonsense, NULL, NULL};
    struct fpd_sumtree got;
    struct fpd_reveal_stats st;
    char why[512] = "";
    cr_expect_eq(fpd_reveal(50, false, &o, false, &got, &st, why, sizeof why), FPD_ERR_BACKEND);
    cr_expect(strstr(why, "fits no summation tree") || strstr(why, "does not fit"), "%s", why);
}

/* ---- words and drawings ---- */

Test(explain, descriptions_of_documented_orders)
{
    static const struct {
        int32_t (*build)(struct fpd_sumtree *, uint32_t);
        uint32_t k;
        const char *text;
    } cases[] = {
        {sequential, 1024, "sequential over k"},
        {pairwise, 1000, "pairwise over k"},
        {four_parts, 1024, "4 blocks of 256, each sequential; then the 4 blocks: sequential"},
        {four_parts, 1001, "4 blocks of 251 (the last 248), each sequential; then the 4 blocks: sequential"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct fpd_sumtree t;
        char text[512];
        expect_tree(&t, cases[i].k, cases[i].build);
        fpd_sumtree_describe(&t, text, sizeof text);
        cr_expect_str_eq(text, cases[i].text);
        fpd_sumtree_free(&t);
    }
}

/* 8 lanes (term p in lane p mod 8), each sequential, then the lanes in a pairwise tree. */
static int32_t lanes8(struct fpd_sumtree *t, uint32_t k)
{
    int32_t lane[8];
    for (uint32_t l = 0; l < 8; l++) {
        lane[l] = fpd_sumtree_leaf(t, l);
        for (uint32_t p = l + 8; p < k; p += 8)
            lane[l] = add(t, lane[l], fpd_sumtree_leaf(t, p));
    }
    for (uint32_t w = 1; w < 8; w *= 2)
        for (uint32_t l = 0; l < 8; l += 2 * w)
            lane[l] = add(t, lane[l], lane[l + w]);
    return lane[0];
}

Test(explain, interleaved_lanes_are_named)
{
    struct fpd_sumtree t;
    char text[512];
    expect_tree(&t, 1024, lanes8);
    fpd_sumtree_describe(&t, text, sizeof text);
    cr_expect_str_eq(text, "8 interleaved lanes (term p in lane p mod 8), each sequential; then the 8 lanes: pairwise");
    cr_expect_null(fpd_sumtree_known_order(&t));
    check_reveals(&t, 1024 * 16);
    fpd_sumtree_free(&t);
}

Test(explain, dot_and_svg_hold_every_node)
{
    struct fpd_sumtree t;
    expect_tree(&t, 37, pairwise);
    char *buf;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_eq(fpd_sumtree_write_dot(&t, f, "pairwise \"37\""), FPD_OK);
    fclose(f);
    size_t edges = 0;
    for (const char *s = buf; (s = strstr(s, " -> ")); s++)
        edges++;
    cr_expect_eq(edges, t.count - 1);
    cr_expect(strstr(buf, "label=\"t36\""));
    cr_expect(!strstr(buf, "\"37\""), "the title's quotes are dropped: %s", buf);
    free(buf);
    f = open_memstream(&buf, &len);
    cr_assert_eq(fpd_sumtree_write_svg(&t, f, "pairwise <37>"), FPD_OK);
    fclose(f);
    size_t lines = 0;
    for (const char *s = buf; (s = strstr(s, "<line ")); s++)
        lines++;
    /* a bracket per addition and a stem per operand */
    cr_expect_eq(lines, (t.count - t.leaves) + (t.count - 1));
    cr_expect(strncmp(buf, "<svg ", 5) == 0 && strstr(buf, "</svg>\n"));
    cr_expect(!strstr(buf, "<37>"));
    free(buf);
    fpd_sumtree_free(&t);
}

/* A tree written as "(0 1 (2 3))": numbers are terms, "b" the bias (the last leaf), parentheses an
 * addition of their contents (more than two: a fused add). */
static int32_t parse_node(struct fpd_sumtree *t, const char **at, uint32_t k)
{
    while (**at == ' ')
        (*at)++;
    if (**at == 'b') {
        (*at)++;
        return fpd_sumtree_leaf(t, k);
    }
    if (**at != '(')
        return fpd_sumtree_leaf(t, (uint32_t)strtoul(*at, (char **)at, 10));
    (*at)++;
    int32_t n = fpd_sumtree_internal(t);
    while (**at != ')') {
        fpd_sumtree_adopt(t, n, parse_node(t, at, k));
        while (**at == ' ')
            (*at)++;
    }
    (*at)++;
    return n;
}

static void parse_tree(struct fpd_sumtree *t, const char *text, uint32_t k, bool bias)
{
    char why[256];
    fpd_sumtree_init(t, k + bias, bias);
    cr_assert_eq(fpd_sumtree_finish(t, parse_node(t, &text, k), why, sizeof why), FPD_OK, "%s", why);
}

static void expect_words(const char *tree, uint32_t k, bool bias, const char *words)
{
    struct fpd_sumtree t;
    char text[512];
    parse_tree(&t, tree, k, bias);
    fpd_sumtree_describe(&t, text, sizeof text);
    cr_expect_str_eq(text, words, "%s: \"%s\"", tree, text);
    fpd_sumtree_free(&t);
}

Test(explain, words_for_unusual_trees)
{
    expect_words("((((4 3) 2) 1) 0)", 5, false, "sequential over k, from the last term down");
    expect_words("((0 1) (2 b))", 3, true, "sequential over k; the bias first added to term 2");
    expect_words("(((b 0) 1) 2)", 3, true, "sequential over k; the sum starts from the bias");
    expect_words("(((0 1) 2) b)", 3, true, "sequential over k; the bias added last");
    expect_words("((0 1 b) 2)", 3, true, "sequential over k; the bias in a fused add with 2 other operands");
    /* two chains over even terms are no lanes across k (lanes are distinct residues), but they are
     * lanes within blocks: what a vector kernel makes of each block of terms it loads */
    expect_words("(((0 2) (4 6)) ((1 3) (5 7)))", 8, false,
                 "2 interleaved lanes in each of 2 blocks of 4 consecutive terms, each sequential; then the 4 lanes: "
                 "pairwise");
    /* OpenBLAS's sgemv (Haswell kernels): each block of 8 in 2 lanes of 4, the blocks added in turn */
    expect_words("((((((0 2) 4) 6) (((1 3) 5) 7)) ((((8 10) 12) 14) (((9 11) 13) 15))) ((((16 18) 20) 22) (((17 19) 21) 23)))",
                 24, false,
                 "2 interleaved lanes in each of 3 blocks of 8 consecutive terms, each sequential; then the 6 lanes: "
                 "3 blocks of 2, each sequential; then the 3 blocks: sequential");
    /* one stride, parts of two sizes: groups */
    expect_words("((((0 2) 4) (1 3)) (5 6))", 7, false,
                 "3 groups, each sequential; then the 3 groups: sequential");
    /* 2 lanes over 0..7, then a tail of single terms */
    expect_words("((((((0 2) 4) 6) (((1 3) 5) 7)) 8) 9)", 10, false,
                 "2 interleaved lanes (term p in lane p mod 2) and 2 single terms, each sequential; then the 4 parts: "
                 "sequential");
    expect_words("(0 1 (2 3 4))", 5, false, "3 groups, each one fused add of 3; then the 3 groups: one fused add of all 3");
}

Test(explain, fused_readings_that_queries_can_tell_apart)
{
    /* a fused add whose operands include a chain and pairs: the extra query picks the right reading */
    static const char *const trees[] = {
        "((((0 (2 7) 8 17) (5 9)) 1 (10 18)) (((3 (((6 13) (11 15 19)) 12)) 16) (4 14)))",
        "(((((((0 1) 2) 3) 4) 5) 6) 7 (8 9) (10 11))",
        "((0 1 2 3) 4 5 6 7)",
    };
    static const uint32_t ks[] = {20, 12, 8};
    for (size_t i = 0; i < sizeof trees / sizeof trees[0]; i++) {
        struct fpd_sumtree t;
        parse_tree(&t, trees[i], ks[i], false);
        check_reveals(&t, (size_t)ks[i] * ks[i]);
        fpd_sumtree_free(&t);
    }
}

/* Saved and read back (--save-to, report): every shape of tree is the same tree, and its text is
 * the same for the same tree however its nodes were made. */
Test(explain, trees_round_trip_through_json)
{
    uint64_t state = 11;
    for (uint32_t trial = 0; trial < 120; trial++) {
        uint32_t k = 1 + trial % 61, terms[64];
        for (uint32_t i = 0; i < k; i++)
            terms[i] = k - 1 - i;
        struct fpd_sumtree t, back;
        char why[256];
        fpd_sumtree_init(&t, k, false);
        int32_t root = trial % 3 == 0 && k % 4 == 0 ? fused4(&t, k) : random_tree(&t, terms, k, &state);
        cr_assert_eq(fpd_sumtree_finish(&t, root, why, sizeof why), FPD_OK, "%s", why);
        if (trial % 5 == 0)
            cr_assert_eq(fpd_sumtree_append_bias(&t, why, sizeof why), FPD_OK, "%s", why);
        json_t *j = fpd_sumtree_json(&t);
        cr_assert_not_null(j);
        cr_assert_eq(fpd_sumtree_from_json(j, &back, why, sizeof why), FPD_OK, "k %u: %s", k, why);
        cr_expect(fpd_sumtree_equal(&t, &back), "k %u: the tree read back is another", k);
        json_t *again = fpd_sumtree_json(&back);
        cr_expect(json_equal(j, again), "k %u: the same tree, another text", k);
        json_decref(again);
        json_decref(j);
        fpd_sumtree_free(&back);
        fpd_sumtree_free(&t);
    }
}

/* A saved tree is a file from anywhere: what is not one tree over every term once is refused. */
Test(explain, malformed_saved_trees_are_refused)
{
    static const struct {
        const char *json, *why;
    } bad[] = {
        {"{\"terms\": 3, \"bias\": false, \"parent\": [3, 3, 4, 4, -1]}", NULL}, /* the good one */
        {"{\"terms\": 3, \"bias\": false, \"parent\": [3, 3, 4, 4, 3]}", "no root"},
        {"{\"terms\": 3, \"bias\": false, \"parent\": [3, 3, 4, -1, -1]}", "a second root"},
        {"{\"terms\": 3, \"bias\": false, \"parent\": [3, 3, 1, 4, -1]}", "not the index of an addition"},
        {"{\"terms\": 3, \"bias\": false, \"parent\": [3, 3, 4, 3, -1]}", "parent[3]"},
        {"{\"terms\": 3, \"bias\": false, \"parent\": [3, 3, 3, 4, -1]}", "an addition with 1 operand"},
        {"{\"terms\": 4, \"bias\": false, \"parent\": [6, 6, 4, 4, 5, 4, -1]}", "2 of 4 terms are in the tree"},
        {"{\"terms\": 4, \"bias\": false, \"parent\": [4, 4, 4, 4, -1, 6, 5]}", "not in the tree (a cycle)"},
        {"{\"terms\": 4, \"bias\": false, \"parent\": [4, 4, 5, 5, -1, 4, 6]}", "parent[6]"},
        {"{\"terms\": 3, \"bias\": false, \"parent\": [3, 3, 4, 4, -1, 4]}", "has 3 to 5 nodes"},
        {"{\"terms\": 0, \"bias\": false, \"parent\": []}", "\"terms\" (1 to"},
        {"{\"terms\": 3, \"bias\": 1, \"parent\": [3, 3, 4, 4, -1]}", "\"bias\" (true or false)"},
        {"{\"terms\": 3, \"bias\": false, \"parent\": [3, 3, 4, \"4\", -1]}", "parent[3]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *j = json_loads(bad[i].json, 0, NULL);
        cr_assert_not_null(j, "%s", bad[i].json);
        struct fpd_sumtree t;
        char why[256] = "";
        int rc = fpd_sumtree_from_json(j, &t, why, sizeof why);
        json_decref(j);
        if (!bad[i].why) {
            cr_expect_eq(rc, FPD_OK, "%s: %s", bad[i].json, why);
            fpd_sumtree_free(&t);
            continue;
        }
        cr_expect_eq(rc, FPD_ERR_INPUT, "%s was taken", bad[i].json);
        cr_expect(strstr(why, bad[i].why), "%s: '%s' does not say '%s'", bad[i].json, why, bad[i].why);
        cr_expect_null(t.node, "%s: a refused tree is left empty", bad[i].json);
    }
}
