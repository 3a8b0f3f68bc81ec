/* text.c — untrusted text made safe to show: see text.h. */
#include "common/text.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Characters that print nothing yet change what a reader sees: the bidirectional overrides,
 * embeddings, isolates and marks (U+202E shows "exe.txt" as "txt.exe"), zero-width characters,
 * line and paragraph separators, the soft hyphen, the byte-order mark, interlinear annotations
 * and tags. Shown escaped, as the C0 controls are. */
static const struct {
    unsigned first, last;
} invisible_ranges[] = {
    {0x00ad, 0x00ad}, {0x061c, 0x061c}, {0x180e, 0x180e}, {0x200b, 0x200f}, {0x2028, 0x202e},
    {0x2060, 0x206f}, {0xfeff, 0xfeff}, {0xfff9, 0xfffb}, {0xe0000, 0xe007f},
};

static bool invisible(unsigned cp)
{
    for (size_t i = 0; i < sizeof invisible_ranges / sizeof invisible_ranges[0]; i++)
        if (cp >= invisible_ranges[i].first && cp <= invisible_ranges[i].last)
            return true;
    return false;
}

/* The code point of a valid UTF-8 sequence of len (2 to 4) bytes. */
static unsigned code_point(const unsigned char *s, size_t len)
{
    unsigned cp = s[0] & (0x7f >> len);
    for (size_t i = 1; i < len; i++)
        cp = cp << 6 | (s[i] & 0x3f);
    return cp;
}

/* The length of the UTF-8 sequence of a printable character at s, or 0: a control character, a
 * C1 control in its two-byte form, an invisible character (above), or a byte that starts no
 * valid sequence. */
size_t fpd_printable_length(const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    if (s[0] < 0x20 || s[0] == 0x7f)
        return 0;
    if (s[0] < 0x80)
        return 1;
    size_t len = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3 : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if (len == 2 && s[0] == 0xc2 && s[1] < 0xa0) /* U+0080..U+009F: C1 controls (CSI among them) */
        return 0;
    if ((len == 3 && s[0] == 0xe0 && s[1] < 0xa0) || (len == 4 && s[0] == 0xf0 && s[1] < 0x90) ||
        (len == 4 && s[0] == 0xf4 && s[1] >= 0x90)) /* overlong, or past U+10FFFF */
        return 0;
    if (len == 3 && s[0] == 0xed && s[1] >= 0xa0) /* a UTF-16 surrogate */
        return 0;
    return len > 1 && invisible(code_point(s, len)) ? 0 : len;
}

/* Writes the escaped text through emit, which returns false once it has no room. */
static void escape(const char *in, bool (*emit)(void *ctx, const char *piece, size_t len), void *ctx)
{
    const unsigned char *s = (const unsigned char *)in;
    while (*s) {
        size_t len = fpd_printable_length((const char *)s);
        if (len) {
            if (!emit(ctx, (const char *)s, len))
                return;
            s += len;
            continue;
        }
        static const char hex[] = "0123456789abcdef";
        char code[4] = {'\\', 'x', hex[*s >> 4], hex[*s & 15]};
        if (!emit(ctx, code, sizeof code))
            return;
        s++;
    }
}

struct buffer {
    char *out;
    size_t used, size;
    bool cut; /* out of room */
};

static bool to_buffer(void *ctx, const char *piece, size_t len)
{
    struct buffer *b = ctx;
    if (b->used + len >= b->size) {
        b->cut = true;
        return false;
    }
    memcpy(b->out + b->used, piece, len);
    b->used += len;
    b->out[b->used] = '\0';
    return true;
}

static bool to_file(void *ctx, const char *piece, size_t len)
{
    return fwrite(piece, 1, len, ctx) == len;
}

const char *fpd_printable(const char *in, char *out, size_t size)
{
    struct buffer b = {out, 0, size, false};
    if (size)
        out[0] = '\0';
    escape(in ? in : "", to_buffer, &b);
    return out;
}

void fpd_put_printable(FILE *f, const char *in)
{
    escape(in ? in : "", to_file, f);
}

json_t *fpd_json_text(const char *in)
{
    json_t *s = json_string(in ? in : "");
    if (s)
        return s;
    size_t size = 4 * strlen(in) + 1;
    char *shown = malloc(size);
    s = shown ? json_string(fpd_printable(in, shown, size)) : NULL;
    free(shown);
    return s;
}

json_t *fpd_json_finite(double x) { return isfinite(x) ? json_real(x) : json_null(); }

/* The characters a shell word may have unquoted: none is special to a POSIX shell. */
static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./@%+=:,-";

bool fpd_shell_words_valid(const char *command)
{
    const char *c = command;
    while (*c) {
        if (*c == '\'') {
            /* 'text', then '\'' and more text as often as the word has quotes */
            for (;;) {
                const char *close = strchr(c + 1, '\'');
                if (!close)
                    return false;
                c = close + 1;
                if (strncmp(c, "\\''", 3) != 0)
                    break;
                c += 2; /* at the quote that opens the next part */
            }
        } else {
            size_t len = strspn(c, plain);
            if (!len)
                return false;
            c += len;
        }
        if (*c == ' ' && c[1] && c[1] != ' ')
            c++;
        else if (*c)
            return false;
    }
    return c != command;
}

const char *fpd_shell_word(const char *in, char *out, size_t size)
{
    if (size)
        out[0] = '\0';
    if (*in && strspn(in, plain) == strlen(in))
        return fpd_printable(in, out, size);
    size_t len = strlen(in);
    char *quoted = malloc(4 * len + 3); /* each ' becomes '\'' */
    if (!quoted)
        return out;
    size_t q = 0;
    quoted[q++] = '\'';
    for (size_t i = 0; i < len; i++) {
        if (in[i] == '\'') {
            memcpy(quoted + q, "'\\''", 4);
            q += 4;
        } else {
            quoted[q++] = in[i];
        }
    }
    quoted[q++] = '\'';
    quoted[q] = '\0';
    struct buffer b = {out, 0, size, false};
    escape(quoted, to_buffer, &b);
    if (b.cut && size) /* half a quoted word is a wrong command */
        out[0] = '\0';
    free(quoted);
    return out;
}

void fpd_put_python_literal(FILE *f, const char *in)
{
    fputc('\'', f);
    for (const unsigned char *s = (const unsigned char *)in; *s; s++) {
        if (*s == '\'' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if (*s >= 0x20 && *s < 0x7f)
            fputc(*s, f);
        else
            fprintf(f, "\\x%02x", *s);
    }
    fputc('\'', f);
}
