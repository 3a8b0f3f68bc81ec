/* The kernel sets an earlier run showed this machine runs, remembered (kernel_set_cache.h): a set
 * that ran opens from the file without a probe; one that did not is probed each time; a file that
 * is not the cache's, or not for this key, is ignored; nothing is kept where no cache is wanted. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/backend_pinned.h"
#include "backends/builtin.h"
#include "backends/kernel_set_cache.h"
#include "common/dtype.h"
#include "helpers.h"

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/fpdiv-kscache-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    setenv("FPDIV_CACHE_DIR", dir, 1);
    fpd_registry_init();
    load_kernel_sets_plugin();
}

static void teardown(void)
{
    fpd_registry_close_all();
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    cr_expect_eq(system(command), 0);
}

/* Every backend closed, as the next fpdiv run starts: each opens again when it is used. */
static void next_run(void) { fpd_registry_close_all(); }

static struct fpd_backend_slot *open_set(const char *name, int want)
{
    struct fpd_backend_slot *s;
    char why[512];
    cr_assert_eq(fpd_backend_resolve(name, &s, why, sizeof why), FPD_OK, "%s", why);
    int rc = fpd_backend_acquire(s);
    cr_assert_eq(rc, want, "%s: %d, not %d (%s)", name, rc, want, s->why);
    return s;
}

static const char *version_of(struct fpd_backend_slot *s)
{
    static char buf[128];
    return fpd_backend_provenance_value(s, "version", buf, sizeof buf);
}

