/* html.h — writing text into HTML, SVG and XML (JUnit): every string that did not come from
 * fpdiv's own code (a case file's environment, a path, a library's version) goes through these, so
 * that it shows as the text it is and never as markup. */
#ifndef FPD_HTML_H
#define FPD_HTML_H

#include <stdio.h>

/* `text` with & < > " ' escaped: safe in element content and in quoted attribute values alike.
 * Bytes that are not printable ASCII or UTF-8 text (control characters) become U+FFFD. */
void fpd_html_text(FILE *f, const char *text);
/* printf-formatted, then escaped as fpd_html_text (at most 4095 bytes of it). */
void fpd_html_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A command to run, escaped, in a block of its own with a copy button (a page's script makes the
 * button copy it; without JavaScript the command is still there to select). */
void fpd_html_command(FILE *f, const char *text);

#endif
