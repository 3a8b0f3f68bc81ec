/* cli_crash_note.c — the note a crash writes (cli_crash_note.h). */
#include "cli/cli_crash_note.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char note[512];
static volatile sig_atomic_t note_len; /* 0 while the note is being replaced: nothing half-written is written */

static void on_fatal(int sig)
{
    if (note_len > 0) {
        ssize_t written = write(STDERR_FILENO, note, (size_t)note_len);
        (void)written; /* nothing more to do on a dying process's stderr */
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void fpd_crash_note_arm(void)
{
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    struct sigaction sa = {.sa_handler = on_fatal, .sa_flags = SA_RESETHAND | SA_NODEFER};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
        sigaction(fatal[i], &sa, NULL);
}

/* The note a crash from now on writes; copied. */
static void set_note(const char *text)
{
    note_len = 0;
    snprintf(note, sizeof note, "%s", text);
    note_len = (sig_atomic_t)strlen(note);
}

void fpd_crash_note_probe(const char *command, const char *dim, unsigned value)
{
    char text[sizeof note];
    snprintf(text, sizeof text, "fpdiv %s: the check at %s=%u crashed fpdiv, in whose process it ran: --isolate runs "
             "each check in a process of its own, and skips one that crashes (its signal named)\n", command, dim, value);
    set_note(text);
}
