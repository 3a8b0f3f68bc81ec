/* cmd_merge.c — `fpdiv merge OUT DIR...`: shard corpora into one, one case per signature. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "corpus.h"

static const char help[] =
    "usage: fpdiv merge OUT DIR...\n\n"
    "Merges corpora (the corpus directories of shards, say) into OUT: one case per signature\n"
    "(relation, backends, dtypes, verdict), the smallest one, whose count is the sum of the counts\n"
    "of the distinct cases of that signature. Cases are told apart by their content hash, so the\n"
    "same case in two directories counts once, and merging again changes nothing. Every file is\n"
    "read and checked before anything is written; files are written atomically.\n";

struct merge_item {
    char *path, *name; /* name: "<relation>/<hash>.json" */
    struct fpd_signature_key key;
    double elements;   /* batch * m * n * k: "smallest" */
    json_int_t count;
    bool in_out;       /* found in OUT, not in a DIR */
};

static int read_item(const char *path, bool in_out, struct merge_item *it, char *why, size_t why_size)
{
    *it = (struct merge_item){.in_out = in_out};
    if (fpd_case_file_signature(path, &it->key, why, why_size) != FPD_OK)
        return FPD_ERR_INPUT;
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    json_t *c = json_object_get(json_object_get(root, "check"), "case");
    const char *dims[] = {"batch", "m", "n", "k"};
    it->elements = 1;
    for (int d = 0; d < 4; d++) {
        json_t *v = json_object_get(c, dims[d]);
        if (!json_is_integer(v) || json_integer_value(v) < 1) {
            snprintf(why, why_size, "%s: check.case.%s: expected a positive integer", path, dims[d]);
            json_decref(root);
            return FPD_ERR_INPUT;
        }
        it->elements *= (double)json_integer_value(v);
    }
    json_t *count = json_object_get(root, "count");
    it->count = json_is_integer(count) && json_integer_value(count) > 0 ? json_integer_value(count) : 1;
    json_decref(root);
    const char *base = strrchr(path, '/');
    char name[256];
    snprintf(name, sizeof name, "%s/%s", it->key.relation, base ? base + 1 : path);
    it->path = strdup(path);
    it->name = strdup(name);
    return it->path && it->name ? FPD_OK : FPD_ERR_NOMEM;
}

/* Replaces OUT/name with root, atomically (temporary file, fsync, rename). */
static int write_atomic(const char *out, const char *name, json_t *root, char *why, size_t why_size)
{
    char path[4200], dir[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/%s", out, name);
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    if (fpd_make_dirs(dir, why, why_size) != FPD_OK)
        return FPD_ERR_INPUT;
    snprintf(tmp, sizeof tmp, "%s/.tmp-merge-XXXXXX", dir);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(why, why_size, "cannot write into %.900s: %s", dir, strerror(errno));
        return FPD_ERR_INPUT;
    }
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    char *text = json_dumps(root, JSON_INDENT(1));
    size_t len = text ? strlen(text) : 0;
    bool ok = text && write(fd, text, len) == (ssize_t)len && write(fd, "\n", 1) == 1 && fsync(fd) == 0;
    free(text);
    close(fd);
    if (!ok || rename(tmp, path) != 0) {
        snprintf(why, why_size, "cannot write %.900s: %s", path, strerror(errno));
        unlink(tmp);
        return FPD_ERR_INPUT;
    }
    return FPD_OK;
}

static int by_signature_then_size(const void *a, const void *b)
{
    const struct merge_item *x = a, *y = b;
    int c = memcmp(&x->key, &y->key, sizeof x->key);
    if (c)
        return c;
    if (x->elements < y->elements || x->elements > y->elements)
        return x->elements < y->elements ? -1 : 1;
    c = strcmp(x->name, y->name);
    return c ? c : (int)x->in_out - (int)y->in_out; /* a DIR's copy of a case before OUT's */
}

