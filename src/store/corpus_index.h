/*
 * corpus_index.h — what a corpus holds, by signature, for a campaign saving into it: read once
 * when the campaign starts, then kept by each worker, which claims a slot (corpus_dir.h) for each
 * finding it saves.
 */
#ifndef FPD_CORPUS_INDEX_H
#define FPD_CORPUS_INDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "store/corpus_dir.h"

struct fpd_corpus_index_entry {
    struct fpd_signature_key key;
    size_t files; /* cases of the signature in the corpus when the campaign started */
    bool full;    /* this worker found every slot taken: it does not ask again */
};

struct fpd_corpus_index {
    const char *dir;
    size_t max_per_signature;
    struct fpd_corpus_index_entry *entries;
    size_t n, cap;
    size_t known; /* findings whose signature the corpus already had (counted by the caller) */
};

/* Reads the signature of every case in dir (a missing directory is an empty corpus, created by
 * the first save). FPD_ERR_INPUT with why for a file that is not a case, or a dir that is not a
 * directory; FPD_ERR_NOMEM. */
int fpd_corpus_index_load(struct fpd_corpus_index *ix, const char *dir, size_t max_per_signature, char *why,
                          size_t why_size);
/* The signature's entry, added when new; NULL when memory is out. */
struct fpd_corpus_index_entry *fpd_corpus_index_entry(struct fpd_corpus_index *ix, const struct fpd_signature_key *key);
/* Claims a free slot of the signature in the corpus (shared with every fuzzer writing there).
 * FPD_OK with claim->slot -1 when every slot is taken. */
int fpd_corpus_index_claim(struct fpd_corpus_index *ix, const struct fpd_signature_key *key,
                           struct fpd_corpus_claim *claim, char *why, size_t why_size);
void fpd_corpus_index_free(struct fpd_corpus_index *ix);

#endif
