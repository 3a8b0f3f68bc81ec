/* cmd_merge.c — `fpdiv merge OUT DIR...`: shard corpora into one, one case per signature. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cmd.h"
#include "common/array.h"
#include "common/text.h"
#include "store/corpus_dir.h"

static const char help[] =
    "usage: fpdiv merge OUT DIR...\n\n"
    "Merges corpora (the corpus directories of shards, say) into OUT: one case per signature\n"
    "(relation, backends, dtypes, verdict), the smallest one, whose count is the sum of the counts\n"
    "of the distinct cases of that signature. Cases are told apart by their content hash, so the\n"
    "same case in two directories counts once; a merged case lists the cases it counts\n"
    "(\"merged_from\"), so merging again, or merging OUT with an input it already holds, changes\n"
    "nothing. OUT may not be inside an input, nor an input inside OUT. Every file is read and\n"
    "checked as replay checks it before anything is written; a malformed file, or anything in a\n"
    "corpus that cannot be a case file (a symbolic link, a FIFO), stops the merge with nothing\n"
    "written. Cases are written atomically, each at the name its content gives it, inside OUT and\n"
    "nowhere else.\n";

struct merge_item {
    char *path;        /* where it was read */
    char name[64];     /* "<relation>/<16-hex>.json": what its content names it */
    struct fpd_signature_key key;
    double elements;   /* batch * m * n * k: "smallest" */
    size_t count;
    json_t *merged_from; /* the cases a merged one counts (owned), or NULL: it counts itself */
    bool in_out;       /* found in OUT, not in a DIR */
};

/* Reads and validates one case file, as replay would. */
static int read_item(const char *path, bool in_out, struct merge_item *it, char *why, size_t why_size)
{
    struct fpd_case_file f;
    *it = (struct merge_item){.in_out = in_out};
    if (fpd_case_file_load(path, &f, why, why_size) != FPD_OK)
        return FPD_ERR_INPUT;
    uint64_t hash;
    int rc = fpd_case_file_hash(&f, &hash);
    if (rc == FPD_OK) {
        const struct fpd_case *c = &f.chk.c;
        fpd_signature_of(&f.chk, f.recorded.verdict, &it->key);
        snprintf(it->name, sizeof it->name, "%s/%016" PRIx64 ".json", f.chk.relation->name, hash);
        it->elements = (double)c->batch * c->m * c->n * c->k;
        it->count = f.signature_count;
        it->merged_from = json_incref(f.merged_from);
        it->path = strdup(path);
        rc = it->path ? FPD_OK : FPD_ERR_NOMEM;
    }
    if (rc != FPD_OK)
        snprintf(why, why_size, "out of memory");
    fpd_case_file_free(&f);
    return rc;
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

static void free_items(struct merge_item *items, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(items[i].path);
        json_decref(items[i].merged_from);
    }
    free(items);
}

/* Reads every case under the paths (OUT's own first); the first failure stops it. */
static int read_all(const char *out, char **dirs, int n_dirs, struct merge_item **items, size_t *n, size_t *cap,
                    char *why, size_t why_size)
{
    struct stat st;
    for (int a = -1; a < n_dirs; a++) {
        const char *dir = a < 0 ? out : dirs[a];
        if (a < 0 && stat(out, &st) != 0)
            continue; /* a new OUT */
        struct fpd_corpus_entry *entries;
        size_t count;
        int rc = fpd_corpus_list(dir, &entries, &count, why, why_size);
        if (rc != FPD_OK)
            return rc;
        if (!FPD_ARRAY_RESERVE(*items, *cap, *n + count)) {
            fpd_corpus_entries_free(entries, count);
            snprintf(why, why_size, "out of memory");
            return FPD_ERR_NOMEM;
        }
        for (size_t i = 0; i < count && rc == FPD_OK; i++) {
            if (entries[i].refused) {
                snprintf(why, why_size, "%s: %s", entries[i].path, entries[i].refused);
                rc = FPD_ERR_INPUT;
            } else if ((rc = read_item(entries[i].path, a < 0, &(*items)[*n], why, why_size)) == FPD_OK) {
                (*n)++;
            }
        }
        fpd_corpus_entries_free(entries, count);
        if (rc != FPD_OK)
            return rc;
    }
    return FPD_OK;
}

