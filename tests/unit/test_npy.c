/* .npy files (store/npy.h): what fpdiv writes reads back the same; what NumPy writes in its other
 * forms (Fortran order, big-endian, format 2.0, ml_dtypes' bfloat16) reads as NumPy reads it; a
 * file that is not such an array is refused with what is wrong named. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/npy.h"

/* A .npy file's bytes: magic, version, header padded to 64 as NumPy pads it, then `data`. */
static size_t make(unsigned char *out, int major, const char *header, const void *data, size_t data_len)
{
    size_t length_bytes = major == 1 ? 2 : 4, hl = strlen(header);
    size_t total = 8 + length_bytes + hl + 1, pad = (64 - total % 64) % 64, header_len = hl + pad + 1;
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (unsigned char)major, out[7] = 0;
    for (size_t i = 0; i < length_bytes; i++)
        out[8 + i] = (unsigned char)(header_len >> (8 * i));
    size_t at = 8 + length_bytes;
    memcpy(out + at, header, hl);
    memset(out + at + hl, ' ', pad);
    out[at + hl + pad] = '\n';
    at += header_len;
    if (data_len) /* memcpy from NULL is undefined even for 0 bytes */
        memcpy(out + at, data, data_len);
    return at + data_len;
}

/* bytes parsed, and taken (fpd_npy_take, from a copy of malloc's, its elements moved to its front):
 * the two arrays alike */
static struct fpd_npy parsed(const unsigned char *bytes, size_t len)
{
    struct fpd_npy a, t;
    char why[512];
    cr_assert_eq(fpd_npy_parse("x.npy", bytes, len, &a, why, sizeof why), FPD_OK, "%s", why);
    unsigned char *copy = malloc(len);
    cr_assert_not_null(copy);
    memcpy(copy, bytes, len);
    cr_assert_eq(fpd_npy_take("x.npy", copy, len, &t, why, sizeof why), FPD_OK, "%s", why);
    cr_expect(t.element == a.element && t.ndim == a.ndim && t.count == a.count && t.element_size == a.element_size);
    cr_expect(memcmp(t.shape, a.shape, sizeof a.shape) == 0);
    cr_expect(memcmp(t.data, a.data, a.count * a.element_size) == 0, "taken, the elements differ from parsed");
    fpd_npy_free(&t);
    return a;
}

Test(npy, what_fpdiv_writes_reads_back, .timeout = 30)
{
    static const enum fpd_dtype types[] = {FPD_F64, FPD_F32, FPD_F16, FPD_BF16};
    static const enum fpd_npy_element read_as[] = {FPD_NPY_FLOAT64, FPD_NPY_FLOAT32, FPD_NPY_FLOAT16, FPD_NPY_UINT16};
    static const size_t shapes[][3] = {{5, 0, 0}, {3, 4, 0}, {2, 3, 5}, {0, 7, 0}};
    static const int ndims[] = {1, 2, 3, 2};
    char path[] = "/tmp/fpdiv-npy-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    unsigned char data[30 * 8];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (unsigned char)(i * 37 + 11);
    for (size_t t = 0; t < 4; t++)
        for (size_t s = 0; s < 4; s++) {
            char why[512];
            cr_assert_eq(fpd_npy_write(path, types[t], shapes[s], ndims[s], data, why, sizeof why), FPD_OK, "%s", why);
            struct fpd_npy a;
            cr_assert_eq(fpd_npy_read(path, &a, why, sizeof why), FPD_OK, "%s", why);
            cr_expect_eq(a.element, read_as[t]);
            cr_expect_eq(a.ndim, ndims[s]);
            size_t count = 1;
            for (int d = 0; d < ndims[s]; d++) {
                cr_expect_eq(a.shape[d], shapes[s][d]);
                count *= shapes[s][d];
            }
            cr_expect_eq(a.count, count);
            cr_expect(count == 0 || memcmp(a.data, data, count * a.element_size) == 0, "type %zu shape %zu", t, s);
            fpd_npy_free(&a);
        }
    unlink(path);
}

/* [[1, 2, 3], [4, 5, 6]] stored by columns, big-endian, in a format 2.0 header, with NumPy's other
 * spellings: C order and little-endian once read. */
