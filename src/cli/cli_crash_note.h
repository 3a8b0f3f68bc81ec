/* cli_crash_note.h — what fpdiv says when a probe it runs in its own process kills it: bisect and
 * sweep run their checks in-process unless --isolate, so a library that crashes at one shape ends
 * the run; the note names that shape, and --isolate. */
#ifndef FPD_CLI_CRASH_NOTE_H
#define FPD_CLI_CRASH_NOTE_H

/* Catches the signals a crash raises (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT): the note is written
 * to stderr, then the signal is raised again with its default action, so the exit status is the
 * crash's. */
void fpd_crash_note_arm(void);
/* The note for a probe at DIM=VALUE of COMMAND (bisect, sweep), about to run in fpdiv's own process. */
void fpd_crash_note_probe(const char *command, const char *dim, unsigned value);

#endif
