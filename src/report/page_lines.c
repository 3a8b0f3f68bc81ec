/* page_lines.c — the JSON Lines of a campaign (`fuzz --json`) and of a replay (`replay --json`),
 * read back for the report page as untrusted input: every line a JSON object, the kinds the page
 * draws checked member by member, and the counts checked against the summaries. */
#include "report/page_lines.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file_read.h"
#include "common/table.h"
#include "engine/case.h"
#include "engine/compare.h"
#include "engine/replay.h"

/* A line of one type into `l`: FPD_ERR_INPUT with *problem naming the field that is missing or
 * malformed, FPD_ERR_NOMEM, or FPD_OK. The line stays the caller's. */
typedef int take_line(json_t *o, struct fpd_page_lines *l, const char **problem);

static int take_check(json_t *o, struct fpd_page_lines *l, const char **problem)
{
    const char *relation = json_string_value(json_object_get(o, "relation"));
    const char *shape = json_string_value(json_object_get(o, "shape"));
    const char *verdict_name = json_string_value(json_object_get(o, "verdict"));
    json_t *ratio = json_object_get(o, "ratio"), *diff = json_object_get(o, "diff"), *count = json_object_get(o, "count");
    struct fpd_case c;
    enum fpd_verdict verdict;
    char shape_why[256];
    *problem = !relation                                          ? "without \"relation\" (a string)"
               : !(json_is_number(ratio) || json_is_null(ratio)) ? "without \"ratio\" (a number, or null where no "
                                                                   "bound was taken)"
               : !json_is_integer(diff) || json_integer_value(diff) < 0   ? "without \"diff\" (a count)"
               : !json_is_integer(count) || json_integer_value(count) < 0 ? "without \"count\" (a count)"
               : !verdict_name || fpd_verdict_parse(verdict_name, &verdict) != FPD_OK
                   ? "without \"verdict\" (same, reorder, improbable, bound, nonfinite or error)"
               : !shape || fpd_shape_parse(shape, &c, shape_why, sizeof shape_why) != FPD_OK
                   ? "without \"shape\" ([BATCHx]MxNxK)"
                   : NULL;
    if (*problem)
        return FPD_ERR_INPUT;
    l->checks++;
    return fpd_campaign_digest_add(&l->digest, relation, json_is_null(ratio) ? NAN : json_number_value(ratio), c.m,
                                   c.k, (size_t)json_integer_value(diff), (size_t)json_integer_value(count), verdict);
}

static int take_replay(json_t *o, struct fpd_page_lines *l, const char **problem)
{
    return fpd_replay_report_add(&l->replay, o, problem);
}

static int by_file(const void *a, const void *b)
{
    return strcmp(((const struct fpd_replay_entry *const *)a)[0]->file, ((const struct fpd_replay_entry *const *)b)[0]->file);
}

/* Whether what was read adds up: as many check lines as the campaign's summary counts checks, as
 * many replay lines as the replay's counts cases, and no case replayed twice (a file's lines given
 * twice would count every case twice on the page). FPD_ERR_INPUT with why naming the file. */
static int lines_add_up(const struct fpd_page_lines *l, const char *campaign_path, const char *replay_path, char *why,
                        size_t why_size)
{
    json_t *checks = json_object_get(l->summary, "checks"), *cases = json_object_get(l->replay.summary, "cases");
    if (campaign_path && checks && (size_t)json_integer_value(checks) != l->checks) {
        snprintf(why, why_size, "%s: %zu check lines, where its summary counts %" JSON_INTEGER_FORMAT " checks",
                 campaign_path, l->checks, json_integer_value(checks));
        return FPD_ERR_INPUT;
    }
    if (replay_path && cases && (size_t)json_integer_value(cases) != l->replay.count) {
        snprintf(why, why_size, "%s: %zu replay lines, where its summary counts %" JSON_INTEGER_FORMAT " cases",
                 replay_path, l->replay.count, json_integer_value(cases));
        return FPD_ERR_INPUT;
    }
    const struct fpd_replay_entry **sorted = malloc((l->replay.count + 1) * sizeof *sorted);
    if (!sorted)
        return FPD_ERR_NOMEM;
    for (size_t i = 0; i < l->replay.count; i++)
        sorted[i] = &l->replay.entries[i];
    if (l->replay.count > 1)
        qsort(sorted, l->replay.count, sizeof *sorted, by_file);
    int rc = FPD_OK;
    for (size_t i = 1; i < l->replay.count && rc == FPD_OK; i++)
        if (strcmp(sorted[i]->file, sorted[i - 1]->file) == 0) {
            snprintf(why, why_size, "%s: the case %.1000s is replayed twice", replay_path, sorted[i]->file);
            rc = FPD_ERR_INPUT;
        }
    free(sorted);
    return rc;
}

