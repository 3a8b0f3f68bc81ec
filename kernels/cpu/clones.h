/* clones.h — one compiled copy of a function per x86-64 vector width, the one in use chosen on
 * every call (vector_width.h). */
#ifndef FPD_CLONES_H
#define FPD_CLONES_H

#include "vector_width.h"

/* For the per-element loops that vectorize: AVX-512, AVX2 and baseline SSE2 copies; elsewhere the
 * compiler's own vectorization for the target. The copies compute the same values: only how many
 * lanes they take at a time differs.
 *
 * FPD_VECTOR_WIDTH_FUNCTION(RET, NAME, (PARAMS), (ARGS)) { BODY } defines static RET NAME(PARAMS).
 * BODY is a function inlined (always_inline) into one wrapper per width, each compiled for its
 * width; NAME calls the wrapper of fpd_vector_width(). BODY also has `compiled_for`, a constant
 * after inlining: the width its copy is compiled for, for the rare loop whose best form differs.
 * Not gcc's target_clones, whose dispatch is settled when fpdiv loads, from the CPU alone:
 * FPDIV_VECTOR_WIDTH could not narrow it, and one machine could not run another class's paths.
 * A call costs one more indirect call than a clone's.
 *
 * What BODY calls is inlined into it (always_inline) or is a library's: after a call from an
 * AVX-512 copy to a static function of the baseline ISA, gcc 12 left the vzeroupper out of the
 * copy's return path, and the dirty upper halves then slowed every SSE instruction after it
 * (libxxhash's hashing ran 3.5x slower). */
#define FPD_UNPARENTHESIZED(...) __VA_ARGS__
#define FPD_BODY_PARAMS(PARAMS) (FPD_UNPARENTHESIZED PARAMS, __attribute__((unused)) enum fpd_vector_width compiled_for)
#define FPD_BODY_CALL(NAME, ARGS, WIDTH) NAME##_any_width(FPD_UNPARENTHESIZED ARGS, WIDTH)
/* FPD_VECTOR_WIDTH_DISPATCH(RET, NAME, PARAMS, ARGS) defines static RET NAME(PARAMS), which calls
 * NAME_avx512, NAME_avx2 or NAME_baseline, the copy of fpd_vector_width(): for copies that differ
 * in more than how they are compiled, each defined by its file (the first two FPD_TARGET_AVX512
 * and FPD_TARGET_AVX2, on x86-64 only). FPD_VECTOR_WIDTH_FUNCTION's copies are called the same way. */
#if defined(__x86_64__)
#define FPD_TARGET_AVX512 __attribute__((target("arch=x86-64-v4")))
#define FPD_TARGET_AVX2 __attribute__((target("arch=x86-64-v3")))
#define FPD_VECTOR_WIDTH_DISPATCH(RET, NAME, PARAMS, ARGS)                                         \
    static RET NAME PARAMS                                                                         \
    {                                                                                              \
        static RET(*const by_width[FPD_VECTOR_WIDTHS]) PARAMS = {                                  \
            [FPD_VECTOR_BASELINE] = NAME##_baseline,                                               \
            [FPD_VECTOR_AVX2] = NAME##_avx2,                                                       \
            [FPD_VECTOR_AVX512] = NAME##_avx512,                                                   \
        };                                                                                         \
        return by_width[fpd_vector_width()] ARGS;                                                  \
    }
#define FPD_VECTOR_WIDTH_FUNCTION(RET, NAME, PARAMS, ARGS)                                         \
    static inline __attribute__((always_inline)) RET NAME##_any_width FPD_BODY_PARAMS(PARAMS);     \
    FPD_TARGET_AVX512 static RET NAME##_avx512 PARAMS                                              \
    {                                                                                              \
        return FPD_BODY_CALL(NAME, ARGS, FPD_VECTOR_AVX512);                                       \
    }                                                                                              \
    FPD_TARGET_AVX2 static RET NAME##_avx2 PARAMS { return FPD_BODY_CALL(NAME, ARGS, FPD_VECTOR_AVX2); } \
    static RET NAME##_baseline PARAMS { return FPD_BODY_CALL(NAME, ARGS, FPD_VECTOR_BASELINE); }   \
    FPD_VECTOR_WIDTH_DISPATCH(RET, NAME, PARAMS, ARGS)                                             \
    static inline __attribute__((always_inline)) RET NAME##_any_width FPD_BODY_PARAMS(PARAMS)
#else
#define FPD_VECTOR_WIDTH_DISPATCH(RET, NAME, PARAMS, ARGS)                                         \
    static RET NAME PARAMS { return NAME##_baseline ARGS; }
#define FPD_VECTOR_WIDTH_FUNCTION(RET, NAME, PARAMS, ARGS)                                         \
    static inline __attribute__((always_inline)) RET NAME##_any_width FPD_BODY_PARAMS(PARAMS);     \
    static RET NAME PARAMS { return FPD_BODY_CALL(NAME, ARGS, FPD_VECTOR_BASELINE); }              \
    static inline __attribute__((always_inline)) RET NAME##_any_width FPD_BODY_PARAMS(PARAMS)
#endif

#endif
