/* corpus_dir.c — writing into and listing a corpus directory, trusting nothing in it. */
#define _GNU_SOURCE /* FTW_ACTIONRETVAL */
#include "store/corpus_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "common/array.h"
#include "common/file_write.h"
#include "store/sidecar.h"

/* ---- directories ------------------------------------------------------------------------------- */

/* The corpus root, made with its parents when `create` (the user's own path: its links are the
 * user's to make). */
static int open_root(const char *dir, bool create, char *why, size_t why_size)
{
    if (!dir[0]) { /* "" + "/relation" would name a directory at the filesystem's root */
        snprintf(why, why_size, "an empty corpus directory name");
        return -1;
    }
    if (create && fpd_make_dirs(dir, why, why_size) != FPD_OK)
        return -1;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        snprintf(why, why_size, "cannot open the corpus %.900s: %s", dir, strerror(errno));
    return fd;
}

/* A directory inside the corpus, made when `create`: never a symbolic link, so nothing written
 * through it lands outside. */
static int open_inside(int parent, const char *dir, const char *name, bool create, char *why, size_t why_size)
{
    if (create && mkdirat(parent, name, 0777) != 0 && errno != EEXIST) {
        snprintf(why, why_size, "cannot create directory %.900s/%s: %s", dir, name, strerror(errno));
        return -1;
    }
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        snprintf(why, why_size, "%.900s/%s: %s", dir, name,
                 errno == ELOOP || errno == ENOTDIR ? "a symbolic link or a file where the corpus needs its own "
                                                      "directory: fpdiv writes nowhere else"
                                                    : strerror(errno));
    return fd;
}

/* dir/names[0]/.../names[n - 1], the corpus root made with its parents and each name inside it
 * made where missing, none a symbolic link (open_inside): its descriptor, or -1 with why. `where`
 * receives its path, for messages. */
static int open_corpus_path(const char *dir, const char *const names[], size_t n, char *where, size_t where_size,
                            char *why, size_t why_size)
{
    int fd = open_root(dir, true, why, why_size);
    snprintf(where, where_size, "%.2000s", dir);
    for (size_t i = 0; fd >= 0 && i < n; i++) {
        int inner = open_inside(fd, where, names[i], true, why, why_size);
        close(fd);
        fd = inner;
        snprintf(where + strlen(where), where_size - strlen(where), "/%s", names[i]);
    }
    return fd;
}

/* ---- atomic writes --------------------------------------------------------------------------------- */

/* Writes text as dir_fd/name: a temporary file, made durable, then linked into place (link fails
 * rather than replace, so concurrent writers of one case cannot clobber each other, and a reader
 * never sees half a file) or, with `replace`, renamed over the old one. Neither follows a symbolic
 * link. The temporary is locked from birth to removal, which is how a cleaner tells a live writer's
 * from a dead one's (see stale): the directory's shared lock makes "create, then lock" one step to
 * a cleaner, which holds the directory's exclusive lock while it looks. */
static int write_at(int dir_fd, const char *dir, const char *name, const char *text, size_t len, bool replace,
                    bool *existed, char *why, size_t why_size)
{
    static unsigned serial;
    char tmp[64];
    int fd = -1;
    while (flock(dir_fd, LOCK_SH) != 0 && errno == EINTR)
        ;
    for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
        snprintf(tmp, sizeof tmp, ".tmp-%ld-%u-%08x", (long)getpid(), serial++, (unsigned)rand());
        fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    int open_errno = errno;
    if (fd >= 0)
        flock(fd, LOCK_EX); /* a new file: nobody else can hold it */
    flock(dir_fd, LOCK_UN);
    if (fd < 0) {
        snprintf(why, why_size, "cannot create a file in %.900s: %s", dir, strerror(open_errno));
        return FPD_ERR_INPUT;
    }
    size_t done = 0;
    errno = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    int rc = FPD_OK;
    if (done < len || fsync(fd) != 0) {
        snprintf(why, why_size, "cannot write %.900s/%s: %s", dir, name, strerror(errno ? errno : EIO));
        rc = FPD_ERR_INPUT;
    }
    if (rc == FPD_OK && replace && renameat(dir_fd, tmp, dir_fd, name) != 0) {
        snprintf(why, why_size, "cannot replace %.900s/%s: %s", dir, name, strerror(errno));
        rc = FPD_ERR_INPUT;
    } else if (rc == FPD_OK && !replace && linkat(dir_fd, tmp, dir_fd, name, 0) != 0) {
        if (errno == EEXIST) {
            *existed = true;
        } else {
            snprintf(why, why_size, "cannot create %.900s/%s: %s", dir, name, strerror(errno));
            rc = FPD_ERR_INPUT;
        }
    }
    unlinkat(dir_fd, tmp, 0); /* after a rename it is gone already */
    close(fd);                /* after the unlink: until then the lock says a writer lives; fsync has
                                 already reported any error a close could */
    if (rc == FPD_OK)
        fsync(dir_fd);
    return rc;
}

