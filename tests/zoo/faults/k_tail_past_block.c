/* k_tail_past_block.c — the blocked path (k past one block of 256) unrolls k by 4, with tail code
 * for a remainder of 1 and of 3 and none for 2: where k > 256 and k % 4 == 2, the last two terms of
 * every sum are dropped. Shorter sums take the small-matrix path and are right. Unlike
 * k_remainder.c, no sum of 256 terms or fewer shows it. Class: remainder loops past a block size. */
#include "../zoo.h"

static int summed(int k) { return k > 256 && k % 4 == 2 ? k - 2 : k; }

ZOO_GEMM_SUMMING(summed)
