/* Case files: exact round trips, atomic never-overwriting writes, validation, replay classes, the minimizer. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include "backends/backend_own.h"
#include "backends/backend_pinned.h"
#include "backends/builtin.h"
#include "backends/host.h"
#include "common/dtype.h"
#include "engine/environment.h"
#include "engine/minimize.h"
#include "engine/replay.h"
#include "helpers.h"
#include "store/corpus_dir.h"

static char dir[64];

static void setup(void)
{
    fpd_registry_init();
    fpd_host_set_program(fpdiv_binary());
    snprintf(dir, sizeof dir, "/tmp/fpdiv-test-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect_eq(system(cmd), 0);
    fpd_registry_close_all();
}

static struct fpd_check make_check(const char *relation, const char *backend, const char *dtype, const char *shape)
{
    struct fpd_check chk = {.params = {.slice = {0, 1}, .threads = 2}, .default_threads = 1};
    char why[256];
    fpd_case_defaults(&chk.c);
    chk.relation = fpd_relation_find(relation);
    cr_assert_eq(fpd_backend_resolve(backend, &chk.backends[0], why, sizeof why), FPD_OK, "%s", why);
    cr_assert(chk.relation && chk.backends[0]);
    cr_assert_eq(fpd_dtypes_parse(dtype, &chk.c.dt, why, sizeof why), FPD_OK);
    cr_assert_eq(fpd_shape_parse(shape, &chk.c, why, sizeof why), FPD_OK);
    fpd_relation_prepare_case(chk.relation, &chk.c);
    return chk;
}

/* Saves a check's case file, with the result as given, into dir; its path into path. */
static void save_result(const struct fpd_check *chk, const struct fpd_check_result *res, size_t inline_max, char *path,
                        size_t size)
{
    struct fpd_case_file f;
    cr_assert_eq(fpd_case_file_from_check(&f, chk, res, inline_max, NULL), FPD_OK);
    char why[512];
    bool existed;
    cr_assert_eq(fpd_case_file_save(dir, &f, path, size, &existed, why, sizeof why), FPD_OK, "%s", why);
    cr_expect(!existed);
    fpd_case_file_free(&f);
}

/* Runs a check, saves its case file into dir and returns its path, and the check's result. */
static struct fpd_check_result save(const struct fpd_check *chk, size_t inline_max, char *path, size_t size)
{
    struct fpd_checker ck = {0};
    struct fpd_check_result res;
    cr_assert_eq(fpd_check_run(&ck, chk, &res), FPD_OK);
    fpd_checker_free(&ck);
    save_result(chk, &res, inline_max, path, size);
    return res;
}

Test(corpus, element_strings_round_trip_every_pattern, .init = setup, .fini = teardown)
{
    /* every 16-bit pattern, and the f32/f64 corner cases */
    for (uint32_t bits = 0; bits <= 0xffff; bits++) {
        enum fpd_dtype types[] = {FPD_F16, FPD_BF16};
        for (size_t t = 0; t < 2; t++) {
            json_t *j = fpd_element_json(types[t], bits);
            uint64_t back;
            cr_assert_eq(fpd_element_parse(types[t], json_string_value(j), &back), FPD_OK, "%s", json_string_value(j));
            cr_assert_eq(back, bits, "%s %04x -> %s -> %04llx", fpd_dtype_info(types[t])->name, bits,
                         json_string_value(j), (unsigned long long)back);
            json_decref(j);
        }
    }
    uint64_t f32[] = {0, 0x80000000, 1, 0x807fffff, 0x7f800000, 0xff800000, 0x7fc00001, 0xffa00000, 0x3f800001};
    for (size_t i = 0; i < sizeof f32 / sizeof f32[0]; i++) {
        json_t *j = fpd_element_json(FPD_F32, f32[i]);
        uint64_t back;
        cr_assert_eq(fpd_element_parse(FPD_F32, json_string_value(j), &back), FPD_OK);
        cr_expect_eq(back, f32[i], "%s", json_string_value(j));
        json_decref(j);
    }
    uint64_t f64[] = {0x8000000000000000ull, 1, 0x7ff0000000000001ull, 0xfff8000000000000ull, 0x000fffffffffffffull};
    for (size_t i = 0; i < sizeof f64 / sizeof f64[0]; i++) {
        json_t *j = fpd_element_json(FPD_F64, f64[i]);
        uint64_t back;
        cr_assert_eq(fpd_element_parse(FPD_F64, json_string_value(j), &back), FPD_OK);
        cr_expect_eq(back, f64[i], "%s", json_string_value(j));
        json_decref(j);
    }
    uint64_t ignored;
    cr_expect_eq(fpd_element_parse(FPD_F16, "0x1.001p+0", &ignored), FPD_ERR_INPUT, "not representable in f16");
    cr_expect_eq(fpd_element_parse(FPD_F32, "1.5", &ignored), FPD_ERR_INPUT, "decimal is refused");
    cr_expect_eq(fpd_element_parse(FPD_F16, "nan:0x3c00", &ignored), FPD_ERR_INPUT, "those bits are no NaN");
}