static int by_name(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* The cases a signature's items count, each once however often it was found (a case's name is
 * its content): name -> count, the larger where two records of one case disagree, in the order of
 * their names (the file's bytes must not depend on the order of the inputs). NULL when out of
 * memory. */
static json_t *counted_cases(const struct merge_item *items, size_t n, size_t *total)
{
    json_t *cases = json_object(), *sorted = json_object();
    for (size_t i = 0; cases && i < n; i++) {
        json_t *own = items[i].merged_from ? NULL : json_pack("{s:I}", items[i].name, (json_int_t)items[i].count);
        const char *name;
        json_t *count;
        json_object_foreach(items[i].merged_from ? items[i].merged_from : own, name, count)
        {
            json_t *seen = json_object_get(cases, name);
            if (!seen || json_integer_value(seen) < json_integer_value(count))
                json_object_set(cases, name, count);
        }
        json_decref(own);
    }
    const char **names = cases && sorted ? malloc((json_object_size(cases) + 1) * sizeof *names) : NULL;
    size_t n_names = 0;
    const char *name;
    json_t *count;
    json_object_foreach(names ? cases : NULL, name, count)
        names[n_names++] = name;
    if (n_names > 1)
        qsort(names, n_names, sizeof *names, by_name);
    *total = 0;
    for (size_t i = 0; i < n_names; i++) { /* each at most FPD_SIGNATURE_COUNT_MAX: no wrap */
        count = json_object_get(cases, names[i]);
        *total += (size_t)json_integer_value(count);
        json_object_set(sorted, names[i], count);
    }
    bool made = names != NULL;
    free(names);
    json_decref(cases);
    if (!made)
        json_decref(sorted);
    return made ? sorted : NULL;
}

/* The real path of a directory that may not exist yet: its nearest existing ancestor's, with the
 * rest of the path appended and read as mkdir -p will make it ("." and ".." taken away, no "//",
 * no trailing '/': ghost/../in is in). */
static bool real_dir(const char *path, char *out, size_t size)
{
    char prefix[4200], joined[8400];
    size_t len = strlen(path);
    if (len >= sizeof prefix)
        return false;
    for (size_t cut = len;;) {
        memcpy(prefix, path, cut);
        prefix[cut] = '\0';
        char *resolved = realpath(cut ? prefix : ".", NULL);
        if (resolved) {
            snprintf(joined, sizeof joined, "%s/%s", resolved, path + cut);
            free(resolved);
            break;
        }
        if (cut == 0)
            return false;
        while (cut > 0 && path[cut - 1] != '/') /* the last component goes */
            cut--;
        while (cut > 1 && path[cut - 1] == '/') /* and the slashes before it, but a leading one */
            cut--;
    }
    size_t o = 0;
    out[0] = '\0';
    for (char *part = strtok(joined, "/"); part; part = strtok(NULL, "/")) {
        if (strcmp(part, ".") == 0)
            continue;
        if (strcmp(part, "..") == 0) { /* the existing part has none: what it takes away was to be made */
            while (o > 0 && out[--o] != '/')
                ;
            out[o] = '\0';
            continue;
        }
        int w = snprintf(out + o, size - o, "/%s", part);
        if (w < 0 || (size_t)w >= size - o)
            return false;
        o += (size_t)w;
    }
    if (o == 0)
        snprintf(out, size, "/");
    return true;
}

/* Whether one of the two real paths is the other or inside it. */
static bool overlap(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), l = la < lb ? la : lb;
    return strncmp(a, b, l) == 0 && (la == lb || (la < lb ? b[la] == '/' || la == 1 : a[lb] == '/' || lb == 1));
}

/* OUT's copy of `name` is the case at its place there: OUT/<relation>/<16-hex>.json. */
static bool at_its_place(const char *out, const struct merge_item *it)
{
    char place[4200];
    snprintf(place, sizeof place, "%s/%s", out, it->name);
    return strcmp(place, it->path) == 0;
}

