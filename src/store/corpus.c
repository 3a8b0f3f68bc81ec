/* corpus.c — case files: JSON encoding, atomic saving, validated loading. */
#include "store/corpus.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "backends/backend_pinned.h"
#include "common/dtype.h"
#include "common/file_read.h"
#include "common/text.h"
#include "common/version.h"
#include "gen/gen.h"
#include "store/sidecar.h"

/* ---- elements -------------------------------------------------------------------------------- */

json_t *fpd_seed_json(uint64_t seed)
{
    if (seed <= INT64_MAX)
        return json_integer((json_int_t)seed);
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRIu64, seed); /* beyond JSON integers as Jansson reads them */
    return json_string(buf);
}

json_t *fpd_element_json(enum fpd_dtype t, uint64_t bits)
{
    char buf[48];
    switch (fpd_classify_bits(t, bits)) {
    case FPD_CLASS_NAN: snprintf(buf, sizeof buf, "nan:0x%" PRIx64, bits); break;
    case FPD_CLASS_POS_INF: snprintf(buf, sizeof buf, "inf"); break;
    case FPD_CLASS_NEG_INF: snprintf(buf, sizeof buf, "-inf"); break;
    default: snprintf(buf, sizeof buf, "%a", fpd_value_of_bits(t, bits)); break;
    }
    return json_string(buf);
}

/* The bits of value x in type t, when x is exactly representable there. */
static bool exact_bits(enum fpd_dtype t, double x, uint64_t *bits)
{
    if (!(fpd_round(t, x) <= x && fpd_round(t, x) >= x))
        return false;
    *bits = fpd_bits_of_value(t, x);
    return true;
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A hex float ("-0x1.8p+1", as %a writes it) read exactly: true only when its value is a binary64
 * value, with no digit rounded away, nothing lost to underflow and no overflow. strtod would round
 * a long significand and flush 0x1p-99999 to zero, and a case would replay other data than it
 * shows. */
static bool hex_float_exact(const char *text, double *out)
{
    const char *p = text + (text[0] == '-');
    if (p[0] != '0' || p[1] != 'x')
        return false;
    p += 2;
    uint64_t significand = 0;
    long exponent = 0; /* of the significand's last digit kept */
    bool digits = false, dot = false;
    for (;; p++) {
        if (*p == '.' && !dot) {
            dot = true;
            continue;
        }
        int d = hex_digit(*p);
        if (d < 0)
            break;
        digits = true;
        if (significand >> 60 == 0) {
            significand = significand << 4 | (uint64_t)d;
            exponent -= dot ? 4 : 0;
        } else if (d) {
            return false; /* a set bit more than 60 below the leading one: beyond 53 bits */
        } else {
            exponent += dot ? 0 : 4;
        }
    }
    if (!digits)
        return false;
    if (*p == 'p' || *p == 'P') {
        p++;
        bool negative = *p == '-';
        p += *p == '-' || *p == '+';
        long e = 0;
        if (!(*p >= '0' && *p <= '9'))
            return false;
        for (; *p >= '0' && *p <= '9'; p++)
            e = e < 100000000 ? e * 10 + (*p - '0') : e; /* far beyond any exponent: refused below */
        exponent += negative ? -e : e;
    }
    if (*p)
        return false;
    double x = 0;
    if (significand) {
        while (!(significand & 1)) {
            significand >>= 1;
            exponent++;
        }
        int bits = 64 - __builtin_clzll(significand);
        if (bits > 53 || exponent < -1074 || exponent + bits - 1 > 1023)
            return false;
        x = ldexp((double)significand, (int)exponent);
    }
    *out = text[0] == '-' ? -x : x;
    return true;
}

int fpd_element_parse(enum fpd_dtype t, const char *text, uint64_t *bits)
{
    size_t width = fpd_dtype_info(t)->size * 8;
    uint64_t mask = width == 64 ? UINT64_MAX : (1ull << width) - 1;
    if (strncmp(text, "nan:0x", 6) == 0) {
        char *end;
        errno = 0;
        size_t digits = strspn(text + 6, "0123456789abcdefABCDEF"); /* strtoull would take a sign, blanks, 0x */
        unsigned long long v = digits && digits <= 16 ? strtoull(text + 6, &end, 16) : 0;
        if (!digits || digits > 16 || *end || errno || (v & ~mask) || fpd_classify_bits(t, v) != FPD_CLASS_NAN)
            return FPD_ERR_INPUT;
        *bits = v;
        return FPD_OK;
    }
    if (strcmp(text, "inf") == 0 || strcmp(text, "-inf") == 0)
        return exact_bits(t, text[0] == '-' ? -INFINITY : INFINITY, bits) ? FPD_OK : FPD_ERR_INPUT;
    double x;
    if (!hex_float_exact(text, &x)) /* only hex floats: decimal would invite inexact values */
        return FPD_ERR_INPUT;
    return exact_bits(t, x, bits) ? FPD_OK : FPD_ERR_INPUT;
}

/* ---- encoding -------------------------------------------------------------------------------- */

static json_t *hex64_json(uint64_t x)
{
    char buf[17];
    snprintf(buf, sizeof buf, "%016" PRIx64, x);
    return json_string(buf);
}

static json_t *elements_json(enum fpd_dtype t, const void *p, size_t count)
{
    json_t *a = json_array();
    for (size_t i = 0; i < count; i++)
        json_array_append_new(a, fpd_element_json(t, fpd_bits(t, p, i)));
    return a;
}

static json_t *data_json(const struct fpd_case_file *f)
{
    const struct fpd_case *c = &f->chk.c;
    if (f->sidecar) {
        uint64_t hash[FPD_SIDECAR_FILES];
        fpd_sidecar_hashes(c, &f->data, hash);
        json_t *files = json_object();
        for (int i = 0; i < FPD_SIDECAR_FILES; i++)
            json_object_set_new(files, fpd_sidecar_key[i], hex64_json(hash[i]));
        return json_pack("{s:o}", "sidecar", files);
    }
    if (f->has_data) {
        return json_pack("{s:o,s:o,s:o}", "a", elements_json(c->dt.in, f->data.a, (size_t)c->batch * c->m * c->k), "b",
                         elements_json(c->dt.in, f->data.b, (size_t)c->batch * c->k * c->n), "bias",
                         elements_json(c->dt.out, f->data.bias, c->n));
    }
    uint64_t hash = 0;
    fpd_case_data_hash(c, &hash);
    return json_pack("{s:i,s:o,s:I,s:s,s:f,s:o}", "generator", (int)c->recipe.generator, "seed", fpd_seed_json(c->recipe.seed),
                     "index", (json_int_t)c->recipe.index, "dist", fpd_dist_table[c->recipe.dist].name, "specials",
                     c->recipe.special_rate, "hash", hex64_json(hash));
}

/* The check, canonically: what identifies a case file. */
static json_t *check_json(const struct fpd_case_file *f)
{
    const struct fpd_check *chk = &f->chk;
    const struct fpd_case *c = &chk->c;
    char dt[32];
    json_t *backends = json_array();
    for (int i = 0; i < chk->relation->backends; i++)
        json_array_append_new(backends, json_string(f->backend_names[i]));
    json_t *params = json_object();
    if (chk->relation->slice != FPD_SLICE_NONE)
        json_object_set_new(params, "slice", json_pack("{s:I,s:I}", "start", (json_int_t)chk->params.slice.start,
                                                       "len", (json_int_t)chk->params.slice.len));
    if (fpd_relation_takes_threads(chk->relation))
        json_object_set_new(params, "threads", json_integer(chk->params.threads));
    if (chk->relation->needs & FPD_FEAT_ALGOS)
        json_object_set_new(params, "algo", json_integer(chk->params.algo));
    if (chk->relation->needs & FPD_FEAT_CONCURRENT)
        json_object_set_new(params, "callers", json_integer(chk->params.callers));
    if (chk->relation->takes & FPD_TAKES_SPLIT)
        json_object_set_new(params, "split_k", json_integer(chk->params.split_k));
    if (chk->relation->takes & FPD_TAKES_SCALE)
        json_object_set_new(params, "scale", json_integer(chk->params.scale));
    if (chk->relation->takes & FPD_TAKES_SCALARS) {
        json_object_set_new(params, "alpha", json_integer(chk->params.alpha));
        json_object_set_new(params, "beta", json_integer(chk->params.beta));
        if (chk->params.alpha_negative) /* absent: positive, as the files before the sign have it */
            json_object_set_new(params, "alpha_negative", json_true());
    }
    json_t *cj = json_pack("{s:I,s:I,s:I,s:I,s:b,s:b,s:b,s:I,s:s}", "batch", (json_int_t)c->batch, "m",
                           (json_int_t)c->m, "n", (json_int_t)c->n, "k", (json_int_t)c->k, "trans_a", c->trans_a,
                           "trans_b", c->trans_b, "bias", c->has_bias, "pad", (json_int_t)c->pad, "dtype",
                           fpd_dtypes_format(&c->dt, dt, sizeof dt));
    json_object_set_new(cj, "data", data_json(f));
    json_t *check = json_pack("{s:s,s:o,s:o,s:o}", "relation", chk->relation->name, "backends", backends, "params",
                              params, "case", cj);
    if (fpd_check_threads(chk) > 0)
        json_object_set_new(check, "threads", json_integer(fpd_check_threads(chk)));
    return check;
}

/* The exact report's members as a case file keeps them, in a table for writing and reading alike. */
static const struct {
    const char *key;
    size_t offset;
    bool count;    /* a count of elements, else a number (null: infinite) */
    bool optional; /* absent from the files of fpdiv before it measured it: 0 */
} exact_members[] = {
    {"ulp_a", offsetof(struct fpd_exact_report, err_ulp[0]), false, false},
    {"ulp_b", offsetof(struct fpd_exact_report, err_ulp[1]), false, false},
    {"own_ratio_a", offsetof(struct fpd_exact_report, own_ratio[0]), false, false},
    {"own_ratio_b", offsetof(struct fpd_exact_report, own_ratio[1]), false, false},
    {"wrong_class_a", offsetof(struct fpd_exact_report, wrong_class[0]), true, false},
    {"wrong_class_b", offsetof(struct fpd_exact_report, wrong_class[1]), true, false},
    {"threshold_a", offsetof(struct fpd_exact_report, threshold[0]), true, false},
    {"threshold_b", offsetof(struct fpd_exact_report, threshold[1]), true, false},
    {"aggregate_a", offsetof(struct fpd_exact_report, aggregate[0]), false, true},
    {"aggregate_b", offsetof(struct fpd_exact_report, aggregate[1]), false, true},
    {"zero_sign_a", offsetof(struct fpd_exact_report, zero_sign[0]), true, true},
    {"zero_sign_b", offsetof(struct fpd_exact_report, zero_sign[1]), true, true},
};

json_t *fpd_exact_report_json(const struct fpd_exact_report *x)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < sizeof exact_members / sizeof exact_members[0]; i++) {
        const char *at = (const char *)x + exact_members[i].offset;
        if (exact_members[i].optional && exact_members[i].count && *(const size_t *)at == 0)
            continue; /* as the files before it was measured have it */
        json_object_set_new(o, exact_members[i].key,
                            exact_members[i].count ? json_integer((json_int_t)*(const size_t *)at)
                                                   : fpd_json_finite(*(const double *)at) /* Inf: a wrong class */);
    }
    return o;
}

