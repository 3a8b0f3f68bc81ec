/* kernel_set_cache.c — the kernel sets an earlier run found this machine runs, in a JSON file per
 * library and key. */
#include "backends/kernel_set_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "backends/host.h"
#include "common/cpu.h"
#include "common/file_read.h"
#include "common/file_write.h"

extern char **environ;

#define FORMAT "fpdiv kernel-set cache"
#define VERSION 1
/* A host's hello carries at most this much provenance (host.c's reply text). */
#define PROVENANCE_MAX 8192
/* Files of a library's other keys (another fpdiv build, another environment) untouched this long
 * are removed when one is written: they would only pile up. */
#define STALE_SECONDS (30 * 24 * 3600)

/* What the library and its host read from the environment that can change which kernels run or
 * whether they run at all: the libraries' own variables, OpenMP's, the loader's. fpdiv's own
 * (FPDIV_OPENBLAS, …) choose the library, which the library's provenance already names. */
static const char *const environment_prefixes[] = {"OPENBLAS_", "GOTO", "BLIS_", "MKL_", "KMP_", "OMP_", "GOMP_",
                                                   "LD_", "GLIBC_TUNABLES="};

/* ---- the key ------------------------------------------------------------------------------------- */

/* A file's identity: device, inode, size and modification time (a library replaced by an upgrade
 * differs in at least one). Nothing for a name that is no file. */
static void hash_file_identity(XXH3_state_t *st, const char *path)
{
    struct stat sb;
    if (!path || path[0] != '/' || stat(path, &sb) != 0)
        return;
    const long long id[] = {(long long)sb.st_dev, (long long)sb.st_ino, (long long)sb.st_size,
                            (long long)sb.st_mtim.tv_sec, (long long)sb.st_mtim.tv_nsec};
    XXH3_64bits_update(st, id, sizeof id);
}

static void hash_text(XXH3_state_t *st, const char *text)
{
    XXH3_64bits_update(st, text, strlen(text) + 1); /* with its NUL: "ab","c" is not "a","bc" */
}

/* The program hosts run, by its contents (a rebuilt fpdiv probes afresh): hashed once per program. */
static bool hash_program(XXH3_state_t *st)
{
    static char hashed_path[PATH_MAX];
    static XXH64_hash_t hash;
    const char *path = fpd_host_program();
    if (strcmp(path, hashed_path) != 0) {
        FILE *f = fopen(path, "rb");
        XXH3_state_t *file = XXH3_createState();
        bool ok = f && file && XXH3_64bits_reset(file) == XXH_OK;
        unsigned char block[1 << 14];
        for (size_t got; ok && (got = fread(block, 1, sizeof block, f)) > 0;)
            XXH3_64bits_update(file, block, got);
        ok = ok && !ferror(f);
        if (ok) {
            hash = XXH3_64bits_digest(file);
            snprintf(hashed_path, sizeof hashed_path, "%s", path);
        }
        if (f)
            fclose(f);
        XXH3_freeState(file);
        if (!ok)
            return false;
    }
    XXH3_64bits_update(st, &hash, sizeof hash);
    return true;
}

static void hash_provenance_pair(void *ctx, const char *key, const char *value)
{
    hash_text(ctx, key);
    hash_text(ctx, value ? value : "");
    hash_file_identity(ctx, value); /* path=/usr/lib/…/libopenblas.so: the file itself */
}

static int by_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void hash_environment(XXH3_state_t *st)
{
    size_t n = 0, cap = 0;
    for (char **e = environ; *e; e++)
        cap++;
    const char **picked = malloc((cap + 1) * sizeof *picked);
    for (char **e = environ; picked && *e; e++)
        for (size_t p = 0; p < sizeof environment_prefixes / sizeof environment_prefixes[0]; p++)
            if (strncmp(*e, environment_prefixes[p], strlen(environment_prefixes[p])) == 0) {
                picked[n++] = *e;
                break;
            }
    if (picked)
        qsort(picked, n, sizeof *picked, by_text); /* an environment's order is no part of it */
    for (size_t i = 0; i < n; i++)
        hash_text(st, picked[i]);
    hash_text(st, picked ? "" : "(environment unread)");
    free(picked);
}

