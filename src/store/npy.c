/* npy.c — NumPy's .npy format: the magic, the version, the header's length (2 bytes in 1.0, 4 in
 * 2.0 and 3.0), a Python dict literal padded with spaces and ended by a newline, then the raw data. */
#include "store/npy.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file_read.h"
#include "common/file_write.h"
#include "common/text.h"
#include "fpdiv_backend.h"

/* NumPy's name for each storage type (bf16 as its bits). */
static const char *const npy_descr[FPD_DTYPE_COUNT] = {[FPD_F64] = "<f8", [FPD_F32] = "<f4", [FPD_F16] = "<f2",
                                                       [FPD_BF16] = "<u2"};

int fpd_npy_encode(enum fpd_dtype t, const size_t *shape, int ndim, const void *data, char **bytes, size_t *len)
{
    char header[256], dims[128] = "";
    size_t elements = 1;
    for (int i = 0; i < ndim; i++) {
        /* a 1-tuple needs its comma: (5,) */
        snprintf(dims + strlen(dims), sizeof dims - strlen(dims), "%zu%s", shape[i],
                 ndim == 1 ? "," : i + 1 < ndim ? ", " : "");
        elements *= shape[i];
    }
    int n = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                     npy_descr[t], dims);
    size_t pad = (64 - (10 + (size_t)n + 1) % 64) % 64, head = 10 + (size_t)n + pad + 1;
    size_t body = elements * fpd_dtype_info(t)->size;
    char *out = malloc(head + body);
    if (!out)
        return FPD_ERR_NOMEM;
    uint16_t header_len = (uint16_t)(head - 10);
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (char)(header_len & 0xff);
    out[9] = (char)(header_len >> 8);
    memcpy(out + 10, header, (size_t)n);
    memset(out + 10 + n, ' ', pad);
    out[head - 1] = '\n';
    if (body)
        memcpy(out + head, data, body);
    *bytes = out;
    *len = head + body;
    return FPD_OK;
}

int fpd_npy_write(const char *path, enum fpd_dtype t, const size_t *shape, int ndim, const void *data, char *why,
                  size_t why_size)
{
    char *bytes;
    size_t len;
    if (fpd_npy_encode(t, shape, ndim, data, &bytes, &len) != FPD_OK) {
        snprintf(why, why_size, "out of memory for %.900s", path);
        return FPD_ERR_NOMEM;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(why, why_size, "cannot write %.900s: %s", path, strerror(errno));
        free(bytes);
        return FPD_ERR_INPUT;
    }
    fwrite(bytes, 1, len, f);
    free(bytes);
    return fpd_file_close_written(f, path, why, why_size);
}

/* ---- reading ------------------------------------------------------------------------------------- */

/* The element types read, by their descr after the byte-order character, and the type of fpdiv's
 * each holds. */
static const struct {
    const char *code, *name;
    enum fpd_npy_element element;
    size_t size;
    enum fpd_dtype dtype;
    bool named_only; /* bf16's bits: a reader takes them as bf16 only where the user says they are */
} elements[] = {
    {"f8", "float64", FPD_NPY_FLOAT64, 8, FPD_F64, false}, {"f4", "float32", FPD_NPY_FLOAT32, 4, FPD_F32, false},
    {"f2", "float16", FPD_NPY_FLOAT16, 2, FPD_F16, false},
    {"u2", "uint16 (bf16 bits)", FPD_NPY_UINT16, 2, FPD_BF16, true},
    {"i2", "int16 (bf16 bits)", FPD_NPY_INT16, 2, FPD_BF16, true},
    {"V2", "2-byte void (ml_dtypes' bfloat16)", FPD_NPY_VOID16, 2, FPD_BF16, true},
};

enum fpd_dtype fpd_npy_dtype(enum fpd_npy_element e, bool *named_only)
{
    size_t i = 0;
    while (elements[i].element != e)
        i++;
    *named_only = elements[i].named_only;
    return elements[i].dtype;
}

const char *fpd_npy_shape_text(const size_t *shape, int ndim, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int d = 0; d < ndim; d++)
        snprintf(buf + strlen(buf), size - strlen(buf), "%s%zu", d ? " x " : "", shape[d]);
    if (ndim == 0)
        snprintf(buf, size, "a scalar");
    return buf;
}

