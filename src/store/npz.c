/* npz.c — .npz archives through libzip: the archive read into memory (a file, or bytes given), opened
 * from that buffer with its consistency checked, each .npy member inflated whole and parsed by npy.c. */
#include "store/npz.h"

#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "common/file_read.h"
#include "common/text.h"
#include "fpdiv_backend.h"

struct fpd_npz {
    zip_t *zip;
    char *owned;    /* the file's bytes, when read from a path */
    char name[1024]; /* the archive, as messages name it */
    size_t count;
    zip_uint64_t *member; /* each array's index among the archive's members */
    char **names;         /* each array's name: its member's, less ".npy" */
};

bool fpd_npz_is_archive(const unsigned char *bytes, size_t len)
{
    /* a local file header, or the end of an empty archive (np.savez of nothing) */
    return len >= 4 && (memcmp(bytes, "PK\x03\x04", 4) == 0 || memcmp(bytes, "PK\x05\x06", 4) == 0);
}

void fpd_npz_close(struct fpd_npz *z)
{
    if (!z)
        return;
    if (z->zip)
        zip_discard(z->zip); /* read-only: nothing to write back */
    for (size_t i = 0; i < z->count; i++)
        free(z->names[i]);
    free(z->names);
    free(z->member);
    free(z->owned);
    free(z);
}

static bool is_array(const char *member)
{
    size_t n = strlen(member);
    return n > 4 && strcmp(member + n - 4, ".npy") == 0;
}

