/* check_report.h — turning check results into text and JSON. The CLI decides where they go. */
#ifndef FPD_CHECK_REPORT_H
#define FPD_CHECK_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "common/version.h"
#include "engine/check.h"

/* "0x1.8p+1 (3)": a value of type t from its bits, hex-float (exact) and decimal. */
const char *fpd_format_value(enum fpd_dtype t, uint64_t bits, char *buf, size_t size);

/* "seq,openblas@Haswell": the check's backends, as --backend names them. */
const char *fpd_check_backend_names(const struct fpd_check *chk, char *buf, size_t size);

/* The `fpdiv check …` command that reruns exactly this check, with the --plugin and --blas options
 * that made its backends; NULL for explicit (inline) inputs. A buffer of FPD_COMMAND_MAX holds it. */
#define FPD_COMMAND_MAX 4096
const char *fpd_reproduce_command(const struct fpd_check *chk, char *buf, size_t size);
/* " --generator G" for a generator other than the newest (which is the default), else "". */
const char *fpd_generator_option(unsigned generator, char buf[32]);

/* A check's ratio to the bound as reports give it: NaN where none was taken (the paths differ and
 * no bound applies to them; JSON's null). */
double fpd_reported_ratio(const struct fpd_metrics *m);

/* "openblas@Haswell: gemm 4x1000x1000, f32 in, f32 out; then take ...": what a path computes and
 * how its output is compared (cmp), without a newline. */
void fpd_path_words(FILE *f, const struct fpd_check *chk, const struct fpd_path *p, const struct fpd_region *cmp);

/* A full human-readable report of one check; `environment` is the one it ran in (environment.h),
 * NULL for this process's backends. */
void fpd_report_check(FILE *f, const struct fpd_check *chk, const struct fpd_check_result *res, json_t *environment);

/* The outcome of a judgement (`fpdiv judge`): the report's lines from the verdict on, the two
 * outputs called by the names given (their files) instead of path A and path B. */
void fpd_report_judgement(FILE *f, const struct fpd_check *chk, const struct fpd_check_result *res,
                          const char *const outputs[2]);

/* One JSON object per check: relation, backends, verdict, diff, max_ulp, max_abs, max_rel, ratio,
 * hash_a, hash_b, seed, index, and the case and worst element. Caller owns the reference. */
json_t *fpd_check_json(const struct fpd_check *chk, const struct fpd_check_result *res);

/* The report's environment section: the CPU, and a line per backend, from `environment` where it
 * has the backend. */
void fpd_report_environment(FILE *f, const struct fpd_check *chk, json_t *environment);

#endif