int fpd_cmd_merge(int argc, char **argv)
{
    int stop = fpd_cli_only_help("merge", argc, argv, help, -1);
    if (stop >= 0)
        return stop;
    if (argc - optind < 2 || !argv[optind][0]) {
        fpd_console_error("merge", "give OUT (a directory name) and at least one DIR (see 'fpdiv merge --help')");
        return FPD_EXIT_USAGE;
    }
    const char *out = argv[optind];
    struct merge_item *items = NULL;
    size_t n = 0, cap = 0;
    char why[1024], real_out[4200], real_in[4200];
    /* an OUT inside an input would be read as more of that input by every later merge and replay */
    if (!real_dir(out, real_out, sizeof real_out)) {
        fpd_console_error("merge", "%s: cannot resolve where OUT is", out);
        return FPD_EXIT_USAGE;
    }
    for (int a = optind + 1; a < argc; a++) {
        if (!real_dir(argv[a], real_in, sizeof real_in)) {
            fpd_console_error("merge", "%s: cannot resolve where the input is", argv[a]);
            return FPD_EXIT_USAGE;
        }
        if (overlap(real_out, real_in)) {
            fpd_console_error("merge", "OUT %s and the input %s %s (nothing was written)", out, argv[a],
                          strcmp(real_out, real_in) == 0 ? "are one directory"
                          : strlen(real_out) > strlen(real_in) ? "overlap: OUT is inside the input"
                                                               : "overlap: the input is inside OUT");
            return FPD_EXIT_USAGE;
        }
    }
    fpd_corpus_clean_stale(out);
    /* read everything first: a bad file stops the merge before anything is written */
    int rc = read_all(out, argv + optind + 1, argc - optind - 1, &items, &n, &cap, why, sizeof why);
    if (rc != FPD_OK) {
        fpd_console_error("merge", "%s (nothing was written)", why);
        free_items(items, n);
        return rc == FPD_ERR_NOMEM ? FPD_EXIT_INTERNAL : FPD_EXIT_USAGE;
    }
    if (n > 1)
        qsort(items, n, sizeof *items, by_signature_then_size);
    /* no signature's counts may sum past what a case may count, found before anything is written */
    for (size_t i = 0, j; i < n && rc == FPD_OK; i = j) {
        size_t total = 0;
        for (j = i; j < n && memcmp(&items[j].key, &items[i].key, sizeof items[i].key) == 0;)
            j++;
        json_t *cases = counted_cases(items + i, j - i, &total);
        if (!cases)
            rc = FPD_ERR_NOMEM;
        else if (total > FPD_SIGNATURE_COUNT_MAX)
            rc = FPD_ERR_INPUT;
        json_decref(cases);
        if (rc == FPD_ERR_INPUT)
            fpd_console_error("merge", "the counts of the cases of %s's signature (%s) sum to %zu, past the %llu a case "
                          "may count (nothing was written)", items[i].key.relation, items[i].name, total,
                          FPD_SIGNATURE_COUNT_MAX);
    }
    if (rc != FPD_OK) {
        free_items(items, n);
        return rc == FPD_ERR_NOMEM ? FPD_EXIT_INTERNAL : FPD_EXIT_USAGE;
    }
    size_t signatures = 0, written = 0, removed = 0;
    for (size_t i = 0; i < n && rc == FPD_OK;) {
        size_t j = i, total = 0;
        while (j < n && memcmp(&items[j].key, &items[i].key, sizeof items[i].key) == 0)
            j++;
        json_t *cases = counted_cases(items + i, j - i, &total);
        signatures++;
        /* the smallest, with the summed count and the cases it sums (unless it counts itself alone),
         * in the current schema; rewritten only when it differs */
        struct fpd_case_file f, existing;
        char path[4400];
        bool same = false;
        if (!cases) {
            rc = FPD_ERR_NOMEM;
            snprintf(why, sizeof why, "out of memory");
            break;
        }
        if ((rc = fpd_case_file_load(items[i].path, &f, why, sizeof why)) != FPD_OK) {
            json_decref(cases);
            break;
        }
        f.signature_count = total;
        json_decref(f.merged_from);
        f.merged_from = json_object_size(cases) == 1 && json_object_get(cases, items[i].name) ? NULL : json_incref(cases);
        json_decref(cases);
        snprintf(path, sizeof path, "%s/%s", out, items[i].name);
        struct stat st;
        if (stat(path, &st) == 0 && fpd_case_file_load(path, &existing, why, sizeof why) == FPD_OK) {
            json_t *a = fpd_case_file_json(&f), *b = fpd_case_file_json(&existing);
            same = json_equal(a, b);
            json_decref(a), json_decref(b);
            fpd_case_file_free(&existing);
        }
        if (!same && (rc = fpd_case_file_replace(out, &f, path, sizeof path, why, sizeof why)) == FPD_OK)
            written++;
        fpd_case_file_free(&f);
        /* OUT keeps the smallest case only: its other cases of the signature go, where they are
         * at their own place (anything else in OUT is not the merge's to remove) */
        for (size_t d = i + 1; d < j && rc == FPD_OK; d++) {
            const char *slash = strchr(items[d].name, '/');
            if (!items[d].in_out || strcmp(items[d].name, items[i].name) == 0 || !at_its_place(out, &items[d]))
                continue;
            char relation[32];
            snprintf(relation, sizeof relation, "%.*s", (int)(slash - items[d].name), items[d].name);
            if (fpd_corpus_remove(out, relation, slash + 1, why, sizeof why) == FPD_OK)
                removed++;
            else
                fpd_console_error("merge", "%s", why);
        }
        if (rc == FPD_OK)
            printf("%-11s %s on %s%s%s: %s, count %zu\n", fpd_verdict_table[items[i].key.verdict].name,
                   items[i].key.relation, items[i].key.backends[0], items[i].key.backends[1][0] ? "," : "",
                   items[i].key.backends[1], items[i].name, total);
        i = j;
    }
    char shown[4096];
    if (rc == FPD_OK)
        printf("\n%zu signatures from %zu files; %zu written, %zu superseded in %s\n", signatures, n, written, removed,
               fpd_printable(out, shown, sizeof shown));
    free_items(items, n);
    if (rc != FPD_OK) {
        fpd_console_error("merge", "%s (%zu written before it)", why, written);
        return rc == FPD_ERR_NOMEM ? FPD_EXIT_INTERNAL : FPD_EXIT_USAGE;
    }
    return FPD_EXIT_OK;
}
