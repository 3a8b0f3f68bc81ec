/*
 * corpus_dir.h — a corpus directory, `<dir>/<relation>/<16-hex>.json`, as untrusted input.
 *
 * A corpus lives in a repository and arrives in pull requests, so nothing in it is taken on
 * trust. Writes go only into the directories of the relation table's names below the corpus,
 * opened without following a symbolic link, through a temporary file in the same directory
 * (fsync, then a hard link or a rename into place); an existing case is never overwritten unless
 * a merge replaces it on purpose. Listing follows no link and opens nothing: a symbolic link, a
 * FIFO or anything else that is not a regular file is reported, with what it is, not read. A
 * fuzzer that dies mid-write leaves a temporary named with its process id, which the next
 * writer removes. Fuzzers sharing a corpus claim its slots with locked files in `<dir>/.claims/`,
 * which git is told to ignore; every reader skips names that start with a dot.
 */
#ifndef FPD_CORPUS_DIR_H
#define FPD_CORPUS_DIR_H

#include "store/corpus.h"

/* Writes the case into dir (creating dir and dir/<relation>); *existed when that case is already
 * there, and then nothing is written. path receives the file's path. */
int fpd_case_file_save(const char *dir, const struct fpd_case_file *f, char *path, size_t path_size, bool *existed,
                       char *why, size_t why_size);
/* The same, replacing a case of the same name (merge's new count). */
int fpd_case_file_replace(const char *dir, const struct fpd_case_file *f, char *path, size_t path_size, char *why,
                          size_t why_size);
/* Removes dir/<relation>/<name>, a regular file and nothing else. */
int fpd_corpus_remove(const char *dir, const char *relation, const char *name, char *why, size_t why_size);

/* Every *.json file under path (a case file, or a directory walked without following links),
 * sorted. An entry that cannot be a case file (a symbolic link, a FIFO, a directory it cannot
 * read) is listed with `refused` saying why, for the caller to report; its path is never opened. */
struct fpd_corpus_entry {
    char *path;
    const char *refused; /* NULL, or a static reason */
};
int fpd_corpus_list(const char *path, struct fpd_corpus_entry **entries, size_t *count, char *why, size_t why_size);
void fpd_corpus_entries_free(struct fpd_corpus_entry *entries, size_t count);

/* Analyses saved beside the cases (`sweep`, `bisect`, `explain` with --save-to DIR), for `fpdiv
 * report` to draw: <dir>/results/<kind>/<16-hex XXH3 of the text>.json, written as a case is
 * (atomically, never over an existing file, through no symbolic link). No relation is named
 * "results", and listing a corpus for its cases passes over <dir>/results. `kind` is a name of the
 * caller's table (lower-case letters). *existed when the same text is already saved. */
#define FPD_RESULTS_DIR "results"
int fpd_corpus_save_result(const char *dir, const char *kind, const char *text, char *path, size_t path_size,
                           bool *existed, char *why, size_t why_size);
/* The saved results of one kind, as fpd_corpus_list lists cases (sorted; an entry that is not a
 * regular file is `refused`); none when the corpus has none. A symbolic link or a file where
 * <dir>/results or its kind's directory should be is an error. */
int fpd_corpus_list_results(const char *dir, const char *kind, struct fpd_corpus_entry **entries, size_t *count,
                            char *why, size_t why_size);

/* Claims one of the signature's slots `first` to `max - 1` in the corpus for a case about to be
 * saved (`first`: the cases of the signature the caller found there when it started). A slot is
 * taken while another fuzzer (of this run or another, sharing the corpus) holds it, and once it
 * records a case that is still there. A claim is a lock on `<dir>/.claims/<signature>-<slot>`;
 * the kernel drops it with the process, so a fuzzer killed mid-save leaves its slot free.
 * FPD_OK with claim->slot -1 when every slot is taken. */
struct fpd_corpus_claim {
    int slot; /* the slot file's descriptor, -1 without a claim */
};
int fpd_corpus_claim(const char *dir, const struct fpd_signature_key *key, size_t first, size_t max,
                     struct fpd_corpus_claim *claim, char *why, size_t why_size);
/* Gives the slot back, recording the case saved in it ("<relation>/<16-hex>.json"), or none. */
void fpd_corpus_unclaim(struct fpd_corpus_claim *claim, const char *saved);

/* Removes the temporaries of writers that died (nobody holds their lock) from dir's relation
 * directories; quietly does nothing it cannot. */
void fpd_corpus_clean_stale(const char *dir);

#endif
