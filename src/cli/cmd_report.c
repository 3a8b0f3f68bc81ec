/* cmd_report.c — `fpdiv report CORPUS_DIR [--campaign RUN.jsonl] [--replay REPLAY.jsonl] -o
 * FILE.html`: a corpus, the campaign that filled it and a replay of it as one self-contained HTML
 * page. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/report_page.h"
#include "common/array.h"
#include "common/table.h"
#include "common/text.h"
#include "engine/case.h"
#include "engine/compare.h"

static const char help[] =
    "usage: fpdiv report CORPUS_DIR [--campaign RUN.jsonl] [--replay REPLAY.jsonl] -o FILE.html\n\n"
    "Writes one self-contained HTML page (no network, scripts, styles or fonts from elsewhere;\n"
    "readable with JavaScript off) about a corpus and, given their output, the campaign that filled\n"
    "it and a replay of it: the campaign's table of relations, backends and verdicts; the\n"
    "environment it ran in; a histogram per relation of the checks' ratios to the rounding bound;\n"
    "the fraction of elements that differ against k and m; the replay's classes (reproduced,\n"
    "changed, fixed, worse, elsewhere, skipped), case by case; and each saved case with its\n"
    "numbers, where it ran, and the commands that replay, show and export it; and the sweeps,\n"
    "bisections and summation trees saved beside the corpus (`sweep`, `bisect` and `explain` with\n"
    "--save-to CORPUS_DIR, in CORPUS_DIR/results/), each plotted or drawn. Nothing is run.\n"
    "Every case file and saved result is read and checked first: a malformed one (named with its\n"
    "line and column, or the member at fault) stops the report with nothing written. FILE is\n"
    "replaced atomically, never left half written. With JavaScript on, tables sort by a clicked\n"
    "column and the cases filter by a text; FILE.html#filter=TEXT&sort=TABLE.COLUMN.asc|desc\n"
    "opens the page so.\n\n"
    "  --campaign FILE  the JSON Lines of 'fpdiv fuzz --json' (its campaign, check and summary lines)\n"
    "  --replay FILE    the JSON Lines of 'fpdiv replay --json' (a line per case and a summary)\n"
    "  -o, --output FILE  the page to write (required)\n";

/* What the page takes from the JSON Lines it is given. */
struct lines {
    json_t *campaign, *summary; /* of the campaign */
    struct fpd_campaign_digest digest;
    struct fpd_replay_report replay;
};

/* A line of one type into `l`: FPD_ERR_INPUT with *problem naming the field that is missing or
 * malformed, FPD_ERR_NOMEM, or FPD_OK. The line stays the caller's. */
typedef int take_line(json_t *o, struct lines *l, const char **problem);

static int take_check(json_t *o, struct lines *l, const char **problem)
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
    return fpd_campaign_digest_add(&l->digest, relation, json_is_null(ratio) ? NAN : json_number_value(ratio), c.m,
                                   c.k, (size_t)json_integer_value(diff), (size_t)json_integer_value(count), verdict);
}

static int take_replay(json_t *o, struct lines *l, const char **problem)
{
    return fpd_replay_report_add(&l->replay, o, problem);
}

/* A kind of line: taken apart (take), or kept whole, the last of its kind, in a member of struct
 * lines (take NULL, at `kept`). */
struct line_kind {
    const char *name; /* its "type" */
    take_line *take;
    size_t kept;
};
static const struct line_kind campaign_lines[] = {{"campaign", NULL, offsetof(struct lines, campaign)},
                                                  {"check", take_check, 0},
                                                  {"summary", NULL, offsetof(struct lines, summary)}};
static const struct line_kind replay_lines[] = {{"replay", take_replay, 0},
                                                {"summary", NULL, offsetof(struct lines, replay.summary)}};

/* Every line of `path` must be a JSON object; those of the kinds given go to their `take`, others
 * (a campaign's skipped and saved lines) are passed over. */
