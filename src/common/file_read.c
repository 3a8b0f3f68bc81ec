/* file_read.c — whole regular files into memory: see file_read.h. */
#include "common/file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fpdiv_backend.h"

/* A descriptor of path when it is a regular file; -1 with why otherwise. O_NONBLOCK: opening a
 * FIFO must not wait for a writer before fstat can tell what it is. (Every file fpdiv reads whole
 * is a case file or a record of its own: a directory is named as not one.) */
static int open_regular(const char *path, struct stat *st, char *why, size_t why_size)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 || fstat(fd, st) != 0) {
        snprintf(why, why_size, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st->st_mode)) {
        snprintf(why, why_size, "%s: %s", path, S_ISDIR(st->st_mode) ? "a directory, not a case file"
                                                : "not a regular file: fpdiv reads regular files only");
        close(fd);
        return -1;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

int fpd_file_read(const char *path, size_t max, char **text, size_t *len, char *why, size_t why_size)
{
    *text = NULL;
    *len = 0;
    struct stat st;
    int fd = open_regular(path, &st, why, why_size);
    if (fd < 0)
        return FPD_ERR_INPUT;
    if ((unsigned long long)st.st_size > max) {
        snprintf(why, why_size, "%s: %lld bytes, more than the %zu MiB fpdiv reads from such a file", path,
                 (long long)st.st_size, max >> 20);
        close(fd);
        return FPD_ERR_INPUT;
    }
    /* the size fstat gave and a byte more, to see the end (or a file that grew since: up to max + 1) */
    size_t cap = (size_t)st.st_size + 1, used = 0;
    char *buf = malloc(cap + 1);
    int rc = buf ? FPD_OK : FPD_ERR_NOMEM;
    while (rc == FPD_OK) {
        if (used == cap) {
            if (cap > max)
                break;
            size_t bigger = cap * 2 < max + 1 ? cap * 2 : max + 1;
            char *grown = realloc(buf, bigger + 1);
            if (!grown) {
                rc = FPD_ERR_NOMEM;
                break;
            }
            buf = grown, cap = bigger;
        }
        ssize_t got = read(fd, buf + used, cap - used);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            snprintf(why, why_size, "%s: %s", path, strerror(errno));
            rc = FPD_ERR_INPUT;
        }
        if (got <= 0)
            break;
        used += (size_t)got;
    }
    close(fd);
    if (rc == FPD_OK && used > max) {
        snprintf(why, why_size, "%s: more than the %zu MiB fpdiv reads from such a file", path, max >> 20);
        rc = FPD_ERR_INPUT;
    }
    if (rc == FPD_ERR_NOMEM)
        snprintf(why, why_size, "%s: out of memory", path);
    if (rc != FPD_OK) {
        free(buf);
        return rc;
    }
    buf[used] = '\0';
    *text = buf;
    *len = used;
    return FPD_OK;
}

FILE *fpd_file_open_regular(const char *path, char *why, size_t why_size)
{
    struct stat st;
    int fd = open_regular(path, &st, why, why_size);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (fd >= 0 && !f) {
        snprintf(why, why_size, "%s: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}
