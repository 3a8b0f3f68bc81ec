/* plugin.c — the CUDA plugin's entry point: fpdiv loads build/fpdiv-cuda.so at start-up when present. */
#include <stdio.h>

#include "fpdiv_backend.h"

extern const struct fpd_backend fpd_backend_cuda_seq, fpd_backend_cuda_tiled, fpd_backend_cuda_splitk,
    fpd_backend_cuda_wmma, fpd_backend_cublas, fpd_backend_cublaslt;

static const struct fpd_backend *const backends[] = {
    &fpd_backend_cuda_seq, &fpd_backend_cuda_tiled, &fpd_backend_cuda_splitk,
    &fpd_backend_cuda_wmma, &fpd_backend_cublas,    &fpd_backend_cublaslt,
};

const struct fpd_backend *const *fpdiv_plugin_init(int abi, size_t *count, char *why, size_t why_size)
{
    if (abi != FPDIV_BACKEND_ABI) {
        snprintf(why, why_size, "fpdiv-cuda.so speaks backend ABI %d, fpdiv %d: rebuild them together",
                 FPDIV_BACKEND_ABI, abi);
        return NULL;
    }
    *count = sizeof backends / sizeof backends[0];
    return backends;
}
