/* tc_reference.h — the first tensor-core model, the differential tests' reference (tc_reference.c). */
#ifndef FPD_TC_REFERENCE_H
#define FPD_TC_REFERENCE_H

#include "cpu/tensor_core.h"

/* As fpd_tc_dot (tensor_core.h): bias + the dot product of k terms, block after block. */
double fpd_tc_reference_dot(const struct fpd_tc_arith *arith, const float *a, ptrdiff_t as, const float *b,
                            ptrdiff_t bs, size_t k, double bias);

#endif