int fpd_cmd_merge(int argc, char **argv)
{
    int stop = fpd_cli_only_help("merge", argc, argv, help, -1);
    if (stop >= 0)
        return stop;
    if (argc - optind < 2 || !argv[optind][0]) {
        fpd_cli_error("merge", "give OUT (a directory name) and at least one DIR (see 'fpdiv merge --help')");
        return FPD_EXIT_USAGE;
    }
    const char *out = argv[optind];
    struct merge_item *items = NULL;
    size_t n = 0;
    char why[1024];
    int rc = FPD_OK;
    /* read everything first: a bad file stops the merge before anything is written */
    for (int a = optind; a < argc && rc == FPD_OK; a++) {
        struct stat st;
        bool is_out = a == optind;
        if (is_out && stat(out, &st) != 0)
            continue; /* a new OUT */
        char **files;
        size_t count;
        if ((rc = fpd_corpus_list(argv[a], &files, &count, why, sizeof why)) != FPD_OK)
            break;
        struct merge_item *grown = realloc(items, (n + count) * sizeof *items);
        if (!grown) {
            rc = FPD_ERR_NOMEM;
            snprintf(why, sizeof why, "out of memory");
        } else {
            items = grown;
        }
        for (size_t i = 0; i < count; i++) {
            if (rc == FPD_OK && (rc = read_item(files[i], is_out, &items[n], why, sizeof why)) == FPD_OK)
                n++;
            free(files[i]);
        }
        free(files);
    }
    if (rc != FPD_OK) {
        fpd_cli_error("merge", "%s (nothing was written)", why);
        for (size_t i = 0; i < n; i++)
            free(items[i].path), free(items[i].name);
        free(items);
        return rc == FPD_ERR_NOMEM ? FPD_EXIT_INTERNAL : FPD_EXIT_USAGE;
    }
    qsort(items, n, sizeof *items, by_signature_then_size);
    size_t signatures = 0, written = 0, removed = 0;
    for (size_t i = 0; i < n && rc == FPD_OK;) {
        size_t j = i;
        json_int_t total = 0;
        for (; j < n && memcmp(&items[j].key, &items[i].key, sizeof items[i].key) == 0; j++) {
            /* distinct cases: a name seen in a DIR counts once; OUT's own copy counts only alone */
            bool duplicate = false;
            for (size_t d = i; d < j && !duplicate; d++)
                duplicate = strcmp(items[d].name, items[j].name) == 0;
            if (!duplicate)
                total += items[j].count;
        }
        signatures++;
        json_error_t err;
        json_t *root = json_load_file(items[i].path, 0, &err);
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", out, items[i].name);
        json_t *existing = json_load_file(path, 0, &err);
        json_object_set_new(root, "count", json_integer(total));
        if (!existing || !json_equal(existing, root)) {
            rc = write_atomic(out, items[i].name, root, why, sizeof why);
            written++;
        }
        json_decref(existing);
        json_decref(root);
        for (size_t d = i + 1; d < j && rc == FPD_OK; d++) /* OUT keeps the smallest case only */
            if (items[d].in_out && strcmp(items[d].name, items[i].name) != 0 && unlink(items[d].path) == 0)
                removed++;
        printf("%-11s %s on %s%s%s: %s, count %" JSON_INTEGER_FORMAT "\n", fpd_verdict_table[items[i].key.verdict].name,
               items[i].key.relation, items[i].key.backends[0], items[i].key.backends[1][0] ? "," : "",
               items[i].key.backends[1], items[i].name, total);
        i = j;
    }
    printf("\n%zu signatures from %zu files; %zu written, %zu superseded in %s\n", signatures, n, written, removed, out);
    for (size_t i = 0; i < n; i++)
        free(items[i].path), free(items[i].name);
    free(items);
    if (rc != FPD_OK) {
        fpd_cli_error("merge", "%s", why);
        return FPD_EXIT_USAGE;
    }
    return FPD_EXIT_OK;
}
