/* page_file.h — `report`'s and `fuzz --html`'s page as a file: the corpus read and checked, the
 * page written whole or not at all. */
#ifndef FPD_PAGE_FILE_H
#define FPD_PAGE_FILE_H

#include <stddef.h>

#include "report/page.h"

/* Reads every case file of in->corpus_dir (none when NULL), as replay reads them, and the results
 * saved beside them (saved_result.h), and writes the page to `path` through a temporary file
 * renamed over it: the file is never half written, and a malformed case (named, with line and
 * column) leaves it as it was. FPD_ERR_INPUT with why, or FPD_ERR_NOMEM. in->case_count and
 * in->saved_count are then how many case files and saved results the page shows. */
int fpd_report_write(const char *path, struct fpd_report_input *in, char *why, size_t why_size);

#endif