/* Inline data with every kind of special value survives save and load bit for bit. */
Test(corpus, case_file_round_trip_with_specials, .init = setup, .fini = teardown)
{
    const char *dtypes[] = {"f64", "f32", "f16", "bf16", "f16:f16", "bf16:bf16:bf16"};
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++) {
        struct fpd_check chk = make_check("repeat", "seq", dtypes[d], "2x3x5x40");
        chk.c.recipe.special_rate = 0.3;
        chk.c.has_bias = true;
        chk.c.trans_b = true;
        char path[4200], why[512];
        save(&chk, 1 << 20, path, sizeof path);
        struct fpd_case_file f;
        cr_assert_eq(fpd_case_file_load(path, &f, why, sizeof why), FPD_OK, "%s", why);
        cr_assert(f.has_data);
        struct fpd_case_data original;
        cr_assert_eq(fpd_case_data_capture(&chk.c, &original), FPD_OK);
        size_t in = fpd_dtype_info(chk.c.dt.in)->size, out = fpd_dtype_info(chk.c.dt.out)->size;
        cr_expect(memcmp(original.a, f.data.a, 2 * 3 * 40 * in) == 0, "%s: A differs", dtypes[d]);
        cr_expect(memcmp(original.b, f.data.b, 2 * 40 * 5 * in) == 0, "%s: B differs", dtypes[d]);
        cr_expect(memcmp(original.bias, f.data.bias, 5 * out) == 0, "%s: bias differs", dtypes[d]);
        cr_expect(f.chk.c.trans_b && f.chk.c.has_bias && !f.chk.c.trans_a);
        cr_expect(fpd_dtypes_equal(&f.chk.c.dt, &chk.c.dt));
        /* and it replays as recorded */
        struct fpd_checker ck = {0};
        struct fpd_check_result res;
        enum fpd_replay_class cls;
        cr_assert_eq(fpd_replay_case(&ck, &f, &res, &cls, why, sizeof why), FPD_OK);
        cr_expect_eq(cls, FPD_REPRODUCED, "%s: %s", dtypes[d], fpd_replay_class_names[cls]);
        fpd_checker_free(&ck);
        fpd_case_data_free(&original);
        fpd_case_file_free(&f);
    }
}

Test(corpus, recipe_files_detect_generator_drift, .init = setup, .fini = teardown)
{
    struct fpd_check chk = make_check("slice-rows", "openblas", "f32", "3x40x50");
    char path[4200], why[512];
    save(&chk, 0, path, sizeof path); /* inline_max 0: recipe plus data hash */
    struct fpd_case_file f;
    cr_assert_eq(fpd_case_file_load(path, &f, why, sizeof why), FPD_OK, "%s", why);
    cr_expect(!f.has_data);
    fpd_case_file_free(&f);
    /* a different hash is what a changed generator would produce */
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "sed -i 's/\"hash\": \"[0-9a-f]*\"/\"hash\": \"0123456789abcdef\"/' %s", path);
    cr_assert_eq(system(cmd), 0);
    cr_expect_eq(fpd_case_file_load(path, &f, why, sizeof why), FPD_ERR_INPUT);
    cr_expect(strstr(why, "generator drift"), "%s", why);
}

Test(corpus, saving_twice_keeps_the_first, .init = setup, .fini = teardown)
{
    struct fpd_check chk = make_check("repeat", "seq", "f32", "2x2x2");
    char path[4200], path2[4200], why[512];
    save(&chk, 1 << 16, path, sizeof path);
    struct stat before, after;
    cr_assert_eq(stat(path, &before), 0);
    struct fpd_checker ck = {0};
    struct fpd_check_result res;
    cr_assert_eq(fpd_check_run(&ck, &chk, &res), FPD_OK);
    fpd_checker_free(&ck);
    struct fpd_case_file f;
    cr_assert_eq(fpd_case_file_from_check(&f, &chk, &res, 1 << 16, NULL), FPD_OK);
    f.signature_count = 99; /* different content, same case: must not replace the file */
    bool existed;
    cr_assert_eq(fpd_case_file_save(dir, &f, path2, sizeof path2, &existed, why, sizeof why), FPD_OK);
    fpd_case_file_free(&f);
    cr_expect(existed);
    cr_expect_str_eq(path, path2);
    cr_assert_eq(stat(path, &after), 0);
    cr_expect_eq(before.st_ino, after.st_ino);
    cr_expect_eq(before.st_size, after.st_size);
}

/* Several processes save overlapping sets of cases into one corpus at once: every file ends up
 * complete and valid, no temporary file is left, and nothing is lost. */
