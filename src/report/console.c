/* console.c — what fpdiv says on stderr besides its results: errors and a live status line. */
#include "report/console.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "common/text.h"

/* "fpdiv CMD: message" (or "fpdiv: message") on stderr after `lead`, then `end`. A message names
 * files and quotes case files: it is shown escaped (text.h), on one line. Where stdout and stderr
 * share a pipe, it lands between stdout's lines, never inside one (a JSON line cut by it is two
 * lines that do not parse). */
static void put_message(const char *lead, const char *cmd, const char *end, const char *fmt, va_list ap)
{
    char message[8192];
    vsnprintf(message, sizeof message, fmt, ap);
    fflush(stdout);
    fprintf(stderr, "%sfpdiv%s%s: ", lead, cmd ? " " : "", cmd ? cmd : "");
    fpd_put_printable(stderr, message);
    fputs(end, stderr);
    fflush(stderr);
}

void fpd_console_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    put_message("", cmd, "\n", fmt, ap);
    va_end(ap);
}

static bool status_shown;

void fpd_console_status(const char *cmd, const char *fmt, ...)
{
    if (!isatty(STDERR_FILENO))
        return;
    va_list ap;
    va_start(ap, fmt);
    put_message("\r\033[K", cmd, "", fmt, ap);
    va_end(ap);
    status_shown = true;
}

void fpd_console_status_clear(void)
{
    if (status_shown)
        fputs("\r\033[K", stderr);
    status_shown = false;
}
