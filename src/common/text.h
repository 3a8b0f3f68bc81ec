/*
 * text.h — text from a case file or a file name, made safe to show on a terminal.
 *
 * A case file arrives in a pull request and a file name is anyone's: either may carry an escape
 * sequence that retitles a terminal, moves its cursor or hides what follows. What fpdiv prints of
 * them goes through here: control characters (C0, DEL, C1), characters that print nothing but
 * reorder or hide text (bidirectional overrides, zero-width characters) and bytes that are not
 * UTF-8 become \xNN, byte by byte; printable text, UTF-8 included, is shown as it is.
 */
#ifndef FPD_TEXT_H
#define FPD_TEXT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The length in bytes of the character at `text` when it is printable (a valid UTF-8 sequence of
 * none of the kinds above), else 0: the byte is escaped. */
size_t fpd_printable_length(const char *text);
/* The escaped text of `in` in out (truncated whole: never half an escape); returns out. */
const char *fpd_printable(const char *in, char *out, size_t size);
/* The escaped text of `in`, written to f. */
void fpd_put_printable(FILE *f, const char *in);

/* A JSON string of `in`: as it is when it is UTF-8 (JSON escapes control characters itself), else
 * escaped as above; a file name is any bytes, and a record must not be lost for it. */
json_t *fpd_json_text(const char *in);

/* A number as JSON, or null where it is not finite: JSON has no Inf or NaN. */
json_t *fpd_json_finite(double x);

/* `in` as one word of a POSIX shell command (quoted when it has to be), then made printable:
 * for the commands fpdiv prints to be copied. Returns out; an empty string when it does not fit. */
const char *fpd_shell_word(const char *in, char *out, size_t size);

/* `in` as a Python string literal, written to f: in single quotes, with every byte that is not
 * printable ASCII, and every quote and backslash, escaped, so that no text can end the literal or
 * the line it is on. Meant for ASCII text (JSON dumped with JSON_ENSURE_ASCII): a byte above 0x7f
 * is escaped like a control, as \xNN, which Python reads as the code point NN. */
void fpd_put_python_literal(FILE *f, const char *in);

/* Whether `command` is words as fpd_shell_word writes them, one space apart: plain words, and
 * single-quoted ones (a quote inside as '\''), so that pasting it into a shell runs one command with
 * those words and nothing else (no ;, |, $( ), redirection or glob outside quotes). */
bool fpd_shell_words_valid(const char *command);

#endif