Test(corpus, concurrent_writers, .init = setup, .fini = teardown)
{
    enum { WRITERS = 4, CASES = 12 };
    for (int w = 0; w < WRITERS; w++) {
        pid_t pid = fork();
        cr_assert_neq(pid, -1);
        if (pid == 0) {
            for (int i = 0; i < CASES; i++) {
                struct fpd_check chk = make_check("repeat", "seq", "f32", "3x4x5");
                chk.c.recipe.index = (uint32_t)((i + w * 5) % (CASES + 10)); /* writers overlap */
                struct fpd_checker ck = {0};
                struct fpd_check_result res;
                struct fpd_case_file f;
                char path[4200], why[512];
                bool existed;
                if (fpd_check_run(&ck, &chk, &res) != FPD_OK ||
                    fpd_case_file_from_check(&f, &chk, &res, 1 << 16, NULL) != FPD_OK ||
                    fpd_case_file_save(dir, &f, path, sizeof path, &existed, why, sizeof why) != FPD_OK)
                    _exit(1);
                fpd_case_file_free(&f);
                fpd_checker_free(&ck);
            }
            _exit(0);
        }
    }
    for (int w = 0; w < WRITERS; w++) {
        int status;
        wait(&status);
        cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    struct fpd_corpus_entry *files;
    char why[512];
    size_t n;
    cr_assert_eq(fpd_corpus_list(dir, &files, &n, why, sizeof why), FPD_OK);
    /* indices written: (i + 5w) % 22 for i < 12, w < 4: every index 0..21 */
    cr_expect_eq(n, 22, "%zu files", n);
    for (size_t i = 0; i < n; i++) {
        struct fpd_case_file f;
        cr_expect_null(files[i].refused);
        cr_expect_eq(fpd_case_file_load(files[i].path, &f, why, sizeof why), FPD_OK, "%s", why);
        fpd_case_file_free(&f);
    }
    fpd_corpus_entries_free(files, n);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "test -z \"$(find %s -name '.tmp-*')\"", dir);
    cr_expect_eq(system(cmd), 0, "temporary files left behind");
}

/* An edit of a saved case file (a sed script) and what the refusal must say. */
struct file_edit {
    const char *sed, *expect;
};

/* Each edit applied to the file at `path` alone must make it refused, naming the file and saying
 * what is wrong. */
static void expect_edits_refused(const char *path, const struct file_edit *edits, size_t n)
{
    char original[4300], cmd[16384], why[512];
    snprintf(original, sizeof original, "%s.orig", path);
    snprintf(cmd, sizeof cmd, "cp %s %s", path, original);
    cr_assert_eq(system(cmd), 0);
    for (size_t i = 0; i < n; i++) {
        struct fpd_case_file f;
        snprintf(cmd, sizeof cmd, "cp %s %s && sed -i '%s' %s", original, path, edits[i].sed, path);
        cr_assert_eq(system(cmd), 0);
        cr_expect_eq(fpd_case_file_load(path, &f, why, sizeof why), FPD_ERR_INPUT, "edit %zu accepted", i);
        cr_expect(strstr(why, path) && strstr(why, edits[i].expect), "edit %zu: '%s' lacks '%s'", i, why,
                  edits[i].expect);
    }
}

/* Malformed files: one line naming the file, and line and column or the field. */
Test(corpus, malformed_files_are_named, .init = setup, .fini = teardown)
{
    struct fpd_check chk = make_check("slice-rows", "seq", "bf16", "2x3x4");
    char path[4200], why[512];
    save(&chk, 1 << 16, path, sizeof path);
    static const struct file_edit edits[] = {
        {"3s/.*/ \"fpdiv\" \"0.1.0\",/", ":3:"},                       /* syntax: line 3 */
        {"s/\"schema\": 2/\"schema\": 7/", "schema: version 7"},
        {"s/\"m\": 2/\"m\": 0/", "check.case.m: expected an integer from 1"},
        {"s/\"m\": 2/\"m\": \"two\"/", "check.case.m: expected an integer"},
        {"s/\"relation\": \"slice-rows\"/\"relation\": \"slice-diag\"/", "unknown relation 'slice-diag'"},
        {"0,/\"0x/s/\"0x[^\"]*\"/\"0x1.0000001p+0\"/", "is not an exact bf16 value"},
        {"s/\"k\": 4/\"k\": 5/", "check.case.data.a: expected 10 elements, found 8"},
        {"s/\"dtype\": \"bf16\"/\"dtype\": \"bf8\"/", "check.case.dtype"},
    };
    expect_edits_refused(path, edits, sizeof edits / sizeof edits[0]);
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "head -c 200 %s.orig > %s", path, path);
    cr_assert_eq(system(cmd), 0);
    struct fpd_case_file f;
    cr_expect_eq(fpd_case_file_load(path, &f, why, sizeof why), FPD_ERR_INPUT, "truncated file accepted");
}

