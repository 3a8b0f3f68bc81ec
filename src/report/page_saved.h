/* page_saved.h — the report page's section of what sweep, bisect and explain saved beside the
 * corpus (--save-to): each sweep and bisection plotted, a bisection's boundaries in a table, each
 * summation tree drawn; each with where it ran and the command that made it. */
#ifndef FPD_PAGE_SAVED_H
#define FPD_PAGE_SAVED_H

#include <stdio.h>

#include "report/saved_result.h"

/* The section (nothing when count is 0), in path order as given. */
void fpd_page_saved_section(FILE *f, const struct fpd_saved_result *saved, size_t count);

#endif
