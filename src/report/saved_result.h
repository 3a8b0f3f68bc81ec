/* saved_result.h — what `sweep`, `bisect` and `explain` leave beside a corpus (--save-to DIR) for
 * `fpdiv report` to draw: one JSON file each, in DIR/results/<kind>/ (corpus_dir.h).
 *
 * {"schema": 1, "kind", "fpdiv", "title", "command", "environment", ...}: the header every kind
 * shares (the command that made it, as a shell command line), then the kind's own members:
 *   sweep:   "dim", "probes" (every point, in order)
 *   bisect:  "dim", "by", "probes" (in the order they ran), "boundaries": [{"before", "after"}]
 *   explain: "trees": [{"label", "order", "known", "tree" (sumtree.h's JSON)}]
 * A probe is {"value", "verdict", "diff", "count", "max_abs", "max_ulp", "ratio", "key"} (ratio and
 * max_abs null where not finite or not taken), or {"value", "skipped": reason}. */
#ifndef FPD_SAVED_RESULT_H
#define FPD_SAVED_RESULT_H

#include <jansson.h>

#include "engine/bisect.h"
#include "explain/sumtree.h"

enum fpd_saved_kind { FPD_SAVED_SWEEP, FPD_SAVED_BISECT, FPD_SAVED_EXPLAIN, FPD_SAVED_KIND_COUNT };
extern const char *const fpd_saved_kind_names[FPD_SAVED_KIND_COUNT];

#define FPD_SAVED_SCHEMA 1

/* The shared header with the kind's own members (an object); `environment` and `members` are
 * taken (NULL: an environment unrecorded; members that could not be made). NULL when out of
 * memory. */
json_t *fpd_saved_result_new(enum fpd_saved_kind kind, int argc, char **argv, const char *title, json_t *environment,
                             json_t *members);
/* Saves doc (taken; NULL: out of memory) in corpus_dir/results/<kind>/ and says where on stdout
 * ("saved ..." or "already saved ..."); an error is printed as `command`'s. An exit status:
 * FPD_EXIT_OK, _USAGE or _INTERNAL. */
int fpd_saved_result_write(const char *corpus_dir, const char *command, json_t *doc);

json_t *fpd_shape_probes_json(const struct fpd_shape_probe *probes, size_t n);
/* The probes of a saved result, checked as untrusted input: FPD_ERR_INPUT with why naming the
 * member, FPD_ERR_NOMEM, or FPD_OK (*probes malloc'd). */
int fpd_shape_probes_from_json(json_t *array, struct fpd_shape_probe **probes, size_t *n, char *why, size_t why_size);

/* A saved result read back whole, checked as untrusted input, for the page to draw. */
struct fpd_saved_result {
    char *path;
    enum fpd_saved_kind kind;
    json_t *doc;
    struct fpd_shape_probe *probes; /* sweep, bisect */
    size_t probe_count;
    struct fpd_shape_probe *boundaries; /* bisect: before and after of each, in pairs */
    size_t boundary_count;
    struct fpd_sumtree *trees; /* explain */
    size_t tree_count;
};
/* Reads a saved result of `kind`: FPD_ERR_INPUT with why (file:line:column for bad JSON, else the
 * member at fault), FPD_ERR_NOMEM, or FPD_OK. */
int fpd_saved_result_load(const char *path, enum fpd_saved_kind kind, struct fpd_saved_result *r, char *why,
                          size_t why_size);
/* The same from text in memory, named `name` (the parser fuzzer's way in). */
int fpd_saved_result_parse(const char *name, const char *text, size_t len, enum fpd_saved_kind kind,
                           struct fpd_saved_result *r, char *why, size_t why_size);
void fpd_saved_result_free(struct fpd_saved_result *r);

#endif
