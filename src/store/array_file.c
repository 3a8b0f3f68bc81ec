/* array_file.c — a spec resolved to a file and, in an archive, an array; the file read once. */
#include "store/array_file.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/file_read.h"
#include "common/text.h"
#include "fpdiv_backend.h"
#include "store/npz.h"

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

/* The spec as a path and, after the first colon that ends a path to a file, an array's name. */
struct resolved {
    char path[4096];
    const char *array; /* into the spec, or NULL */
};

static void resolve(const char *spec, struct resolved *r)
{
    snprintf(r->path, sizeof r->path, "%s", spec);
    r->array = NULL;
    if (is_file(spec))
        return;
    for (const char *colon = strchr(spec, ':'); colon; colon = strchr(colon + 1, ':')) {
        size_t n = (size_t)(colon - spec);
        if (n == 0 || n >= sizeof r->path)
            continue;
        memcpy(r->path, spec, n);
        r->path[n] = '\0';
        if (is_file(r->path)) {
            r->array = colon + 1;
            return;
        }
    }
    snprintf(r->path, sizeof r->path, "%s", spec); /* named as given in the reader's message */
}

bool fpd_array_file_exists(const char *spec)
{
    struct resolved r;
    resolve(spec, &r);
    return is_file(r.path);
}

/* Which array of the archive the spec means. */
static int choose(const struct fpd_npz *z, const char *path, const char *array, const char *role, size_t *index,
                  char *why, size_t why_size)
{
    char shown[1024], asked[256], names[1024];
    long i = -1;
    if (array)
        i = fpd_npz_find(z, array);
    else if (fpd_npz_count(z) == 1)
        i = 0;
    else if (role) {
        /* the option's name, or its capital, as export writes A.npy and B.npy */
        char capital[32];
        snprintf(capital, sizeof capital, "%s", role);
        capital[0] = (char)toupper((unsigned char)capital[0]);
        i = fpd_npz_find(z, role);
        if (i < 0)
            i = fpd_npz_find(z, capital);
    }
    if (i >= 0) {
        *index = (size_t)i;
        return FPD_OK;
    }
    fpd_printable(path, shown, sizeof shown);
    fpd_npz_names(z, names, sizeof names);
    if (fpd_npz_count(z) == 0)
        snprintf(why, why_size, "%s is a .npz archive that holds no array", shown);
    else if (array)
        snprintf(why, why_size, "%s holds no array named '%s' (its arrays: %s)", shown,
                 fpd_printable(array, asked, sizeof asked), names);
    else
        snprintf(why, why_size, "%s holds %zu arrays (%s): name the one meant, as %s:NAME", shown, fpd_npz_count(z),
                 names, shown);
    return FPD_ERR_INPUT;
}

int fpd_array_file_read(const char *spec, const char *role, struct fpd_npy *out, char *why, size_t why_size)
{
    *out = (struct fpd_npy){0};
    struct resolved r;
    resolve(spec, &r);
    char *bytes;
    size_t len;
    int rc = fpd_file_read(r.path, FPD_NPY_MAX_BYTES, &bytes, &len, why, why_size);
    if (rc != FPD_OK)
        return rc;
    if (!fpd_npz_is_archive((const unsigned char *)bytes, len)) {
        if (r.array) {
            char shown[1024];
            snprintf(why, why_size, "%s is not a .npz archive: only an archive's arrays are named, as FILE.npz:NAME",
                     fpd_printable(r.path, shown, sizeof shown));
            free(bytes);
            return FPD_ERR_INPUT;
        }
        return fpd_npy_take(r.path, bytes, len, out, why, why_size);
    }
    struct fpd_npz *z;
    rc = fpd_npz_open_bytes(r.path, (const unsigned char *)bytes, len, &z, why, why_size);
    size_t index;
    if (rc == FPD_OK)
        rc = choose(z, r.path, r.array, role, &index, why, why_size);
    if (rc == FPD_OK)
        rc = fpd_npz_read(z, index, out, why, why_size);
    fpd_npz_close(z);
    free(bytes);
    return rc;
}

bool fpd_array_file_is_archive(const char *path)
{
    unsigned char magic[4];
    char why[256];
    FILE *f = fpd_file_open_regular(path, why, sizeof why);
    if (!f)
        return false;
    size_t got = fread(magic, 1, sizeof magic, f);
    fclose(f);
    return fpd_npz_is_archive(magic, got);
}

int fpd_array_file_members(const char *path, size_t want, char (*specs)[4096], char *why, size_t why_size)
{
    char shown[1024], names[1024];
    struct fpd_npz *z;
    int rc = fpd_npz_open(path, &z, why, why_size);
    if (rc != FPD_OK)
        return rc;
    if (fpd_npz_count(z) != want) {
        snprintf(why, why_size, "%s holds %zu arrays (%s), not %zu: name each, as %s:NAME",
                 fpd_printable(path, shown, sizeof shown), fpd_npz_count(z), fpd_npz_names(z, names, sizeof names), want,
                 shown);
        fpd_npz_close(z);
        return FPD_ERR_INPUT;
    }
    for (size_t i = 0; i < want; i++)
        if (snprintf(specs[i], sizeof specs[i], "%s:%s", path, fpd_npz_name(z, i)) >= (int)sizeof specs[i]) {
            snprintf(why, why_size, "%s: an array's name is too long", fpd_printable(path, shown, sizeof shown));
            rc = FPD_ERR_INPUT;
        }
    fpd_npz_close(z);
    return rc;
}
