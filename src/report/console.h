/* console.h — how fpdiv talks on its standard streams: its exit statuses, the policy that turns a
 * verdict into one, JSON lines, errors and a live status line on stderr. */
#ifndef FPD_CONSOLE_H
#define FPD_CONSOLE_H

#include <jansson.h>
#include <stdbool.h>

#include "engine/compare.h"

enum fpd_exit { FPD_EXIT_OK = 0, FPD_EXIT_FINDINGS = 1, FPD_EXIT_USAGE = 2, FPD_EXIT_INTERNAL = 3 };

/* How --json prints its lines: one line each, in ASCII alone (\uXXXX for the rest), so that a
 * terminal showing them acts on no character a case file or a file name brought (U+202E). */
#define FPD_JSON_LINE (JSON_COMPACT | JSON_ENSURE_ASCII)

/* Prints "fpdiv CMD: message" to stderr ("fpdiv: message" for a NULL cmd), escaped (text.h). */
void fpd_console_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A live status line on stderr while something slow runs ("fpdiv list: starting torch's bridge
 * server"), only where stderr is a terminal: each replaces the last; fpd_console_status_clear erases
 * it before results are printed. */
void fpd_console_status(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fpd_console_status_clear(void);

/* -1 for "never": nothing fails the policy. */
#define FPD_FAIL_NEVER (-1)
static inline bool fpd_fails_policy(enum fpd_verdict v, int fail_on) { return fail_on >= 0 && (int)v >= fail_on; }

#endif
