/* cuda_fp16.h — the host shim's __half: the 16 bits, as the kernels only move them. */
#ifndef FPD_HOST_CUDA_FP16_H
#define FPD_HOST_CUDA_FP16_H

#include <stdint.h>

struct __half {
    uint16_t bits;
};

#endif