/* The environment a case file records is validated field by field, and must be the check's own. */
Test(corpus, corrupt_environment_records_are_named, .init = setup, .fini = teardown)
{
    struct fpd_check chk = make_check("slice-rows", "openblas@Prescott", "f32", "2x3x4");
    char path[4200], why[512];
    struct fpd_case_file f;
    bool existed;
    cr_assert_eq(fpd_backend_acquire(chk.backends[0]), FPD_OK, "%s", chk.backends[0]->why);
    struct fpd_checker ck = {0};
    struct fpd_check_result res;
    cr_assert_eq(fpd_check_run(&ck, &chk, &res), FPD_OK);
    fpd_checker_free(&ck);
    cr_assert_eq(fpd_case_file_from_check(&f, &chk, &res, 1 << 16, fpd_environment_json(&chk)), FPD_OK);
    cr_assert_eq(fpd_case_file_save(dir, &f, path, sizeof path, &existed, why, sizeof why), FPD_OK, "%s", why);
    fpd_case_file_free(&f);
    cr_assert_eq(fpd_case_file_load(path, &f, why, sizeof why), FPD_OK, "%s", why);
    cr_expect_str_eq(f.backend_names[0], "openblas@Prescott");
    cr_expect_eq(f.chk.default_threads, 1);
    fpd_case_file_free(&f);
    static const struct file_edit edits[] = {
        {"s/\"kernel_set\": \"Prescott\"/\"kernel_set\": \"Haswell\"/",
         "environment.backends.openblas@Prescott.kernel_set: 'Haswell', where the check names kernel set Prescott"},
        {"s/\"library\": \"OpenBLAS\"/\"library\": 5/", "environment.backends.openblas@Prescott.library: expected a string"},
        {"s/\"l2_kib\": [0-9]*/\"l2_kib\": \"big\"/", "environment.cpu.l2_kib: expected an integer"},
        {"s/\"cpu\": {/\"cpu\": 7, \"was_cpu\": {/", "environment.cpu: expected an object"},
        {"s/\"environment\"/\"environs\"/", "environment: missing; expected an object"},
        {"0,/\"threads\": 1/s//\"threads\": 0/", "check.threads: expected an integer from 1 to 1024"},
        {"0,/\"openblas@Prescott\"/s//\"openblas@bad name\"/",
         "check.backends: 'openblas@bad name' is not a backend name fpdiv writes"},
        /* a record of another backend: the check's backend was changed, its environment not */
        {"0,/\"openblas@Prescott\": {/s//\"refblas\": {/",
         "environment.backends.refblas: a record of a backend the check does not run"},
        {"s/\"count\": 1,/\"count\": -1,/", "count: expected an integer from 1"},
        {"s/\"count\": 1,/\"count\": 0,/", "count: expected an integer from 1"},
        {"s/\"ratio\": [0-9.e+-]*/\"ratio\": \"nan\"/", "outcome.ratio: expected a non-negative number, or null"},
        {"s/\"diff\": [0-9]*,/\"diff\": 99,/", "outcome.diff: 99 differing elements of 3 compared"},
        {"s/\"count\": 3,/\"count\": 4,/", "outcome.count: 4 elements compared, where the check compares 3"},
        {"0,/\"0x[^\"]*\"/s//\"0x1p-99999\"/", "check.case.data.a: element "},
        {"0,/\"0x[^\"]*\"/s//\"0x1.000000000000000000000000000000000001p+0\"/",
         "check.case.data.a: element "},
    };
    expect_edits_refused(path, edits, sizeof edits / sizeof edits[0]);
}

/* A file of schema 1 named a library alone, with its core in the provenance: it loads pinned to that
 * core, with the thread count fuzz ran with, and replays on it or says it cannot here. */
Test(corpus, schema_1_files_name_their_kernel_set, .init = setup, .fini = teardown)
{
    struct fpd_case_file f;
    char why[1024];
    cr_assert_eq(fpd_case_file_load("tests/cli/data/schema1-openblas-cooperlake.json", &f, why, sizeof why), FPD_OK,
                 "%s", why);
    cr_expect_str_eq(f.backend_names[0], "openblas@Cooperlake");
    cr_expect_eq(f.chk.default_threads, 1);
    json_t *b = json_object_get(json_object_get(f.environment, "backends"), "openblas@Cooperlake");
    cr_expect_str_eq(json_string_value(json_object_get(b, "kernel_set")), "Cooperlake");
    cr_expect_null(json_object_get(b, "core"));
    struct fpd_checker ck = {0};
    struct fpd_check_result res;
    enum fpd_replay_class cls;
    cr_assert_eq(fpd_replay_case(&ck, &f, &res, &cls, why, sizeof why), FPD_OK);
    /* which of the two depends on this CPU: whether it runs Cooperlake's kernels, as probed */
    char probe_why[512];
    struct fpd_backend_slot *cooperlake;
    cr_assert_eq(fpd_backend_resolve("openblas@Cooperlake", &cooperlake, probe_why, sizeof probe_why), FPD_OK);
    bool runs = fpd_backend_acquire(cooperlake) == FPD_OK;
    cr_expect_eq(cls, runs ? FPD_REPRODUCED : FPD_ELSEWHERE, "%s on a CPU that %s Cooperlake's kernels",
                 fpd_replay_class_names[cls], runs ? "runs" : "does not run");
    if (!runs)
        cr_expect(strstr(why, "recorded on openblas@Cooperlake"), "%s", why);
    fpd_checker_free(&ck);
    fpd_case_file_free(&f);
}

