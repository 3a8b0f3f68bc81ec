/* saved_result.c — sweeps, bisections and summation trees saved beside a corpus, and read back. */
#include "report/saved_result.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "common/version.h"
#include "report/check_report.h"
#include "report/console.h"
#include "store/corpus.h"
#include "store/corpus_dir.h"

const char *const fpd_saved_kind_names[FPD_SAVED_KIND_COUNT] = {"sweep", "bisect", "explain"};

json_t *fpd_saved_result_new(enum fpd_saved_kind kind, int argc, char **argv, const char *title, json_t *environment,
                             json_t *members)
{
    /* the command as it was typed, one shell word per argument, to be copied from the page */
    size_t size = 16;
    for (int i = 0; i < argc; i++) /* argv[0] is the command's name */
        size += 4 * strlen(argv[i]) + 4; /* quoted and made printable: at most 4 bytes a byte */
    char *command = malloc(size), *word = malloc(size);
    json_t *doc = NULL;
    if (command && word && members) {
        strcpy(command, "fpdiv");
        for (int i = 0; i < argc; i++)
            strcat(strcat(command, " "), fpd_shell_word(argv[i], word, size));
        doc = json_pack("{s:i, s:s, s:s, s:o, s:o, s:o}", "schema", FPD_SAVED_SCHEMA, "kind",
                        fpd_saved_kind_names[kind], "fpdiv", FPD_VERSION, "title", fpd_json_text(title), "command",
                        fpd_json_text(command), "environment", environment ? environment : json_object());
        environment = NULL;
        if (doc && json_object_update(doc, members) != 0)
            json_decref(doc), doc = NULL;
    }
    json_decref(environment);
    json_decref(members);
    free(command);
    free(word);
    return doc;
}

int fpd_saved_result_write(const char *corpus_dir, const char *command, json_t *doc)
{
    char *text = doc ? json_dumps(doc, JSON_INDENT(1) | JSON_SORT_KEYS) : NULL;
    char *file = text ? malloc(strlen(text) + 2) : NULL;
    const char *kind = json_string_value(json_object_get(doc, "kind"));
    if (!file) {
        free(text);
        json_decref(doc);
        fpd_console_error(command, "out of memory");
        return FPD_EXIT_INTERNAL;
    }
    sprintf(file, "%s\n", text);
    free(text);
    char path[4300], why[1024], shown[4400];
    bool existed;
    int rc = fpd_corpus_save_result(corpus_dir, kind, file, path, sizeof path, &existed, why, sizeof why);
    free(file);
    json_decref(doc);
    if (rc != FPD_OK) {
        fpd_console_error(command, "--save-to: %s", why);
        return FPD_EXIT_USAGE;
    }
    printf("%s %s\n", existed ? "already saved:" : "saved", fpd_printable(path, shown, sizeof shown));
    return FPD_EXIT_OK;
}

json_t *fpd_shape_probes_json(const struct fpd_shape_probe *probes, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++) {
        const struct fpd_shape_probe *p = &probes[i];
        const struct fpd_metrics *m = &p->metrics;
        char key[24];
        snprintf(key, sizeof key, "%016" PRIx64, p->key);
        json_t *o = p->tested ? json_pack("{s:I, s:s, s:I, s:I, s:o, s:I, s:o, s:s}", "value", (json_int_t)p->value,
                                          "verdict", fpd_verdict_table[p->verdict].name, "diff", (json_int_t)m->diff,
                                          "count", (json_int_t)m->count, "max_abs", fpd_json_finite(m->max_abs),
                                          "max_ulp", (json_int_t)m->max_ulp, "ratio",
                                          fpd_json_finite(fpd_reported_ratio(m)), "key", key)
                              : json_pack("{s:I, s:o}", "value", (json_int_t)p->value, "skipped",
                                          fpd_json_text(p->skip_reason));
        bool failed = o && p->tested && p->verdict == FPD_ERROR; /* what the error was, beside it */
        if (failed && json_object_set_new(o, "error", fpd_json_text(p->skip_reason)) != 0)
            json_decref(o), o = NULL;
        if (json_array_append_new(a, o) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

/* A member that is an integer in [0, max], or why not. */
static bool count_member(json_t *o, const char *name, uint64_t max, uint64_t *out)
{
    json_t *v = json_object_get(o, name);
    if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) > max)
        return false;
    *out = (uint64_t)json_integer_value(v);
    return true;
}

static bool real_or_null(json_t *o, const char *name, double *out)
{
    json_t *v = json_object_get(o, name);
    *out = json_is_number(v) ? json_number_value(v) : NAN;
    return json_is_null(v) || json_is_number(v);
}

