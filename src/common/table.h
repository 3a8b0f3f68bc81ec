/*
 * table.h — finding a row of a static table by its name.
 *
 * fpdiv's vocabularies (dtypes, distributions, verdicts, relations, commands) are tables whose rows
 * start with, or hold, a `const char *name`; this is the one lookup they share.
 */
#ifndef FPD_TABLE_H
#define FPD_TABLE_H

#include <stddef.h>
#include <string.h>

/* The index of the first of `count` rows (each `stride` bytes from `rows`, its name at byte
 * `name_at`) named `name`, or -1. A row without a name (a gap in a designated table) matches nothing. */
static inline long fpd_table_find(const void *rows, size_t count, size_t stride, size_t name_at, const char *name)
{
    for (size_t i = 0; i < count; i++) {
        const char *row_name;
        memcpy(&row_name, (const char *)rows + i * stride + name_at, sizeof row_name);
        if (row_name && strcmp(row_name, name) == 0)
            return (long)i;
    }
    return -1;
}

/* FPD_TABLE_FIND(fpd_dtype_table, FPD_DTYPE_COUNT, text): the index of the row whose `name` is
 * text, or -1. */
#define FPD_TABLE_FIND(table, count, key)                                                                          \
    fpd_table_find((table), (count), sizeof *(table), offsetof(__typeof__(*(table)), name), (key))

#endif
