/*
 * case_file.c — libFuzzer harness for the case-file reader (`make fuzz-parsers`).
 *
 * Any input either loads, or is refused with a reason that names the input. What loads must
 * survive the writer: written and read back, it reads the same and writes the same text, so
 * replay never runs something other than what was saved.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/builtin.h"
#include "store/corpus.h"

/* Small enough that generating a recipe case's data (to check its hash) stays fast. */
#define MAX_MEM (16.0 * 1024 * 1024)

static char *canonical_text(const struct fpd_case_file *f)
{
    json_t *j = fpd_case_file_json(f);
    char *text = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(j);
    return text;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fpd_registry_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fpd_case_file f, again;
    char why[1024] = "";
    if (fpd_case_file_parse("input", (const char *)data, size, MAX_MEM, &f, why, sizeof why) != FPD_OK) {
        if (strncmp(why, "input", 5) != 0) {
            fprintf(stderr, "refused without naming the input: \"%s\"\n", why);
            abort();
        }
        return 0;
    }
    char *first = canonical_text(&f);
    if (!first)
        abort(); /* out of memory: libFuzzer's own limits report that better */
    if (fpd_case_file_parse("written", first, strlen(first), MAX_MEM, &again, why, sizeof why) != FPD_OK) {
        fprintf(stderr, "a loaded case, written out, does not load: %s\n%s\n", why, first);
        abort();
    }
    char *second = canonical_text(&again);
    if (!second || strcmp(first, second) != 0) {
        fprintf(stderr, "written, read and written again, a case changes:\n%s\n%s\n", first, second ? second : "");
        abort();
    }
    free(first);
    free(second);
    fpd_case_file_free(&f);
    fpd_case_file_free(&again);
    return 0;
}