static int probe_from_json(json_t *o, struct fpd_shape_probe *p, const char **bad)
{
    uint64_t value, diff, count, max_ulp;
    *p = (struct fpd_shape_probe){0};
    if (!json_is_object(o) || !count_member(o, "value", FPD_MAX_DIM, &value))
        return *bad = "value", FPD_ERR_INPUT;
    p->value = (uint32_t)value;
    json_t *skipped = json_object_get(o, "skipped");
    if (skipped) {
        if (!json_is_string(skipped))
            return *bad = "skipped", FPD_ERR_INPUT;
        snprintf(p->skip_reason, sizeof p->skip_reason, "%s", json_string_value(skipped));
        return FPD_OK;
    }
    p->tested = true;
    const char *verdict = json_string_value(json_object_get(o, "verdict")), *key = json_string_value(json_object_get(o, "key"));
    struct fpd_metrics *m = &p->metrics;
    if (!verdict || fpd_verdict_parse(verdict, &p->verdict) != FPD_OK)
        return *bad = "verdict", FPD_ERR_INPUT;
    if (!count_member(o, "count", SIZE_MAX, &count) || !count_member(o, "diff", count, &diff))
        return *bad = "diff or count", FPD_ERR_INPUT;
    if (!count_member(o, "max_ulp", UINT64_MAX >> 1, &max_ulp))
        return *bad = "max_ulp", FPD_ERR_INPUT;
    if (!real_or_null(o, "max_abs", &m->max_abs) || !real_or_null(o, "ratio", &m->ratio))
        return *bad = "max_abs or ratio", FPD_ERR_INPUT;
    char *end = NULL;
    if (!key || strlen(key) != 16 || (p->key = strtoull(key, &end, 16), *end))
        return *bad = "key", FPD_ERR_INPUT;
    m->diff = (size_t)diff, m->count = (size_t)count, m->max_ulp = max_ulp, m->bounded = isfinite(m->ratio);
    json_t *error = json_object_get(o, "error"); /* what an `error` outcome was */
    if (error && (!json_is_string(error) || p->verdict != FPD_ERROR))
        return *bad = "error", FPD_ERR_INPUT;
    if (error)
        snprintf(p->skip_reason, sizeof p->skip_reason, "%s", json_string_value(error));
    return FPD_OK;
}

