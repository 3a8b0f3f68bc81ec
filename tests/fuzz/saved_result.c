/*
 * saved_result.c — libFuzzer harness for the results saved beside a corpus (`make fuzz-parsers`):
 * what `report` reads from CORPUS/results/ (report/saved_result.h).
 *
 * The first byte picks the kind (sweep, bisect, explain), the rest is the file. Any input either
 * loads, or is refused with a reason that names the input. What loads is drawn on the page as
 * report draws it, and survives the writer: its probes and trees, written and read back, are the
 * same probes and trees.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/page_saved.h"
#include "report/saved_result.h"

static void same_probes(const struct fpd_shape_probe *a, const struct fpd_shape_probe *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct fpd_metrics *x = &a[i].metrics, *y = &b[i].metrics;
        bool same = a[i].value == b[i].value && a[i].tested == b[i].tested &&
                    (!a[i].tested ? strcmp(a[i].skip_reason, b[i].skip_reason) == 0
                                  : a[i].verdict == b[i].verdict && a[i].key == b[i].key && x->diff == y->diff &&
                                        x->count == y->count && x->max_ulp == y->max_ulp &&
                                        x->bounded == y->bounded && memcmp(&x->ratio, &y->ratio, sizeof x->ratio) == 0);
        if (!same) {
            fprintf(stderr, "probe %zu changes when written and read back\n", i);
            abort();
        }
    }
}

static void probes_round_trip(const struct fpd_shape_probe *probes, size_t n)
{
    json_t *j = fpd_shape_probes_json(probes, n);
    struct fpd_shape_probe *back;
    size_t count;
    char why[512];
    if (!j || fpd_shape_probes_from_json(j, &back, &count, why, sizeof why) != FPD_OK || count != n) {
        fprintf(stderr, "loaded probes, written out, do not load\n");
        abort();
    }
    same_probes(probes, back, n);
    free(back);
    json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    enum fpd_saved_kind kind = (enum fpd_saved_kind)(data[0] % FPD_SAVED_KIND_COUNT);
    struct fpd_saved_result r;
    char why[1024] = "";
    if (fpd_saved_result_parse("input", (const char *)data + 1, size - 1, kind, &r, why, sizeof why) != FPD_OK) {
        if (strncmp(why, "input", 5) != 0) {
            fprintf(stderr, "refused without naming the input: \"%s\"\n", why);
            abort();
        }
        return 0;
    }
    probes_round_trip(r.probes, r.probe_count);
    probes_round_trip(r.boundaries, 2 * r.boundary_count);
    for (size_t i = 0; i < r.tree_count; i++) {
        json_t *j = fpd_sumtree_json(&r.trees[i]);
        struct fpd_sumtree back;
        if (!j || fpd_sumtree_from_json(j, &back, why, sizeof why) != FPD_OK || !fpd_sumtree_equal(&r.trees[i], &back)) {
            fprintf(stderr, "a loaded tree, written out, is another tree: %s\n", why);
            abort();
        }
        fpd_sumtree_free(&back);
        json_decref(j);
    }
    FILE *page = fopen("/dev/null", "w");
    fpd_page_saved_section(page, &r, 1);
    fclose(page);
    fpd_saved_result_free(&r);
    return 0;
}
