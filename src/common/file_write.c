/* file_write.c — finishing a file written with stdio. */
#include "common/file_write.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

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

int fpd_make_dirs(const char *path, char *why, size_t why_size)
{
    char partial[4200];
    if (!path[0] || snprintf(partial, sizeof partial, "%s", path) >= (int)sizeof partial) {
        snprintf(why, why_size, "%s directory name: '%.200s'", path[0] ? "too long a" : "an empty", path);
        return FPD_ERR_INPUT;
    }
    /* Each ancestor in turn, as `mkdir -p` does: a user's --corpus ci/run-7/corpus just works. */
    for (char *slash = strchr(partial + 1, '/');; slash = strchr(slash + 1, '/')) {
        if (slash)
            *slash = '\0';
        if (mkdir(partial, 0777) != 0 && errno != EEXIST) {
            snprintf(why, why_size, "cannot create directory %.900s: %s", partial, strerror(errno));
            return FPD_ERR_INPUT;
        }
        if (!slash)
            return FPD_OK;
        *slash = '/';
    }
}

int fpd_make_parent_dirs(const char *file, char *why, size_t why_size)
{
    const char *slash = strrchr(file, '/');
    char dir[4200];
    if (!slash || slash == file)
        return FPD_OK;
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - file), file);
    return fpd_make_dirs(dir, why, why_size);
}
