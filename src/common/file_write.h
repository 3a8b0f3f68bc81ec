/* file_write.h — finishing a file written with stdio, so that a failed write is never silent. */
#ifndef FPD_FILE_WRITE_H
#define FPD_FILE_WRITE_H

#include <stddef.h>
#include <stdio.h>

/* Closes a file written with stdio: FPD_OK only if every write reached it (a full disk or a file
 * size limit fails a write, and then the file is named in why, FPD_ERR_INPUT). */
int fpd_file_close_written(FILE *f, const char *path, char *why, size_t why_size);

#endif
