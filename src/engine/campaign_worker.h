/*
 * campaign_worker.h — a fuzz campaign's work, as each worker process does it: check i of the
 * campaign, its answer to the pool, and a finding whose signature has a free slot in the corpus,
 * minimized and saved. The run is set up by the parent before the workers fork, so each inherits it.
 */
#ifndef FPD_CAMPAIGN_WORKER_H
#define FPD_CAMPAIGN_WORKER_H

#include <jansson.h>

#include "common/workers.h"
#include "engine/campaign.h"
#include "store/corpus_index.h"

/* How findings are saved. */
struct fpd_saving {
    const char *corpus; /* NULL: save nothing */
    bool minimize;      /* else the raw case */
    double minimize_seconds, inline_max;
};

struct fpd_campaign_ahead; /* campaign_worker.c */

struct fpd_campaign_run {
    struct fpd_campaign cp;
    struct fpd_saving saving;
    struct fpd_corpus_index corpus; /* signatures in the corpus when the campaign started */
    struct fpd_checker ck;          /* each worker's own, after the fork */
    struct fpd_campaign_ahead *ahead; /* a worker's checks run ahead of their turn; NULL until needed */
};

/* A saved case's line (fpd_campaign_save_finding's), as a worker's note carries it. */
#define FPD_SAVED_LINE_MAX 512

/* The pool's work (workers.h), ctx a struct fpd_campaign_run: check `index`, its answer, and the
 * finding saved when its signature has a free slot, in a note (a saved case's line). A small check
 * whose backends all take several GEMMs at once (frameworks, each a round trip to its server) is
 * run together with the worker's next checks of the kind, up to a few million multiply-adds: their
 * answers wait for their turn. */
int fpd_campaign_work(void *ctx, uint32_t index, struct fpd_worker_channel *ch);

/* A finding with a free slot: minimized (errors are saved as they are) and saved. *line gets a JSON
 * line for the parent: what was saved ("saved", its name inside the corpus, shape before and after,
 * minimizing checks, whether the time cap was reached), or why it could not be ("save_failed",
 * "reason"); NULL when the signature had no free slot. The parent calls it for a check that killed
 * its worker. FPD_ERR_NOMEM, or FPD_OK. */
int fpd_campaign_save_finding(struct fpd_campaign_run *run, const struct fpd_check *chk,
                              const struct fpd_check_result *res, json_t **line);

#endif