int fpd_shape_probes_from_json(json_t *array, struct fpd_shape_probe **probes, size_t *n, char *why, size_t why_size)
{
    *probes = NULL, *n = 0;
    if (!json_is_array(array)) {
        snprintf(why, why_size, "\"probes\" is not an array");
        return FPD_ERR_INPUT;
    }
    size_t count = json_array_size(array);
    struct fpd_shape_probe *out = calloc(count ? count : 1, sizeof *out);
    if (!out) {
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    for (size_t i = 0; i < count; i++) {
        const char *bad = "";
        if (probe_from_json(json_array_get(array, i), &out[i], &bad) != FPD_OK) {
            snprintf(why, why_size, "probes[%zu].%s: missing or malformed", i, bad);
            free(out);
            return FPD_ERR_INPUT;
        }
    }
    *probes = out, *n = count;
    return FPD_OK;
}

/* The header every kind shares: NULL, or what is wrong with it. */
static const char *header_problem(json_t *doc, enum fpd_saved_kind kind)
{
    static const struct {
        const char *name;
        json_type type;
    } header[] = {{"kind", JSON_STRING},  {"title", JSON_STRING},       {"command", JSON_STRING},
                  {"fpdiv", JSON_STRING}, {"environment", JSON_OBJECT}};
    json_t *schema = json_object_get(doc, "schema");
    if (!json_is_integer(schema) || json_integer_value(schema) != FPD_SAVED_SCHEMA)
        return "\"schema\": expected 1 (a result saved by this fpdiv)";
    for (size_t i = 0; i < sizeof header / sizeof header[0]; i++) {
        json_t *v = json_object_get(doc, header[i].name);
        if (!v || json_typeof(v) != header[i].type)
            return header[i].name;
    }
    if (strcmp(json_string_value(json_object_get(doc, "kind")), fpd_saved_kind_names[kind]) != 0)
        return "\"kind\": not the kind of the directory it is in";
    /* the page offers it to be copied into a shell: only what fpdiv writes, `fpdiv KIND` and its
     * words quoted as fpd_shell_word quotes them */
    char start[32];
    const char *command = json_string_value(json_object_get(doc, "command"));
    snprintf(start, sizeof start, "fpdiv %s", fpd_saved_kind_names[kind]);
    if (!fpd_shell_words_valid(command) || strncmp(command, start, strlen(start)) != 0 ||
        (command[strlen(start)] && command[strlen(start)] != ' '))
        return "\"command\": not an fpdiv command as fpdiv writes it (its words quoted for a shell)";
    return NULL;
}

/* A bisection's boundaries: pairs of probes, before and after. */
static int boundaries_from_json(json_t *a, struct fpd_saved_result *r, char *why, size_t why_size)
{
    if (!json_is_array(a)) {
        snprintf(why, why_size, "\"boundaries\" is not an array");
        return FPD_ERR_INPUT;
    }
    size_t n = json_array_size(a);
    r->boundaries = calloc(2 * n + 1, sizeof *r->boundaries);
    if (!r->boundaries) {
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        struct fpd_shape_probe *pair;
        size_t two;
        char inner[512];
        int rc = fpd_shape_probes_from_json(json_array_get(a, i), &pair, &two, inner, sizeof inner);
        if (rc == FPD_OK && two != 2)
            snprintf(inner, sizeof inner, "%zu probes, not a pair (before, after)", two), rc = FPD_ERR_INPUT;
        if (rc != FPD_OK) {
            free(pair); /* NULL where nothing was read */
            snprintf(why, why_size, "boundaries[%zu]: %s", i, inner);
            return rc;
        }
        r->boundaries[2 * i] = pair[0], r->boundaries[2 * i + 1] = pair[1];
        free(pair);
    }
    r->boundary_count = n;
    return FPD_OK;
}

static int trees_from_json(json_t *a, struct fpd_saved_result *r, char *why, size_t why_size)
{
    size_t n = json_array_size(a);
    if (!json_is_array(a) || n == 0 || n > 2) {
        snprintf(why, why_size, "\"trees\": expected an array of one or two trees");
        return FPD_ERR_INPUT;
    }
    r->trees = calloc(n, sizeof *r->trees);
    if (!r->trees) {
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *t = json_array_get(a, i);
        char inner[512];
        int rc = FPD_ERR_INPUT;
        if (!json_is_string(json_object_get(t, "label")) || !json_is_string(json_object_get(t, "order")))
            snprintf(inner, sizeof inner, "\"label\" and \"order\" must be strings");
        else
            rc = fpd_sumtree_from_json(json_object_get(t, "tree"), &r->trees[i], inner, sizeof inner);
        if (rc != FPD_OK) {
            snprintf(why, why_size, "trees[%zu]: %s", i, inner);
            return rc;
        }
        r->tree_count = i + 1;
    }
    return FPD_OK;
}

/* The document read, checked and taken apart into r (which owns it from here). */
static int read_doc(const char *path, json_t *doc, enum fpd_saved_kind kind, struct fpd_saved_result *r, char *why,
                    size_t why_size)
{
    *r = (struct fpd_saved_result){.kind = kind, .doc = doc};
    r->path = strdup(path);
    if (!r->path) {
        snprintf(why, why_size, "out of memory");
        fpd_saved_result_free(r);
        return FPD_ERR_NOMEM;
    }
    const char *problem = header_problem(r->doc, kind);
    char inner[768] = "";
    int rc = problem ? FPD_ERR_INPUT : FPD_OK;
    if (problem)
        snprintf(inner, sizeof inner, "%s%s", problem, strchr(problem, ':') ? "" : ": missing or of the wrong type");
    else if (kind == FPD_SAVED_EXPLAIN)
        rc = trees_from_json(json_object_get(r->doc, "trees"), r, inner, sizeof inner);
    else
        rc = fpd_shape_probes_from_json(json_object_get(r->doc, "probes"), &r->probes, &r->probe_count, inner,
                                        sizeof inner);
    if (rc == FPD_OK && kind == FPD_SAVED_BISECT)
        rc = boundaries_from_json(json_object_get(r->doc, "boundaries"), r, inner, sizeof inner);
    if (rc == FPD_OK && kind != FPD_SAVED_EXPLAIN && !json_is_string(json_object_get(r->doc, "dim"))) {
        snprintf(inner, sizeof inner, "\"dim\": missing or not a string");
        rc = FPD_ERR_INPUT;
    }
    if (rc != FPD_OK) {
        snprintf(why, why_size, "%s: a saved %s result: %s", path, fpd_saved_kind_names[kind], inner);
        fpd_saved_result_free(r);
    }
    return rc;
}

int fpd_saved_result_load(const char *path, enum fpd_saved_kind kind, struct fpd_saved_result *r, char *why,
                          size_t why_size)
{
    *r = (struct fpd_saved_result){.kind = kind};
    json_t *doc = fpd_json_file_load(path, JSON_REJECT_DUPLICATES, why, why_size);
    return doc ? read_doc(path, doc, kind, r, why, why_size) : FPD_ERR_INPUT;
}

int fpd_saved_result_parse(const char *name, const char *text, size_t len, enum fpd_saved_kind kind,
                           struct fpd_saved_result *r, char *why, size_t why_size)
{
    *r = (struct fpd_saved_result){.kind = kind};
    json_error_t err;
    json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    if (!doc) {
        snprintf(why, why_size, "%s:%d:%d: %s", name, err.line, err.column, err.text);
        return FPD_ERR_INPUT;
    }
    return read_doc(name, doc, kind, r, why, why_size);
}

void fpd_saved_result_free(struct fpd_saved_result *r)
{
    for (size_t i = 0; i < r->tree_count; i++)
        fpd_sumtree_free(&r->trees[i]);
    free(r->trees);
    free(r->probes);
    free(r->boundaries);
    free(r->path);
    json_decref(r->doc);
    *r = (struct fpd_saved_result){0};
}
