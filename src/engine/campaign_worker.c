/* campaign_worker.c — a campaign's check in a worker, and the saving of its finding. */
#include "engine/campaign_worker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/text.h"
#include "engine/environment.h"
#include "engine/minimize.h"

_Static_assert(FPD_SAVED_LINE_MAX <= FPD_WORKER_PAYLOAD, "a saved case's line must fit a worker's message");

/* A save_failed line for a worker's message, whatever the reason's bytes (text.h makes them valid
 * UTF-8) and length: a long one keeps its start and its end, where the system's error is, and
 * fits the message even with every character escaped in JSON. */
static json_t *save_failed_line(const char *prefix, const char *reason)
{
    char text[600], shown[2400], cut[220];
    snprintf(text, sizeof text, "%s%.560s", prefix, reason);
    size_t len = strlen(fpd_printable(text, shown, sizeof shown));
    if (len >= sizeof cut) {
        size_t head = 90, tail = len - 110;
        while (head > 0 && ((unsigned char)shown[head] & 0xc0) == 0x80) /* not inside a character */
            head--;
        while (((unsigned char)shown[tail] & 0xc0) == 0x80)
            tail++;
        snprintf(cut, sizeof cut, "%.*s ... %s", (int)head, shown, shown + tail);
    } else {
        memcpy(cut, shown, len + 1);
    }
    return json_pack("{s:s,s:s}", "type", "save_failed", "reason", cut);
}

int fpd_campaign_save_finding(struct fpd_campaign_run *run, const struct fpd_check *chk, const struct fpd_check_result *res,
                        json_t **line)
{
    *line = NULL;
    struct fpd_signature_key key;
    struct fpd_corpus_claim claim;
    char why[512];
    fpd_signature_of(chk, res->verdict, &key);
    if (fpd_corpus_index_claim(&run->corpus, &key, &claim, why, sizeof why) != FPD_OK) {
        *line = save_failed_line("cannot claim a slot: ", why);
        return FPD_OK;
    }
    if (claim.slot < 0)
        return FPD_OK;
    struct fpd_check small = *chk;
    struct fpd_check_result small_res = *res;
    struct fpd_case_data data = {0};
    struct fpd_minimize_result mr = {.before = chk->c};
    int rc = FPD_OK;
    if (run->saving.minimize && res->verdict != FPD_ERROR) {
        rc = fpd_minimize(&run->ck, &small, res->verdict, run->saving.minimize_seconds, &data, &mr);
        small_res = mr.final;
    }
    struct fpd_case_file f;
    char path[4200], before[64], after[64];
    const char *saved = NULL; /* its name inside the corpus */
    bool existed = false;
    if (rc == FPD_OK)
        rc = fpd_case_file_from_check(&f, &small, &small_res, (size_t)run->saving.inline_max, fpd_environment_json(&small));
    if (rc == FPD_OK) {
        if (fpd_case_file_save(run->saving.corpus, &f, path, sizeof path, &existed, why, sizeof why) != FPD_OK) {
            /* the campaign goes on; the parent counts it, and the run fails */
            *line = save_failed_line("", why);
        } else if (!existed) { /* else another fuzzer sharing the corpus saved the very same case first */
            /* its name inside the corpus: the parent knows the corpus, and a long path would not fit
             * the message that carries the line */
            saved = path + strlen(run->saving.corpus) + 1;
            *line = json_pack("{s:s,s:s,s:s,s:s,s:I,s:b}", "type", "saved", "name", saved, "before",
                              fpd_shape_format(&mr.before, before, sizeof before), "after",
                              fpd_shape_format(&small.c, after, sizeof after), "minimizing_checks",
                              (json_int_t)mr.checks, "time_cap_reached", mr.timed_out);
        }
        fpd_case_file_free(&f);
    }
    fpd_corpus_unclaim(&claim, saved);
    fpd_case_data_free(&data);
    return rc;
}

/* Checks run together, and their answers until their turn: AHEAD_CHECKS at most, their GEMMs
 * AHEAD_WORK multiply-adds in all (about a millisecond of a framework's time at small shapes),
 * where one request to a server costs some 60 us (BENCHMARKS.md). */
enum { AHEAD_CHECKS = 32 };
#define AHEAD_WORK (4.0 * 1024 * 1024)

struct fpd_campaign_ahead {
    struct fpd_checker checkers[AHEAD_CHECKS]; /* [0] unused: the first check is run->ck's */
    struct fpd_check chk[AHEAD_CHECKS];
    struct fpd_check_answer answer[AHEAD_CHECKS];
    uint32_t index[AHEAD_CHECKS];
    size_t count, next; /* answers held, and the next one's turn */
};

/* Whether a check may run with others: every backend of it takes several GEMMs at once, it runs
 * in the worker itself, and the worker is not redoing alone what its predecessor died in. Its
 * multiply-adds, both paths' at most, in *work. */
static bool runs_together(const struct fpd_campaign_run *run, const struct fpd_check *chk, double *work,
                          const struct fpd_worker_channel *ch)
{
    const struct fpd_case *c = &chk->c;
    *work = 2.0 * c->batch * c->m * c->n * c->k;
    for (int b = 0; b < chk->relation->backends; b++)
        if (!chk->backends[b]->impl->gemm_many)
            return false;
    return !run->ck.isolate && !fpd_worker_alone(ch) && *work <= AHEAD_WORK;
}

