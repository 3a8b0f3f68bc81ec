/* html.c — escaping for HTML, SVG and XML text. */
#include "report/html.h"

#include <stdarg.h>
#include <stdbool.h>

#include "common/text.h"

void fpd_html_text(FILE *f, const char *text)
{
    /* the five characters that can end a text run or an attribute value, as entities; what is not
     * printable text (control characters, which XML forbids; bytes that are not UTF-8, which make
     * a whole XML document unreadable; the noncharacters U+FFFE and U+FFFF; characters that
     * reorder or hide text: common/text.h) as the replacement character, byte by byte */
    static const char *const entities[128] = {['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;",
                                              ['\''] = "&#39;"};
    for (const char *p = text; *p;) {
        unsigned char c = (unsigned char)*p;
        size_t len = fpd_printable_length(p);
        bool noncharacter = len == 3 && c == 0xef && (unsigned char)p[1] == 0xbf && (unsigned char)p[2] >= 0xbe;
        if (c < 128 && entities[c])
            fputs(entities[c], f);
        else if (c == '\n' || c == '\t')
            fputc(c, f);
        else if (!len || noncharacter)
            fputs("&#xFFFD;", f);
        else
            fwrite(p, 1, len, f);
        p += len && !noncharacter ? len : 1;
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

void fpd_html_command(FILE *f, const char *text)
{
    fputs("<div><pre class='command'>", f);
    fpd_html_text(f, text);
    fputs("</pre><button type='button' class='copy'>copy</button></div>\n", f);
}