/* The key of base's sets on this machine, in hex; false when it cannot be made. */
static bool make_key(struct fpd_backend_slot *base, char key[17])
{
    XXH3_state_t *st = XXH3_createState();
    if (!st || XXH3_64bits_reset(st) != XXH_OK) {
        XXH3_freeState(st);
        return false;
    }
    hash_text(st, FORMAT);
    bool ok = hash_program(st);
    const struct fpd_cpu *cpu = fpd_cpu_this();
    const unsigned numbers[] = {cpu->family, cpu->model_number, cpu->stepping, cpu->l2_kib};
    hash_text(st, cpu->vendor), hash_text(st, cpu->model), hash_text(st, cpu->isa), hash_text(st, cpu->features);
    XXH3_64bits_update(st, numbers, sizeof numbers);
    hash_text(st, base->impl->name);
    if (base->impl->provenance)
        base->impl->provenance(base->handle, hash_provenance_pair, st);
    const char *const *options;
    size_t n_options = fpd_host_global_options(&options);
    for (size_t i = 0; i < 2 * n_options; i++) {
        hash_text(st, options[i]);
        hash_file_identity(st, options[i]);
        const char *eq = strchr(options[i], '=');
        hash_file_identity(st, eq ? eq + 1 : NULL); /* --blas NAME=PATH */
    }
    hash_environment(st);
    snprintf(key, 17, "%016llx", (unsigned long long)XXH3_64bits_digest(st));
    XXH3_freeState(st);
    return ok;
}

/* ---- the file ------------------------------------------------------------------------------------ */

/* The cache's directory: FPDIV_CACHE_DIR, else $XDG_CACHE_HOME/fpdiv, else $HOME/.cache/fpdiv;
 * false when none is to be kept. */