/* What a line kept whole must hold for the page to show it as it is: every member a count where
 * the page shows a count (a "checks": -5 would be shown as a count of -5). */
enum member_kind { COUNT, SECONDS, RATIO, SEED, TEXT, OBJECT, ARRAY };
struct member {
    const char *name;
    enum member_kind kind;
    bool optional;
};
static const char *const member_expected[] = {
    [COUNT] = "a count (a non-negative integer)", [SECONDS] = "seconds (a non-negative number)",
    [RATIO] = "a non-negative number, or null where no bound was taken", [SEED] = "a seed (a non-negative integer)",
    [TEXT] = "a string", [OBJECT] = "an object", [ARRAY] = "an array"};

static bool member_fits(json_t *v, enum member_kind kind)
{
    switch (kind) {
    case COUNT: return json_is_integer(v) && json_integer_value(v) >= 0;
    case SECONDS: return json_is_number(v) && json_number_value(v) >= 0 && isfinite(json_number_value(v));
    case RATIO: return json_is_null(v) || (json_is_number(v) && json_number_value(v) >= 0);
    case SEED: return (json_is_integer(v) && json_integer_value(v) >= 0) || json_is_string(v);
    case TEXT: return json_is_string(v);
    case OBJECT: return json_is_object(v);
    case ARRAY: return json_is_array(v);
    }
    return false;
}

/* NULL, or what is wrong with o's members (in buf): the first that is missing or not its kind. */
static const char *members_problem(json_t *o, const struct member *members, size_t n, const char *where, char *buf,
                                   size_t size)
{
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_object_get(o, members[i].name);
        if ((v || !members[i].optional) && !member_fits(v, members[i].kind)) {
            snprintf(buf, size, "%s\"%s\" %s %s", where, members[i].name, v ? "is not" : "is missing: expected",
                     member_expected[members[i].kind]);
            return buf;
        }
    }
    return NULL;
}

static const struct member campaign_members[] = {
    {"seed", SEED, false}, {"generator", COUNT, true}, {"jobs", COUNT, true}, {"environment", OBJECT, true}};
static const struct member summary_members[] = {
    {"checks", COUNT, false},         {"skipped", COUNT, true},     {"not_applicable", COUNT, true},
    {"seconds", SECONDS, false},      {"gemm_seconds", SECONDS, true}, {"failed", COUNT, false},
    {"signatures", COUNT, false},     {"saved", COUNT, true},       {"save_failures", COUNT, true},
    {"rows", ARRAY, false}};
static const struct member row_members[] = {{"relation", TEXT, false}, {"backends", TEXT, false}, {"checks", COUNT, false},
                                            {"verdicts", OBJECT, false}, {"max_ulp", COUNT, false}, {"max_ratio", RATIO, false}};
static const struct member replay_summary_members[] = {{"cases", COUNT, false}, {"malformed", COUNT, false}};