Test(corpus, replay_classes, .init = setup, .fini = teardown)
{
    struct fpd_check chk = make_check("slice-rows", "openblas@Prescott", "f32", "2x1000x1000");
    char path[4200], why[512], cmd[9000];
    save(&chk, 0, path, sizeof path);
    struct fpd_case_file f;
    struct fpd_checker ck = {0};
    struct fpd_check_result res;
    enum fpd_replay_class cls;
    cr_assert_eq(fpd_case_file_load(path, &f, why, sizeof why), FPD_OK, "%s", why);
    cr_assert_eq(fpd_replay_case(&ck, &f, &res, &cls, why, sizeof why), FPD_OK);
    cr_expect_eq(cls, FPD_REPRODUCED);
    fpd_case_file_free(&f);
    /* a hand-edited output hash: the bits differ from the record, the verdict does not */
    snprintf(cmd, sizeof cmd, "sed -i 's/\"hash_a\": \"[0-9a-f]*\"/\"hash_a\": \"0000000000000000\"/' %s", path);
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(fpd_case_file_load(path, &f, why, sizeof why), FPD_OK, "%s", why);
    cr_assert_eq(fpd_replay_case(&ck, &f, &res, &cls, why, sizeof why), FPD_OK);
    cr_expect_eq(cls, FPD_CHANGED, "%s", fpd_replay_class_names[cls]);
    /* recorded `same`, now reorder: worse */
    f.recorded.verdict = FPD_SAME;
    cr_assert_eq(fpd_replay_case(&ck, &f, &res, &cls, why, sizeof why), FPD_OK);
    cr_expect_eq(cls, FPD_WORSE);
    fpd_case_file_free(&f);
    fpd_checker_free(&ck);
}

static int unavailable_open(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    (void)self, (void)state;
    snprintf(why, why_size, "planted: no device");
    return FPD_ERR_UNAVAILABLE;
}

Test(corpus, replay_skips_unavailable_backends, .init = setup, .fini = teardown)
{
    static struct fpd_backend gone;
    gone = fpd_backend_seq;
    gone.name = "gone";
    gone.kind = FPD_KIND_TEST;
    char why[512], path[4200];
    cr_assert_eq(fpd_registry_add(&gone, why, sizeof why), FPD_OK);
    struct fpd_check chk = make_check("repeat", "gone", "f32", "2x3x4");
    save(&chk, 1 << 16, path, sizeof path); /* while it still works */
    gone.open = unavailable_open;
    fpd_registry_close_all(); /* the next acquire opens it again, and fails */
    struct fpd_case_file f;
    cr_assert_eq(fpd_case_file_load(path, &f, why, sizeof why), FPD_OK, "%s", why);
    struct fpd_checker ck = {0};
    struct fpd_check_result res;
    enum fpd_replay_class cls;
    cr_assert_eq(fpd_replay_case(&ck, &f, &res, &cls, why, sizeof why), FPD_OK);
    cr_expect_eq(cls, FPD_SKIPPED);
    cr_expect(strstr(why, "no device"), "%s", why);
    fpd_case_file_free(&f);
}

/* A backend that diverges only when k >= 17: one ulp on C[0][0] of the second call. */
static int calls;
static int k17_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    int rc = fpd_backend_seq.gemm(state, g, why, why_size);
    if (rc == FPD_OK && g->k >= 17 && ++calls % 2 == 0)
        fpd_store_bits(g->dt.out, g->c, 0, fpd_bits(g->dt.out, g->c, 0) + 1);
    return rc;
}

Test(corpus, minimizer_finds_k_17, .init = setup, .fini = teardown)
{
    static struct fpd_backend k17;
    k17 = fpd_backend_seq;
    k17.name = "k17";
    k17.kind = FPD_KIND_TEST;
    k17.gemm = k17_gemm;
    char why[256];
    cr_assert_eq(fpd_registry_add(&k17, why, sizeof why), FPD_OK);
    struct fpd_check chk = make_check("repeat", "k17", "f32", "3x37x45x300");
    chk.c.trans_a = true, chk.c.pad = 3, chk.c.has_bias = true;
    struct fpd_checker ck = {0};
    struct fpd_case_data data;
    struct fpd_minimize_result mr;
    cr_assert_eq(fpd_minimize(&ck, &chk, FPD_REORDER, 30, &data, &mr), FPD_OK);
    cr_expect_eq(chk.c.k, 17);
    cr_expect_eq(chk.c.m, 1);
    cr_expect_eq(chk.c.n, 1);
    cr_expect_eq(chk.c.batch, 1);
    cr_expect(!chk.c.trans_a && !chk.c.has_bias && chk.c.pad == 0, "layout not simplified");
    cr_expect_eq(mr.final.verdict, FPD_REORDER);
    cr_expect(!mr.timed_out);
    /* values: zeroing keeps this divergence, so every input value ends up zero */
    for (size_t p = 0; p < 17; p++)
        cr_expect_eq(fpd_bits(FPD_F32, data.a, p), 0, "A[0][%zu] not zeroed", p);
    fpd_case_data_free(&data);
    fpd_checker_free(&ck);
}

