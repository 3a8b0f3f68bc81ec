/* clones.h — one compiled copy of a function per x86-64 vector width, chosen when fpdiv loads. */
#ifndef FPD_CLONES_H
#define FPD_CLONES_H

/* For the per-element loops that vectorize: AVX-512, AVX2 and baseline SSE2 clones, picked by the
 * CPU at load time (gcc's target_clones); elsewhere the compiler's own vectorization for the
 * target. The clones compute the same values: only how many lanes they take at a time differs.
 * What a clone calls is inlined into it (always_inline) or is a library's: after a call from an
 * AVX-512 clone to a static function of the baseline ISA, gcc 12 left the vzeroupper out of the
 * clone's return path, and the dirty upper halves then slowed every SSE instruction after it
 * (libxxhash's hashing ran 3.5x slower). */
#if defined(__x86_64__)
#define FPD_VECTOR_WIDTH_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define FPD_VECTOR_WIDTH_CLONES
#endif

#endif
