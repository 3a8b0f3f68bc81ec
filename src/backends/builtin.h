/* builtin.h — the backends fpdiv is built with: its own kernels, the exact reference, the
 * tensor-core models, the BLAS libraries and the frameworks, in the order `fpdiv list` shows them. */
#ifndef FPD_BUILTIN_H
#define FPD_BUILTIN_H

/* Registers the built-in backends once, ahead of any other; later calls do nothing. */
void fpd_registry_init(void);

#endif