json_t *fpd_case_file_json(const struct fpd_case_file *f)
{
    json_t *outcome = json_pack("{s:s,s:I,s:I,s:I,s:o,s:o}", "verdict", fpd_verdict_table[f->recorded.verdict].name,
                                "diff", (json_int_t)f->recorded.diff, "count", (json_int_t)f->recorded.count,
                                "max_ulp", (json_int_t)(f->recorded.max_ulp > INT64_MAX ? INT64_MAX : f->recorded.max_ulp),
                                "hash_a", hex64_json(f->recorded.hash_a), "hash_b", hex64_json(f->recorded.hash_b));
    json_object_set_new(outcome, "ratio", fpd_json_finite(f->recorded.ratio));
    if (f->recorded.exact.computed)
        json_object_set_new(outcome, "exact", fpd_exact_report_json(&f->recorded.exact));
    if (f->recorded.probable_ratio > 0)
        json_object_set_new(outcome, "probable_ratio", json_real(f->recorded.probable_ratio));
    if (f->recorded.strict_excess > 0)
        json_object_set_new(outcome, "strict_excess", json_real(f->recorded.strict_excess));
    json_t *j = json_pack("{s:i,s:s,s:o,s:o,s:{s:o,s:I,s:i},s:I,s:o}", "schema", FPD_CASE_SCHEMA, "fpdiv", FPD_VERSION,
                          "check", check_json(f), "outcome", outcome, "origin", "seed", fpd_seed_json(f->origin_seed),
                          "index", (json_int_t)f->origin_index, "generator", (int)f->origin_generator, "count",
                          (json_int_t)f->signature_count, "environment",
                          f->environment ? json_incref(f->environment) : json_object());
    if (j && f->merged_from)
        json_object_set(j, "merged_from", f->merged_from);
    return j;
}

int fpd_case_file_hash(const struct fpd_case_file *f, uint64_t *hash)
{
    json_t *j = check_json(f);
    char *text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(j);
    if (!text)
        return FPD_ERR_NOMEM;
    *hash = XXH3_64bits(text, strlen(text));
    free(text);
    return FPD_OK;
}

int fpd_case_file_from_check(struct fpd_case_file *f, const struct fpd_check *chk, const struct fpd_check_result *res,
                             size_t inline_max, json_t *environment)
{
    *f = (struct fpd_case_file){.chk = *chk, .environment = environment, .signature_count = 1};
    const struct fpd_case *c = &chk->c;
    for (int i = 0; i < chk->relation->backends; i++)
        snprintf(f->backend_names[i], sizeof f->backend_names[i], "%s", chk->backends[i]->impl->name);
    f->recorded.verdict = res->verdict;
    f->recorded.diff = res->metrics.diff;
    f->recorded.count = res->metrics.count;
    f->recorded.max_ulp = res->metrics.max_ulp;
    f->recorded.ratio = res->metrics.ratio;
    f->recorded.hash_a = res->metrics.hash_a;
    f->recorded.hash_b = res->metrics.hash_b;
    f->recorded.exact = res->exact;
    f->recorded.probable_ratio = res->probable_ratio;
    f->recorded.strict_excess = res->strict_excess;
    f->origin_seed = c->recipe.seed;
    f->origin_index = c->recipe.index;
    f->origin_generator = c->recipe.generator;
    size_t in = fpd_dtype_info(c->dt.in)->size, out = fpd_dtype_info(c->dt.out)->size;
    double bytes = (double)c->batch * ((double)c->m * c->k + (double)c->k * c->n) * (double)in + (double)c->n * out;
    if (c->data || bytes <= (double)inline_max) {
        int rc = fpd_case_data_capture(c, &f->data);
        if (rc != FPD_OK)
            return rc;
        f->has_data = true;
        f->sidecar = bytes > (double)inline_max;
        f->chk.c.data = &f->data;
    }
    return FPD_OK;
}

