/* backend_tensor_core.h — NVIDIA tensor cores' arithmetic on the CPU, one backend per GPU. */
#ifndef FPD_BACKEND_TENSOR_CORE_H
#define FPD_BACKEND_TENSOR_CORE_H

#include "fpdiv_backend.h"

extern const struct fpd_backend fpd_backend_tc_v100, fpd_backend_tc_a100, fpd_backend_tc_ada, fpd_backend_tc_h100,
    fpd_backend_tc_b200, fpd_backend_tc_b200rn;

#endif
