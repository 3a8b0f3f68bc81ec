/* npy.h — NumPy's .npy files: the arrays `fpdiv export` writes for a bug report (format 1.0, every
 * storage type little-endian, bf16, which NumPy lacks, as its uint16 bits, '<u2'), and the arrays a
 * user brings (`fpdiv judge`), read as any input is: a file that is not such an array is refused,
 * with what is wrong in it named. */
#ifndef FPD_NPY_H
#define FPD_NPY_H

#include <stdbool.h>
#include <stddef.h>

#include "common/dtype.h"

/* The element types fpdiv reads from a .npy file. bf16 has no NumPy type: it arrives as its uint16
 * bits ('<u2', as fpdiv writes it; '<i2', as torch's t.view(torch.int16) gives them) or as a 2-byte void ('<V2', what np.save writes for ml_dtypes'
 * bfloat16; '|V2' too), and which type the bits are is the reader's to say (fpdiv judge's --dtype). */
enum fpd_npy_element { FPD_NPY_FLOAT64, FPD_NPY_FLOAT32, FPD_NPY_FLOAT16, FPD_NPY_UINT16, FPD_NPY_INT16, FPD_NPY_VOID16 };

enum { FPD_NPY_MAX_DIMS = 8 };

/* An array read: its elements in C order and little-endian, whatever order and byte order the file
 * had. */
struct fpd_npy {
    enum fpd_npy_element element;
    size_t element_size;
    int ndim; /* 0 (a scalar) to FPD_NPY_MAX_DIMS */
    size_t shape[FPD_NPY_MAX_DIMS];
    size_t count; /* elements: the shape's product */
    void *data;   /* count * element_size bytes (malloc'd) */
};

/* The largest .npy file fpdiv reads. */
#define FPD_NPY_MAX_BYTES ((size_t)16 << 30)

/* Reads a .npy file (format 1.0, 2.0 or 3.0): FPD_OK, or FPD_ERR_INPUT / FPD_ERR_NOMEM with why
 * naming the file and what is wrong in it (the header's field, the byte). */
int fpd_npy_read(const char *path, struct fpd_npy *out, char *why, size_t why_size);
/* The same from bytes in memory; `name` names them in messages. */
int fpd_npy_parse(const char *name, const unsigned char *bytes, size_t len, struct fpd_npy *out, char *why,
                  size_t why_size);
/* The same from bytes of malloc's, which it takes: they become the array (its elements moved to the
 * front), or are freed. A large array is then in memory once, not twice. */
int fpd_npy_take(const char *name, void *bytes, size_t len, struct fpd_npy *out, char *why, size_t why_size);
void fpd_npy_free(struct fpd_npy *a);
/* The type of fpdiv's an element type holds (f64, f32, f16, bf16); *named_only for bf16's bits,
 * which NumPy cannot say are bf16 (uint16, int16, void): a reader takes them so only where the
 * user names the type (--dtype). */
enum fpd_dtype fpd_npy_dtype(enum fpd_npy_element e, bool *named_only);
/* A shape in words: "3 x 4 x 5", or "a scalar" (ndim 0); buf, truncated to size. */
const char *fpd_npy_shape_text(const size_t *shape, int ndim, char *buf, size_t size);
/* NumPy's name for the element type ("float32", "uint16 (bf16 bits?)"). */
const char *fpd_npy_element_name(enum fpd_npy_element e);

/* The bytes of a .npy file of `data` (C order, shape[0] x ... x shape[ndim-1] elements of type t,
 * ndim from 1 to 4), in a new buffer: FPD_OK or FPD_ERR_NOMEM. */
int fpd_npy_encode(enum fpd_dtype t, const size_t *shape, int ndim, const void *data, char **bytes, size_t *len);
/* Writes `data` (C order, shape[0] x ... x shape[ndim-1] elements of type t, ndim from 1 to 4) to
 * path: FPD_OK, or FPD_ERR_INPUT with why naming the file. */
int fpd_npy_write(const char *path, enum fpd_dtype t, const size_t *shape, int ndim, const void *data, char *why,
                  size_t why_size);

#endif
