/* replay.c — classify a re-run against the recorded outcome. */
#include "engine/replay.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "backends/backend_pinned.h"

const char *const fpd_replay_class_names[FPD_REPLAY_CLASS_COUNT] = {
    [FPD_REPRODUCED] = "reproduced", [FPD_CHANGED] = "changed", [FPD_FIXED] = "fixed",
    [FPD_WORSE] = "worse",           [FPD_ELSEWHERE] = "elsewhere", [FPD_SKIPPED] = "skipped",
};

/* Where a backend's kernels here are not those the case was recorded on, and nothing pins them
 * back: another library under the backend's name (--blas gave another file), a library that
 * picked another kernel set than its record says, or one whose pinned name runs this CPU's own
 * code path (oneMKL's default, OFF). */
static bool environment_moved(const struct fpd_case_file *f, char *why, size_t why_size)
{
    static const char *const keys[] = {"library", "kernel_set", "cpu_code_path"};
    for (int i = 0; i < f->chk.relation->backends; i++) {
        json_t *recorded = json_object_get(json_object_get(f->environment, "backends"), f->backend_names[i]);
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            const char *was = json_string_value(json_object_get(recorded, keys[k]));
            char buf[96];
            const char *now = fpd_backend_provenance_value(f->chk.backends[i], keys[k], buf, sizeof buf);
            if (was && now && strcmp(was, now) != 0) {
                snprintf(why, why_size, "recorded where %s's %s was %s; here it is %s, and cannot be pinned back",
                         f->backend_names[i], keys[k], was, now);
                return true;
            }
        }
    }
    return false;
}

static enum fpd_replay_class compare_outcome(const struct fpd_case_file *f, const struct fpd_check_result *res)
{
    /* The verdict first: the same bits judged more severely (a corrected bound, say) are worse too. */
    if (res->verdict > f->recorded.verdict)
        return FPD_WORSE;
    if (res->verdict == FPD_ERROR && f->recorded.verdict == FPD_ERROR)
        return FPD_REPRODUCED; /* a path still fails: there are no outputs to compare */
    /* the same bits judged as recorded; the same bits judged better now are a change (of the
     * judgement, or of a record that claimed a worse verdict than its bits give) */
    if (res->verdict != FPD_ERROR && res->metrics.hash_a == f->recorded.hash_a &&
        res->metrics.hash_b == f->recorded.hash_b)
        return res->verdict == f->recorded.verdict ? FPD_REPRODUCED : FPD_CHANGED;
    if (res->verdict == FPD_SAME && f->recorded.verdict != FPD_SAME)
        return FPD_FIXED;
    return FPD_CHANGED;
}

enum fpd_replay_class fpd_replay_classify(const struct fpd_case_file *f, const struct fpd_check_result *res,
                                          char *why, size_t why_size)
{
    if (res->not_applicable) { /* e.g. a library that now offers fewer algorithms for the problem */
        snprintf(why, why_size, "does not apply here: %s", res->error);
        return FPD_SKIPPED;
    }
    enum fpd_replay_class cls = compare_outcome(f, res);
    return cls != FPD_REPRODUCED && environment_moved(f, why, why_size) ? FPD_ELSEWHERE : cls;
}

/* "Prescott, Core2, …": the kernel sets of base this CPU runs (each probed once: the registry
 * keeps what a probe found). */
static const char *runnable_sets(struct fpd_backend_slot *base, char *buf, size_t size)
{
    struct fpd_kernel_set_report sets[64];
    size_t n = fpd_kernel_sets_survey(base, sets, 64), used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < n; k++) {
        int w = sets[k].runs ? snprintf(buf + used, size - used, "%s%s", used ? ", " : "", sets[k].name) : 0;
        used += w > 0 && (size_t)w < size - used ? (size_t)w : 0;
    }
    return buf[0] ? buf : "none of them";
}

bool fpd_replay_runnable(struct fpd_case_file *f, enum fpd_replay_class *cls, char *why, size_t why_size)
{
    for (int i = 0; i < f->chk.relation->backends; i++) {
        struct fpd_backend_slot *s = f->chk.backends[i], *base;
        const char *set;
        if (fpd_backend_supports(s, &f->chk.c.dt, why, why_size))
            continue;
        /* a kernel set this CPU cannot run, of a library that is here: recorded elsewhere */
        if (s->state == FPD_SLOT_UNAVAILABLE && fpd_backend_pinned_parts(s->impl, &base, &set) &&
            fpd_backend_acquire(base) == FPD_OK) {
            char runs[512];
            *cls = FPD_ELSEWHERE;
            snprintf(why, why_size, "recorded on %s: %.200s; it runs %s", s->impl->name, s->why,
                     runnable_sets(base, runs, sizeof runs));
            return false;
        }
        *cls = FPD_SKIPPED;
        return false;
    }
    return true;
}

const char *fpd_replay_environment_changes(const struct fpd_case_file *f, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < f->chk.relation->backends; i++) {
        struct fpd_backend_slot *s = f->chk.backends[i];
        if (i == 1 && s == f->chk.backends[0])
            break;
        json_t *recorded = json_object_get(json_object_get(f->environment, "backends"), f->backend_names[i]);
        const char *was = json_string_value(json_object_get(recorded, "version"));
        const char *library = json_string_value(json_object_get(recorded, "library"));
        char version[64];
        const char *now = fpd_backend_provenance_value(s, "version", version, sizeof version);
        if (!was || !now || !now[0] || strcmp(was, now) == 0)
            continue;
        int w = snprintf(buf + used, size - used, "%s%s %s here, %s recorded", used ? "; " : "",
                         library ? library : s->impl->name, now, was);
        used += w > 0 && (size_t)w < size - used ? (size_t)w : 0;
    }
    return buf;
}

int fpd_replay_case(struct fpd_checker *ck, struct fpd_case_file *f, struct fpd_check_result *res,
                    enum fpd_replay_class *cls, char *why, size_t why_size)
{
    if (!fpd_replay_runnable(f, cls, why, why_size))
        return FPD_OK;
    int rc = fpd_check_run(ck, &f->chk, res);
    if (rc != FPD_OK)
        return rc;
    *cls = fpd_replay_classify(f, res, why, why_size);
    return FPD_OK;
}
