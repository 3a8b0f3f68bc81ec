/*
 * old_abi2.c — old_abi.c built against backend ABI 2 (abi2/fpdiv_backend.h, frozen), before routes.
 * It sets a feature bit ABI 2 never defined, the one ABI 3 gave to routes: fpdiv must not believe
 * it, for this plugin's gemm never reads a route.
 */
#define OLD_ABI_HEADER "abi2/fpdiv_backend.h"
#define OLD_ABI_NAME "old-abi2"
#define OLD_ABI_FEATURES (FPD_FEAT_FUSED_BIAS | 1u << 3)
#include "old_abi.c"