/* A case's sidecars, beside it and before it: a reader never finds the case without them. Each is
 * written whole and renamed into place, over one already there: the same case saved before wrote
 * the same bytes (the case's name is its data's hashes'), and anything else there is damage, which
 * the data given now mends. */
static int write_sidecars(int dir_fd, const char *dir, const char *case_name, const struct fpd_case_file *f,
                          char *why, size_t why_size)
{
    for (int i = 0; f->sidecar && i < FPD_SIDECAR_FILES; i++) {
        char name[64], *bytes;
        size_t len;
        bool existed = false;
        fpd_sidecar_name(case_name, i, name, sizeof name);
        if (fpd_sidecar_encode(&f->chk.c, &f->data, i, &bytes, &len) != FPD_OK) {
            snprintf(why, why_size, "out of memory");
            return FPD_ERR_NOMEM;
        }
        int rc = write_at(dir_fd, dir, name, bytes, len, true, &existed, why, why_size);
        free(bytes);
        if (rc != FPD_OK)
            return rc;
    }
    return FPD_OK;
}

static int save(const char *dir, const struct fpd_case_file *f, bool replace, char *path, size_t path_size,
                bool *existed, char *why, size_t why_size)
{
    uint64_t hash;
    *existed = false;
    if (fpd_case_file_hash(f, &hash) != FPD_OK)
        return FPD_ERR_NOMEM;
    const char *relation = f->chk.relation->name; /* the table's: never a path of the file's own */
    char name[32];
    snprintf(name, sizeof name, "%016" PRIx64 ".json", hash);
    snprintf(path, path_size, "%s/%s/%s", dir, relation, name);
    char where[4200];
    int sub = open_corpus_path(dir, (const char *const[]){relation}, 1, where, sizeof where, why, why_size);
    if (sub < 0)
        return FPD_ERR_INPUT;
    json_t *j = fpd_case_file_json(f);
    char *text = json_dumps(j, JSON_INDENT(1));
    json_decref(j);
    int rc = FPD_ERR_NOMEM;
    char *line = text ? malloc(strlen(text) + 2) : NULL;
    if (line) {
        sprintf(line, "%s\n", text);
        rc = write_sidecars(sub, where, name, f, why, why_size);
        if (rc == FPD_OK)
            rc = write_at(sub, where, name, line, strlen(line), replace, existed, why, why_size);
    }
    if (rc == FPD_ERR_NOMEM)
        snprintf(why, why_size, "out of memory");
    free(line);
    free(text);
    close(sub);
    return rc;
}

int fpd_case_file_save(const char *dir, const struct fpd_case_file *f, char *path, size_t path_size, bool *existed,
                       char *why, size_t why_size)
{
    return save(dir, f, false, path, path_size, existed, why, why_size);
}

int fpd_case_file_replace(const char *dir, const struct fpd_case_file *f, char *path, size_t path_size, char *why,
                          size_t why_size)
{
    bool existed;
    return save(dir, f, true, path, path_size, &existed, why, why_size);
}

int fpd_corpus_save_result(const char *dir, const char *kind, const char *text, char *path, size_t path_size,
                           bool *existed, char *why, size_t why_size)
{
    *existed = false;
    char name[32], where[4200];
    snprintf(name, sizeof name, "%016" PRIx64 ".json", (uint64_t)XXH3_64bits(text, strlen(text)));
    snprintf(path, path_size, "%s/%s/%s/%s", dir, FPD_RESULTS_DIR, kind, name);
    int sub = open_corpus_path(dir, (const char *const[]){FPD_RESULTS_DIR, kind}, 2, where, sizeof where, why,
                               why_size);
    if (sub < 0)
        return FPD_ERR_INPUT;
    int rc = write_at(sub, where, name, text, strlen(text), false, existed, why, why_size);
    close(sub);
    return rc;
}

