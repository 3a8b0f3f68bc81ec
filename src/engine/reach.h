/* reach.h — shapes past a campaign's common draws, where long reductions and block boundaries are. */
#ifndef FPD_REACH_H
#define FPD_REACH_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/case.h"
#include "engine/relation.h"

/* One case in FPD_REACH_EVERY (on average) of a campaign that did not bound its shapes (--max-dim)
 * takes a shape from one of these families instead of its common draw (m, n, k up to --max-dim).
 * The choice is drawn from a stream of its own, so every other case is drawn as before. */
enum { FPD_REACH_EVERY = 64 };

enum fpd_reach_family {
    FPD_REACH_BLOCK_K, /* k within 8 of a power of two or a library's block size, up to 2^16; m, n small */
    FPD_REACH_LONG_DOT, /* a dot of about 2^22 terms: m and n as small as the relation allows */
    FPD_REACH_LONG_GEMV, /* sums of about 2^21 terms into a few outputs: a gemv's long columns */
    FPD_REACH_TALL,      /* about 2^21 output rows of a few short sums: a gemv's long output */
    FPD_REACH_WIDE,      /* m or n within 8 of a library's panel width (its MC or NC block), the rest small;
                            one case in 4 both, at widths up to 640 */
    FPD_REACH_FAMILY_COUNT
};
extern const char *const fpd_reach_family_names[FPD_REACH_FAMILY_COUNT];

/* Whether case `index` of the campaign of `seed` takes a reach shape for relation r; if so, c's
 * batch, m, n and k are set to it (the caller keeps the common shape where this one does not fit
 * the memory budget) and *family says which. */
bool fpd_reach_shape(uint64_t seed, uint32_t index, const struct fpd_relation *r, struct fpd_case *c,
                     enum fpd_reach_family *family);

#endif