void fpd_case_file_free(struct fpd_case_file *f)
{
    fpd_case_data_free(&f->data);
    json_decref(f->merged_from);
    json_decref(f->environment);
    *f = (struct fpd_case_file){0};
}

/* ---- saving ---------------------------------------------------------------------------------- */


/* ---- loading --------------------------------------------------------------------------------- */

struct reader {
    const char *path;
    char *why;
    size_t why_size;
    double max_mem;    /* a case needing more is refused before its data is generated */
    bool schema1;      /* a file of schema 1: its provenance (if any) in legacy */
    json_t *legacy;    /* schema 1's provenance */
    json_t *recorded;  /* each backend's record, by the name the file gives it (recorded_backends) */
    char written[2][64]; /* the backends' names as the file writes them */
    bool any_backend;  /* a backend not loaded here stands in as a placeholder (fpd_case_file_load_any) */
};

static int bad(struct reader *r, const char *field, const char *expected)
{
    snprintf(r->why, r->why_size, "%s: %s: %s", r->path, field, expected);
    return FPD_ERR_INPUT;
}

static json_t *member(struct reader *r, json_t *obj, const char *field, const char *key, json_type type, int *rc)
{
    json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
    static const char *const names[] = {[JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array",
                                        [JSON_STRING] = "a string",  [JSON_INTEGER] = "an integer",
                                        [JSON_REAL] = "a number",    [JSON_TRUE] = "true or false",
                                        [JSON_FALSE] = "true or false", [JSON_NULL] = "null"};
    bool ok = v && (json_typeof(v) == type || (type == JSON_TRUE && json_is_boolean(v)) ||
                    (type == JSON_REAL && json_is_number(v)));
    if (!ok && *rc == FPD_OK) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s %s", v ? "expected" : "missing; expected", names[type]);
        *rc = bad(r, field, msg);
    }
    return ok ? v : NULL;
}

static uint64_t get_uint(struct reader *r, json_t *obj, const char *field, const char *key, uint64_t lo, uint64_t hi,
                         int *rc)
{
    json_t *v = member(r, obj, field, key, JSON_INTEGER, rc);
    if (!v)
        return lo;
    json_int_t x = json_integer_value(v);
    if (x < 0 || (uint64_t)x < lo || (uint64_t)x > hi) {
        char msg[96];
        snprintf(msg, sizeof msg, "expected an integer from %" PRIu64 " to %" PRIu64, lo, hi);
        if (*rc == FPD_OK)
            *rc = bad(r, field, msg);
        return lo;
    }
    return (uint64_t)x;
}

/* A small signed integer (beta's exponent). */
static int get_int(struct reader *r, json_t *obj, const char *field, const char *key, int lo, int hi, int *rc)
{
    json_t *v = member(r, obj, field, key, JSON_INTEGER, rc);
    if (!v)
        return 0;
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi) {
        char msg[96];
        snprintf(msg, sizeof msg, "expected an integer from %d to %d", lo, hi);
        if (*rc == FPD_OK)
            *rc = bad(r, field, msg);
        return 0;
    }
    return (int)x;
}

static uint64_t get_hex64(struct reader *r, json_t *obj, const char *field, const char *key, int *rc)
{
    json_t *v = member(r, obj, field, key, JSON_STRING, rc);
    if (!v)
        return 0;
    const char *s = json_string_value(v);
    char *end;
    uint64_t x = strtoull(s, &end, 16);
    if (strlen(s) != 16 || *end) {
        if (*rc == FPD_OK)
            *rc = bad(r, field, "expected 16 hex digits");
        return 0;
    }
    return x;
}

/* "outcome.exact", where the file has it: every member a count, or a non-negative number or null. */
static void read_exact(struct reader *r, json_t *outcome, struct fpd_exact_report *x, int *rc)
{
    json_t *o = json_object_get(outcome, "exact");
    if (!o || *rc != FPD_OK)
        return;
    if (!json_is_object(o)) {
        *rc = bad(r, "outcome.exact", "expected an object");
        return;
    }
    *x = (struct fpd_exact_report){.computed = true};
    for (size_t i = 0; i < sizeof exact_members / sizeof exact_members[0] && *rc == FPD_OK; i++) {
        char field[64];
        snprintf(field, sizeof field, "outcome.exact.%s", exact_members[i].key);
        char *at = (char *)x + exact_members[i].offset;
        json_t *v = json_object_get(o, exact_members[i].key);
        if (!v && exact_members[i].optional)
            continue;
        if (exact_members[i].count)
            *(size_t *)at = (size_t)get_uint(r, o, field, exact_members[i].key, 0, INT64_MAX, rc);
        else if (json_is_null(v) || (json_is_number(v) && json_number_value(v) >= 0))
            *(double *)at = json_is_null(v) ? INFINITY : json_number_value(v);
        else
            *rc = bad(r, field, v ? "expected a non-negative number or null" : "missing; expected a number or null");
    }
    for (int w = 0; w < 2 && *rc == FPD_OK; w++)
        if (x->own_ratio[w] > 1 || x->zero_sign[w])
            x->beyond |= 1u << w;
}

/* outcome.KEY (probable_ratio, strict_excess), where the saving check took it: a positive number. */
static void read_positive(struct reader *r, json_t *outcome, const char *key, double *value, int *rc)
{
    json_t *v = json_object_get(outcome, key);
    if (!v || *rc != FPD_OK)
        return;
    if (json_is_number(v) && json_number_value(v) > 0) {
        *value = json_number_value(v);
    } else {
        char field[64];
        snprintf(field, sizeof field, "outcome.%s", key);
        *rc = bad(r, field, "expected a positive number");
    }
}

/* What makes a verdict `improbable` within the worst-case bound: the probabilistic threshold of one
 * element, a strict relation's, or either path's aggregate test. */
static bool improbable_evidence(const struct fpd_recorded_outcome *o)
{
    return o->probable_ratio > 1 || o->strict_excess > 1 || o->exact.aggregate[0] > 1 || o->exact.aggregate[1] > 1;
}

static uint64_t get_seed(struct reader *r, json_t *obj, const char *field, int *rc)
{
    json_t *v = json_object_get(obj, "seed");
    if (json_is_integer(v) && json_integer_value(v) >= 0)
        return (uint64_t)json_integer_value(v);
    if (json_is_string(v)) {
        char *end;
        errno = 0;
        uint64_t x = strtoull(json_string_value(v), &end, 10);
        if (!*end && !errno && json_string_value(v)[0] >= '0' && json_string_value(v)[0] <= '9')
            return x;
    }
    if (*rc == FPD_OK)
        *rc = bad(r, field, "expected a non-negative integer (or its decimal string)");
    return 0;
}

