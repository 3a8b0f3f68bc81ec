/*
 * old_abi6.c — old_abi.c built against backend ABI 6 (abi6/fpdiv_backend.h, frozen), before
 * gemm_concurrent: fpdiv must still load it, as an ABI 6 backend, and not ask it for concurrent calls.
 */
#define OLD_ABI_HEADER "abi6/fpdiv_backend.h"
#define OLD_ABI_NAME "old-abi6"
#define OLD_ABI_FEATURES FPD_FEAT_FUSED_BIAS
#define OLD_ABI_GEMM_MANY
#include "old_abi.c"
