/* cuda_bf16.h — the host shim's __nv_bfloat16: the 16 bits, as the kernels only move them. */
#ifndef FPD_HOST_CUDA_BF16_H
#define FPD_HOST_CUDA_BF16_H

#include <stdint.h>

struct __nv_bfloat16 {
    uint16_t bits;
};

#endif