static int read_elements(struct reader *r, json_t *obj, const char *field, const char *key, enum fpd_dtype t,
                         size_t count, void **out)
{
    int rc = FPD_OK;
    json_t *a = member(r, obj, field, key, JSON_ARRAY, &rc);
    if (!a)
        return rc;
    if (json_array_size(a) != count) {
        char msg[96];
        snprintf(msg, sizeof msg, "expected %zu elements, found %zu", count, json_array_size(a));
        return bad(r, field, msg);
    }
    *out = calloc(count ? count : 1, fpd_dtype_info(t)->size);
    if (!*out)
        return FPD_ERR_NOMEM;
    for (size_t i = 0; i < count; i++) {
        json_t *e = json_array_get(a, i);
        uint64_t bits;
        if (!json_is_string(e) || fpd_element_parse(t, json_string_value(e), &bits) != FPD_OK) {
            char msg[160];
            snprintf(msg, sizeof msg, "element %zu is not an exact %s value (a hex float such as \"0x1.8p+1\", "
                                      "\"inf\", \"-inf\" or \"nan:0xBITS\")",
                     i, fpd_dtype_info(t)->name);
            return bad(r, field, msg);
        }
        fpd_store_bits(t, *out, i, bits);
    }
    return FPD_OK;
}

/* check.case.data.sidecar: the data in the files beside this one, each checked by its hash. */
static int read_sidecars(struct reader *r, json_t *files, struct fpd_case_file *f)
{
    int rc = FPD_OK;
    uint64_t hash[FPD_SIDECAR_FILES];
    for (int i = 0; i < FPD_SIDECAR_FILES; i++) {
        char field[64];
        snprintf(field, sizeof field, "check.case.data.sidecar.%s", fpd_sidecar_key[i]);
        hash[i] = get_hex64(r, files, field, fpd_sidecar_key[i], &rc);
    }
    if (rc == FPD_OK && (rc = fpd_sidecar_read(r->path, &f->chk.c, hash, &f->data, r->why, r->why_size)) != FPD_OK) {
        /* the sidecar's own reason names the sidecar; the refusal names the case file first, as
         * every other refusal of it does */
        char sidecar_why[1024];
        snprintf(sidecar_why, sizeof sidecar_why, "%s", r->why);
        snprintf(r->why, r->why_size, "%s: check.case.data.sidecar: %s", r->path, sidecar_why);
    }
    if (rc == FPD_OK) {
        f->has_data = f->sidecar = true;
        f->data.origin = FPD_DATA_SIDECAR;
        f->chk.c.data = &f->data;
    }
    return rc;
}

static int read_data(struct reader *r, json_t *data, struct fpd_case_file *f)
{
    struct fpd_case *c = &f->chk.c;
    int rc = FPD_OK;
    if (json_object_get(data, "sidecar")) {
        json_t *files = member(r, data, "check.case.data.sidecar", "sidecar", JSON_OBJECT, &rc);
        return rc == FPD_OK ? read_sidecars(r, files, f) : rc;
    }
    if (json_object_get(data, "a")) {
        f->data = (struct fpd_case_data){.batch = c->batch, .m = c->m, .n = c->n, .k = c->k};
        f->has_data = true;
        if ((rc = read_elements(r, data, "check.case.data.a", "a", c->dt.in, (size_t)c->batch * c->m * c->k,
                                &f->data.a)) != FPD_OK ||
            (rc = read_elements(r, data, "check.case.data.b", "b", c->dt.in, (size_t)c->batch * c->k * c->n,
                                &f->data.b)) != FPD_OK ||
            (rc = read_elements(r, data, "check.case.data.bias", "bias", c->dt.out, c->n, &f->data.bias)) != FPD_OK)
            return rc;
        c->data = &f->data;
        return FPD_OK;
    }
    uint64_t generator = get_uint(r, data, "check.case.data.generator", "generator", 0, INT32_MAX, &rc);
    c->recipe.seed = get_seed(r, data, "check.case.data.seed", &rc);
    c->recipe.index = (uint32_t)get_uint(r, data, "check.case.data.index", "index", 0, UINT32_MAX, &rc);
    json_t *dist = member(r, data, "check.case.data.dist", "dist", JSON_STRING, &rc);
    json_t *specials = member(r, data, "check.case.data.specials", "specials", JSON_REAL, &rc);
    uint64_t hash = get_hex64(r, data, "check.case.data.hash", "hash", &rc);
    if (rc != FPD_OK)
        return rc;
    if (!fpd_gen_known((unsigned)generator)) {
        snprintf(r->why, r->why_size, "%s: check.case.data.generator: made by generator %" PRIu64
                 ", this fpdiv has generators 1 to %d: its data cannot be regenerated", r->path, generator,
                 FPD_GEN_VERSION);
        return FPD_ERR_INPUT;
    }
    c->recipe.generator = (unsigned)generator;
    if (fpd_dist_parse(json_string_value(dist), &c->recipe.dist) != FPD_OK)
        return bad(r, "check.case.data.dist", "unknown distribution");
    c->recipe.special_rate = json_number_value(specials);
    if (!(c->recipe.special_rate >= 0 && c->recipe.special_rate <= 1))
        return bad(r, "check.case.data.specials", "expected a probability from 0 to 1");
    uint64_t actual;
    if ((rc = fpd_case_data_hash(c, &actual)) != FPD_OK) {
        snprintf(r->why, r->why_size, "%s: out of memory while generating the case's data", r->path);
        return rc;
    }
    if (actual != hash) {
        snprintf(r->why, r->why_size, "%s: check.case.data.hash: the generated data hash to %016" PRIx64
                 ", the file says %016" PRIx64 ": generator drift, refusing to replay different data", r->path, actual,
                 hash);
        return FPD_ERR_INPUT;
    }
    return FPD_OK;
}

/* How a file names a backend, as fpd_backend_resolve reads it. A library named alone, where the
 * file records the kernel set it ran, is that set's: a schema-1 file kept its core in the
 * provenance ("openblas" with core Cooperlake is openblas@Cooperlake), and a file written before
 * fpdiv could pin a library (BLIS's configuration) recorded the set in its environment. */
static void backend_spec(json_t *recorded, bool schema1, const char *name, char *out, size_t size)
{
    json_t *entry = json_object_get(recorded, name);
    const char *set = json_string_value(json_object_get(entry, schema1 ? "core" : "kernel_set"));
    struct fpd_backend_slot *b = set && *set && !strchr(name, '@') ? fpd_registry_find(name) : NULL;
    if (b && fpd_backend_pinnable(b->impl) && snprintf(out, size, "%s@%s", name, set) < (int)size)
        return;
    snprintf(out, size, "%s", name);
}

/* The record of each backend a file keeps: schema 1's provenance, or the environment's. */
static json_t *recorded_backends(json_t *root, bool schema1)
{
    json_t *record = json_object_get(root, schema1 ? "provenance" : "environment");
    json_t *backends = json_object_get(record, "backends");
    return json_is_object(backends) ? backends : NULL;
}