static int read_lines(const char *path, const struct line_kind *kinds, size_t n_kinds, const char *of_what,
                      struct lines *l, char *why, size_t why_size)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, why_size, "cannot read %s: %s", path, strerror(errno));
        return FPD_ERR_INPUT;
    }
    char *line = NULL;
    size_t cap = 0, number = 0, known = 0;
    int rc = FPD_OK;
    for (ssize_t len; rc == FPD_OK && (len = getline(&line, &cap, f)) != -1;) {
        number++;
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
            if (k >= 0) {
                known++;
                if (!kinds[k].take) {
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

static void lines_free(struct lines *l)
{
    json_decref(l->campaign);
    json_decref(l->summary);
    fpd_campaign_digest_free(&l->digest);
    fpd_replay_report_free(&l->replay);
}

int fpd_cmd_report(int argc, char **argv)
{
    enum { OPT_CAMPAIGN = 256, OPT_REPLAY };
    static const struct option options[] = {{"campaign", required_argument, NULL, OPT_CAMPAIGN},
                                            {"replay", required_argument, NULL, OPT_REPLAY},
                                            {"output", required_argument, NULL, 'o'},
                                            {"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};
    const char *campaign_path = NULL, *replay_path = NULL, *output = NULL;
    int opt;
    while ((opt = getopt_long(argc, argv, "ho:", options, NULL)) != -1) {
        switch (opt) {
        case OPT_CAMPAIGN: campaign_path = optarg; break;
        case OPT_REPLAY: replay_path = optarg; break;
        case 'o': output = optarg; break;
        case 'h': fputs(help, stdout); return FPD_EXIT_OK;
        default: fpd_cli_error("report", "see 'fpdiv report --help'"); return FPD_EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        fpd_cli_error("report", "expected 1 argument, a corpus directory (see 'fpdiv report --help')");
        return FPD_EXIT_USAGE;
    }
    if (!output) {
        fpd_cli_error("report", "-o FILE is required: where to write the page");
        return FPD_EXIT_USAGE;
    }
    char why[2048], shown[2048];
    struct lines l = {0};
    int rc = FPD_OK;
    if (campaign_path)
        rc = read_lines(campaign_path, campaign_lines, sizeof campaign_lines / sizeof campaign_lines[0],
                        "'fpdiv fuzz --json' (campaign, check, summary)", &l, why, sizeof why);
    if (rc == FPD_OK && replay_path)
        rc = read_lines(replay_path, replay_lines, sizeof replay_lines / sizeof replay_lines[0],
                        "'fpdiv replay --json' (replay, summary)", &l, why, sizeof why);
    struct fpd_report_input in = {.corpus_dir = argv[optind], .campaign_from = campaign_path, .campaign = l.campaign,
                                  .summary = l.summary, .digest = campaign_path ? &l.digest : NULL,
                                  .replay_from = replay_path, .replay = replay_path ? &l.replay : NULL};
    if (rc == FPD_OK)
        rc = fpd_report_write(output, &in, why, sizeof why);
    if (rc == FPD_ERR_NOMEM)
        fpd_cli_error("report", "out of memory");
    else if (rc != FPD_OK)
        fpd_cli_error("report", "%s", fpd_printable(why, shown, sizeof shown));
    else
        printf("wrote %s: %zu case%s%s%s", fpd_printable(output, shown, sizeof shown), in.case_count,
               in.case_count == 1 ? "" : "s", campaign_path ? ", and the campaign" : "",
               replay_path ? ", and the replay" : "");
    if (rc == FPD_OK)
        printf(in.saved_count ? ", %zu saved result%s\n" : "\n", in.saved_count, in.saved_count == 1 ? "" : "s");
    lines_free(&l);
    return rc == FPD_OK ? FPD_EXIT_OK : rc == FPD_ERR_NOMEM ? FPD_EXIT_INTERNAL : FPD_EXIT_USAGE;
}
