/* npz.h — NumPy's .npz archives (np.savez, np.savez_compressed): a zip of NAME.npy members, each
 * an array read as a .npy file is (store/npy.h). What a user saves their tensors in when there are
 * several: np.savez("run.npz", x=x, w=w, eager=y1, compiled=y2). */
#ifndef FPD_NPZ_H
#define FPD_NPZ_H

#include <stdbool.h>
#include <stddef.h>

#include "store/npy.h"

struct fpd_npz; /* an archive open for reading */

/* Whether bytes begin as a zip archive does (what np.load looks at to tell .npz from .npy). */
bool fpd_npz_is_archive(const unsigned char *bytes, size_t len);

/* Opens the archive at path (read whole, up to FPD_NPY_MAX_BYTES), or in bytes (which must outlive
 * it), `name` naming them in messages: FPD_OK, or FPD_ERR_INPUT / FPD_ERR_NOMEM with why naming the
 * file and what is wrong in it. */
int fpd_npz_open(const char *path, struct fpd_npz **out, char *why, size_t why_size);
int fpd_npz_open_bytes(const char *name, const unsigned char *bytes, size_t len, struct fpd_npz **out, char *why,
                       size_t why_size);
void fpd_npz_close(struct fpd_npz *z);

/* Its arrays, in the archive's order, by the names np.load gives them (the member's, less ".npy");
 * members that are not .npy files are not arrays. */
size_t fpd_npz_count(const struct fpd_npz *z);
const char *fpd_npz_name(const struct fpd_npz *z, size_t i);
/* The index of the array named `name`, or -1. */
long fpd_npz_find(const struct fpd_npz *z, const char *name);
/* "x, w, y1, y2" (escaped: the names are the file's), truncated whole to size. */
const char *fpd_npz_names(const struct fpd_npz *z, char *buf, size_t size);

/* Reads array i: FPD_OK, or FPD_ERR_INPUT / FPD_ERR_NOMEM with why naming it as ARCHIVE:NAME. */
int fpd_npz_read(struct fpd_npz *z, size_t i, struct fpd_npy *out, char *why, size_t why_size);

#endif