int fpd_corpus_remove(const char *dir, const char *relation, const char *name, char *why, size_t why_size)
{
    if (!fpd_relation_find(relation) || strchr(name, '/') || name[0] == '.' || !name[0]) {
        snprintf(why, why_size, "%.900s/%.64s/%.200s: not a case file's place in a corpus", dir, relation, name);
        return FPD_ERR_INPUT;
    }
    int root = open_root(dir, false, why, why_size);
    if (root < 0)
        return FPD_ERR_INPUT;
    int sub = open_inside(root, dir, relation, false, why, why_size);
    close(root);
    if (sub < 0)
        return FPD_ERR_INPUT;
    struct stat st;
    int rc = FPD_OK;
    if (fstatat(sub, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, why_size, "%.900s/%s/%.200s: not a regular file, left alone", dir, relation, name);
        rc = FPD_ERR_INPUT;
    } else if (unlinkat(sub, name, 0) != 0) {
        snprintf(why, why_size, "cannot remove %.900s/%s/%.200s: %s", dir, relation, name, strerror(errno));
        rc = FPD_ERR_INPUT;
    }
    /* its sidecars, where it has them (regular files only: a link there is not the case's) */
    for (int i = 0; rc == FPD_OK && i < FPD_SIDECAR_FILES; i++) {
        char sidecar[300];
        fpd_sidecar_name(name, i, sidecar, sizeof sidecar);
        if (fstatat(sub, sidecar, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
            unlinkat(sub, sidecar, 0);
    }
    close(sub);
    return rc;
}

/* ---- listing ------------------------------------------------------------------------------------- */

static struct fpd_corpus_entry *found;
static size_t found_count, found_cap;
static bool found_full; /* out of memory */

static void add_entry(const char *path, const char *refused)
{
    if (!FPD_ARRAY_RESERVE(found, found_cap, found_count + 1)) {
        found_full = true;
        return;
    }
    char *copy = strdup(path);
    if (!copy) {
        found_full = true;
        return;
    }
    found[found_count++] = (struct fpd_corpus_entry){copy, refused};
}

static bool is_json(const char *base)
{
    size_t len = strlen(base);
    return len > 5 && strcmp(base + len - 5, ".json") == 0;
}

static const char *not_regular(mode_t mode)
{
    return S_ISFIFO(mode)   ? "a FIFO, not a case file: fpdiv reads regular files only"
           : S_ISDIR(mode)  ? "a directory, not a case file"
           : S_ISSOCK(mode) ? "a socket, not a case file: fpdiv reads regular files only"
                            : "a device, not a case file: fpdiv reads regular files only";
}

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    const char *base = path + ftw->base;
    if (ftw->level > 0 && base[0] == '.') /* hidden: temporaries, claims, a VCS's own */
        return type == FTW_D ? FTW_SKIP_SUBTREE : FTW_CONTINUE;
    if (ftw->level == 1 && type == FTW_D && strcmp(base, FPD_RESULTS_DIR) == 0)
        return FTW_SKIP_SUBTREE; /* analyses saved beside the cases, not cases */
    switch (type) {
    case FTW_F:
        if (is_json(base))
            add_entry(path, S_ISREG(st->st_mode) ? NULL : not_regular(st->st_mode));
        break;
    case FTW_SL:
    case FTW_SLN:
        add_entry(path, "a symbolic link: fpdiv reads a corpus's own files only, and follows no link in it");
        break;
    case FTW_DNR: add_entry(path, "a directory fpdiv cannot read"); break;
    case FTW_NS: add_entry(path, "cannot be examined (stat failed)"); break;
    default: break;
    }
    return found_full ? FTW_STOP : FTW_CONTINUE;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const struct fpd_corpus_entry *)a)->path, ((const struct fpd_corpus_entry *)b)->path);
}

