/*
 * fpenv.h — the floating-point environment fpdiv's own arithmetic needs: IEEE 754's default
 * (round to nearest, subnormals kept, no traps).
 *
 * A backend can change it: a library built with -ffast-math switches on flush-to-zero and
 * denormals-are-zero when it is loaded, and a kernel may set a rounding mode or unmask a trap and
 * not set it back. The setting belongs to the thread that made it, and to the threads and
 * processes it starts afterwards: fpdiv's main thread and every worker it forks. It would silently
 * change fpdiv's own kernels, its bound and its exact reference. So fpdiv checks the environment
 * after loading a plugin, after opening a backend and after every GEMM a backend runs, and puts
 * the default back; a backend that left it changed is told about. Threads already running (a
 * BLAS's pool) are the library's own, and not checked.
 *
 * What is checked: on x86-64, MXCSR (SSE arithmetic: rounding, flush-to-zero,
 * denormals-are-zero, trap masks) and the x87 control word (long double); elsewhere, the
 * rounding mode only. The sticky exception flags are ordinary arithmetic's business.
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

/* After code fpdiv does not control ran at a moment worth naming (`who`: "loading plugin x.so",
 * "opening backend y"): when the environment is not the default, puts it back and records a
 * notice, "<who> changed the floating-point environment (<what>; <hint>); ...", for main to print
 * (the core does not print). `hint` may be NULL. */
void fpd_fpenv_restore_noting(const char *who, const char *hint);
/* The notices recorded since the last call. */
size_t fpd_fpenv_take_notices(const char *const **out);

/* After code fpdiv does not control ran: when the environment is not the default, says what
 * differs in buf, puts the default back and returns false. */
bool fpd_fpenv_restore_default(char *buf, size_t size);

#endif
