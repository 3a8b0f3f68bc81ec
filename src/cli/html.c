/* html.c — escaping for HTML, SVG and XML text. */
#include "cli/html.h"

#include <stdarg.h>

void fpd_html_text(FILE *f, const char *text)
{
    /* the five characters that can end a text run or an attribute value, as entities; control
     * characters (which XML forbids, and a terminal would act on) as the replacement character */
    static const char *const entities[128] = {['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;",
                                              ['\''] = "&#39;"};
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p < 128 && entities[*p])
            fputs(entities[*p], f);
        else if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
            fputs("&#xFFFD;", f);
        else
            fputc(*p, f);
    }
}

void fpd_html_printf(FILE *f, const char *fmt, ...)
{
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fpd_html_text(f, text);
}