int fpd_corpus_list(const char *path, struct fpd_corpus_entry **entries, size_t *count, char *why, size_t why_size)
{
    struct stat st;
    *entries = NULL;
    *count = 0;
    if (stat(path, &st) != 0) {
        snprintf(why, why_size, "%s: %s", path, strerror(errno));
        return FPD_ERR_INPUT;
    }
    found = NULL, found_count = found_cap = 0, found_full = false;
    if (S_ISDIR(st.st_mode)) {
        errno = 0;
        if (nftw(path, collect, 16, FTW_PHYS | FTW_ACTIONRETVAL) == -1 && !found_full) {
            snprintf(why, why_size, "%s: cannot list: %s", path, strerror(errno));
            fpd_corpus_entries_free(found, found_count);
            return FPD_ERR_INPUT;
        }
        if (found_count > 1) /* qsort is not to be given NULL, even for nothing */
            qsort(found, found_count, sizeof *found, by_path);
    } else {
        add_entry(path, S_ISREG(st.st_mode) ? NULL : not_regular(st.st_mode)); /* named by the user: followed */
    }
    if (found_full) {
        fpd_corpus_entries_free(found, found_count);
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    *entries = found;
    *count = found_count;
    return FPD_OK;
}

int fpd_corpus_list_results(const char *dir, const char *kind, struct fpd_corpus_entry **entries, size_t *count,
                            char *why, size_t why_size)
{
    *entries = NULL;
    *count = 0;
    char path[4200];
    const char *parts[] = {FPD_RESULTS_DIR, kind};
    snprintf(path, sizeof path, "%.4000s", dir);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        snprintf(path + strlen(path), sizeof path - strlen(path), "/%s", parts[i]);
        struct stat st;
        if (lstat(path, &st) != 0) {
            if (errno == ENOENT)
                return FPD_OK; /* nothing saved */
            snprintf(why, why_size, "%s: %s", path, strerror(errno));
            return FPD_ERR_INPUT;
        }
        if (!S_ISDIR(st.st_mode)) {
            snprintf(why, why_size, "%s: %s", path,
                     S_ISLNK(st.st_mode) ? "a symbolic link where the corpus's own directory should be: fpdiv "
                                           "reads no file through it"
                                         : "not a directory");
            return FPD_ERR_INPUT;
        }
    }
    return fpd_corpus_list(path, entries, count, why, why_size);
}

void fpd_corpus_entries_free(struct fpd_corpus_entry *entries, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(entries[i].path);
    free(entries);
}

/* ---- claims -------------------------------------------------------------------------------------- */

/* A slot's file name: the signature in a canonical text, hashed (the key's bytes are not: a
 * struct's padding is no part of its value). The verdict by name: its number changes when the
 * scale gains a verdict, and an old claim must not be read as another verdict's. */
static void slot_name(const struct fpd_signature_key *key, size_t slot, char *name, size_t name_size)
{
    char dt[32], text[256];
    int len = snprintf(text, sizeof text, "%s|%s|%s|%s|%s", key->relation, key->backends[0], key->backends[1],
                       fpd_dtypes_format(&key->dt, dt, sizeof dt), fpd_verdict_table[key->verdict].name);
    uint64_t hash = XXH3_64bits(text, (size_t)len < sizeof text ? (size_t)len : sizeof text - 1);
    snprintf(name, name_size, "%016" PRIx64 "-%zu", hash, slot);
}

/* Whether a slot, unlocked, records a case that is still in the corpus, of the slot's signature:
 * its text is the case's name, "<relation>/<16-hex>.json", checked before it is looked up. (A
 * committed slot that names a case of another signature would otherwise keep this signature's
 * findings from ever being saved.) */
