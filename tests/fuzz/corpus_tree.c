/*
 * corpus_tree.c — libFuzzer harness for corpus directories (`make fuzz-parsers`): the trees a
 * pull request could bring, read as replay reads them and merged as `fpdiv merge` merges them.
 *
 * The input describes a tree: directories, files of any bytes or copies of a real case (edited
 * here and there by the bytes), symbolic links out of the tree, FIFOs, under names of any bytes.
 * Whatever it is, reading it refuses with reasons that name the path, nothing outside the tree
 * and the merge's output changes, and what the merge writes is regular files that load.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/backend.h"
#include "backends/builtin.h"
#include "cli/cmd.h"
#include "store/corpus.h"
#include "store/corpus_dir.h"

static char root[64], in[96], out[96], outside[96], target[128];
static const char target_text[] = "{\"outside\": \"the tree\"}\n";
static char *seeds[8];
static size_t seed_sizes[8], n_seeds;

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "%s: %s\n", what, detail);
    abort();
}

/* Up to 8 real case files, as the copies' starting points. */
static void load_seeds(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && n_seeds < 8 && (e = readdir(d)) != NULL) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = strstr(e->d_name, ".json") ? fopen(path, "rb") : NULL;
        if (!f)
            continue;
        char *text = malloc(1 << 16);
        size_t n = text ? fread(text, 1, (1 << 16) - 1, f) : 0;
        fclose(f);
        if (n > 0) {
            seeds[n_seeds] = text;
            seed_sizes[n_seeds++] = n;
        } else {
            free(text);
        }
    }
    if (d)
        closedir(d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fpd_registry_init();
    load_seeds("corpus/addmm");
    load_seeds("corpus/cast-out");
    snprintf(root, sizeof root, "/tmp/fpdiv-corpus-tree-XXXXXX");
    if (!mkdtemp(root))
        die("mkdtemp", root);
    snprintf(in, sizeof in, "%s/in", root);
    snprintf(out, sizeof out, "%s/out", root);
    snprintf(outside, sizeof outside, "%s/outside", root);
    snprintf(target, sizeof target, "%s/target.json", outside);
    if (mkdir(outside, 0755) != 0)
        die("mkdir", outside);
    FILE *f = fopen(target, "w");
    if (!f || fputs(target_text, f) < 0 || fclose(f) != 0)
        die("cannot write", target);
    return 0;
}

/* The input, read a byte at a time (zeros once it runs out). */
struct reader {
    const uint8_t *data;
    size_t size, at;
};

static unsigned next(struct reader *r)
{
    return r->at < r->size ? r->data[r->at++] : 0;
}

static bool more(const struct reader *r)
{
    return r->at < r->size;
}