/* A summary's rows, each a relation's counts by verdict: counts all. */
static const char *summary_problem(json_t *o, char *buf, size_t size)
{
    const char *problem = members_problem(o, summary_members, sizeof summary_members / sizeof summary_members[0], "",
                                          buf, size);
    size_t i;
    json_t *row;
    json_array_foreach(problem ? NULL : json_object_get(o, "rows"), i, row)
    {
        char where[48];
        snprintf(where, sizeof where, "rows[%zu]: ", i);
        if (!json_is_object(row)) {
            snprintf(buf, size, "%snot an object", where);
            return buf;
        }
        if ((problem = members_problem(row, row_members, sizeof row_members / sizeof row_members[0], where, buf, size)))
            return problem;
        for (int v = 0; v < FPD_VERDICT_COUNT; v++) {
            json_t *n = json_object_get(json_object_get(row, "verdicts"), fpd_verdict_table[v].name);
            if (n && !member_fits(n, COUNT)) {
                snprintf(buf, size, "%s\"verdicts\".\"%s\" is not %s", where, fpd_verdict_table[v].name,
                         member_expected[COUNT]);
                return buf;
            }
        }
    }
    return problem;
}

static const char *campaign_problem(json_t *o, char *buf, size_t size)
{
    return members_problem(o, campaign_members, sizeof campaign_members / sizeof campaign_members[0], "", buf, size);
}

static const char *replay_summary_problem(json_t *o, char *buf, size_t size)
{
    const char *problem = members_problem(o, replay_summary_members,
                                          sizeof replay_summary_members / sizeof replay_summary_members[0], "", buf, size);
    for (int c = 0; !problem && c < FPD_REPLAY_CLASS_COUNT; c++) {
        json_t *n = json_object_get(o, fpd_replay_class_names[c]);
        if (n && !member_fits(n, COUNT)) {
            snprintf(buf, size, "\"%s\" is not %s", fpd_replay_class_names[c], member_expected[COUNT]);
            problem = buf;
        }
    }
    return problem;
}

/* A kind of line: taken apart (take), or kept whole, the last of its kind, in a member of struct
 * lines (take NULL, at `kept`), once `problem` has found nothing wrong with it. */
struct line_kind {
    const char *name; /* its "type" */
    take_line *take;
    size_t kept;
    const char *(*problem)(json_t *o, char *buf, size_t size);
};
static const struct line_kind campaign_lines[] = {{"campaign", NULL, offsetof(struct fpd_page_lines, campaign), campaign_problem},
                                                  {"check", take_check, 0, NULL},
                                                  {"summary", NULL, offsetof(struct fpd_page_lines, summary), summary_problem}};
static const struct line_kind replay_lines[] = {
    {"replay", take_replay, 0, NULL},
    {"summary", NULL, offsetof(struct fpd_page_lines, replay.summary), replay_summary_problem}};

/* The longest line of a campaign's or a replay's JSON Lines that is read: fpdiv's are under a few
 * KiB; a line of gigabytes would otherwise be held whole before it could be refused. */
#define LINE_MAX_BYTES (16u << 20)

enum { LINE_END = -1, LINE_TOO_LONG = -2, LINE_NUL = -3, LINE_NOMEM = -4 };

/* The next line of f into *line (grown; NUL-terminated, with its newline): its length, LINE_END,
 * LINE_TOO_LONG for one longer than LINE_MAX_BYTES (the rest of it unread), or LINE_NUL for one
 * with a NUL byte (its column in *nul_at), which no JSON text has and which would end it early. */
static ssize_t read_line(FILE *f, char **line, size_t *cap, size_t *nul_at)
{
    size_t len = 0;
    for (int c; (c = getc_unlocked(f)) != EOF;) {
        if (len + 2 > *cap) {
            size_t bigger = *cap ? 2 * *cap : 65536;
            char *grown = realloc(*line, bigger);
            if (!grown)
                return LINE_NOMEM;
            *line = grown, *cap = bigger;
        }
        if (c == '\0') {
            *nul_at = len + 1;
            return LINE_NUL;
        }
        (*line)[len++] = (char)c;
        if (len > LINE_MAX_BYTES)
            return LINE_TOO_LONG;
        if (c == '\n')
            break;
    }
    if (!len)
        return LINE_END;
    (*line)[len] = '\0';
    return (ssize_t)len;
}

/* Every line of `path` must be a JSON object; those of the kinds given go to their `take`, others
 * (a campaign's skipped and saved lines) are passed over. */
