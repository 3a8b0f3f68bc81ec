/* vector_width.h — which x86-64 vector width fpdiv's own loops use: the widest the CPU has, or a
 * narrower one the user asks for (FPDIV_VECTOR_WIDTH), so that one machine can measure and test
 * the paths another class of CPU takes. */
#ifndef FPD_VECTOR_WIDTH_H
#define FPD_VECTOR_WIDTH_H

#include <stddef.h>

/* Ordered: each width has every instruction of those before it. AVX2 is x86-64-v3 (AVX2, FMA,
 * BMI2, ...), AVX-512 is x86-64-v4; baseline is SSE2, every x86-64's (and the only one elsewhere). */
enum fpd_vector_width { FPD_VECTOR_BASELINE, FPD_VECTOR_AVX2, FPD_VECTOR_AVX512, FPD_VECTOR_WIDTHS };

#define FPD_VECTOR_WIDTH_ENV "FPDIV_VECTOR_WIDTH"

/* The width in use: the narrower of the CPU's widest and $FPDIV_VECTOR_WIDTH, read once (a value
 * that fpd_vector_width_from_environment would refuse is ignored here: the CLI refuses it first). */
enum fpd_vector_width fpd_vector_width(void);
/* The widest this CPU runs. */
enum fpd_vector_width fpd_vector_width_of_cpu(void);
/* "avx512", "avx2", "baseline": the names FPDIV_VECTOR_WIDTH takes. */
const char *fpd_vector_width_name(enum fpd_vector_width w);
/* Uses at most `w` from now on; -1 (and err) where the CPU does not have it. */
int fpd_vector_width_limit(enum fpd_vector_width w, char *err, size_t errlen);
/* Applies $FPDIV_VECTOR_WIDTH; -1 with a message naming the variable where it names no width or
 * one wider than the CPU's. Unset or empty: the CPU's widest. */
int fpd_vector_width_from_environment(char *err, size_t errlen);

#endif