Test(corpus, minimizer_keeps_a_slice_divergence_and_simplifies_values, .init = setup, .fini = teardown)
{
    /* OpenBLAS's f16 path (upcast, sgemm) on its Prescott kernels diverges between 64 columns and 1
     * at k = 200; minimized, it keeps its verdict, shrinks, and keeps one row (slice-cols needs no more) */
    struct fpd_check chk = make_check("slice-cols", "openblas@Prescott", "f16", "9x64x200");
    struct fpd_checker ck = {0};
    struct fpd_check_result res;
    cr_assert_eq(fpd_check_run(&ck, &chk, &res), FPD_OK);
    cr_assert_eq(res.verdict, FPD_REORDER, "%s: %s", fpd_verdict_table[res.verdict].name, res.error);
    struct fpd_case_data data;
    struct fpd_minimize_result mr;
    cr_assert_eq(fpd_minimize(&ck, &chk, res.verdict, 30, &data, &mr), FPD_OK);
    cr_expect_eq(mr.final.verdict, res.verdict);
    cr_expect_lt((uint64_t)chk.c.m * chk.c.n * chk.c.k, (uint64_t)9 * 64 * 200);
    cr_expect_eq(chk.c.m, 1, "slice-cols needs one row at most");
    fpd_case_data_free(&data);
    fpd_checker_free(&ck);
}

static int broken_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    (void)state, (void)g;
    snprintf(why, why_size, "planted: kernel launch failed");
    return FPD_ERR_BACKEND;
}

/* A case saved as an error that still errors has nothing else to compare: reproduced. */
Test(corpus, an_error_that_persists_is_reproduced, .init = setup, .fini = teardown)
{
    static struct fpd_backend broken;
    broken = fpd_backend_seq;
    broken.name = "broken";
    broken.kind = FPD_KIND_TEST;
    broken.gemm = broken_gemm;
    char why[512], path[4200];
    cr_assert_eq(fpd_registry_add(&broken, why, sizeof why), FPD_OK);
    struct fpd_check chk = make_check("repeat", "broken", "f32", "2x3x4");
    save(&chk, 1 << 16, path, sizeof path);
    struct fpd_case_file f;
    cr_assert_eq(fpd_case_file_load(path, &f, why, sizeof why), FPD_OK, "%s", why);
    cr_expect_eq(f.recorded.verdict, FPD_ERROR);
    struct fpd_checker ck = {0};
    struct fpd_check_result res;
    enum fpd_replay_class cls;
    cr_assert_eq(fpd_replay_case(&ck, &f, &res, &cls, why, sizeof why), FPD_OK);
    cr_expect_eq(cls, FPD_REPRODUCED, "%s", fpd_replay_class_names[cls]);
    fpd_checker_free(&ck);
    fpd_case_file_free(&f);
}

/* Results saved beside the cases (--save-to) are found as results, never as cases; the same text
 * saved twice is one file; no relation can be mistaken for the results' directory. */
Test(corpus, results_beside_the_cases, .init = setup, .fini = teardown)
{
    cr_assert_null(fpd_relation_find(FPD_RESULTS_DIR), "a relation named like the results' directory");
    struct fpd_check chk = make_check("repeat", "seq", "f32", "2x2x2");
    char path[4200], result[4200], again[4200], why[512];
    save(&chk, 1 << 16, path, sizeof path);
    bool existed;
    cr_assert_eq(fpd_corpus_save_result(dir, "sweep", "{\"kind\": \"sweep\"}\n", result, sizeof result, &existed, why,
                                        sizeof why),
                 FPD_OK, "%s", why);
    cr_expect(!existed);
    cr_assert_eq(fpd_corpus_save_result(dir, "sweep", "{\"kind\": \"sweep\"}\n", again, sizeof again, &existed, why,
                                        sizeof why),
                 FPD_OK, "%s", why);
    cr_expect(existed, "the same text saved twice is one file");
    cr_expect_str_eq(result, again);
    struct fpd_corpus_entry *entries;
    size_t n;
    cr_assert_eq(fpd_corpus_list(dir, &entries, &n, why, sizeof why), FPD_OK, "%s", why);
    cr_expect_eq(n, 1, "the corpus lists %zu files, want its one case", n);
    if (n)
        cr_expect_str_eq(entries[0].path, path);
    fpd_corpus_entries_free(entries, n);
    cr_assert_eq(fpd_corpus_list_results(dir, "sweep", &entries, &n, why, sizeof why), FPD_OK, "%s", why);
    cr_expect_eq(n, 1);
    if (n)
        cr_expect_str_eq(entries[0].path, result);
    fpd_corpus_entries_free(entries, n);
    cr_assert_eq(fpd_corpus_list_results(dir, "explain", &entries, &n, why, sizeof why), FPD_OK, "%s", why);
    cr_expect_eq(n, 0, "no explain result was saved");
    fpd_corpus_entries_free(entries, n);
}

/* The exact report a check took is kept in its case file (outcome.exact) and read back as it was;
 * a malformed one is named. */