static int read_lines(const char *path, const struct line_kind *kinds, size_t n_kinds, const char *of_what,
                      struct fpd_page_lines *l, char *why, size_t why_size)
{
    FILE *f = fpd_file_open_regular(path, why, why_size); /* a FIFO would hang the report */
    if (!f)
        return FPD_ERR_INPUT;
    char *line = NULL;
    size_t cap = 0, number = 0, known = 0;
    int rc = FPD_OK;
    size_t nul_at = 0;
    for (ssize_t len; rc == FPD_OK && (len = read_line(f, &line, &cap, &nul_at)) != LINE_END;) {
        number++;
        if (len < 0) {
            if (len == LINE_TOO_LONG)
                snprintf(why, why_size, "%s:%zu: a line of more than %u MiB: not a line fpdiv writes", path, number,
                         LINE_MAX_BYTES >> 20);
            else if (len == LINE_NUL)
                snprintf(why, why_size, "%s:%zu:%zu: a NUL byte, which no JSON text has", path, number, nul_at);
            else
                snprintf(why, why_size, "out of memory reading %s", path);
            rc = len == LINE_NOMEM ? FPD_ERR_NOMEM : FPD_ERR_INPUT;
            break;
        }
        if (strspn(line, " \t\r\n") == (size_t)len)
            continue;
        json_error_t error;
        json_t *o = json_loadb(line, (size_t)len, 0, &error);
        if (!o || !json_is_object(o)) {
            snprintf(why, why_size, "%s:%zu:%d: %s", path, number, o ? 1 : error.column,
                     o ? "not a JSON object" : error.text);
            rc = FPD_ERR_INPUT;
        } else {
            const char *type = json_string_value(json_object_get(o, "type")), *problem = NULL;
            long k = type ? FPD_TABLE_FIND(kinds, n_kinds, type) : -1;
            char found[256];
            if (k >= 0) {
                known++;
                if (!kinds[k].take && (problem = kinds[k].problem(o, found, sizeof found)) != NULL) {
                    snprintf(why, why_size, "%s:%zu: a %s line: %s", path, number, type, problem);
                    rc = FPD_ERR_INPUT;
                } else if (!kinds[k].take) {
                    json_t **kept = (json_t **)((char *)l + kinds[k].kept);
                    json_decref(*kept);
                    *kept = json_incref(o);
                } else if ((rc = kinds[k].take(o, l, &problem)) == FPD_ERR_INPUT) {
                    snprintf(why, why_size, "%s:%zu: a %s line %s", path, number, type, problem);
                }
            }
        }
        json_decref(o);
    }
    if (rc == FPD_OK && ferror(f)) {
        snprintf(why, why_size, "cannot read %s: %s", path, strerror(errno));
        rc = FPD_ERR_INPUT;
    }
    if (rc == FPD_OK && !known) {
        snprintf(why, why_size, "%s: no line of %s: not its --json output", path, of_what);
        rc = FPD_ERR_INPUT;
    }
    free(line);
    fclose(f);
    return rc;
}

void fpd_page_lines_free(struct fpd_page_lines *l)
{
    json_decref(l->campaign);
    json_decref(l->summary);
    fpd_campaign_digest_free(&l->digest);
    fpd_replay_report_free(&l->replay);
}

int fpd_page_lines_read(const char *campaign_path, const char *replay_path, struct fpd_page_lines *l, char *why,
                        size_t why_size)
{
    int rc = FPD_OK;
    if (campaign_path)
        rc = read_lines(campaign_path, campaign_lines, sizeof campaign_lines / sizeof campaign_lines[0],
                        "'fpdiv fuzz --json' (campaign, check, summary)", l, why, why_size);
    if (rc == FPD_OK && replay_path)
        rc = read_lines(replay_path, replay_lines, sizeof replay_lines / sizeof replay_lines[0],
                        "'fpdiv replay --json' (replay, summary)", l, why, why_size);
    if (rc == FPD_OK)
        rc = lines_add_up(l, campaign_path, replay_path, why, why_size);
    return rc;
}
