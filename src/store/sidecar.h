/*
 * sidecar.h — the data of a case too large to keep inline, in .npy files beside its case file.
 *
 * A case whose inputs are the user's own (`check --inputs`) cannot be regenerated from a recipe,
 * and past the inline limit a case file would be megabytes of hex text. Its data then lives in
 * <stem>.A.npy, <stem>.B.npy and <stem>.bias.npy beside <stem>.json (A batch x m x k, or m x k; B
 * batch x k x n, or k x n; bias n: logical, C order, bf16 as its uint16 bits), and the case file
 * keeps the XXH3 of each one's elements, so a changed file is refused by name, never replayed. The
 * files' names come from the case file's own name, never from its contents: a case file cannot
 * point a reader anywhere else.
 */
#ifndef FPD_SIDECAR_H
#define FPD_SIDECAR_H

#include <stddef.h>
#include <stdint.h>

#include "engine/case.h"

enum { FPD_SIDECAR_FILES = 3 };

/* Sidecar i's name (or path) from its case file's: the case's less ".json", and ".A.npy",
 * ".B.npy" or ".bias.npy". */
void fpd_sidecar_name(const char *case_name, int i, char *out, size_t size);

/* The names the case file keeps each sidecar's hash under: "A", "B", "bias". */
extern const char *const fpd_sidecar_key[FPD_SIDECAR_FILES];

/* The XXH3 of each sidecar's elements. */
void fpd_sidecar_hashes(const struct fpd_case *c, const struct fpd_case_data *d, uint64_t hash[FPD_SIDECAR_FILES]);

/* Sidecar i's bytes (a .npy file) of the case's data: FPD_OK or FPD_ERR_NOMEM. */
int fpd_sidecar_encode(const struct fpd_case *c, const struct fpd_case_data *d, int i, char **bytes, size_t *len);

/* Reads the sidecars of the case file at case_path into out (the logical data of c's extents and
 * types) and checks each against its hash: FPD_OK, or FPD_ERR_INPUT / FPD_ERR_NOMEM with why naming
 * the sidecar that is missing, unreadable, of another shape or type, or changed. */
int fpd_sidecar_read(const char *case_path, const struct fpd_case *c, const uint64_t hash[FPD_SIDECAR_FILES],
                     struct fpd_case_data *out, char *why, size_t why_size);

#endif
