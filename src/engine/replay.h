/* replay.h — re-running a saved case and classifying what changed since it was recorded. */
#ifndef FPD_REPLAY_H
#define FPD_REPLAY_H

#include "store/corpus.h"

enum fpd_replay_class {
    FPD_REPRODUCED, /* both output hashes and the verdict as recorded */
    FPD_CHANGED,    /* different bits, or the same bits judged better, verdict not worse (and not now
                       `same` when it was not) */
    FPD_FIXED,      /* now `same` */
    FPD_WORSE,      /* a higher verdict than recorded */
    FPD_ELSEWHERE,  /* not comparable here: recorded on kernels this CPU cannot run, or does not pick */
    FPD_SKIPPED,    /* cannot run here: a backend is unavailable or lacks the dtypes, or the check does not apply */
    FPD_REPLAY_CLASS_COUNT,
};

extern const char *const fpd_replay_class_names[FPD_REPLAY_CLASS_COUNT];

/* How a result compares with the recorded outcome: FPD_ELSEWHERE, with why, for a result that
 * differs where the backend's kernels are not the recorded ones and cannot be pinned back. */
enum fpd_replay_class fpd_replay_classify(const struct fpd_case_file *f, const struct fpd_check_result *res,
                                          char *why, size_t why_size);
/* Whether the case can run here as it was recorded (each library on its recorded kernel set,
 * with its recorded thread count); when not, *cls is FPD_ELSEWHERE or FPD_SKIPPED and why says
 * what differs ("recorded on openblas@Cooperlake, which this CPU cannot run: …; it runs …"). */
bool fpd_replay_runnable(struct fpd_case_file *f, enum fpd_replay_class *cls, char *why, size_t why_size);
/* What differs between the recorded environment and this one, where the case still runs (a
 * library upgrade: "OpenBLAS 0.3.26 here, 0.3.21 recorded"); "" when nothing does. */
const char *fpd_replay_environment_changes(const struct fpd_case_file *f, char *buf, size_t size);

/* Runs the saved check. For `elsewhere` and `skipped`, why says why; res is filled otherwise.
 * Returns a status only for fpdiv's own failures. */
int fpd_replay_case(struct fpd_checker *ck, struct fpd_case_file *f, struct fpd_check_result *res,
                    enum fpd_replay_class *cls, char *why, size_t why_size);

#endif
