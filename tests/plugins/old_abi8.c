/*
 * old_abi8.c — old_abi.c built against backend ABI 8 (abi8/fpdiv_backend.h, frozen), before the
 * route FPD_ROUTE_GEMM_COL_MAJOR and alpha's sign: fpdiv must still load it, as an ABI 8 backend,
 * and never hand it that route, even with bit 13 of its features set, which ABI 8 did not define
 * (FPD_FEAT_COL_MAJOR in ABI 9), nor BLAS's scalars, whose sign it would not read, even with bit 12
 * (FPD_FEAT_SCALARS) set.
 */
#define OLD_ABI_HEADER "abi8/fpdiv_backend.h"
#define OLD_ABI_NAME "old-abi8"
#define OLD_ABI_FEATURES (FPD_FEAT_FUSED_BIAS | 1u << 12 | 1u << 13)
#define OLD_ABI_GEMM_MANY
#include "old_abi.c"
