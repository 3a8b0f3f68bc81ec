/* replay.c — classify a re-run against the recorded outcome. */
#include "replay.h"

#include <stdio.h>

const char *const fpd_replay_class_names[FPD_REPLAY_CLASS_COUNT] = {
    [FPD_REPRODUCED] = "reproduced", [FPD_CHANGED] = "changed", [FPD_FIXED] = "fixed",
    [FPD_WORSE] = "worse",           [FPD_SKIPPED] = "skipped",
};

enum fpd_replay_class fpd_replay_classify(const struct fpd_case_file *f, const struct fpd_check_result *res)
{
    /* The verdict first: the same bits judged more severely (a corrected bound, say) are worse too. */
    if (res->verdict > f->recorded.verdict)
        return FPD_WORSE;
    if (res->verdict == FPD_ERROR && f->recorded.verdict == FPD_ERROR)
        return FPD_REPRODUCED; /* a path still fails: there are no outputs to compare */
    if (res->verdict != FPD_ERROR && res->metrics.hash_a == f->recorded.hash_a &&
        res->metrics.hash_b == f->recorded.hash_b)
        return FPD_REPRODUCED;
    if (res->verdict == FPD_SAME && f->recorded.verdict != FPD_SAME)
        return FPD_FIXED;
    return FPD_CHANGED;
}

bool fpd_replay_runnable(struct fpd_case_file *f, char *why, size_t why_size)
{
    for (int i = 0; i < f->chk.relation->backends; i++)
        if (!fpd_backend_supports(f->chk.backends[i], &f->chk.c.dt, why, why_size))
            return false;
    return true;
}

int fpd_replay_case(struct fpd_checker *ck, struct fpd_case_file *f, struct fpd_check_result *res,
                    enum fpd_replay_class *cls, char *why, size_t why_size)
{
    if (!fpd_replay_runnable(f, why, why_size)) {
        *cls = FPD_SKIPPED;
        return FPD_OK;
    }
    int rc = fpd_check_run(ck, &f->chk, res);
    if (rc != FPD_OK)
        return rc;
    *cls = fpd_replay_classify(f, res);
    return FPD_OK;
}