static int read_check(struct reader *r, json_t *check, struct fpd_case_file *f)
{
    struct fpd_check *chk = &f->chk;
    struct fpd_case *c = &chk->c;
    int rc = FPD_OK;
    json_t *relation = member(r, check, "check.relation", "relation", JSON_STRING, &rc);
    json_t *backends = member(r, check, "check.backends", "backends", JSON_ARRAY, &rc);
    json_t *params = member(r, check, "check.params", "params", JSON_OBJECT, &rc);
    json_t *cj = member(r, check, "check.case", "case", JSON_OBJECT, &rc);
    if (rc != FPD_OK)
        return rc;
    chk->relation = fpd_relation_find(json_string_value(relation));
    if (!chk->relation) {
        char msg[128];
        snprintf(msg, sizeof msg, "unknown relation '%.64s'", json_string_value(relation));
        return bad(r, "check.relation", msg);
    }
    if ((int)json_array_size(backends) != chk->relation->backends)
        return bad(r, "check.backends", chk->relation->backends == 2 ? "expected two names" : "expected one name");
    for (int i = 0; i < chk->relation->backends; i++) {
        json_t *name = json_array_get(backends, (size_t)i);
        char spec[64], msg[384];
        if (!json_is_string(name) || !fpd_backend_name_valid(json_string_value(name))) {
            snprintf(msg, sizeof msg, "'%.100s' is not a backend name fpdiv writes (a letter or digit, then letters, "
                     "digits, '-', '_', '.' or '+', and @SET for a kernel set; under 64 bytes)",
                     json_is_string(name) ? json_string_value(name) : "");
            return bad(r, "check.backends", json_is_string(name) ? msg : "expected backend names");
        }
        snprintf(r->written[i], sizeof r->written[i], "%s", json_string_value(name));
        backend_spec(r->recorded, r->schema1, json_string_value(name), spec, sizeof spec);
        if (fpd_backend_resolve(spec, &chk->backends[i], msg, sizeof msg) != FPD_OK &&
            !(r->any_backend && (chk->backends[i] = fpd_registry_placeholder(spec)) != NULL))
            return bad(r, "check.backends", msg);
        snprintf(f->backend_names[i], sizeof f->backend_names[i], "%s", chk->backends[i]->impl->name);
    }
    /* the thread count, when a library backend runs with one (schema 1 did not say: fuzz's 1) */
    chk->default_threads = 1;
    if (json_object_get(check, "threads") || (!r->schema1 && fpd_check_threads(chk) > 0))
        chk->default_threads = (int)get_uint(r, check, "check.threads", "threads", 1, 1024, &rc);
    fpd_case_defaults(c);
    c->batch = (uint32_t)get_uint(r, cj, "check.case.batch", "batch", 1, FPD_RNG_MAX_BATCH - 1, &rc);
    c->m = (uint32_t)get_uint(r, cj, "check.case.m", "m", 1, FPD_MAX_DIM, &rc);
    c->n = (uint32_t)get_uint(r, cj, "check.case.n", "n", 1, FPD_MAX_DIM, &rc);
    c->k = (uint32_t)get_uint(r, cj, "check.case.k", "k", 0, FPD_MAX_DIM, &rc);
    c->pad = (uint32_t)get_uint(r, cj, "check.case.pad", "pad", 0, 1u << 16, &rc);
    json_t *ta = member(r, cj, "check.case.trans_a", "trans_a", JSON_TRUE, &rc);
    json_t *tb = member(r, cj, "check.case.trans_b", "trans_b", JSON_TRUE, &rc);
    json_t *bias = member(r, cj, "check.case.bias", "bias", JSON_TRUE, &rc);
    json_t *dtype = member(r, cj, "check.case.dtype", "dtype", JSON_STRING, &rc);
    json_t *data = member(r, cj, "check.case.data", "data", JSON_OBJECT, &rc);
    if (rc != FPD_OK)
        return rc;
    c->trans_a = json_is_true(ta), c->trans_b = json_is_true(tb), c->has_bias = json_is_true(bias);
    char msg[256];
    if (fpd_dtypes_parse(json_string_value(dtype), &c->dt, msg, sizeof msg) != FPD_OK)
        return bad(r, "check.case.dtype", msg);
    chk->params.slice = (struct fpd_range){0, 1};
    chk->params.threads = 2;
    if (chk->relation->slice != FPD_SLICE_NONE) {
        json_t *slice = member(r, params, "check.params.slice", "slice", JSON_OBJECT, &rc);
        chk->params.slice.start = (uint32_t)get_uint(r, slice, "check.params.slice.start", "start", 0, UINT32_MAX, &rc);
        chk->params.slice.len = (uint32_t)get_uint(r, slice, "check.params.slice.len", "len", 1, UINT32_MAX, &rc);
    }
    if (fpd_relation_takes_threads(chk->relation))
        chk->params.threads = (int)get_uint(r, params, "check.params.threads", "threads", 1, 1024, &rc);
    chk->params.algo = 1;
    if (chk->relation->needs & FPD_FEAT_ALGOS)
        chk->params.algo = (int)get_uint(r, params, "check.params.algo", "algo", 1, 64, &rc);
    chk->params.callers = 2;
    if (chk->relation->needs & FPD_FEAT_CONCURRENT)
        chk->params.callers = (unsigned)get_uint(r, params, "check.params.callers", "callers", 2, FPD_MAX_CALLERS, &rc);
    chk->params.split_k = 1;
    if (chk->relation->takes & FPD_TAKES_SPLIT)
        chk->params.split_k = (uint32_t)get_uint(r, params, "check.params.split_k", "split_k", 1, FPD_MAX_DIM, &rc);
    chk->params.scale = 1;
    if (chk->relation->takes & FPD_TAKES_SCALE)
        chk->params.scale = (int)get_uint(r, params, "check.params.scale", "scale", 1, FPD_SCALE_MAX, &rc);
    chk->params.alpha = 1, chk->params.beta = 0;
    if (chk->relation->takes & FPD_TAKES_SCALARS) {
        chk->params.alpha = (int)get_uint(r, params, "check.params.alpha", "alpha", 0, FPD_SCALE_MAX, &rc);
        chk->params.beta = get_int(r, params, "check.params.beta", "beta", -FPD_SCALE_MAX, FPD_SCALE_MAX, &rc);
        chk->params.alpha_negative = json_object_get(params, "alpha_negative") &&
                                     json_is_true(member(r, params, "check.params.alpha_negative", "alpha_negative",
                                                         JSON_TRUE, &rc));
    }
    if (rc != FPD_OK)
        return rc;
    fpd_relation_prepare_case(chk->relation, c);
    if (fpd_relation_check_params(chk->relation, c, &chk->params, msg, sizeof msg) != FPD_OK)
        return bad(r, "check.params", msg);
    /* before any data is generated or read: a file may not ask for more memory than fpdiv has */
    if (fpd_case_validate(c, r->max_mem, msg, sizeof msg) != FPD_OK)
        return bad(r, "check.case", msg);
    return read_data(r, data, f);
}

static enum fpd_verdict read_verdict(struct reader *r, json_t *obj, int *rc)
{
    json_t *v = member(r, obj, "outcome.verdict", "verdict", JSON_STRING, rc);
    enum fpd_verdict verdict = FPD_SAME;
    if (v && fpd_verdict_parse(json_string_value(v), &verdict) != FPD_OK && *rc == FPD_OK)
        *rc = bad(r, "outcome.verdict", "unknown verdict");
    return verdict;
}

static void json_error_why(const char *name, const json_error_t *err, char *why, size_t why_size)
{
    if (err->line > 0)
        snprintf(why, why_size, "%s:%d:%d: %s", name, err->line, err->column, err->text);
    else
        snprintf(why, why_size, "%s: %s", name, err->text);
}

/* Validates a schema-2 environment record: fpdiv and generator versions, the CPU, and for each
 * backend its provenance strings and thread count, whose kernel set must be the one the check's
 * name for it gives. */