Test(corpus, the_exact_report_is_kept, .init = setup, .fini = teardown)
{
    struct fpd_check chk = make_check("addmm", "seq", "bf16", "3x5x40");
    chk.exact = FPD_EXACT_ALWAYS;
    char path[4200], why[512];
    struct fpd_check_result res = save(&chk, 1 << 16, path, sizeof path);
    cr_assert(res.exact.computed);
    struct fpd_case_file back;
    cr_assert_eq(fpd_case_file_load(path, &back, why, sizeof why), FPD_OK, "%s", why);
    const struct fpd_exact_report *x = &back.recorded.exact;
    cr_expect(x->computed, "the exact report was not kept");
    for (int w = 0; w < 2; w++) {
        cr_expect(memcmp(&x->err_ulp[w], &res.exact.err_ulp[w], sizeof(double)) == 0, "ulp of path %d", w);
        cr_expect(memcmp(&x->own_ratio[w], &res.exact.own_ratio[w], sizeof(double)) == 0, "own ratio of path %d", w);
        cr_expect(x->wrong_class[w] == res.exact.wrong_class[w] && x->threshold[w] == res.exact.threshold[w]);
    }
    cr_expect_eq(x->beyond, res.exact.beyond);
    fpd_case_file_free(&back);
    static const struct file_edit edits[] = {
        {"s/\"ulp_a\": [^,]*/\"ulp_a\": -1/", "outcome.exact.ulp_a: expected a non-negative number or null"},
        {"s/\"wrong_class_b\": [0-9]*/\"wrong_class_b\": \"none\"/", "outcome.exact.wrong_class_b: expected an integer"},
        {"/\"threshold_a\"/d", "outcome.exact.threshold_a: missing"},
    };
    expect_edits_refused(path, edits, sizeof edits / sizeof edits[0]);
}

/* An improbable case keeps its ratio to the probabilistic threshold (outcome.probable_ratio) and
 * reads it back as it was; a malformed one is named. */
Test(corpus, the_probable_ratio_is_kept, .init = setup, .fini = teardown)
{
    struct fpd_check chk = make_check("cast-out", "seq", "f16", "4x8x1024");
    char path[4200], why[512];
    struct fpd_check_result res = save(&chk, 1 << 16, path, sizeof path);
    cr_assert_eq(res.verdict, FPD_IMPROBABLE, "%s", fpd_verdict_table[res.verdict].name);
    struct fpd_case_file back;
    cr_assert_eq(fpd_case_file_load(path, &back, why, sizeof why), FPD_OK, "%s", why);
    cr_expect_eq(back.recorded.verdict, FPD_IMPROBABLE);
    cr_expect(memcmp(&back.recorded.probable_ratio, &res.probable_ratio, sizeof(double)) == 0, "%g read back as %g",
              res.probable_ratio, back.recorded.probable_ratio);
    fpd_case_file_free(&back);
    static const struct file_edit edits[] = {
        {"s/\"probable_ratio\": [^,}]*/\"probable_ratio\": -1/", "outcome.probable_ratio: expected a positive number"},
        {"s/\"probable_ratio\": [^,}]*/\"probable_ratio\": \"far\"/", "outcome.probable_ratio: expected a positive number"},
    };
    expect_edits_refused(path, edits, sizeof edits / sizeof edits[0]);
}

/* A case the aggregate test found (aggregate.h: partial sums two bits short, tests/plugins/lossy.c)
 * keeps each path's aggregate in outcome.exact and reads it back; its verdict stands on it alone,
 * so a file without it, or with a malformed one, is refused. */
Test(corpus, the_aggregate_is_kept, .init = setup, .fini = teardown)
{
    load_plugin("lossy.so");
    struct fpd_check chk = make_check("vendor", "seq", "f32", "24x24x256");
    char path[4200], why[512];
    cr_assert_eq(fpd_backend_resolve("narrow2", &chk.backends[1], why, sizeof why), FPD_OK, "%s", why);
    chk.exact = FPD_EXACT_ALWAYS;
    struct fpd_check_result res = save(&chk, 1 << 16, path, sizeof path);
    cr_assert_eq(res.verdict, FPD_IMPROBABLE, "%s", fpd_verdict_table[res.verdict].name);
    cr_assert_eq(res.probable_ratio, 0, "the aggregate alone, no element");
    struct fpd_case_file back;
    cr_assert_eq(fpd_case_file_load(path, &back, why, sizeof why), FPD_OK, "%s", why);
    for (int w = 0; w < 2; w++)
        cr_expect(memcmp(&back.recorded.exact.aggregate[w], &res.exact.aggregate[w], sizeof(double)) == 0,
                  "path %d: %g read back as %g", w, res.exact.aggregate[w], back.recorded.exact.aggregate[w]);
    fpd_case_file_free(&back);
    static const struct file_edit edits[] = {
        {"s/\"aggregate_b\"/\"aggregate_x\"/", "outcome.probable_ratio: missing, or not above 1, where the verdict is improbable"},
        {"s/\"aggregate_b\": [^,}]*/\"aggregate_b\": 0.5/", "outcome.probable_ratio: missing, or not above 1"},
        {"s/\"aggregate_b\": [^,}]*/\"aggregate_b\": -2/", "outcome.exact.aggregate_b: expected a non-negative number"},
        {"s/\"aggregate_a\": [^,}]*/\"aggregate_a\": \"far\"/", "outcome.exact.aggregate_a: expected a non-negative"},
    };
    expect_edits_refused(path, edits, sizeof edits / sizeof edits[0]);
}

