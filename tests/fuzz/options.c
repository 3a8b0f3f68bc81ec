/*
 * options.c — libFuzzer harness for the option parsers (`make fuzz-parsers`): shapes, dtypes,
 * the comma lists, sizes, slices, numbers, verdicts, and the exact element strings of case files.
 *
 * The input is one option value. Every parser either accepts it, or refuses it with a reason;
 * what it accepts, formatted and parsed again, is the same value.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/builtin.h"
#include "cli/cli.h"
#include "common/dtype.h"
#include "engine/campaign.h"
#include "engine/case.h"
#include "store/corpus.h"

static void require(int ok, const char *what, const char *text)
{
    if (!ok) {
        fprintf(stderr, "%s, for input \"%s\"\n", what, text);
        abort();
    }
}

/* A refusal must say why. */
static void refused_with_reason(const char *parser, const char *why, const char *text)
{
    char what[128];
    snprintf(what, sizeof what, "%s refused without a reason", parser);
    require(why[0] != '\0', what, text);
}

static void shape(const char *text)
{
    struct fpd_case c = {0}, again = {0};
    char why[512] = "", buf[128];
    if (fpd_shape_parse(text, &c, why, sizeof why) != FPD_OK)
        return refused_with_reason("shape", why, text);
    require(fpd_shape_parse(fpd_shape_format(&c, buf, sizeof buf), &again, why, sizeof why) == FPD_OK &&
                c.batch == again.batch && c.m == again.m && c.n == again.n && c.k == again.k,
            "a shape does not survive formatting", text);
}

static void dtypes(const char *text)
{
    struct fpd_dtypes dt, again;
    char why[512] = "", buf[64];
    if (fpd_dtypes_parse(text, &dt, why, sizeof why) != FPD_OK)
        return refused_with_reason("dtype", why, text);
    require(fpd_dtypes_parse(fpd_dtypes_format(&dt, buf, sizeof buf), &again, why, sizeof why) == FPD_OK &&
                fpd_dtypes_equal(&dt, &again),
            "a dtype does not survive formatting", text);
}

/* Each element type's exact string form: parsed, written, parsed again, the same bits. */
static void element(const char *text)
{
    for (int t = 0; t < FPD_DTYPE_COUNT; t++) {
        uint64_t bits, again;
        if (fpd_element_parse((enum fpd_dtype)t, text, &bits) != FPD_OK)
            continue;
        json_t *j = fpd_element_json((enum fpd_dtype)t, bits);
        require(j && fpd_element_parse((enum fpd_dtype)t, json_string_value(j), &again) == FPD_OK && again == bits,
                "an element does not survive writing", text);
        json_decref(j);
    }
}

static void lists(const char *text)
{
    char why[512];
    size_t n;
    const struct fpd_relation *relations[FPD_MAX_LIST];
    struct fpd_backend_slot *backends[FPD_MAX_LIST];
    struct fpd_dtypes dts[FPD_MAX_LIST];
    enum fpd_dist dists[FPD_MAX_LIST];
#define LIST(parser, out, name)                                                                                        \
    do {                                                                                                               \
        why[0] = '\0';                                                                                                 \
        if (parser(text, out, FPD_MAX_LIST, &n, why, sizeof why) != FPD_OK)                                             \
            refused_with_reason(name, why, text);                                                                      \
        else                                                                                                           \
            require(n <= FPD_MAX_LIST, name " list longer than its capacity", text);                                  \
    } while (0)
    LIST(fpd_cli_relations, relations, "relations");
    LIST(fpd_cli_backends, backends, "backends");
    LIST(fpd_cli_dtypes, dts, "dtypes");
    LIST(fpd_cli_dists, dists, "dists");
#undef LIST
}

static void scalars(const char *text)
{
    char why[512] = "";
    uint64_t u;
    double d;
    struct fpd_range slice;
    int verdict;
    enum fpd_exact_mode mode;
    if (fpd_cli_u64("--cases", text, UINT32_MAX, &u, why, sizeof why) != FPD_OK)
        refused_with_reason("u64", why, text);
    else
        require(u <= UINT32_MAX, "a number above its maximum", text);
    why[0] = '\0';
    if (fpd_cli_double("--specials", text, 0, 1, &d, why, sizeof why) != FPD_OK)
        refused_with_reason("double", why, text);
    else
        require(d >= 0 && d <= 1, "a number outside its range", text);
    why[0] = '\0';
    if (fpd_cli_bytes("--max-mem", text, &d, why, sizeof why) != FPD_OK)
        refused_with_reason("bytes", why, text);
    else
        require(d > 0 && isfinite(d), "a size that is not a positive number of bytes", text);
    why[0] = '\0';
    if (fpd_cli_slice(text, &slice, why, sizeof why) != FPD_OK)
        refused_with_reason("slice", why, text);
    else
        require(slice.len >= 1, "an empty slice", text);
    why[0] = '\0';
    if (fpd_cli_verdict("--fail-on", text, true, &verdict, why, sizeof why) != FPD_OK)
        refused_with_reason("verdict", why, text);
    why[0] = '\0';
    if (fpd_cli_exact_mode(text, &mode, why, sizeof why) != FPD_OK)
        refused_with_reason("exact mode", why, text);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fpd_registry_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0; /* an option value, not a file */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    shape(text);
    dtypes(text);
    element(text);
    lists(text);
    scalars(text);
    free(text);
    return 0;
}
