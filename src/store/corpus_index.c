/* corpus_index.c — a corpus's signatures, and the slots a campaign claims to save into it. */
#include "store/corpus_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "common/array.h"

struct fpd_corpus_index_entry *fpd_corpus_index_entry(struct fpd_corpus_index *ix, const struct fpd_signature_key *key)
{
    for (size_t i = 0; i < ix->n; i++)
        if (fpd_signature_equal(&ix->entries[i].key, key))
            return &ix->entries[i];
    if (!FPD_ARRAY_RESERVE(ix->entries, ix->cap, ix->n + 1))
        return NULL;
    ix->entries[ix->n] = (struct fpd_corpus_index_entry){.key = *key};
    return &ix->entries[ix->n++];
}

int fpd_corpus_index_load(struct fpd_corpus_index *ix, const char *dir, size_t max_per_signature, char *why,
                          size_t why_size)
{
    *ix = (struct fpd_corpus_index){.dir = dir, .max_per_signature = max_per_signature};
    struct stat st;
    if (!dir[0]) {
        snprintf(why, why_size, "--corpus needs a directory name (--no-corpus saves nothing)");
        return FPD_ERR_INPUT;
    }
    if (stat(dir, &st) != 0)
        return FPD_OK; /* created by the first save */
    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, why_size, "--corpus %.400s is not a directory", dir);
        return FPD_ERR_INPUT;
    }
    struct fpd_corpus_entry *files = NULL;
    size_t n = 0;
    int rc = fpd_corpus_list(dir, &files, &n, why, why_size);
    for (size_t i = 0; rc == FPD_OK && i < n; i++) {
        struct fpd_signature_key key;
        if (files[i].refused) {
            snprintf(why, why_size, "%.400s: %s", files[i].path, files[i].refused);
            rc = FPD_ERR_INPUT;
        } else if ((rc = fpd_case_file_signature(files[i].path, &key, why, why_size)) == FPD_OK) {
            struct fpd_corpus_index_entry *e = fpd_corpus_index_entry(ix, &key);
            if (e)
                e->files++;
            else
                rc = FPD_ERR_NOMEM;
        }
    }
    fpd_corpus_entries_free(files, n);
    return rc;
}

int fpd_corpus_index_claim(struct fpd_corpus_index *ix, const struct fpd_signature_key *key,
                           struct fpd_corpus_claim *claim, char *why, size_t why_size)
{
    *claim = (struct fpd_corpus_claim){.slot = -1};
    struct fpd_corpus_index_entry *e = fpd_corpus_index_entry(ix, key);
    if (e && (e->full || e->files >= ix->max_per_signature))
        return FPD_OK;
    int rc = fpd_corpus_claim(ix->dir, key, e ? e->files : 0, ix->max_per_signature, claim, why, why_size);
    if (rc == FPD_OK && claim->slot < 0 && e)
        e->full = true; /* a worker that found every slot taken does not ask again */
    return rc;
}

void fpd_corpus_index_free(struct fpd_corpus_index *ix)
{
    free(ix->entries);
    *ix = (struct fpd_corpus_index){0};
}
