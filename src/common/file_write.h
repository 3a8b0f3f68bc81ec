/* file_write.h — writing files: a file written with stdio finished so that a failed write is never
 * silent, and the directories it goes in made. */
#ifndef FPD_FILE_WRITE_H
#define FPD_FILE_WRITE_H

#include <stddef.h>
#include <stdio.h>

/* Closes a file written with stdio: FPD_OK only if every write reached it (a full disk or a file
 * size limit fails a write, and then the file is named in why, FPD_ERR_INPUT). */
int fpd_file_close_written(FILE *f, const char *path, char *why, size_t why_size);

/* Creates path and any missing parents, like `mkdir -p`. */
int fpd_make_dirs(const char *path, char *why, size_t why_size);
/* The same for the directory a file is to be written in (nothing for a file name alone). */
int fpd_make_parent_dirs(const char *file, char *why, size_t why_size);

#endif
