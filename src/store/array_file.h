/* array_file.h — an array a user names on the command line: a .npy file, an array of a .npz archive
 * (ARCHIVE:NAME, as np.load(ARCHIVE)[NAME]), or an archive alone where which of its arrays is meant
 * is clear. A file is told a .npy or an archive by its bytes, as np.load does, not by its name. */
#ifndef FPD_ARRAY_FILE_H
#define FPD_ARRAY_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "store/npy.h"

/* Reads the array `spec` names: PATH (a .npy file; or an archive holding one array, or one named
 * `role`, the option's own name: --a's "a"), or ARCHIVE:NAME (the whole spec is taken as a path
 * first, so a file whose name holds a colon is still read). FPD_OK, or FPD_ERR_INPUT /
 * FPD_ERR_NOMEM with why naming the file and the problem (an archive's arrays listed where the one
 * asked for is not among them). */
int fpd_array_file_read(const char *spec, const char *role, struct fpd_npy *out, char *why, size_t why_size);

/* Whether spec names something that can be read: a file, or an array of one (ARCHIVE:NAME). */
bool fpd_array_file_exists(const char *spec);

/* Whether the file at path is a .npz archive (by its first bytes). */
bool fpd_array_file_is_archive(const char *path);

/* The specs of an archive's first `want` arrays, when it holds exactly that many (`--outputs
 * run.npz`: its two arrays): specs[i] receives "PATH:NAME" (each size bytes). FPD_OK, or
 * FPD_ERR_INPUT with why naming the file and the arrays it holds. */
int fpd_array_file_members(const char *path, size_t want, char (*specs)[4096], char *why, size_t why_size);

#endif