Test(npy, numpy_s_other_forms_read_as_numpy_reads_them)
{
    const float by_columns[] = {1, 4, 2, 5, 3, 6};
    unsigned char big[sizeof by_columns];
    for (size_t i = 0; i < 6; i++)
        for (size_t b = 0; b < 4; b++)
            big[i * 4 + b] = ((const unsigned char *)&by_columns[i])[3 - b];
    unsigned char file[512];
    size_t len = make(file, 2, "{\"descr\":\">f4\",\"fortran_order\":True,\"shape\":(2,3)}", big, sizeof big);
    struct fpd_npy a = parsed(file, len);
    const float want[] = {1, 2, 3, 4, 5, 6};
    cr_expect_eq(a.element, FPD_NPY_FLOAT32);
    cr_expect(a.ndim == 2 && a.shape[0] == 2 && a.shape[1] == 3);
    cr_expect(memcmp(a.data, want, sizeof want) == 0);
    fpd_npy_free(&a);
    /* ml_dtypes' bfloat16 as np.save writes it: a 2-byte void; a scalar; a 1-tuple; Python 2's L */
    const uint16_t bits[] = {0x3f80, 0xc000};
    len = make(file, 1, "{'descr': '|V2', 'fortran_order': False, 'shape': (2L,), }", bits, sizeof bits);
    a = parsed(file, len);
    cr_expect(a.element == FPD_NPY_VOID16 && a.ndim == 1 && a.count == 2 && memcmp(a.data, bits, 4) == 0);
    fpd_npy_free(&a);
    const double one = 1;
    len = make(file, 3, "{'shape': (), 'fortran_order': False, 'descr': '<f8'}", &one, sizeof one);
    a = parsed(file, len);
    cr_expect(a.element == FPD_NPY_FLOAT64 && a.ndim == 0 && a.count == 1 && memcmp(a.data, &one, 8) == 0);
    fpd_npy_free(&a);
}

/* A NUL inside 'descr' ends no name early: '<f4' followed by a NUL and more is not '<f4'. */
Test(npy, a_control_character_in_a_string_is_refused)
{
    unsigned char file[256], data[8] = {0};
    size_t len = make(file, 1, "{'descr': '<f4@', 'fortran_order': False, 'shape': (2,)}", data, sizeof data);
    unsigned char *at = memchr(file, '@', len);
    cr_assert_not_null(at);
    *at = '\0';
    struct fpd_npy a;
    char why[512] = "";
    cr_expect_eq(fpd_npy_parse("x.npy", file, len, &a, why, sizeof why), FPD_ERR_INPUT);
    cr_expect(strstr(why, "'descr' is not a type's name"), "%s", why);
    cr_expect_null(a.data);
}

Test(npy, what_is_not_such_an_array_is_refused_and_named)
{
    static const struct {
        const char *header;
        size_t data_len;
        const char *why;
    } cases[] = {
        {"{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", 16, "its 'descr' is '<i8': fpdiv reads"},
        {"{'descr': '<c16', 'fortran_order': False, 'shape': (2,), }", 32, "its 'descr' is '<c16'"},
        {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 8, "'descr' is not a type's name"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 12, "12 bytes of data where its shape (2) of float32 needs 8"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 20, "needs 24"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", 8, "not a non-negative integer"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", 8, "a key other than"},
        {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", 8, "a key given twice"},
        {"{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,)}", 8, "neither True nor False"},
        {"{'descr': '<f4', 'shape': (2,)}", 8, "its header lacks 'fortran_order'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1)}", 4, "more dimensions than the 8"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,)}", 4, "a dimension too large"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296)}", 4, "more elements than memory"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} junk", 8, "something after the dict"},
        {"['descr']", 8, "expected a dict"},
    };
    unsigned char file[1024], data[64] = {0};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = make(file, 1, cases[i].header, data, cases[i].data_len);
        struct fpd_npy a;
        char why[512] = "";
        cr_expect_eq(fpd_npy_parse("x.npy", file, len, &a, why, sizeof why), FPD_ERR_INPUT, "%s", cases[i].header);
        cr_expect(strncmp(why, "x.npy: ", 7) == 0 && strstr(why, cases[i].why), "%s: '%s' lacks '%s'", cases[i].header,
                  why, cases[i].why);
        cr_expect_null(a.data);
        unsigned char *copy = malloc(len); /* taken and refused alike: freed, once (the sanitizers') */
        cr_assert_not_null(copy);
        memcpy(copy, file, len);
        cr_expect_eq(fpd_npy_take("x.npy", copy, len, &a, why, sizeof why), FPD_ERR_INPUT, "%s", cases[i].header);
        cr_expect_null(a.data);
    }
    struct fpd_npy a;
    char why[512];
    cr_expect_eq(fpd_npy_parse("x.npy", (const unsigned char *)"PK\x03\x04 a zip file", 16, &a, why, sizeof why),
                 FPD_ERR_INPUT);
    cr_expect(strstr(why, "x.npy: not a .npy file"), "%s", why);
    size_t len = make(file, 4, "{}", NULL, 0);
    cr_expect_eq(fpd_npy_parse("x.npy", file, len, &a, why, sizeof why), FPD_ERR_INPUT);
    cr_expect(strstr(why, ".npy format 4.0; fpdiv reads 1.0, 2.0 and 3.0"), "%s", why);
    len = make(file, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", data, 8);
    file[8] = 0xff, file[9] = 0x7f; /* the header's length past the end */
    cr_expect_eq(fpd_npy_parse("x.npy", file, len, &a, why, sizeof why), FPD_ERR_INPUT);
    cr_expect(strstr(why, "past the file's end"), "%s", why);
    cr_expect_eq(fpd_npy_read("/nonexistent/A.npy", &a, why, sizeof why), FPD_ERR_INPUT);
    cr_expect(strstr(why, "/nonexistent/A.npy"), "%s", why);
}