static int read_environment(struct reader *r, json_t *env, const struct fpd_case_file *f)
{
    /* every field may be missing (unrecorded); one that is there must be what it says */
    int rc = FPD_OK;
    if (json_object_get(env, "fpdiv"))
        member(r, env, "environment.fpdiv", "fpdiv", JSON_STRING, &rc);
    if (json_object_get(env, "generator"))
        get_uint(r, env, "environment.generator", "generator", 1, INT32_MAX, &rc);
    if (json_object_get(env, "vector_width"))
        member(r, env, "environment.vector_width", "vector_width", JSON_STRING, &rc);
    json_t *cpu = json_object_get(env, "cpu") ? member(r, env, "environment.cpu", "cpu", JSON_OBJECT, &rc) : NULL;
    json_t *backends = json_object_get(env, "backends")
                           ? member(r, env, "environment.backends", "backends", JSON_OBJECT, &rc)
                           : NULL;
    static const char *const cpu_strings[] = {"vendor", "model", "isa", "features"};
    static const char *const cpu_numbers[] = {"family", "model_number", "stepping", "l2_kib"};
    char field[160];
    for (size_t i = 0; cpu && i < sizeof cpu_strings / sizeof cpu_strings[0]; i++) {
        snprintf(field, sizeof field, "environment.cpu.%s", cpu_strings[i]);
        if (json_object_get(cpu, cpu_strings[i]))
            member(r, cpu, field, cpu_strings[i], JSON_STRING, &rc);
    }
    for (size_t i = 0; cpu && i < sizeof cpu_numbers / sizeof cpu_numbers[0]; i++) {
        snprintf(field, sizeof field, "environment.cpu.%s", cpu_numbers[i]);
        if (json_object_get(cpu, cpu_numbers[i]))
            get_uint(r, cpu, field, cpu_numbers[i], 0, UINT32_MAX, &rc);
    }
    const char *name;
    json_t *entry;
    json_object_foreach(backends, name, entry)
    {
        snprintf(field, sizeof field, "environment.backends.%.64s", name);
        bool the_checks = false; /* a record of a backend the check does not run is another case's */
        for (int i = 0; i < f->chk.relation->backends; i++)
            the_checks |= strcmp(name, r->written[i]) == 0;
        if (rc == FPD_OK && !the_checks)
            rc = bad(r, field, "a record of a backend the check does not run: the environment is not this check's");
        if (rc == FPD_OK && !json_is_object(entry))
            rc = bad(r, field, "expected an object");
        const char *key;
        json_t *value;
        json_object_foreach(json_is_object(entry) ? entry : NULL, key, value)
        {
            snprintf(field, sizeof field, "environment.backends.%.64s.%.64s", name, key);
            if (strcmp(key, "threads") == 0)
                get_uint(r, entry, field, key, 1, 1024, &rc);
            else if (rc == FPD_OK && !json_is_string(value))
                rc = bad(r, field, "expected a string");
        }
    }
    if (rc != FPD_OK)
        return rc;
    for (int i = 0; i < f->chk.relation->backends; i++) {
        const char *set, *recorded;
        entry = json_object_get(backends, r->written[i]);
        json_t *threads = json_object_get(entry, "threads");
        int ran = fpd_check_threads(&f->chk);
        if (threads && ran > 0 && (f->chk.backends[i]->impl->features & FPD_FEAT_THREADS) &&
            json_integer_value(threads) != ran) {
            char msg[160];
            snprintf(field, sizeof field, "environment.backends.%s.threads", r->written[i]);
            snprintf(msg, sizeof msg, "%" JSON_INTEGER_FORMAT ", where the check runs %d: the record is not this check's",
                     json_integer_value(threads), ran);
            return bad(r, field, msg);
        }
        recorded = json_string_value(json_object_get(entry, "kernel_set"));
        if (fpd_backend_pinned_parts(f->chk.backends[i]->impl, NULL, &set) && recorded && strcasecmp(recorded, set) != 0) {
            char msg[256];
            snprintf(field, sizeof field, "environment.backends.%s.kernel_set", r->written[i]);
            snprintf(msg, sizeof msg, "'%.48s', where the check names kernel set %s: the record is not this check's",
                     recorded, set);
            return bad(r, field, msg);
        }
    }
    return FPD_OK;
}

/* A schema-1 file's provenance in the shape of a schema-2 environment: its cpu string becomes the
 * model, its backends are named with their kernel sets, and "core" is "kernel_set". */
static json_t *environment_of_legacy(json_t *prov, const struct fpd_case_file *f)
{
    json_t *env = json_object(), *backends = json_object();
    json_t *version = json_object_get(prov, "fpdiv"), *generator = json_object_get(prov, "generator");
    if (json_is_string(version))
        json_object_set(env, "fpdiv", version);
    if (json_is_integer(generator) && json_integer_value(generator) >= 1 && json_integer_value(generator) <= INT32_MAX)
        json_object_set(env, "generator", generator);
    const char *cpu = json_string_value(json_object_get(prov, "cpu"));
    json_object_set_new(env, "cpu", json_pack("{s:s}", "model", cpu ? cpu : "unknown"));
    for (int i = 0; i < f->chk.relation->backends; i++) {
        json_t *old = json_object_get(json_object_get(prov, "backends"), f->chk.backends[i]->impl->name);
        const char *plain = f->chk.backends[i]->impl->name, *at = strchr(plain, '@');
        char base[64];
        snprintf(base, sizeof base, "%.*s", at ? (int)(at - plain) : (int)strlen(plain), plain);
        if (!old)
            old = json_object_get(json_object_get(prov, "backends"), base);
        /* its strings, "core" as "kernel_set"; "threads" was the library's default then, not the
         * count a check ran with, and goes; so does a core other than the kernel set the check
         * names, which read_environment refuses in a schema-2 file (the file written from this
         * one would not load) */
        const char *set = NULL;
        bool pinned = fpd_backend_pinned_parts(f->chk.backends[i]->impl, NULL, &set);
        json_t *entry = json_object(), *value;
        const char *key;
        json_object_foreach(json_is_object(old) ? old : NULL, key, value)
        {
            bool core = strcmp(key, "core") == 0;
            if (json_is_string(value) && strcmp(key, "threads") != 0 && strcmp(key, "kernel_set") != 0 &&
                !(core && pinned && strcasecmp(json_string_value(value), set) != 0))
                json_object_set(entry, core ? "kernel_set" : key, value);
        }
        json_object_set_new(backends, f->backend_names[i], entry);
    }
    json_object_set_new(env, "backends", backends);
    return env;
}

/* The recorded outcome, whose numbers must agree with each other, with the check and with the
 * verdict: the elements compared are the relation's region (none where a path failed), no more of
 * them differ, none differs by an ulp where none differs; bitwise `same` is no element differing
 * and one hash; `same`, `reorder` and `improbable` are within the worst-case bound, and only
 * `improbable` past the probabilistic threshold. (Equal outputs may still be judged worse: both
 * paths beyond their own bound. Differing ones may be 0 ulps apart: -0 and +0, two NaNs.) */