static char *cache_text(void)
{
    char path[4096];
    cr_assert_not_null(fpd_kernel_set_cache_file(fpd_registry_find("ksets"), path, sizeof path));
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static void write_cache(const char *text)
{
    char path[4096];
    cr_assert_not_null(fpd_kernel_set_cache_file(fpd_registry_find("ksets"), path, sizeof path));
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

/* The remembered provenance of ksets@reverse, its version edited to `version`: a run that reads the
 * file reports that version, one that probes reports the plugin's 1.0. */
static void remember_reverse_as(const char *version)
{
    char text[1024], path[4096];
    cr_assert_not_null(fpd_kernel_set_cache_file(fpd_registry_find("ksets"), path, sizeof path));
    const char *key = strrchr(path, '-') + 1;
    snprintf(text, sizeof text,
             "{\"format\": \"fpdiv kernel-set cache\", \"version\": 1, \"key\": \"%.16s\", \"sets\": {\"reverse\": "
             "[[\"library\", \"ksets\"], [\"version\", \"%s\"], [\"kernel_set\", \"reverse\"]]}}",
             key, version);
    write_cache(text);
}

Test(kernel_set_cache, a_set_that_ran_opens_from_the_file_and_still_computes, .init = setup, .fini = teardown)
{
    open_set("ksets@reverse", FPD_OK);
    char *text = cache_text();
    cr_assert_not_null(text, "the probe that passed was not kept");
    cr_expect(strstr(text, "\"reverse\""), "%s", text);
    remember_reverse_as("remembered");
    next_run();
    struct fpd_backend_slot *s = open_set("ksets@reverse", FPD_OK);
    cr_expect_str_eq(version_of(s), "remembered", "the set was probed again, not read from the file");
    /* its host starts at the first GEMM and computes as a probed one does */
    double a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, -1, 2, 0.5, 3, 7}, c[4] = {0};
    struct fpd_gemm_args g = {
        .dt = {FPD_F64, FPD_F64, FPD_F64}, .batch = 1, .m = 2, .n = 2, .k = 3, .a = a, .lda = 3, .stride_a = 6,
        .b = b, .ldb = 2, .stride_b = 6, .c = c, .ldc = 2, .stride_c = 4, .threads = 1,
    };
    char why[512];
    cr_assert_eq(fpd_backend_gemm(s, &g, why, sizeof why), FPD_OK, "%s", why);
    const double want[4] = {1 * 1 + 2 * 2 + 3 * 3, 1 * -1 + 2 * 0.5 + 3 * 7, 4 * 1 + 5 * 2 + 6 * 3,
                            4 * -1 + 5 * 0.5 + 6 * 7}; /* exact in f64 */
    cr_expect(memcmp(c, want, sizeof want) == 0, "%g %g %g %g", c[0], c[1], c[2], c[3]);
}

Test(kernel_set_cache, a_set_that_failed_is_not_remembered, .init = setup, .fini = teardown)
{
    open_set("ksets@crashes", FPD_ERR_UNAVAILABLE);
    open_set("ksets@liar", FPD_ERR_UNAVAILABLE);
    open_set("ksets@reverse", FPD_OK);
    char *text = cache_text();
    cr_assert_not_null(text);
    cr_expect(!strstr(text, "crashes") && !strstr(text, "liar"), "%s", text);
    cr_expect(strstr(text, "\"reverse\""), "%s", text);
}

/* Files that are not the cache's for this key: each ignored (the set probed, its real provenance),
 * then replaced by a good one. */
Test(kernel_set_cache, a_file_that_is_not_the_caches_is_ignored, .init = setup, .fini = teardown)
{
    static const char *const files[] = {
        "not json",
        "[]",
        "{\"format\": \"fpdiv kernel-set cache\", \"version\": 2, \"key\": \"KEY\", \"sets\": {\"reverse\": []}}",
        "{\"format\": \"fpdiv kernel-set cache\", \"version\": 1, \"key\": \"0000000000000000\", \"sets\": "
        "{\"reverse\": [[\"version\", \"remembered\"]]}}",
        "{\"format\": \"fpdiv kernel-set cache\", \"version\": 1, \"key\": \"KEY\", \"sets\": {\"reverse\": "
        "[[\"version\", \"remem\\u0000bered\"]]}}",
        "{\"format\": \"fpdiv kernel-set cache\", \"version\": 1, \"key\": \"KEY\", \"sets\": {\"reverse\": "
        "[[\"version\", 3]]}}",
        "{\"format\": \"fpdiv kernel-set cache\", \"version\": 1, \"key\": \"KEY\", \"sets\": {\"reverse\": "
        "[[\"version\", \"remembered\", \"third\"]]}}",
        "{\"format\": \"fpdiv kernel-set cache\", \"version\": 1, \"key\": \"KEY\", \"sets\": {\"reverse\": "
        "{\"version\": \"remembered\"}}}",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[4096], text[1024];
        cr_assert_not_null(fpd_kernel_set_cache_file(fpd_registry_find("ksets"), path, sizeof path));
        const char *key = strrchr(path, '-') + 1, *at = strstr(files[i], "KEY");
        if (at)
            snprintf(text, sizeof text, "%.*s%.16s%s", (int)(at - files[i]), files[i], key, at + 3);
        else
            snprintf(text, sizeof text, "%s", files[i]);
        write_cache(text);
        struct fpd_backend_slot *s = open_set("ksets@reverse", FPD_OK);
        cr_expect_str_eq(version_of(s), "1.0", "file %zu was believed: %s", i, text);
        char *now = cache_text();
        cr_expect(now && strstr(now, "\"1.0\""), "file %zu was not replaced by a good one", i);
        next_run();
    }
}

/* What the library reads from the environment is part of the key: another value, another file. */
Test(kernel_set_cache, the_environment_the_library_reads_is_part_of_the_key, .init = setup, .fini = teardown)
{
    char before[4096], after[4096], unrelated[4096];
    struct fpd_backend_slot *base = fpd_registry_find("ksets");
    cr_assert_eq(fpd_backend_acquire(base), FPD_OK);
    cr_assert_not_null(fpd_kernel_set_cache_file(base, before, sizeof before));
    setenv("OMP_NUM_THREADS", "3", 1);
    cr_assert_not_null(fpd_kernel_set_cache_file(base, after, sizeof after));
    unsetenv("OMP_NUM_THREADS");
    setenv("FPDIV_UNRELATED_TEST_VARIABLE", "1", 1);
    cr_assert_not_null(fpd_kernel_set_cache_file(base, unrelated, sizeof unrelated));
    unsetenv("FPDIV_UNRELATED_TEST_VARIABLE");
    cr_expect_str_neq(before, after);
    cr_expect_str_eq(before, unrelated);
}

Test(kernel_set_cache, nothing_is_kept_where_no_cache_is_wanted, .init = setup, .fini = teardown)
{
    setenv("FPDIV_CACHE_DIR", "", 1);
    char path[4096];
    cr_expect_null(fpd_kernel_set_cache_file(fpd_registry_find("ksets"), path, sizeof path));
    open_set("ksets@reverse", FPD_OK);
    setenv("FPDIV_CACHE_DIR", dir, 1);
    cr_expect_null(cache_text(), "a file was written with FPDIV_CACHE_DIR empty");
}

/* A cache that cannot be kept (its directory is a file) costs a probe each time, never a set. */
Test(kernel_set_cache, a_cache_that_cannot_be_written_is_no_error, .init = setup, .fini = teardown)
{
    char file[128];
    snprintf(file, sizeof file, "%s/a-file", dir);
    FILE *f = fopen(file, "w");
    cr_assert_not_null(f);
    fclose(f);
    setenv("FPDIV_CACHE_DIR", file, 1);
    open_set("ksets@reverse", FPD_OK);
    next_run();
    struct fpd_backend_slot *s = open_set("ksets@reverse", FPD_OK);
    cr_expect_str_eq(version_of(s), "1.0");
    setenv("FPDIV_CACHE_DIR", dir, 1);
}
