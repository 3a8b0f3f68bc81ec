/*
 * old_abi7.c — old_abi.c built against backend ABI 7 (abi7/fpdiv_backend.h, frozen), before
 * args->alpha_exp and args->beta_exp: fpdiv must still load it, as an ABI 7 backend, and never
 * hand it BLAS's scalars, even with bit 12 of its features set, which ABI 7 did not define
 * (FPD_FEAT_SCALARS in ABI 8).
 */
#define OLD_ABI_HEADER "abi7/fpdiv_backend.h"
#define OLD_ABI_NAME "old-abi7"
#define OLD_ABI_FEATURES (FPD_FEAT_FUSED_BIAS | 1u << 12)
#define OLD_ABI_GEMM_MANY
#include "old_abi.c"
