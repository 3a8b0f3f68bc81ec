/* file_read.h — a whole file read into memory, from regular files only, up to a size. */
#ifndef FPD_FILE_READ_H
#define FPD_FILE_READ_H

#include <stdio.h>
#include <stddef.h>

/* The most bytes a case file may have: what fpdiv writes stays far below (inline data is at most
 * --inline-max bytes, FPD_INLINE_MAX_LIMIT, of elements of a few dozen characters each). */
#define FPD_CASE_FILE_MAX (32u << 20)

/*
 * Reads path whole, in large blocks, into a new NUL-terminated buffer (*text, free() it; *len
 * bytes before the NUL). Only a regular file is read: a FIFO would hang the reader, and a device
 * could be endless. A file of more than `max` bytes is refused before it is read. FPD_OK, or
 * FPD_ERR_INPUT / FPD_ERR_NOMEM with why naming the file.
 */
int fpd_file_read(const char *path, size_t max, char **text, size_t *len, char *why, size_t why_size);

/* Opens path for reading as a stream, when it is a regular file (a FIFO named as the input would
 * hang the reader). NULL with why naming the file. */
FILE *fpd_file_open_regular(const char *path, char *why, size_t why_size);

#endif