static bool cache_dir(char *dir, size_t size)
{
    const char *given = getenv("FPDIV_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (given)
        n = snprintf(dir, size, "%s", given);
    else if (xdg && xdg[0] == '/') /* the XDG specification ignores a relative one */
        n = snprintf(dir, size, "%s/fpdiv", xdg);
    else if (home && home[0] == '/')
        n = snprintf(dir, size, "%s/.cache/fpdiv", home);
    else
        return false;
    return n > 0 && (size_t)n < size;
}

struct cache_file {
    struct fpd_backend_slot *base;
    char key[17], dir[PATH_MAX - 96], path[PATH_MAX];
};

static const char *file_name_part(const char *name, char *out, size_t size)
{
    size_t i = 0;
    for (; name[i] && i + 1 < size; i++)
        out[i] = (name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
                         (name[i] >= '0' && name[i] <= '9') || name[i] == '-' ? name[i] : '_';
    out[i] = '\0';
    return out;
}

/* base's file as things are now (the environment, the library's file): worked out each time, a
 * few microseconds once the program is hashed. False when none is kept. */
static bool locate(struct fpd_backend_slot *base, struct cache_file *f)
{
    char name[64];
    f->base = base;
    return fpd_backend_acquire(base) == FPD_OK && cache_dir(f->dir, sizeof f->dir) && f->dir[0] && make_key(base, f->key) &&
           snprintf(f->path, sizeof f->path, "%s/kernel-sets-%s-%s.json", f->dir,
                    file_name_part(base->impl->name, name, sizeof name), f->key) < (int)sizeof f->path;
}

const char *fpd_kernel_set_cache_file(struct fpd_backend_slot *base, char *buf, size_t size)
{
    struct cache_file f;
    if (!locate(base, &f))
        return NULL;
    snprintf(buf, size, "%s", f.path);
    return buf;
}

/* The file's JSON when it is this key's (a new object otherwise). */
static json_t *load(const struct cache_file *f)
{
    char *text = NULL, why[256];
    size_t len;
    json_t *j = NULL;
    if (fpd_file_read(f->path, 1u << 20, &text, &len, why, sizeof why) == FPD_OK)
        j = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
    free(text);
    json_t *format = json_object_get(j, "format"), *version = json_object_get(j, "version"),
           *key = json_object_get(j, "key");
    if (!json_is_object(j) || !json_is_string(format) || strcmp(json_string_value(format), FORMAT) != 0 ||
        !json_is_integer(version) || json_integer_value(version) != VERSION || !json_is_string(key) ||
        strcmp(json_string_value(key), f->key) != 0 || !json_is_object(json_object_get(j, "sets"))) {
        json_decref(j);
        j = json_pack("{s:s, s:i, s:s, s:s, s:{}}", "format", FORMAT, "version", VERSION, "key", f->key, "backend",
                      f->base->impl->name, "sets");
    }
    return j;
}

/* A set's provenance as a host sends it, from its [[key, value], …]; false when it is not that. */
static bool pairs_of(const json_t *list, char **out, size_t *len)
{
    size_t total = 0, i;
    json_t *pair;
    if (!json_is_array(list))
        return false;
    json_array_foreach(list, i, pair) {
        for (size_t p = 0; p < 2; p++) {
            const json_t *s = json_array_get(pair, p);
            if (json_array_size(pair) != 2 || !json_is_string(s) || strlen(json_string_value(s)) != json_string_length(s))
                return false; /* a NUL inside would split a pair */
            total += json_string_length(s) + 1;
        }
    }
    if (total > PROVENANCE_MAX || !(*out = malloc(total + 1)))
        return false;
    size_t at = 0;
    json_array_foreach(list, i, pair) {
        for (size_t p = 0; p < 2; p++) {
            const json_t *s = json_array_get(pair, p);
            memcpy(*out + at, json_string_value(s), json_string_length(s) + 1);
            at += json_string_length(s) + 1;
        }
    }
    *len = at;
    return true;
}

bool fpd_kernel_set_cache_recall(struct fpd_backend_slot *base, const char *set, char **provenance, size_t *len)
{
    struct cache_file file, *f = &file;
    if (!locate(base, f))
        return false;
    json_t *j = load(f);
    bool found = pairs_of(json_object_get(json_object_get(j, "sets"), set), provenance, len);
    json_decref(j);
    return found;
}

/* Removes the library's files of other keys that no run has used for STALE_SECONDS. */
static void remove_stale(const struct cache_file *f)
{
    DIR *d = opendir(f->dir);
    char prefix[96], name[64];
    snprintf(prefix, sizeof prefix, "kernel-sets-%s-", file_name_part(f->base->impl->name, name, sizeof name));
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        struct stat sb;
        size_t len = strlen(e->d_name);
        bool ours = strncmp(e->d_name, prefix, strlen(prefix)) == 0 && len == strlen(prefix) + 16 + 5 &&
                    strcmp(e->d_name + len - 5, ".json") == 0;
        if (ours && fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode) &&
            time(NULL) - sb.st_mtime > STALE_SECONDS)
            unlinkat(dirfd(d), e->d_name, 0);
    }
    if (d)
        closedir(d);
}

void fpd_kernel_set_cache_keep(struct fpd_backend_slot *base, const char *set, const char *provenance, size_t len)
{
    struct cache_file file, *f = &file;
    char why[256];
    if (!locate(base, f) || fpd_make_dirs(f->dir, why, sizeof why) != FPD_OK)
        return;
    json_t *j = load(f), *pairs = json_array();
    for (size_t at = 0; at < len;) { /* the pairs as host.c parses them: a pair cut short ends them */
        const char *key = provenance + at;
        size_t key_len = strnlen(key, len - at);
        if (at + key_len + 1 >= len)
            break;
        const char *value = key + key_len + 1;
        size_t value_len = strnlen(value, len - at - key_len - 1);
        json_array_append_new(pairs, json_pack("[s%, s%]", key, key_len, value, value_len));
        at += key_len + 1 + value_len + 1;
    }
    json_object_set_new(json_object_get(j, "sets"), set, pairs);
    /* written beside it and renamed over it: a reader sees the old file or the new, never half */
    char tmp[PATH_MAX + 24];
    snprintf(tmp, sizeof tmp, "%s.%ld", f->path, (long)getpid());
    if (json_dump_file(j, tmp, JSON_INDENT(1) | JSON_ENSURE_ASCII) == 0 && rename(tmp, f->path) == 0)
        remove_stale(f);
    else
        unlink(tmp);
    json_decref(j);
}
