/* cmd_report.c — `fpdiv report CORPUS_DIR [--campaign RUN.jsonl] -o FILE.html`: a corpus and a
 * campaign as one self-contained HTML page. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/report_page.h"
#include "common/text.h"

static const char help[] =
    "usage: fpdiv report CORPUS_DIR [--campaign RUN.jsonl] -o FILE.html\n\n"
    "Writes one self-contained HTML page (no network, scripts, styles or fonts from elsewhere;\n"
    "readable with JavaScript off) about a corpus and, given its output, the campaign that filled\n"
    "it: the campaign's table of relations, backends and verdicts; the environment it ran in; a\n"
    "histogram per relation of the checks' ratios to the rounding bound; and each saved case with\n"
    "its numbers, where it ran, and the commands that replay, show and export it. Nothing is run.\n"
    "Every case file is read and checked first: a malformed one (named with its line and column)\n"
    "stops the report with nothing written. FILE is replaced atomically, never left half written.\n\n"
    "  --campaign FILE  the JSON Lines of 'fpdiv fuzz --json' (its campaign, check and summary lines)\n"
    "  -o, --output FILE  the page to write (required)\n";

struct campaign {
    json_t *campaign, *summary;
    struct fpd_ratio_sets ratios; /* of its checks */
};

/* The campaign's lines: every line must be JSON; those of the types the page shows are kept. */
static int read_campaign(const char *path, struct campaign *c, char *why, size_t why_size)
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
            json_decref(o);
            rc = FPD_ERR_INPUT;
            break;
        }
        const char *type = json_string_value(json_object_get(o, "type"));
        json_t **keep = !type ? NULL
                        : strcmp(type, "campaign") == 0 ? &c->campaign
                        : strcmp(type, "summary") == 0  ? &c->summary
                                                        : NULL;
        if (type && strcmp(type, "check") == 0) {
            known++;
            const char *relation = json_string_value(json_object_get(o, "relation"));
            json_t *ratio = json_object_get(o, "ratio");
            if (!relation || !(json_is_number(ratio) || json_is_null(ratio))) {
                snprintf(why, why_size, "%s:%zu: a check line without %s", path, number,
                         relation ? "\"ratio\" (a number, or null where no bound was taken)"
                                  : "\"relation\" (a string)");
                rc = FPD_ERR_INPUT;
            } else { /* null: not finite, counted apart */
                rc = fpd_ratio_sets_add(&c->ratios, relation, json_is_null(ratio) ? NAN : json_number_value(ratio));
            }
            json_decref(o);
            continue;
        }
        if (keep) {
            known++;
            json_decref(*keep);
            *keep = o;
            continue;
        }
        json_decref(o);
    }
    if (rc == FPD_OK && ferror(f)) {
        snprintf(why, why_size, "cannot read %s: %s", path, strerror(errno));
        rc = FPD_ERR_INPUT;
    }
    if (rc == FPD_OK && !known) {
        snprintf(why, why_size, "%s: no campaign, check or summary line: not the output of 'fpdiv fuzz --json'", path);
        rc = FPD_ERR_INPUT;
    }
    free(line);
    fclose(f);
    return rc;
}

static void campaign_free(struct campaign *c)
{
    json_decref(c->campaign);
    json_decref(c->summary);
    fpd_ratio_sets_free(&c->ratios);
}

int fpd_cmd_report(int argc, char **argv)
{
    enum { OPT_CAMPAIGN = 256 };
    static const struct option options[] = {{"campaign", required_argument, NULL, OPT_CAMPAIGN},
                                            {"output", required_argument, NULL, 'o'},
                                            {"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};
    const char *campaign_path = NULL, *output = NULL;
    int opt;
    while ((opt = getopt_long(argc, argv, "ho:", options, NULL)) != -1) {
        switch (opt) {
        case OPT_CAMPAIGN: campaign_path = optarg; break;
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
    struct campaign c = {0};
    size_t count = 0;
    int rc = campaign_path ? read_campaign(campaign_path, &c, why, sizeof why) : FPD_OK;
    if (rc == FPD_OK)
        rc = fpd_report_write(output, argv[optind], campaign_path, c.campaign, c.summary,
                              campaign_path ? &c.ratios : NULL, &count, why, sizeof why);
    if (rc == FPD_ERR_NOMEM)
        fpd_cli_error("report", "out of memory");
    else if (rc != FPD_OK)
        fpd_cli_error("report", "%s", fpd_printable(why, shown, sizeof shown));
    else
        printf("wrote %s: %zu case%s%s\n", fpd_printable(output, shown, sizeof shown), count, count == 1 ? "" : "s",
               campaign_path ? ", and the campaign" : "");
    campaign_free(&c);
    return rc == FPD_OK ? FPD_EXIT_OK : rc == FPD_ERR_NOMEM ? FPD_EXIT_INTERNAL : FPD_EXIT_USAGE;
}
