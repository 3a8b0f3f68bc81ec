/*
 * corpus.h — case files: one JSON file per divergent case, `<dir>/<relation>/<16-hex>.json`.
 *
 * A file holds the check (relation, parameters, backends with their kernel sets, the thread count,
 * the case and its inputs), the outcome recorded when it was saved, where it came from (seed,
 * case index) and the environment it ran in (environment.h). Inputs
 * are inline for small cases (exact: hex-float strings, "inf", "-inf", and "nan:0xBITS" so NaN
 * payloads survive), else the generator recipe plus an XXH3 of the generated data, so generator
 * drift is detected instead of replayed. The file name is the XXH3-64 of the canonical check
 * (compact JSON, sorted keys). corpus_dir.h writes them into a corpus, and lists one.
 */
#ifndef FPD_CORPUS_H
#define FPD_CORPUS_H

#include <jansson.h>

#include "engine/check.h"

/* Schema 2 names a library backend with its kernel set (openblas@Haswell), pins the thread count
 * in the check and records the environment; schema 1 files are still read (case_file_legacy). */
#define FPD_CASE_SCHEMA 2
#define FPD_INLINE_MAX_DEFAULT (64 * 1024)
/* The largest count of checks a case may stand for (a trillion): merging sums counts, and no sum of
 * them may wrap. */
#define FPD_SIGNATURE_COUNT_MAX (1ull << 40)
/* The most inline data a case file may carry: its file stays well under FPD_CASE_FILE_MAX. */
#define FPD_INLINE_MAX_LIMIT (1024 * 1024)

struct fpd_case_file {
    struct fpd_check chk;
    char backend_names[2][64];
    struct fpd_case_data data;     /* inline inputs (chk.c.data points here), when has_data */
    bool has_data;
    bool sidecar;                  /* has_data kept in .npy files beside the case file (sidecar.h):
                                      the user's own data, too large to inline */
    struct fpd_recorded_outcome {
        enum fpd_verdict verdict;
        size_t diff, count;
        uint64_t max_ulp;
        double ratio;
        uint64_t hash_a, hash_b;
        struct fpd_exact_report exact; /* each path against the correctly rounded result, where the
                                          check that saved it took it ("outcome.exact"; optional) */
        double probable_ratio;         /* against the probabilistic threshold, where the check took it
                                          ("outcome.probable_ratio"; optional; else 0) */
        double strict_excess;          /* a strict relation's difference against what underflow makes,
                                          where it took it ("outcome.strict_excess"; optional; else 0) */
    } recorded;
    uint64_t origin_seed;
    uint32_t origin_index;
    unsigned origin_generator; /* what made the data at (origin_seed, origin_index) */
    size_t signature_count; /* checks of this signature seen when it was saved */
    json_t *merged_from;    /* owned, or NULL: for a case `merge` wrote, the saved cases its count sums
                               ("RELATION/HEX.json" -> count), so that merging again adds nothing */
    json_t *environment;    /* owned: environment.h's record */
};

/* A case file from a check and its result; captures inline data when the inputs are at most
 * inline_max bytes, and the user's own data (which no recipe makes) whatever its size: past
 * inline_max, in sidecars. environment is taken over (may be NULL). */
int fpd_case_file_from_check(struct fpd_case_file *f, const struct fpd_check *chk, const struct fpd_check_result *res,
                             size_t inline_max, json_t *environment);
void fpd_case_file_free(struct fpd_case_file *f);

/* The canonical identity and its file name "<relation>/<16-hex>.json". */
int fpd_case_file_hash(const struct fpd_case_file *f, uint64_t *hash);
json_t *fpd_case_file_json(const struct fpd_case_file *f);


/* Reads and validates a case file. Errors name the file, and line and column for JSON syntax, or
 * the offending field. A backend that is known but unavailable here loads fine (replay skips it). */
int fpd_case_file_load(const char *path, struct fpd_case_file *f, char *why, size_t why_size);
/* The same for a command that does not run the case (export): a backend not loaded here (a
 * plugin's) stands in as a placeholder that is unavailable, named as the file names it. */
int fpd_case_file_load_any(const char *path, struct fpd_case_file *f, char *why, size_t why_size);
/* The exact report as JSON, as a case file keeps it ("outcome.exact") and --json prints it:
 * ulp_a/_b, own_ratio_a/_b (null where infinite), wrong_class_a/_b, threshold_a/_b. */
json_t *fpd_exact_report_json(const struct fpd_exact_report *x);
/* A JSON document from a regular file only (a FIFO named *.json would hang its reader): NULL with
 * why naming file, line and column of a syntax error. `flags` are Jansson's. */
json_t *fpd_json_file_load(const char *path, size_t flags, char *why, size_t why_size);
/* The same from memory: name stands for the file in errors; a case needing more than max_mem
 * bytes is refused before its data is generated. */
int fpd_case_file_parse(const char *name, const char *text, size_t len, double max_mem, struct fpd_case_file *f,
                        char *why, size_t why_size);

/* A finding's signature by name, as a corpus file records it. */
struct fpd_signature_key {
    char relation[32];
    char backends[2][64];
    struct fpd_dtypes dt;
    enum fpd_verdict verdict;
};

void fpd_signature_of(const struct fpd_check *chk, enum fpd_verdict verdict, struct fpd_signature_key *key);
bool fpd_signature_equal(const struct fpd_signature_key *a, const struct fpd_signature_key *b);
/* Reads only the signature of a case file (no data is regenerated). */
int fpd_case_file_signature(const char *path, struct fpd_signature_key *key, char *why, size_t why_size);

/* The JSON string form of one element (exact), and back. */
json_t *fpd_element_json(enum fpd_dtype t, uint64_t bits);
int fpd_element_parse(enum fpd_dtype t, const char *text, uint64_t *bits);
/* A seed as JSON, in case files and every JSON line: an integer, or a decimal string above INT64_MAX. */
json_t *fpd_seed_json(uint64_t seed);

#endif