/* Lists the .npy members. */
static int list_arrays(struct fpd_npz *z, char *why, size_t why_size)
{
    zip_int64_t members = zip_get_num_entries(z->zip, 0);
    if (members < 0)
        members = 0;
    z->member = calloc((size_t)members + 1, sizeof *z->member);
    z->names = calloc((size_t)members + 1, sizeof *z->names);
    if (!z->member || !z->names) {
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    for (zip_int64_t i = 0; i < members; i++) {
        /* as the zip specification, and Python's zipfile (np.load's), read a name: UTF-8 where the
         * member says so, CP437 otherwise (libzip's default guesses) */
        const char *member = zip_get_name(z->zip, (zip_uint64_t)i, ZIP_FL_ENC_STRICT);
        if (!member || !is_array(member))
            continue;
        size_t n = strlen(member) - 4;
        char *name = malloc(n + 1);
        if (!name) {
            snprintf(why, why_size, "out of memory");
            return FPD_ERR_NOMEM;
        }
        memcpy(name, member, n);
        name[n] = '\0';
        z->member[z->count] = (zip_uint64_t)i;
        z->names[z->count++] = name;
    }
    return FPD_OK;
}

int fpd_npz_open_bytes(const char *name, const unsigned char *bytes, size_t len, struct fpd_npz **out, char *why,
                       size_t why_size)
{
    *out = NULL;
    struct fpd_npz *z = calloc(1, sizeof *z);
    if (!z) {
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    snprintf(z->name, sizeof z->name, "%s", name);
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t *source = zip_source_buffer_create(bytes, len, 0, &error);
    if (source && !(z->zip = zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error)))
        zip_source_free(source);
    if (!z->zip) {
        /* libzip's word for two members of one name (which NumPy reads, the last winning) is "File
         * already exists": say what is wrong with the archive instead */
        if (zip_error_code_zip(&error) == ZIP_ER_EXISTS)
            snprintf(why, why_size, "%s holds two members of the same name: which one is meant is unclear, so it is "
                     "refused (save each array once)", z->name);
        else
            snprintf(why, why_size, "%s is not a .npz archive NumPy could read: %s", z->name, zip_error_strerror(&error));
        zip_error_fini(&error);
        fpd_npz_close(z);
        return FPD_ERR_INPUT;
    }
    zip_error_fini(&error);
    int rc = list_arrays(z, why, why_size);
    if (rc != FPD_OK) {
        fpd_npz_close(z);
        return rc;
    }
    *out = z;
    return FPD_OK;
}

int fpd_npz_open(const char *path, struct fpd_npz **out, char *why, size_t why_size)
{
    char *bytes;
    size_t len;
    *out = NULL;
    int rc = fpd_file_read(path, FPD_NPY_MAX_BYTES, &bytes, &len, why, why_size);
    if (rc != FPD_OK)
        return rc;
    rc = fpd_npz_open_bytes(path, (const unsigned char *)bytes, len, out, why, why_size);
    if (rc != FPD_OK) {
        free(bytes);
        return rc;
    }
    (*out)->owned = bytes;
    return FPD_OK;
}

size_t fpd_npz_count(const struct fpd_npz *z)
{
    return z->count;
}

const char *fpd_npz_name(const struct fpd_npz *z, size_t i)
{
    return z->names[i];
}

long fpd_npz_find(const struct fpd_npz *z, const char *name)
{
    for (size_t i = 0; i < z->count; i++)
        if (strcmp(z->names[i], name) == 0)
            return (long)i;
    return -1;
}

const char *fpd_npz_names(const struct fpd_npz *z, char *buf, size_t size)
{
    buf[0] = '\0';
    for (size_t i = 0; i < z->count; i++) {
        char shown[128];
        size_t used = strlen(buf);
        int n = snprintf(buf + used, size - used, "%s%s", i ? ", " : "",
                         fpd_printable(z->names[i], shown, sizeof shown));
        if (n < 0 || (size_t)n >= size - used) {
            buf[used] = '\0'; /* whole names only */
            break;
        }
    }
    return buf;
}

int fpd_npz_read(struct fpd_npz *z, size_t i, struct fpd_npy *out, char *why, size_t why_size)
{
    *out = (struct fpd_npy){0};
    char shown[128], name[1200];
    snprintf(name, sizeof name, "%s:%s", z->name, fpd_printable(z->names[i], shown, sizeof shown));
    zip_stat_t st;
    if (zip_stat_index(z->zip, z->member[i], 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE)) {
        snprintf(why, why_size, "%s: the archive does not say its size: %s", name, zip_strerror(z->zip));
        return FPD_ERR_INPUT;
    }
    /* what NumPy writes: stored or deflated members; deflate inflates at most 1032 times (a hostile
     * archive's size, claimed, is checked against that before memory is taken for it) */
    bool stored = st.comp_method == ZIP_CM_STORE, deflated = st.comp_method == ZIP_CM_DEFLATE;
    if (!(st.valid & ZIP_STAT_COMP_METHOD) || !(st.valid & ZIP_STAT_COMP_SIZE) || (!stored && !deflated)) {
        snprintf(why, why_size, "%s: compressed by method %d; NumPy's archives are stored or deflated", name,
                 (int)st.comp_method);
        return FPD_ERR_INPUT;
    }
    if (st.size > (stored ? st.comp_size : st.comp_size * 1032 + 64)) {
        snprintf(why, why_size, "%s: says it holds %llu bytes, more than its %llu %s bytes can", name,
                 (unsigned long long)st.size, (unsigned long long)st.comp_size, stored ? "stored" : "deflated");
        return FPD_ERR_INPUT;
    }
    if (st.size > FPD_NPY_MAX_BYTES) {
        snprintf(why, why_size, "%s: %llu bytes; fpdiv reads arrays of at most %zu", name,
                 (unsigned long long)st.size, (size_t)FPD_NPY_MAX_BYTES);
        return FPD_ERR_INPUT;
    }
    unsigned char *bytes = malloc(st.size ? st.size : 1);
    if (!bytes) {
        snprintf(why, why_size, "%s: out of memory for its %llu bytes", name, (unsigned long long)st.size);
        return FPD_ERR_NOMEM;
    }
    zip_file_t *f = zip_fopen_index(z->zip, z->member[i], 0);
    /* in reads of 1 GiB at most (libzip 1.7 inflates no more than 4 GiB in one), then one more,
     * which must find the end: the size said is the size inflated, and at the end libzip checks the
     * member's CRC-32 (a damaged archive's read fails there, as np.load refuses it) */
    const zip_uint64_t most = (zip_uint64_t)1 << 30;
    zip_uint64_t got = 0;
    zip_int64_t n = f ? 1 : -1;
    while (f && got < st.size && (n = zip_fread(f, bytes + got, st.size - got < most ? st.size - got : most)) > 0)
        got += (zip_uint64_t)n;
    unsigned char extra;
    zip_int64_t after = n >= 0 && got == st.size ? zip_fread(f, &extra, 1) : 0;
    if (n < 0 || after != 0 || got != st.size) {
        if (n >= 0 && after >= 0)
            snprintf(why, why_size, "%s: the archive says %llu bytes, it holds %s", name,
                     (unsigned long long)st.size, after > 0 ? "more" : "fewer");
        else
            snprintf(why, why_size, "%s cannot be read from the archive (it is damaged: NumPy would refuse it "
                     "too): %s", name, f ? zip_file_strerror(f) : zip_strerror(z->zip));
        if (f)
            zip_fclose(f);
        free(bytes);
        return FPD_ERR_INPUT;
    }
    zip_fclose(f);
    return fpd_npy_take(name, bytes, st.size, out, why, why_size);
}