const char *fpd_npy_element_name(enum fpd_npy_element e)
{
    for (size_t i = 0; i < sizeof elements / sizeof elements[0]; i++)
        if (elements[i].element == e)
            return elements[i].name;
    return "?";
}

/* The header, a Python dict literal, read as NumPy writes it (and as any writer may space it). */
struct header {
    const char *text, *name;
    size_t len, at;
    char descr[16];
    bool fortran, has_descr, has_fortran, has_shape;
    int ndim;
    size_t shape[FPD_NPY_MAX_DIMS];
};

static void skip_spaces(struct header *h)
{
    while (h->at < h->len && (h->text[h->at] == ' ' || h->text[h->at] == '\t'))
        h->at++;
}

static int fail(const struct header *h, char *why, size_t why_size, const char *what)
{
    char shown[64];
    size_t n = h->len - h->at < 24 ? h->len - h->at : 24;
    char near[32];
    memcpy(near, h->text + h->at, n);
    near[n] = '\0';
    snprintf(why, why_size, "%s: its header, at byte %zu: %s (it reads '%s')", h->name, h->at, what,
             fpd_printable(near, shown, sizeof shown));
    return FPD_ERR_INPUT;
}

static bool take(struct header *h, char c)
{
    skip_spaces(h);
    if (h->at < h->len && h->text[h->at] == c) {
        h->at++;
        return true;
    }
    return false;
}

/* A quoted string (' or "), no escapes and no control characters: NumPy's keys and descrs have
 * none (a NUL would end it early for strcmp: '<f4\0junk' is no '<f4', and NumPy refuses it). */
static bool string(struct header *h, char *out, size_t size)
{
    skip_spaces(h);
    if (h->at >= h->len || (h->text[h->at] != '\'' && h->text[h->at] != '"'))
        return false;
    char quote = h->text[h->at++];
    size_t start = h->at;
    while (h->at < h->len && h->text[h->at] != quote && h->text[h->at] != '\\' &&
           (unsigned char)h->text[h->at] >= 0x20 && h->at - start < size - 1)
        h->at++;
    if (h->at >= h->len || h->text[h->at] != quote)
        return false;
    memcpy(out, h->text + start, h->at - start);
    out[h->at - start] = '\0';
    h->at++;
    return true;
}

static bool word(struct header *h, const char *w)
{
    skip_spaces(h);
    size_t n = strlen(w);
    if (h->len - h->at < n || memcmp(h->text + h->at, w, n) != 0)
        return false;
    h->at += n;
    return true;
}

/* (d0, d1, ...), a 1-tuple with its comma, () for a scalar; each a decimal integer. */
static int shape(struct header *h, char *why, size_t why_size)
{
    if (!take(h, '('))
        return fail(h, why, why_size, "'shape' is not a tuple");
    h->ndim = 0;
    while (!take(h, ')')) {
        skip_spaces(h);
        if (h->ndim == FPD_NPY_MAX_DIMS)
            return fail(h, why, why_size, "more dimensions than the 8 fpdiv reads");
        size_t value = 0, digits = 0;
        for (; h->at < h->len && h->text[h->at] >= '0' && h->text[h->at] <= '9'; h->at++, digits++) {
            if (value > (SIZE_MAX - 9) / 10)
                return fail(h, why, why_size, "a dimension too large");
            value = value * 10 + (size_t)(h->text[h->at] - '0');
        }
        if (!digits)
            return fail(h, why, why_size, "a dimension that is not a non-negative integer");
        word(h, "L"); /* Python 2's long */
        h->shape[h->ndim++] = value;
        if (!take(h, ',')) {
            if (!take(h, ')'))
                return fail(h, why, why_size, "expected ',' or ')' in 'shape'");
            break;
        }
    }
    return FPD_OK;
}

