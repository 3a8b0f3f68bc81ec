/* cmd_report.c — `fpdiv report CORPUS_DIR [--campaign RUN.jsonl] [--replay REPLAY.jsonl] -o
 * FILE.html`: a corpus, the campaign that filled it and a replay of it as one self-contained HTML
 * page. */
#include <getopt.h>
#include <stdio.h>

#include "cli/cmd.h"
#include "common/text.h"
#include "report/page_file.h"
#include "report/page_lines.h"

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
        default: fpd_console_error("report", "see 'fpdiv report --help'"); return FPD_EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        fpd_console_error("report", "expected 1 argument, a corpus directory (see 'fpdiv report --help')");
        return FPD_EXIT_USAGE;
    }
    if (!output) {
        fpd_console_error("report", "-o FILE is required: where to write the page");
        return FPD_EXIT_USAGE;
    }
    char why[2048], shown[2048];
    if (fpd_cli_can_write_file("-o", output, why, sizeof why) != FPD_OK) { /* before the files are read */
        fpd_console_error("report", "%s", why);
        return FPD_EXIT_USAGE;
    }
    struct fpd_page_lines l = {0};
    int rc = fpd_page_lines_read(campaign_path, replay_path, &l, why, sizeof why);
    struct fpd_report_input in = {.corpus_dir = argv[optind], .campaign_from = campaign_path, .campaign = l.campaign,
                                  .summary = l.summary, .digest = campaign_path ? &l.digest : NULL,
                                  .replay_from = replay_path, .replay = replay_path ? &l.replay : NULL};
    if (rc == FPD_OK)
        rc = fpd_report_write(output, &in, why, sizeof why);
    if (rc == FPD_ERR_NOMEM)
        fpd_console_error("report", "out of memory");
    else if (rc != FPD_OK)
        fpd_console_error("report", "%s", fpd_printable(why, shown, sizeof shown));
    else
        printf("wrote %s: %zu case%s%s%s", fpd_printable(output, shown, sizeof shown), in.case_count,
               in.case_count == 1 ? "" : "s", campaign_path ? ", and the campaign" : "",
               replay_path ? ", and the replay" : "");
    if (rc == FPD_OK)
        printf(in.saved_count ? ", %zu saved result%s\n" : "\n", in.saved_count, in.saved_count == 1 ? "" : "s");
    fpd_page_lines_free(&l);
    return rc == FPD_OK ? FPD_EXIT_OK : rc == FPD_ERR_NOMEM ? FPD_EXIT_INTERNAL : FPD_EXIT_USAGE;
}