/* A strict relation's excess (scale: what underflow cannot make) is what makes its verdict
 * improbable: kept in outcome.strict_excess and read back, or the case would not load at all. */
Test(corpus, the_strict_excess_is_kept, .init = setup, .fini = teardown)
{
    struct fpd_check chk = make_check("scale", "seq", "f32", "3x4x5");
    chk.params.scale = 3;
    struct fpd_checker ck = {0};
    struct fpd_check_result res;
    cr_assert_eq(fpd_check_run(&ck, &chk, &res), FPD_OK);
    fpd_checker_free(&ck);
    cr_assert_eq(res.verdict, FPD_SAME);
    res.verdict = FPD_IMPROBABLE, res.strict_excess = 3.5; /* as a library that is not scale-invariant gives */
    res.metrics.diff = 1, res.metrics.max_ulp = 1, res.metrics.hash_b ^= 1;
    struct fpd_case_file back;
    char path[4200], why[512];
    save_result(&chk, &res, 1 << 16, path, sizeof path);
    cr_assert_eq(fpd_case_file_load(path, &back, why, sizeof why), FPD_OK, "%s", why);
    cr_expect_eq(back.recorded.verdict, FPD_IMPROBABLE);
    cr_expect_eq(back.recorded.strict_excess, 3.5);
    fpd_case_file_free(&back);
    static const struct file_edit edits[] = {
        {"s/\"strict_excess\"/\"strict_excess_x\"/", "outcome.probable_ratio: missing, or not above 1, where the verdict is improbable"},
        {"s/\"strict_excess\": [^,}]*/\"strict_excess\": 0/", "outcome.strict_excess: expected a positive number"},
    };
    expect_edits_refused(path, edits, sizeof edits / sizeof edits[0]);
}

/* A claim's file is named by the signature's text with the verdict by name, so the claims a corpus
 * keeps stay a signature's own when the verdict scale grows (an "improbable" signature once read
 * an old "bound" claim, the number 2, as its own). */
Test(corpus, claims_name_the_verdict, .init = setup, .fini = teardown)
{
    struct fpd_signature_key key = {.relation = "slice-rows", .backends = {"seq", ""}, .verdict = FPD_BOUND};
    char why[512];
    cr_assert_eq(fpd_dtypes_parse("f32", &key.dt, why, sizeof why), FPD_OK);
    struct fpd_corpus_claim claim;
    cr_assert_eq(fpd_corpus_claim(dir, &key, 0, 1, &claim, why, sizeof why), FPD_OK, "%s", why);
    cr_assert_geq(claim.slot, 0);
    const char text[] = "slice-rows|seq||f32|bound";
    char path[256];
    snprintf(path, sizeof path, "%s/.claims/%016llx-0", dir, (unsigned long long)XXH3_64bits(text, strlen(text)));
    struct stat st;
    cr_expect_eq(stat(path, &st), 0, "no claim file %s", path);
    fpd_corpus_unclaim(&claim, NULL);
}

/* `same` compares no NaN's payload, and the hashes hash every bit: a `same` case whose paths' NaNs
 * have other payloads (a gemm's and a dot's, on the reference BLAS) has two hashes, and is saved and
 * read back as it is; a `same` with a differing element is refused. */
Test(corpus, same_with_two_hashes_loads, .init = setup, .fini = teardown)
{
    struct fpd_check chk = make_check("repeat", "seq", "f32", "3x4x5");
    struct fpd_checker ck = {0};
    struct fpd_check_result res;
    cr_assert_eq(fpd_check_run(&ck, &chk, &res), FPD_OK);
    fpd_checker_free(&ck);
    cr_assert_eq(res.verdict, FPD_SAME);
    res.metrics.hash_b ^= 1; /* as NaNs of other payloads give */
    struct fpd_case_file back;
    char path[4200], why[512];
    save_result(&chk, &res, 1 << 16, path, sizeof path);
    cr_assert_eq(fpd_case_file_load(path, &back, why, sizeof why), FPD_OK, "%s", why);
    cr_expect_eq(back.recorded.verdict, FPD_SAME);
    cr_expect_eq(back.recorded.hash_b, res.metrics.hash_b);
    fpd_case_file_free(&back);
    static const struct file_edit edits[] = {
        {"s/\"diff\": 0/\"diff\": 1/", "outcome.diff: the verdict is same (bitwise equal), so no element differs"},
    };
    expect_edits_refused(path, edits, sizeof edits / sizeof edits[0]);
}
