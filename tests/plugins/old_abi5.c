/*
 * old_abi5.c — old_abi.c built against backend ABI 5 (abi5/fpdiv_backend.h, frozen), before the
 * status FPD_ERR_NOT_APPLICABLE, with gemm_many: fpdiv must still load it, as an ABI 5 backend.
 */
#define OLD_ABI_HEADER "abi5/fpdiv_backend.h"
#define OLD_ABI_NAME "old-abi5"
#define OLD_ABI_FEATURES FPD_FEAT_FUSED_BIAS
#define OLD_ABI_GEMM_MANY
#include "old_abi.c"
