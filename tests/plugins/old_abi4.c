/*
 * old_abi4.c — old_abi.c built against backend ABI 4 (abi4/fpdiv_backend.h, frozen), before
 * `rounding`, with gemm_many: fpdiv must keep the gemm_many of an ABI 4 backend it upgrades, and
 * call it (it counts its calls, and fails a GEMM of k = 13 with its own reason, which must reach
 * only that GEMM's check).
 */
#define OLD_ABI_HEADER "abi4/fpdiv_backend.h"
#define OLD_ABI_NAME "old-abi4"
#define OLD_ABI_FEATURES FPD_FEAT_FUSED_BIAS
#define OLD_ABI_GEMM_MANY
#include "old_abi.c"