/* Check `index` and, when it may, the worker's next checks with it; its answer in *a, theirs
 * held in run->ahead. FPD_ERR_NOMEM, or FPD_OK. */
static int run_check(struct fpd_campaign_run *run, uint32_t index, struct fpd_check *chk, struct fpd_check_answer *a,
                     struct fpd_worker_channel *ch)
{
    double work, total;
    uint64_t gemm_before = run->ck.gemm_ticks;
    if (!runs_together(run, chk, &total, ch) || (!run->ahead && !(run->ahead = calloc(1, sizeof *run->ahead)))) {
        uint64_t start = fpd_ticks();
        int rc = fpd_check_run(&run->ck, chk, &a->res);
        a->gemm_ticks = run->ck.gemm_ticks - gemm_before;
        a->ticks = (float)fpd_ticks_since(start);
        return rc;
    }
    struct fpd_campaign_ahead *ahead = run->ahead;
    struct fpd_checker *checkers[AHEAD_CHECKS] = {&run->ck};
    struct fpd_check_result results[AHEAD_CHECKS];
    ahead->chk[0] = *chk;
    size_t count = 1;
    for (; count < AHEAD_CHECKS; count++) {
        uint64_t later = fpd_worker_later_index(ch, index, (unsigned)count);
        if (later == UINT64_MAX || fpd_campaign_plan(&run->cp, (uint32_t)later, &ahead->chk[count]) != FPD_OK ||
            !runs_together(run, &ahead->chk[count], &work, ch) || total + work > AHEAD_WORK)
            break; /* a check left out is planned again in its turn */
        total += work;
        ahead->index[count] = (uint32_t)later;
        checkers[count] = &ahead->checkers[count];
    }
    fpd_worker_doing_many(ch, (unsigned)count);
    uint64_t before[AHEAD_CHECKS];
    for (size_t i = 0; i < count; i++)
        before[i] = checkers[i]->gemm_ticks;
    uint64_t start = fpd_ticks();
    int rc = fpd_check_run_many(checkers, ahead->chk, results, count);
    float share = (float)((double)fpd_ticks_since(start) / (double)count); /* run together: timed together */
    for (size_t i = 0; rc == FPD_OK && i < count; i++)
        ahead->answer[i] = (struct fpd_check_answer){.ticks = share, .gemm_ticks = checkers[i]->gemm_ticks - before[i],
                                                     .res = results[i]};
    *a = ahead->answer[0];
    ahead->count = rc == FPD_OK ? count : 0;
    ahead->next = 1;
    return rc;
}

/* Check `index`'s answer held from an earlier run, if there is one (the worker's next in turn). */
static bool held_answer(struct fpd_campaign_run *run, uint32_t index, struct fpd_check *chk, struct fpd_check_answer *a)
{
    struct fpd_campaign_ahead *ahead = run->ahead;
    if (!ahead || ahead->next >= ahead->count || ahead->index[ahead->next] != index)
        return false;
    *chk = ahead->chk[ahead->next];
    *a = ahead->answer[ahead->next++];
    return true;
}

int fpd_campaign_work(void *ctx, uint32_t index, struct fpd_worker_channel *ch)
{
    struct fpd_campaign_run *run = ctx;
    struct fpd_check chk;
    struct fpd_check_answer a; /* not zeroed first: fpd_check_run writes the whole result */
    if (!held_answer(run, index, &chk, &a)) {
        a.skipped = fpd_campaign_plan(&run->cp, index, &chk) != FPD_OK; /* over the budget even at its smallest shape */
        if (a.skipped)
            return fpd_check_answer_send(ch, index, &a) == FPD_OK ? FPD_OK : FPD_ERR_INTERNAL;
        if (run_check(run, index, &chk, &a, ch) != FPD_OK)
            return FPD_ERR_INTERNAL;
    }
    a.m = chk.c.m, a.n = chk.c.n, a.k = chk.c.k;
    if (fpd_check_answer_send(ch, index, &a) != FPD_OK)
        return FPD_ERR_INTERNAL;
    if (!run->saving.corpus || a.res.verdict == FPD_SAME || a.res.not_applicable)
        return FPD_OK;
    json_t *line;
    if (fpd_campaign_save_finding(run, &chk, &a.res, &line) != FPD_OK)
        return FPD_ERR_INTERNAL;
    if (!line)
        return FPD_OK;
    char text[FPD_SAVED_LINE_MAX];
    char *dumped = json_dumps(line, JSON_COMPACT);
    json_decref(line);
    if (dumped && strlen(dumped) < sizeof text) /* save_finding's lines fit: this is for certainty */
        strcpy(text, dumped);
    else
        snprintf(text, sizeof text, "{\"type\":\"save_failed\",\"reason\":\"%s\"}",
                 dumped ? "the report of a save did not fit its message" : "out of memory");
    free(dumped);
    return fpd_worker_send(ch, FPD_MSG_NOTE, index, text, strlen(text) + 1);
}