static void read_outcome(struct reader *r, json_t *outcome, struct fpd_case_file *f, int *rc)
{
    struct fpd_recorded_outcome *o = &f->recorded;
    o->verdict = read_verdict(r, outcome, rc);
    o->diff = get_uint(r, outcome, "outcome.diff", "diff", 0, INT64_MAX, rc);
    o->count = get_uint(r, outcome, "outcome.count", "count", 0, INT64_MAX, rc);
    o->max_ulp = get_uint(r, outcome, "outcome.max_ulp", "max_ulp", 0, INT64_MAX, rc);
    json_t *ratio = json_object_get(outcome, "ratio");
    o->ratio = json_is_number(ratio) ? json_number_value(ratio) : NAN;
    if (ratio && !json_is_null(ratio) && !(json_is_number(ratio) && o->ratio >= 0) && *rc == FPD_OK)
        *rc = bad(r, "outcome.ratio", "expected a non-negative number, or null where no bound was taken");
    o->hash_a = get_hex64(r, outcome, "outcome.hash_a", "hash_a", rc);
    o->hash_b = get_hex64(r, outcome, "outcome.hash_b", "hash_b", rc);
    read_exact(r, outcome, &o->exact, rc);
    read_positive(r, outcome, "probable_ratio", &o->probable_ratio, rc);
    read_positive(r, outcome, "strict_excess", &o->strict_excess, rc);
    if (*rc != FPD_OK)
        return;
    char msg[160];
    struct fpd_paths paths;
    fpd_relation_build(f->chk.relation, &f->chk.c, &f->chk.params, &paths);
    size_t region = (size_t)paths.compare.batch.len * paths.compare.rows.len * paths.compare.cols.len;
    bool within_bound = o->verdict == FPD_SAME || o->verdict == FPD_REORDER || o->verdict == FPD_IMPROBABLE;
    if (o->count != region && !(o->verdict == FPD_ERROR && o->count == 0)) {
        snprintf(msg, sizeof msg, "%zu elements compared, where the check compares %zu", o->count, region);
        *rc = bad(r, "outcome.count", msg);
    } else if (o->diff > o->count) {
        snprintf(msg, sizeof msg, "%zu differing elements of %zu compared", o->diff, o->count);
        *rc = bad(r, "outcome.diff", msg);
    } else if (within_bound && o->ratio > 1) {
        snprintf(msg, sizeof msg, "%g times the bound, where the verdict %s is within it", o->ratio,
                 fpd_verdict_table[o->verdict].name);
        *rc = bad(r, "outcome.ratio", msg);
    } else if ((o->verdict == FPD_IMPROBABLE) != improbable_evidence(o) && o->verdict <= FPD_IMPROBABLE) {
        *rc = bad(r, "outcome.probable_ratio",
                  o->verdict == FPD_IMPROBABLE
                      ? "missing, or not above 1, where the verdict is improbable (nor is outcome.strict_excess "
                        "or either of outcome.exact's aggregates)"
                      : "above 1 (or outcome.strict_excess, or an aggregate in outcome.exact), where the verdict "
                        "is not improbable");
    } else if (!o->diff && o->max_ulp) {
        *rc = bad(r, "outcome.max_ulp", "an ulp of difference where no element differs (outcome.diff is 0)");
    } else if (o->verdict == FPD_SAME && o->diff) {
        /* the hashes may differ: same compares no NaN's payload, the hashes hash every bit */
        *rc = bad(r, "outcome.diff", "the verdict is same (bitwise equal), so no element differs");
    }
}

/* "count": the checks of the signature the case stands for, at least 1 (1 where a file does not
 * say). A merged case says which saved cases it counts ("merged_from": name -> count), and its
 * count is their sum. */
static void read_count(struct reader *r, json_t *root, struct fpd_case_file *f, int *rc)
{
    f->signature_count =
        json_object_get(root, "count") ? get_uint(r, root, "count", "count", 1, FPD_SIGNATURE_COUNT_MAX, rc) : 1;
    json_t *from = json_object_get(root, "merged_from");
    if (!from || *rc != FPD_OK)
        return;
    if (!json_is_object(from) || json_object_size(from) == 0) {
        *rc = bad(r, "merged_from", "expected an object of case names and their counts");
        return;
    }
    size_t sum = 0;
    const char *name;
    json_t *count;
    json_object_foreach(from, name, count)
    {
        char field[96], relation[32], hex[17];
        int used = 0;
        snprintf(field, sizeof field, "merged_from.%.60s", name);
        if (sscanf(name, "%31[a-z0-9-]/%16[0-9a-f].json%n", relation, hex, &used) != 2 || name[used] ||
            strlen(hex) != 16 || !fpd_relation_find(relation)) {
            *rc = bad(r, field, "expected a case's name in a corpus, RELATION/16-HEX.json");
            return;
        }
        sum += get_uint(r, from, field, name, 1, FPD_SIGNATURE_COUNT_MAX, rc);
        if (*rc != FPD_OK)
            return;
    }
    if (sum != f->signature_count) {
        char msg[128];
        snprintf(msg, sizeof msg, "%zu, but the cases of merged_from count %zu", f->signature_count, sum);
        *rc = bad(r, "count", msg);
        return;
    }
    f->merged_from = json_incref(from);
}

/* The environment with each backend's record under the name the check now gives the backend (a
 * plain library name became LIB@SET): a file saved again stays consistent. */
static json_t *environment_renamed(const struct reader *r, json_t *env, const struct fpd_case_file *f)
{
    json_t *backends = json_object_get(env, "backends");
    bool renamed = false;
    for (int i = 0; i < f->chk.relation->backends; i++)
        renamed |= strcmp(r->written[i], f->backend_names[i]) != 0 && json_object_get(backends, r->written[i]);
    if (!renamed)
        return json_incref(env);
    json_t *copy = json_deep_copy(env), *moved = json_object_get(copy, "backends");
    for (int i = 0; copy && i < f->chk.relation->backends; i++) {
        json_t *entry = json_object_get(moved, r->written[i]);
        if (!entry || strcmp(r->written[i], f->backend_names[i]) == 0)
            continue;
        json_object_set(moved, f->backend_names[i], entry);
        json_object_del(moved, r->written[i]);
    }
    return copy;
}

/* Takes over root. */
static int read_case_file(const char *path, json_t *root, double max_mem, bool any_backend, struct fpd_case_file *f,
                          char *why, size_t why_size)
{
    struct reader r = {.path = path, .why = why, .why_size = why_size, .max_mem = max_mem, .any_backend = any_backend};
    int rc = FPD_OK;
    uint64_t schema = get_uint(&r, root, "schema", "schema", 0, INT32_MAX, &rc);
    if (rc == FPD_OK && schema != FPD_CASE_SCHEMA && schema != 1) {
        snprintf(why, why_size, "%s: schema: version %" PRIu64 ", this fpdiv reads versions 1 to %d", path, schema,
                 FPD_CASE_SCHEMA);
        rc = FPD_ERR_INPUT;
    }
    json_t *check = member(&r, root, "check", "check", JSON_OBJECT, &rc);
    json_t *outcome = member(&r, root, "outcome", "outcome", JSON_OBJECT, &rc);
    json_t *origin = member(&r, root, "origin", "origin", JSON_OBJECT, &rc);
    json_t *env = NULL;
    if (rc == FPD_OK && schema == 1) {
        r.schema1 = true;
        r.legacy = json_is_object(json_object_get(root, "provenance")) ? json_object_get(root, "provenance") : NULL;
    } else {
        env = member(&r, root, "environment", "environment", JSON_OBJECT, &rc);
    }
    r.recorded = recorded_backends(root, r.schema1);
    if (rc == FPD_OK)
        rc = read_check(&r, check, f);
    if (rc == FPD_OK && env)
        rc = read_environment(&r, env, f);
    if (rc == FPD_OK)
        read_outcome(&r, outcome, f, &rc);
    if (rc == FPD_OK) {
        f->origin_seed = get_seed(&r, origin, "origin.seed", &rc);
        f->origin_index = (uint32_t)get_uint(&r, origin, "origin.index", "index", 0, UINT32_MAX, &rc);
        /* files from before generator 2 do not say: generator 1 made their data */
        f->origin_generator = json_object_get(origin, "generator")
                                  ? (unsigned)get_uint(&r, origin, "origin.generator", "generator", 1, INT32_MAX, &rc)
                                  : 1;
        if (rc == FPD_OK && !fpd_gen_known(f->origin_generator)) /* its rerun line would name it */
            rc = bad(&r, "origin.generator", "not a generator of this fpdiv's");
        if (f->has_data) { /* C's poison and the exact reference's sample are the campaign check's, which
                              the data of its own (a minimized case's) no longer name */
            f->chk.c.recipe.seed = f->origin_seed;
            f->chk.c.recipe.index = f->origin_index;
        }
        read_count(&r, root, f, &rc);
        f->environment = env ? environment_renamed(&r, env, f) : environment_of_legacy(r.legacy, f);
    }
    json_decref(root);
    if (rc != FPD_OK)
        fpd_case_file_free(f);
    return rc;
}

