/* env_number.h — numbers fpdiv reads from its environment, checked as its options are: a value
 * that is not what the variable takes is refused with the variable named, never read as 0 or as
 * the default. */
#ifndef FPD_ENV_NUMBER_H
#define FPD_ENV_NUMBER_H

#include <stdbool.h>
#include <stddef.h>

/* The most seconds a variable may give (11 days): more is a mistake, not a wish. */
#define FPD_ENV_SECONDS_MAX 1e6

/* A duration in seconds from variable `name`: *out is `fallback` where it is unset or empty, else
 * its value, a plain decimal number from 0 (only when zero_allowed: 0 means no limit) to
 * FPD_ENV_SECONDS_MAX. FPD_OK, or FPD_ERR_INPUT with why naming the variable and its value. */
int fpd_env_seconds(const char *name, double fallback, bool zero_allowed, double *out, char *why, size_t why_size);

#endif
