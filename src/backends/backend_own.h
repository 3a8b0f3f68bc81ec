/* backend_own.h — fpdiv's own CPU kernels as backends, one per stated order. */
#ifndef FPD_BACKEND_OWN_H
#define FPD_BACKEND_OWN_H

#include "fpdiv_backend.h"

extern const struct fpd_backend fpd_backend_seq, fpd_backend_pairwise, fpd_backend_splitk, fpd_backend_blocked;

#endif
