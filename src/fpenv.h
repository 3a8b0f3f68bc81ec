/*
 * fpenv.h — the floating-point environment fpdiv's own arithmetic needs: IEEE 754's default
 * (round to nearest, subnormals kept, no traps).
 *
 * A backend can change it for the whole process: a library built with -ffast-math switches on
 * flush-to-zero and denormals-are-zero when it is loaded, and a kernel may set a rounding mode or
 * unmask a trap and not set it back. Either would silently change fpdiv's own kernels, its bound
 * and its exact reference. So fpdiv checks the environment after loading a plugin and after every
 * GEMM a backend runs, and puts the default back; a backend that left it changed is told about.
 * Only the control settings count; the sticky exception flags are ordinary arithmetic's business.
 */
#ifndef FPD_FPENV_H
#define FPD_FPENV_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the current environment is the default. Cheap (two register reads on x86-64): it runs
 * after every GEMM. */
bool fpd_fpenv_is_default(void);

/* What differs from the default, in words ("flush-to-zero on, rounding toward +Inf"); "" when
 * nothing does. */
void fpd_fpenv_describe(char *buf, size_t size);

/* Puts the default back. */
void fpd_fpenv_reset(void);

/* After code fpdiv does not control ran: when the environment is not the default, says what
 * differs in buf, puts the default back and returns false. */
bool fpd_fpenv_restore_default(char *buf, size_t size);

#endif