static bool slot_done(int root, const char *dir, int slot_fd, const struct fpd_signature_key *key)
{
    char text[64], relation[32], hex[17];
    ssize_t n = pread(slot_fd, text, sizeof text - 1, 0);
    if (n <= 0)
        return false;
    text[n] = '\0';
    int used = 0;
    if (sscanf(text, "%31[a-z0-9-]/%16[0-9a-f].json%n", relation, hex, &used) != 2 || used != n ||
        strlen(hex) != 16 || !fpd_relation_find(relation))
        return false;
    char why[64], name[32];
    int sub = open_inside(root, "", relation, false, why, sizeof why);
    if (sub < 0)
        return false;
    struct stat st;
    snprintf(name, sizeof name, "%s.json", hex);
    bool there = fstatat(sub, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
    close(sub);
    char path[4200], reason[512];
    struct fpd_signature_key recorded;
    snprintf(path, sizeof path, "%.4000s/%s/%s", dir, relation, name);
    return there && fpd_case_file_signature(path, &recorded, reason, sizeof reason) == FPD_OK &&
           fpd_signature_equal(&recorded, key);
}

int fpd_corpus_claim(const char *dir, const struct fpd_signature_key *key, size_t first, size_t max,
                     struct fpd_corpus_claim *claim, char *why, size_t why_size)
{
    *claim = (struct fpd_corpus_claim){.slot = -1};
    if (!fpd_relation_find(key->relation)) {
        snprintf(why, why_size, "'%.64s' is no relation of fpdiv's", key->relation);
        return FPD_ERR_INPUT;
    }
    int root = open_root(dir, true, why, why_size);
    if (root < 0)
        return FPD_ERR_INPUT;
    int claims = open_inside(root, dir, ".claims", true, why, why_size);
    if (claims < 0) {
        close(root);
        return FPD_ERR_INPUT;
    }
    /* a corpus is committed: its claims are not (a .gitignore that ignores itself and all else) */
    int ignore = openat(claims, ".gitignore", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (ignore >= 0) {
        ssize_t written = write(ignore, "*\n", 2); /* short, git shows the claims: nothing worse */
        (void)written;
        close(ignore);
    }
    /* A slot is taken while its claimant holds its lock, and once it records a case still there;
     * the record is written under the lock, so no claimant sees a slot between the two. A slot
     * that cannot be opened, or locked for another reason than a claimant's lock, or that is not a
     * regular file (a committed directory or link of a slot's predictable name) is no taken slot:
     * it is a failed save, and the finding is not dropped in silence. */
    int rc = FPD_OK;
    for (size_t slot = first; slot < max && claim->slot < 0 && rc == FPD_OK; slot++) {
        char name[48];
        slot_name(key, slot, name, sizeof name);
        int fd = openat(claims, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
        struct stat st;
        const char *problem = fd < 0 ? (errno == ELOOP ? "a symbolic link" : strerror(errno))
                              : fstat(fd, &st) != 0 ? strerror(errno)
                              : !S_ISREG(st.st_mode) ? "not a regular file"
                                                     : NULL;
        bool locked = !problem && flock(fd, LOCK_EX | LOCK_NB) == 0;
        if (!problem && !locked && errno != EWOULDBLOCK)
            problem = strerror(errno);
        if (problem) {
            snprintf(why, why_size, "cannot claim %.900s/.claims/%s: %s", dir, name, problem);
            rc = FPD_ERR_INPUT;
        } else if (locked && !slot_done(root, dir, fd, key)) {
            claim->slot = fd;
            continue;
        }
        if (fd >= 0)
            close(fd); /* and with it any lock taken */
    }
    close(claims);
    close(root);
    return rc;
}

void fpd_corpus_unclaim(struct fpd_corpus_claim *claim, const char *saved)
{
    if (claim->slot < 0)
        return;
    /* the record first, then the lock goes with the descriptor; should the record fail, the slot
     * is free again: one case more than asked for, at worst, never one lost */
    if (ftruncate(claim->slot, 0) == 0 && saved) {
        ssize_t written = pwrite(claim->slot, saved, strlen(saved), 0);
        (void)written;
    }
    close(claim->slot);
    claim->slot = -1;
}

/* ---- stale temporaries --------------------------------------------------------------------------- */

/* Whether a temporary's writer is gone: nobody holds its lock (write_at holds it from the file's
 * birth). A process id in the name would say less: ids are reused, often within seconds. */
static bool stale(int dir_fd, const char *name)
{
    int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    bool gone = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0;
    close(fd);
    return gone;
}

/* The directory's exclusive lock, waited for a little: writers hold its shared lock only while
 * they create and lock a temporary, but a stopped writer may hold it for as long as it is stopped,
 * and then the temporaries wait for the next cleaner. */
static bool lock_directory(int dir_fd)
{
    for (int attempt = 0; attempt < 100; attempt++) {
        if (flock(dir_fd, LOCK_EX | LOCK_NB) == 0)
            return true;
        if (errno != EWOULDBLOCK && errno != EINTR)
            return false;
        nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
    }
    return false;
}

void fpd_corpus_clean_stale(const char *dir)
{
    char why[256];
    int root = open_root(dir, false, why, sizeof why);
    if (root < 0)
        return;
    for (size_t r = 0; r < fpd_relation_count; r++) {
        int sub = open_inside(root, dir, fpd_relation_table[r].name, false, why, sizeof why);
        DIR *d = sub >= 0 ? fdopendir(sub) : NULL;
        if (!d) {
            if (sub >= 0)
                close(sub);
            continue;
        }
        struct dirent *e;
        if (lock_directory(sub))
            while ((e = readdir(d)) != NULL)
                if (strncmp(e->d_name, ".tmp-", 5) == 0 && stale(sub, e->d_name))
                    unlinkat(sub, e->d_name, 0);
        closedir(d); /* and with it the lock */
    }
    close(root);
}