/* A name of any bytes but '/' and NUL; sometimes a relation's, sometimes ending in .json. */
static void read_name(struct reader *r, char *name, size_t size)
{
    static const char *const relations[] = {"slice-rows", "addmm", "cast-out", "vendor", "core", "..", "."};
    unsigned kind = next(r);
    if (kind % 4 == 0) {
        snprintf(name, size, "%s", relations[next(r) % (sizeof relations / sizeof relations[0])]);
        return;
    }
    size_t len = next(r) % 48, n = 0;
    for (size_t i = 0; i < len && n + 1 < size; i++) {
        unsigned c = next(r);
        name[n++] = c == '/' || c == 0 ? '_' : (char)c;
    }
    name[n] = '\0';
    if (n == 0 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        snprintf(name, size, "x");
    if (kind % 4 != 3 && n + 6 < size)
        strcat(name, ".json");
}

static void write_file(const char *path, const char *text, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
    if (fd < 0)
        return; /* the name is taken: the tree is what it is */
    if (len && write(fd, text, len) != (ssize_t)len)
        die("cannot write", path);
    close(fd);
}

/* A copy of a real case with a few bytes of it replaced: mostly still JSON, often still a case. */
static void write_edited_seed(struct reader *r, const char *path)
{
    if (n_seeds == 0)
        return;
    size_t which = next(r) % n_seeds, len = seed_sizes[which];
    char *text = malloc(len);
    if (!text)
        return;
    memcpy(text, seeds[which], len);
    for (unsigned edits = next(r) % 4; edits > 0; edits--) {
        size_t at = ((size_t)next(r) << 8 | next(r)) % len;
        text[at] = (char)next(r);
    }
    write_file(path, text, len);
    free(text);
}

static void link_to(const char *to, const char *path)
{
    int rc = symlink(to, path); /* fails only where the name is taken: the tree is what it is */
    (void)rc;
}

/* Builds the tree the input describes under `in`. */
static void build_tree(struct reader *r)
{
    char dirs[16][1024];
    size_t n_dirs = 1;
    snprintf(dirs[0], sizeof dirs[0], "%s", in);
    mkdir(in, 0755);
    for (int entries = 0; entries < 24 && more(r); entries++) {
        unsigned kind = next(r) % 7;
        const char *parent = dirs[next(r) % n_dirs];
        char name[128], path[1200];
        read_name(r, name, sizeof name);
        snprintf(path, sizeof path, "%s/%s", parent, name);
        switch (kind) {
        case 0:
            if (mkdir(path, 0755) == 0 && n_dirs < 16)
                snprintf(dirs[n_dirs++], sizeof dirs[0], "%s", path);
            break;
        case 1: {
            char text[512];
            size_t len = next(r) % sizeof text;
            for (size_t i = 0; i < len; i++)
                text[i] = (char)next(r);
            write_file(path, text, len);
            break;
        }
        case 2:
        case 3: write_edited_seed(r, path); break;
        case 4: link_to(outside, path); break;
        case 5: link_to(target, path); break;
        case 6: mkfifo(path, 0644); break;
        }
    }
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    remove(path);
    return 0;
}

static void remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* What replay does: list, and load each case file; a refusal names the path. */
static void read_as_replay(const char *dir)
{
    struct fpd_corpus_entry *entries;
    size_t n;
    char why[1024];
    if (fpd_corpus_list(dir, &entries, &n, why, sizeof why) != FPD_OK)
        return; /* out of memory, or no tree at all */
    for (size_t i = 0; i < n; i++) {
        if (entries[i].refused) {
            if (!entries[i].refused[0])
                die("an entry refused without a reason", entries[i].path);
            continue;
        }
        struct fpd_case_file f;
        if (fpd_case_file_load(entries[i].path, &f, why, sizeof why) == FPD_OK)
            fpd_case_file_free(&f);
        else if (strncmp(why, entries[i].path, strlen(entries[i].path)) != 0)
            die("a case file refused without naming it", why);
    }
    fpd_corpus_entries_free(entries, n);
}

/* `fpdiv merge OUT IN`, quietly. */
static void merge(void)
{
    char *argv[] = {"merge", out, in, NULL};
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2), null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    optind = 0;
    fpd_cmd_merge(3, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    close(null);
}

/* The merge wrote directories and case files that load, "<16-hex>.json"; nothing else (no
 * temporary left behind). */
static int check_written(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    const char *base = path + ftw->base;
    if (type == FTW_SL || type == FTW_SLN || (type == FTW_F && !S_ISREG(st->st_mode)))
        die("merge wrote something that is not a regular file", path);
    if (type == FTW_F && (strlen(base) != 21 || strspn(base, "0123456789abcdef") != 16 || strcmp(base + 16, ".json")))
        die("merge wrote a file that is not a case file's name", path);
    if (type == FTW_F) {
        struct fpd_case_file f;
        char why[1024];
        if (fpd_case_file_load(path, &f, why, sizeof why) != FPD_OK)
            die("merge wrote a case that does not load", why);
        fpd_case_file_free(&f);
    }
    return 0;
}

static void check_outside_untouched(void)
{
    char text[sizeof target_text + 8] = "";
    FILE *f = fopen(target, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    if (strcmp(text, target_text) != 0)
        die("a file outside the tree changed", target);
    DIR *d = opendir(outside);
    struct dirent *e;
    int count = 0;
    while (d && (e = readdir(d)) != NULL)
        count++;
    if (d)
        closedir(d);
    if (count != 3) /* ., .., target.json */
        die("something was written outside the tree", outside);
    d = opendir(root);
    while (d && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "in") && strcmp(e->d_name, "out") &&
            strcmp(e->d_name, "outside"))
            die("something was written beside the tree", e->d_name);
    if (d)
        closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct reader r = {data, size, 0};
    build_tree(&r);
    read_as_replay(in);
    merge();
    check_outside_untouched();
    nftw(out, check_written, 16, FTW_PHYS);
    remove_tree(in);
    remove_tree(out);
    return 0;
}