static int parse_header(struct header *h, char *why, size_t why_size)
{
    if (!take(h, '{'))
        return fail(h, why, why_size, "expected a dict, '{'");
    while (!take(h, '}')) {
        char key[32];
        if (!string(h, key, sizeof key))
            return fail(h, why, why_size, "expected a quoted key or '}'");
        if (!take(h, ':'))
            return fail(h, why, why_size, "expected ':' after a key");
        bool *seen = strcmp(key, "descr") == 0           ? &h->has_descr
                     : strcmp(key, "fortran_order") == 0 ? &h->has_fortran
                     : strcmp(key, "shape") == 0         ? &h->has_shape
                                                         : NULL;
        if (!seen)
            return fail(h, why, why_size, "a key other than 'descr', 'fortran_order' and 'shape'");
        if (*seen)
            return fail(h, why, why_size, "a key given twice");
        *seen = true;
        int rc = FPD_OK;
        if (seen == &h->has_descr && !string(h, h->descr, sizeof h->descr))
            rc = fail(h, why, why_size, "'descr' is not a type's name (a structured array's list fpdiv does not read)");
        else if (seen == &h->has_fortran && !(h->fortran = word(h, "True")) && !word(h, "False"))
            rc = fail(h, why, why_size, "'fortran_order' is neither True nor False");
        else if (seen == &h->has_shape)
            rc = shape(h, why, why_size);
        if (rc != FPD_OK)
            return rc;
        if (!take(h, ',')) {
            if (!take(h, '}'))
                return fail(h, why, why_size, "expected ',' or '}' after a value");
            break;
        }
    }
    while (h->at < h->len && (h->text[h->at] == ' ' || h->text[h->at] == '\t' || h->text[h->at] == '\n' ||
                              h->text[h->at] == '\0'))
        h->at++;
    if (h->at < h->len)
        return fail(h, why, why_size, "something after the dict");
    if (!h->has_descr || !h->has_fortran || !h->has_shape) {
        snprintf(why, why_size, "%s: its header lacks '%s'", h->name,
                 !h->has_descr ? "descr" : !h->has_fortran ? "fortran_order" : "shape");
        return FPD_ERR_INPUT;
    }
    return FPD_OK;
}

/* Each element's bytes reversed (a big-endian file). */
static void swap_bytes(unsigned char *data, size_t count, size_t size)
{
    for (size_t i = 0; i < count; i++)
        for (size_t b = 0; b < size / 2; b++) {
            unsigned char t = data[i * size + b];
            data[i * size + b] = data[i * size + size - 1 - b];
            data[i * size + size - 1 - b] = t;
        }
}

/* A Fortran-ordered array's elements into C order (the shape unchanged). */
static int to_c_order(struct fpd_npy *a)
{
    unsigned char *c = malloc(a->count * a->element_size + 1);
    if (!c)
        return FPD_ERR_NOMEM;
    size_t index[FPD_NPY_MAX_DIMS] = {0};
    for (size_t flat = 0; flat < a->count; flat++) { /* flat: C order; index: its coordinates */
        size_t fortran = 0;
        for (int d = a->ndim - 1; d >= 0; d--)
            fortran = fortran * a->shape[d] + index[d];
        memcpy(c + flat * a->element_size, (unsigned char *)a->data + fortran * a->element_size, a->element_size);
        for (int d = a->ndim - 1; d >= 0 && ++index[d] == a->shape[d]; d--)
            index[d] = 0;
    }
    free(a->data);
    a->data = c;
    return FPD_OK;
}

/* fpd_npy_parse's work; with *own (the same bytes, the caller's to give up), the elements are
 * moved to its front and it becomes out's array (*own set to NULL: out has it, or freed it on a
 * later failure), so that a large array is not held twice. */
