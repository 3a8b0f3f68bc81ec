/* k_remainder.c — a reduction unrolled by 8 whose remainder is dropped: where k is not a multiple
 * of 8 (and above 8), the last k % 8 terms of every sum are missing (BLIS's sgemmsup kernels read
 * past k % 8 != 0, flame/blis #821, the same family). Both paths of most relations share it; a path
 * through another routine (gemv, dot) or the exact reference does not. Class: remainder loops. */
#include "../zoo.h"

static int summed(int k) { return k > 8 ? k - k % 8 : k; }

ZOO_GEMM_SUMMING(summed)