/* Where a NUL byte is in text: JSON has none, and Jansson would report it only as the end of the
 * document. Its line and column in *line and *column (1-based); false when there is none. */
static bool nul_at(const char *text, size_t len, int *line, int *column)
{
    const char *nul = memchr(text, '\0', len);
    if (!nul)
        return false;
    *line = 1, *column = 1;
    for (const char *c = text; c < nul; c++) {
        *column = *c == '\n' ? 1 : *column + 1;
        *line += *c == '\n';
    }
    return true;
}

/* A JSON document from text; NULL with why naming name, line and column. */
static json_t *json_text_load(const char *name, const char *text, size_t len, size_t flags, char *why, size_t why_size)
{
    int line, column;
    if (nul_at(text, len, &line, &column)) {
        snprintf(why, why_size, "%s:%d:%d: a NUL byte, which no JSON text has", name, line, column);
        return NULL;
    }
    json_error_t err;
    json_t *root = json_loadb(text, len, flags, &err);
    if (!root)
        json_error_why(name, &err, why, why_size);
    return root;
}

/* A case file's JSON: read whole in large blocks (Jansson's own reader takes a byte per system
 * call), from a regular file only, of at most FPD_CASE_FILE_MAX bytes (file_read.h). */
json_t *fpd_json_file_load(const char *path, size_t flags, char *why, size_t why_size)
{
    char *text;
    size_t len;
    if (fpd_file_read(path, FPD_CASE_FILE_MAX, &text, &len, why, why_size) != FPD_OK)
        return NULL;
    json_t *root = json_text_load(path, text, len, flags, why, why_size);
    free(text);
    return root;
}

static int load_case_file(const char *path, bool any_backend, struct fpd_case_file *f, char *why, size_t why_size)
{
    *f = (struct fpd_case_file){0};
    json_t *root = fpd_json_file_load(path, JSON_REJECT_DUPLICATES, why, why_size);
    if (!root)
        return FPD_ERR_INPUT;
    return read_case_file(path, root, fpd_case_default_max_mem(), any_backend, f, why, why_size);
}

int fpd_case_file_load(const char *path, struct fpd_case_file *f, char *why, size_t why_size)
{
    return load_case_file(path, false, f, why, why_size);
}

int fpd_case_file_load_any(const char *path, struct fpd_case_file *f, char *why, size_t why_size)
{
    return load_case_file(path, true, f, why, why_size);
}

int fpd_case_file_parse(const char *name, const char *text, size_t len, double max_mem, struct fpd_case_file *f,
                        char *why, size_t why_size)
{
    *f = (struct fpd_case_file){0};
    json_t *root = json_text_load(name, text, len, JSON_REJECT_DUPLICATES, why, why_size);
    if (!root)
        return FPD_ERR_INPUT;
    return read_case_file(name, root, max_mem, false, f, why, why_size);
}

/* ---- signatures ------------------------------------------------------------------------------ */

void fpd_signature_of(const struct fpd_check *chk, enum fpd_verdict verdict, struct fpd_signature_key *key)
{
    *key = (struct fpd_signature_key){.dt = chk->c.dt, .verdict = verdict};
    snprintf(key->relation, sizeof key->relation, "%s", chk->relation->name);
    for (int i = 0; i < chk->relation->backends; i++)
        snprintf(key->backends[i], sizeof key->backends[i], "%s", chk->backends[i]->impl->name);
}

bool fpd_signature_equal(const struct fpd_signature_key *a, const struct fpd_signature_key *b)
{
    return strcmp(a->relation, b->relation) == 0 && strcmp(a->backends[0], b->backends[0]) == 0 &&
           strcmp(a->backends[1], b->backends[1]) == 0 && fpd_dtypes_equal(&a->dt, &b->dt) && a->verdict == b->verdict;
}

int fpd_case_file_signature(const char *path, struct fpd_signature_key *key, char *why, size_t why_size)
{
    json_t *root = fpd_json_file_load(path, 0, why, why_size);
    if (!root)
        return FPD_ERR_INPUT;
    json_t *schema = json_object_get(root, "schema"), *prov = json_object_get(root, "provenance");
    bool schema1 = json_is_integer(schema) && json_integer_value(schema) == 1;
    struct reader r = {.path = path, .why = why, .why_size = why_size, .max_mem = fpd_case_default_max_mem(),
                       .schema1 = schema1, .legacy = schema1 ? prov : NULL, .recorded = recorded_backends(root, schema1)};
    int rc = FPD_OK;
    *key = (struct fpd_signature_key){0};
    json_t *check = member(&r, root, "check", "check", JSON_OBJECT, &rc);
    json_t *outcome = member(&r, root, "outcome", "outcome", JSON_OBJECT, &rc);
    json_t *relation = member(&r, check, "check.relation", "relation", JSON_STRING, &rc);
    json_t *backends = member(&r, check, "check.backends", "backends", JSON_ARRAY, &rc);
    json_t *cj = member(&r, check, "check.case", "case", JSON_OBJECT, &rc);
    json_t *dtype = member(&r, cj, "check.case.dtype", "dtype", JSON_STRING, &rc);
    if (rc == FPD_OK) {
        key->verdict = read_verdict(&r, outcome, &rc);
        snprintf(key->relation, sizeof key->relation, "%s", json_string_value(relation));
        for (size_t i = 0; i < 2 && i < json_array_size(backends); i++) {
            /* named as loading names it (read_check): a kernel set's spelling, a plain library's set */
            const char *name = json_string_value(json_array_get(backends, i));
            char spec[64], msg[384];
            struct fpd_backend_slot *slot;
            backend_spec(r.recorded, schema1, name ? name : "", spec, sizeof spec);
            bool known = fpd_backend_resolve(spec, &slot, msg, sizeof msg) == FPD_OK;
            snprintf(key->backends[i], sizeof key->backends[i], "%s", known ? slot->impl->name : spec);
        }
        char msg[256];
        if (rc == FPD_OK && fpd_dtypes_parse(json_string_value(dtype), &key->dt, msg, sizeof msg) != FPD_OK)
            rc = bad(&r, "check.case.dtype", msg);
    }
    json_decref(root);
    return rc;
}