static int parse(const char *name, const unsigned char *bytes, size_t len, unsigned char **own, struct fpd_npy *out,
                 char *why, size_t why_size)
{
    *out = (struct fpd_npy){0};
    if (len < 10 || memcmp(bytes, "\x93NUMPY", 6) != 0) {
        snprintf(why, why_size, "%s: not a .npy file (it does not begin with NumPy's \\x93NUMPY)", name);
        return FPD_ERR_INPUT;
    }
    unsigned major = bytes[6], minor = bytes[7];
    size_t length_bytes = major == 1 ? 2 : 4;
    if (major < 1 || major > 3 || minor != 0 || len < 8 + length_bytes) {
        snprintf(why, why_size, "%s: .npy format %u.%u; fpdiv reads 1.0, 2.0 and 3.0", name, major, minor);
        return FPD_ERR_INPUT;
    }
    size_t header_len = 0;
    for (size_t i = length_bytes; i-- > 0;)
        header_len = header_len << 8 | bytes[8 + i];
    size_t data_at = 8 + length_bytes + header_len;
    if (header_len > len - 8 - length_bytes) {
        snprintf(why, why_size, "%s: its header is %zu bytes long, past the file's end (%zu bytes)", name, header_len,
                 len);
        return FPD_ERR_INPUT;
    }
    struct header h = {.text = (const char *)bytes + 8 + length_bytes, .name = name, .len = header_len};
    int rc = parse_header(&h, why, why_size);
    if (rc != FPD_OK)
        return rc;
    char order = h.descr[0];
    size_t e = 0;
    while (e < sizeof elements / sizeof elements[0] && strcmp(h.descr + (order ? 1 : 0), elements[e].code) != 0)
        e++;
    bool known_order = order == '<' || order == '>' || order == '=' || order == '|';
    if (!known_order || e == sizeof elements / sizeof elements[0]) {
        char shown[64];
        snprintf(why, why_size, "%s: its 'descr' is '%s': fpdiv reads float64, float32, float16 and 2-byte bf16 "
                 "arrays ('<f8', '<f4', '<f2'; '<u2', '<i2' or '<V2' for bf16)", name, fpd_printable(h.descr, shown, sizeof shown));
        return FPD_ERR_INPUT;
    }
    out->element = elements[e].element;
    out->element_size = elements[e].size;
    out->ndim = h.ndim;
    out->count = 1;
    for (int d = 0; d < h.ndim; d++) {
        out->shape[d] = h.shape[d];
        if (h.shape[d] && out->count > SIZE_MAX / h.shape[d] / out->element_size) {
            snprintf(why, why_size, "%s: its shape holds more elements than memory can", name);
            return FPD_ERR_INPUT;
        }
        out->count *= h.shape[d];
    }
    size_t want = out->count * out->element_size;
    if (len - data_at != want) {
        char dims[FPD_NPY_MAX_DIMS * 22 + 4] = "";
        for (int d = 0; d < h.ndim; d++)
            snprintf(dims + strlen(dims), sizeof dims - strlen(dims), "%s%zu", d ? ", " : "", h.shape[d]);
        snprintf(why, why_size, "%s: %zu bytes of data where its shape (%s) of %s needs %zu", name, len - data_at,
                 dims, elements[e].name, want);
        return FPD_ERR_INPUT;
    }
    if (own && *own) {
        memmove(*own, *own + data_at, want);
        unsigned char *shrunk = realloc(*own, want + 1);
        out->data = shrunk ? shrunk : *own;
        *own = NULL;
    } else if ((out->data = malloc(want + 1))) {
        memcpy(out->data, bytes + data_at, want);
    } else {
        snprintf(why, why_size, "out of memory reading %s", name);
        return FPD_ERR_NOMEM;
    }
    if (order == '>' && out->element != FPD_NPY_VOID16)
        swap_bytes(out->data, out->count, out->element_size);
    if (h.fortran && h.ndim > 1 && to_c_order(out) != FPD_OK) {
        fpd_npy_free(out);
        snprintf(why, why_size, "out of memory reading %s", name);
        return FPD_ERR_NOMEM;
    }
    return FPD_OK;
}

int fpd_npy_parse(const char *name, const unsigned char *bytes, size_t len, struct fpd_npy *out, char *why,
                  size_t why_size)
{
    return parse(name, bytes, len, NULL, out, why, why_size);
}

int fpd_npy_take(const char *name, void *bytes, size_t len, struct fpd_npy *out, char *why, size_t why_size)
{
    unsigned char *own = bytes;
    int rc = parse(name, bytes, len, &own, out, why, why_size);
    free(own); /* NULL where out took it */
    return rc;
}

int fpd_npy_read(const char *path, struct fpd_npy *out, char *why, size_t why_size)
{
    char *bytes;
    size_t len;
    *out = (struct fpd_npy){0};
    int rc = fpd_file_read(path, FPD_NPY_MAX_BYTES, &bytes, &len, why, why_size);
    return rc == FPD_OK ? fpd_npy_take(path, bytes, len, out, why, why_size) : rc;
}

void fpd_npy_free(struct fpd_npy *a)
{
    free(a->data);
    *a = (struct fpd_npy){0};
}
