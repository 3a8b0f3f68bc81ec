/* file_write.c — finishing a file written with stdio. */
#include "common/file_write.h"

#include <errno.h>
#include <string.h>

#include "fpdiv_backend.h"

int fpd_file_close_written(FILE *f, const char *path, char *why, size_t why_size)
{
    int failed = ferror(f) ? (errno ? errno : EIO) : 0;
    if (fclose(f) != 0 && !failed)
        failed = errno ? errno : EIO;
    if (failed) {
        snprintf(why, why_size, "cannot write %.900s: %s", path, strerror(failed));
        return FPD_ERR_INPUT;
    }
    return FPD_OK;
}
