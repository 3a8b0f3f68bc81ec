/* page_file.c — `report`'s and `fuzz --html`'s page as a file: the corpus read and checked, the
 * page written whole or not at all. */
#include "report/page_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/array.h"
#include "common/file_write.h"
#include "store/corpus_dir.h"

/* Every case file of the corpus, read and checked as replay reads them. */
static int read_cases(const char *dir, struct fpd_report_case **out, size_t *count, char *why, size_t why_size)
{
    struct fpd_corpus_entry *entries;
    size_t n;
    *out = NULL, *count = 0;
    if (fpd_corpus_list(dir, &entries, &n, why, why_size) != FPD_OK)
        return FPD_ERR_INPUT;
    int rc = FPD_OK;
    struct fpd_report_case *cases = calloc(n ? n : 1, sizeof *cases);
    if (!cases)
        rc = FPD_ERR_NOMEM;
    for (size_t i = 0; rc == FPD_OK && i < n; i++) {
        if (entries[i].refused) {
            snprintf(why, why_size, "%s: %s", entries[i].path, entries[i].refused);
            rc = FPD_ERR_INPUT;
        } else if (fpd_case_file_load_any(entries[i].path, &cases[*count].file, why, why_size) != FPD_OK) {
            rc = FPD_ERR_INPUT;
        } else {
            cases[(*count)++].path = entries[i].path;
            entries[i].path = NULL; /* the case has it now */
        }
    }
    fpd_corpus_entries_free(entries, n);
    *out = cases;
    return rc;
}

static void cases_free(struct fpd_report_case *cases, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        fpd_case_file_free(&cases[i].file);
        free(cases[i].path);
    }
    free(cases);
}

/* The sweeps, bisections and trees saved beside the cases, kind by kind. */
static int read_saved(const char *dir, struct fpd_saved_result **out, size_t *count, char *why, size_t why_size)
{
    *out = NULL, *count = 0;
    size_t cap = 0;
    int rc = FPD_OK;
    for (int kind = 0; rc == FPD_OK && kind < FPD_SAVED_KIND_COUNT; kind++) {
        struct fpd_corpus_entry *entries;
        size_t n;
        rc = fpd_corpus_list_results(dir, fpd_saved_kind_names[kind], &entries, &n, why, why_size);
        if (rc == FPD_OK && !FPD_ARRAY_RESERVE(*out, cap, *count + n + 1))
            rc = FPD_ERR_NOMEM, snprintf(why, why_size, "out of memory");
        for (size_t i = 0; rc == FPD_OK && i < n; i++) {
            if (entries[i].refused) {
                snprintf(why, why_size, "%s: %s", entries[i].path, entries[i].refused);
                rc = FPD_ERR_INPUT;
            } else if ((rc = fpd_saved_result_load(entries[i].path, (enum fpd_saved_kind)kind, &(*out)[*count], why,
                                                   why_size)) == FPD_OK) {
                (*count)++;
            }
        }
        fpd_corpus_entries_free(entries, n); /* NULL and 0 where the listing failed */
    }
    return rc;
}

static void saved_free(struct fpd_saved_result *saved, size_t count)
{
    for (size_t i = 0; i < count; i++)
        fpd_saved_result_free(&saved[i]);
    free(saved);
}

/* mkstemp's file is the owner's alone; the page gets the mode a new file would (0666 less the umask). */
static bool mode_of_new_file(const char *path)
{
    mode_t mask = umask(0);
    umask(mask);
    return chmod(path, 0666 & ~mask) == 0;
}

/* The page into a temporary file beside `path`, renamed over it once whole. */
static int write_page(const char *path, const struct fpd_report_input *in, char *why, size_t why_size)
{
    if (fpd_make_parent_dirs(path, why, why_size) != FPD_OK)
        return FPD_ERR_INPUT;
    size_t len = strlen(path);
    char *tmp = malloc(len + sizeof ".XXXXXX");
    if (!tmp)
        return FPD_ERR_NOMEM;
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".XXXXXX", sizeof ".XXXXXX");
    int fd = mkstemp(tmp);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f) {
        snprintf(why, why_size, "cannot write %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd), unlink(tmp);
        free(tmp);
        return FPD_ERR_INPUT;
    }
    int rc = fpd_report_page(f, in);
    bool written = rc == FPD_OK && fflush(f) == 0 && fsync(fileno(f)) == 0 && !ferror(f);
    int saved = errno;
    written = fclose(f) == 0 && written;
    if (written && mode_of_new_file(tmp) && rename(tmp, path) == 0) {
        free(tmp);
        return FPD_OK;
    }
    if (rc == FPD_OK)
        snprintf(why, why_size, "cannot write %s: %s", path, strerror(written ? errno : saved));
    unlink(tmp);
    free(tmp);
    return rc == FPD_OK ? FPD_ERR_INPUT : rc;
}

int fpd_report_write(const char *path, struct fpd_report_input *in, char *why, size_t why_size)
{
    in->cases = NULL, in->case_count = 0, in->saved = NULL, in->saved_count = 0;
    int rc = in->corpus_dir ? read_cases(in->corpus_dir, &in->cases, &in->case_count, why, why_size) : FPD_OK;
    if (rc == FPD_OK && in->corpus_dir)
        rc = read_saved(in->corpus_dir, &in->saved, &in->saved_count, why, why_size);
    if (rc == FPD_OK)
        rc = write_page(path, in, why, why_size);
    cases_free(in->cases, in->case_count);
    saved_free(in->saved, in->saved_count);
    in->cases = NULL, in->saved = NULL;
    return rc;
}
