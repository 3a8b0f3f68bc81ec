/*
 * tensor_core_lanes.h — the tensor-core GEMM's blocks on LANES output elements at a time
 * (tensor_core.c), each a GCC vector of LANES values.
 *
 * Included by tensor_core.c once per vector width, with LANES and LANE_NAME(x) (x with the
 * instantiation's suffix appended) defined, and compiled for that width: 16 lanes are one AVX-512
 * register of int32s, 8 one AVX2 register, 16 in the baseline copy are what SSE2 makes of them.
 * Not a header of its own: no include guard.
 */
#define tile_i32 LANE_NAME(tile_i32)
#define tile_u32 LANE_NAME(tile_u32)
#define tile_i64 LANE_NAME(tile_i64)
#define tile_u64 LANE_NAME(tile_u64)
#define tile_f32 LANE_NAME(tile_f32)
#define tile_f64 LANE_NAME(tile_f64)
#define load_i32 LANE_NAME(load_i32)
#define load_f32 LANE_NAME(load_f32)
#define select_i32 LANE_NAME(select_i32)
#define below_i32 LANE_NAME(below_i32)
#define max_i32 LANE_NAME(max_i32)
#define min_i32 LANE_NAME(min_i32)
#define broadcast_i32 LANE_NAME(broadcast_i32)
#define pow2_f64 LANE_NAME(pow2_f64)
#define pow2_f32 LANE_NAME(pow2_f32)
#define block_terms LANE_NAME(block_terms)
#define block_step LANE_NAME(block_step)
#define group_step LANE_NAME(group_step)
#define all_blocks LANE_NAME(all_blocks)
#define group_against_lanes LANE_NAME(group_against_lanes)

typedef int32_t tile_i32 __attribute__((vector_size(LANES * sizeof(int32_t))));
typedef uint32_t tile_u32 __attribute__((vector_size(LANES * sizeof(uint32_t))));
typedef int64_t tile_i64 __attribute__((vector_size(LANES * sizeof(int64_t))));
typedef uint64_t tile_u64 __attribute__((vector_size(LANES * sizeof(uint64_t))));
typedef float tile_f32 __attribute__((vector_size(LANES * sizeof(float))));
typedef double tile_f64 __attribute__((vector_size(LANES * sizeof(double))));

/* Loads of LANES values that need no alignment (memcpy: an unaligned vector load). */
TILE_INLINE tile_i32 load_i32(const int32_t *x)
{
    tile_i32 v;
    memcpy(&v, x, sizeof v);
    return v;
}

TILE_INLINE tile_f32 load_f32(const float *x)
{
    tile_f32 v;
    memcpy(&v, x, sizeof v);
    return v;
}

/* Per lane: x where mask (all ones or zero) is set, else y; all ones where x < y; the larger and
 * the smaller. gcc 12 splits a comparison of vectors wider than the CPU's into one per lane, and
 * masks that combine comparisons even where they are one register, and makes no vpmaxsd of a
 * comparison's select: the masks are arithmetic (the operands differ by less than 2^31 here:
 * exponents, and magnitudes of non-negative floats), and the maxima and minima are the CPU's own
 * instructions where the lanes are one of its registers (the AVX-512 and AVX2 instantiations:
 * tensor_core.c: every model 1.4-2x faster on AVX-512 than with the comparison). */
TILE_INLINE tile_i32 select_i32(tile_i32 mask, tile_i32 x, tile_i32 y) { return (x & mask) | (y & ~mask); }
TILE_INLINE tile_i32 below_i32(tile_i32 x, tile_i32 y) { return (x - y) >> 31; }
TILE_INLINE tile_i32 max_i32(tile_i32 x, tile_i32 y)
{
#if LANES == 16 && defined(__AVX512F__)
    return (tile_i32)_mm512_max_epi32((__m512i)x, (__m512i)y);
#elif LANES == 8 && defined(__AVX2__)
    return (tile_i32)_mm256_max_epi32((__m256i)x, (__m256i)y);
#else
    return select_i32(below_i32(x, y), y, x);
#endif
}
TILE_INLINE tile_i32 min_i32(tile_i32 x, tile_i32 y)
{
#if LANES == 16 && defined(__AVX512F__)
    return (tile_i32)_mm512_min_epi32((__m512i)x, (__m512i)y);
#elif LANES == 8 && defined(__AVX2__)
    return (tile_i32)_mm256_min_epi32((__m256i)x, (__m256i)y);
#else
    return select_i32(below_i32(x, y), x, y);
#endif
}
TILE_INLINE tile_i32 broadcast_i32(int32_t x) { return (tile_i32){0} + x; }

/* 2^e per lane, e clamped into binary64's normal exponents (or binary32's, for pow2_f32): where a
 * lane's e is out of them, what it scales is zero, or truncates to zero. */
TILE_INLINE tile_f64 pow2_f64(tile_i32 e)
{
    tile_i32 biased = min_i32(max_i32(e + 1023, broadcast_i32(1)), broadcast_i32(2046));
    return (tile_f64)(__builtin_convertvector(biased, tile_i64) << 52);
}

TILE_INLINE tile_f32 pow2_f32(tile_i32 e)
{
    tile_i32 biased = min_i32(max_i32(e + 127, broadcast_i32(1)), broadcast_i32(254));
    return (tile_f32)(biased << 23);
}

/* The terms of the block's `count` products, summed (below 2^31: fast_form_fits): the line's
 * values at line_v/line_e, the tile's at tile_v/tile_e, `row` apart from one product to the next. */
TILE_INLINE tile_i32 block_terms(enum term_form form, int extra_bits, const int32_t *restrict line_e,
                                 const float *restrict line_v, const int32_t *restrict tile_e,
                                 const float *restrict tile_v, size_t row, size_t count, tile_i32 emax)
{
    tile_i32 sum = {0};
    if (form == NARROW) {
        tile_f32 scale = pow2_f32(23 + extra_bits - emax);
#pragma GCC unroll 16
        for (size_t q = 0; q < count; q++) /* (a·b)·scale: a·b exact first */
            sum += __builtin_convertvector(line_v[q] * load_f32(tile_v + q * row) * scale, tile_i32);
    } else if (form == DOUBLE) {
        tile_f64 scale = pow2_f64(23 + extra_bits - emax);
        for (size_t q = 0; q < count; q++)
            sum += __builtin_convertvector(
                (double)line_v[q] * __builtin_convertvector(load_f32(tile_v + q * row), tile_f64) * scale, tile_i32);
    } else {
        for (size_t q = 0; q < count; q++) {
            tile_i32 e = line_e[q] + load_i32(tile_e + q * row);
            tile_f64 product = (double)line_v[q] * __builtin_convertvector(load_f32(tile_v + q * row), tile_f64);
            tile_i32 own = __builtin_convertvector(product * pow2_f64(23 - e), tile_i32);
            tile_f64 aligned = __builtin_convertvector(own, tile_f64) * pow2_f64(extra_bits + e - emax);
            sum += __builtin_convertvector(aligned, tile_i32);
        }
    }
    return sum;
}

/*
 * One block of one line (a row of A, or a column of B) against a tile of LANES lanes: the lanes' c
 * before it in, after it out. A lane's c is a value of the accumulator's format (as a float's
 * bits); it enters the block where it is neither zero nor Inf (its exponent read as fpd_tc_block
 * reads it, at least fp32's emin), and an Inf stays: that element is done. With `count` a
 * constant (a whole block of a model), the loops over the products unroll.
 */
TILE_INLINE tile_u32 block_step(const struct fpd_tc_arith *restrict t, enum term_form form,
                                const int32_t *restrict line_e, const float *restrict line_v,
                                const int32_t *restrict tile_e, const float *restrict tile_v, size_t row,
                                size_t count, tile_u32 c_bits)
{
    int extra_bits = t->extra_bits;
    /* emax: the products' (a zero's is far below), the floor, and c's exponent where c enters;
     * the products' first, off the chain of c from block to block */
    tile_i32 floor = broadcast_i32(t->min_exp), products = floor;
#pragma GCC unroll 16
    for (size_t q = 0; q < count; q++)
        products = max_i32(products, line_e[q] + load_i32(tile_e + q * row));
    tile_i32 magnitude = (tile_i32)c_bits & 0x7fffffff, inf = broadcast_i32(0x7f800000);
    bool f32 = t->acc_precision == 24 && t->acc_emin == -126 && t->acc_emax == 127;
    if (f32 && form == NARROW && (2 * (uint64_t)t->block + 1) << (24 + extra_bits) <= UINT64_C(1) << 31) {
        /* All in floats, where the block's sum with c fits an int32. A lane with a product (the
         * narrow form's are past 2^-(2·NARROW_EXP), far above fp32's floors) has emax at least
         * theirs, so that c·scale is exact or below 1 (and c's term its truncation), and the sum's
         * conversion to a float rounds it once (to nearest, or toward zero in that rounding mode:
         * fpd_kernel_tensor_core), its product with 2^(emax - 23 - extra_bits) exact (normal, or
         * Inf where it overflows, as the model's rounding to nearest does). A lane without
         * products keeps c (emax is c's exponent, above the floors), +0 for a zero c as the model
         * has it: c + 0. c's exponent is read from its bits alone (a subnormal's one below the
         * model's, which matters only where no product is). Toward zero, c cannot reach Inf (a
         * block adds less than the ulp of fp32's largest value: fpd_kernel_tensor_core); to
         * nearest, an Inf c stays, and enters nothing. */
        bool may_be_inf = !t->toward_zero;
        tile_i32 done = may_be_inf ? ~below_i32(magnitude, inf) & ~below_i32(inf, magnitude) : (tile_i32){0};
        tile_i32 emax = max_i32(products, (magnitude >> 23) - 127);
        tile_i32 sum = block_terms(NARROW, extra_bits, line_e, line_v, tile_e, tile_v, row, count, emax);
        tile_f32 scale = pow2_f32(23 + extra_bits - emax); /* block_terms's: computed once */
        tile_f32 c = (tile_f32)((tile_i32)c_bits & ~done);
        tile_i32 c_term = __builtin_convertvector(c * scale, tile_i32);
        tile_f32 unit = (tile_f32)(broadcast_i32(254 << 23) - (tile_i32)scale); /* 1 / scale */
        tile_f32 rounded = __builtin_convertvector(sum + c_term, tile_f32) * unit;
        tile_i32 result = select_i32(below_i32(floor, products), (tile_i32)rounded, (tile_i32)(c + 0.0f));
        return (tile_u32)select_i32(done, (tile_i32)c_bits, result);
    }
    tile_i32 finite = below_i32(magnitude, inf), zero = below_i32(magnitude, broadcast_i32(1));
    tile_i32 live = finite & ~zero, done = ~finite & ~below_i32(inf, magnitude); /* NaN: neither */
    tile_i32 c_e = max_i32(magnitude >> 23, broadcast_i32(1)) - 127; /* a subnormal's: -126 */
    tile_i32 emax = max_i32(products, select_i32(live, c_e, floor));
    tile_i32 sum = block_terms(form, extra_bits, line_e, line_v, tile_e, tile_v, row, count, emax);
    /* c aligned as fpd_tc_block aligns it: its significand with extra_bits more, shifted right by
     * emax - c_e (31 at most: a longer shift leaves nothing of it either), signed; zero where c
     * does not enter */
    tile_i32 c_sig = (magnitude & 0x7fffff) | (broadcast_i32(0x800000) & below_i32(broadcast_i32(0x7fffff), magnitude));
    tile_i32 shift = min_i32(max_i32(emax - c_e, broadcast_i32(0)), broadcast_i32(31));
    tile_i32 aligned = (tile_i32)(((tile_u32)c_sig << extra_bits) >> (tile_u32)shift);
    tile_i32 negative = (tile_i32)c_bits >> 31;
    tile_i32 c_term = ((aligned ^ negative) - negative) & live;
    if (f32) {
        /* (sum + c)·2^(emax - 23 - extra_bits) is exact in a double, and its conversion to a float
         * rounds it once, subnormals and overflow to Inf included, as round_to_accumulator does:
         * to nearest even, or toward zero where the narrow form runs in that rounding mode
         * (fpd_kernel_tensor_core). The other forms, toward zero, step back one ulp where the
         * conversion to nearest rounded away from zero, except past 2^128 (the model's Inf: the
         * truncated value past the largest finite one), where it is Inf */
        tile_f64 x = (__builtin_convertvector(sum, tile_f64) + __builtin_convertvector(c_term, tile_f64)) *
                     pow2_f64(emax - 23 - extra_bits);
        tile_u32 rounded = (tile_u32)__builtin_convertvector(x, tile_f32);
        if (t->toward_zero && form != NARROW) { /* magnitudes compared as the bits of non-negative
                                                   doubles: the sign bit of their difference (a
                                                   comparison of 64-bit lanes is split) */
            tile_u64 x_magnitude = (tile_u64)x & INT64_MAX;
            tile_u64 back = (tile_u64)__builtin_convertvector((tile_f32)rounded, tile_f64) & INT64_MAX;
            tile_u64 away = (x_magnitude - back) >> 63;
            tile_u64 below_inf = (x_magnitude - ((uint64_t)(1023 + 128) << 52)) >> 63;
            rounded -= __builtin_convertvector(away & below_inf, tile_u32); /* one ulp less */
        }
        return (tile_u32)select_i32(done, (tile_i32)c_bits, (tile_i32)rounded);
    }
    int32_t sums[LANES], c_terms[LANES], emaxes[LANES], dones[LANES]; /* any other accumulator (fp16's) */
    uint32_t bits[LANES];
    memcpy(sums, &sum, sizeof sums), memcpy(c_terms, &c_term, sizeof c_terms);
    memcpy(emaxes, &emax, sizeof emaxes), memcpy(dones, &done, sizeof dones);
    memcpy(bits, &c_bits, sizeof bits);
    for (size_t j = 0; j < LANES; j++)
        if (!dones[j]) {
            float r = (float)block_result(t, (int64_t)sums[j] + c_terms[j], emaxes[j]);
            memcpy(&bits[j], &r, sizeof r); /* exact: a value of the accumulator's format */
        }
    memcpy(&c_bits, bits, sizeof c_bits);
    return c_bits;
}

/* The block at p of a group's `lines` lines (1 to GROUP), a call each: a loop over them kept
 * their c in memory. */
TILE_INLINE void group_step(const struct fpd_tc_arith *restrict t, enum term_form form,
                            const struct tile_line *line, size_t lines, const int32_t *restrict tile_e,
                            const float *restrict tile_v, size_t row, size_t p, size_t count, tile_u32 c[GROUP])
{
    c[0] = block_step(t, form, line[0].e + p, line[0].v + p, tile_e, tile_v, row, count, c[0]);
    if (lines > 1)
        c[1] = block_step(t, form, line[1].e + p, line[1].v + p, tile_e, tile_v, row, count, c[1]);
    if (lines > 2)
        c[2] = block_step(t, form, line[2].e + p, line[2].v + p, tile_e, tile_v, row, count, c[2]);
}

/* Every block of a group's lines, from c to c; `unrolled`: the models' whole blocks with their
 * loops unrolled. */
TILE_INLINE void all_blocks(const struct fpd_tc_arith *restrict t, enum term_form form,
                            const struct tile_line *line, size_t lines, const int32_t *restrict tile_e,
                            const float *restrict tile_v, size_t row, size_t k, bool unrolled, tile_u32 c[GROUP])
{
    for (size_t p = 0; p < k; p += t->block) {
        size_t count = k - p < t->block ? k - p : t->block;
        const int32_t *te = tile_e + p * row;
        const float *tv = tile_v + p * row;
        switch (unrolled ? count : 0) {
        case 4: group_step(t, form, line, lines, te, tv, row, p, 4, c); break;
        case 8: group_step(t, form, line, lines, te, tv, row, p, 8, c); break;
        case 16: group_step(t, form, line, lines, te, tv, row, p, 16, c); break;
        default: group_step(t, form, line, lines, te, tv, row, p, count, c); break;
        }
    }
}

/* A group of lines (1 to GROUP) against the tile's LANES lanes from `first` (of its TILE, `row`
 * apart from one step to the next), every block: out[i] gets line i's results there. */
TILE_INLINE void group_against_lanes(const struct fpd_tc_arith *restrict t, enum term_form form,
                                     const struct tile_line *line, size_t lines, const int32_t *restrict tile_e,
                                     const float *restrict tile_v, size_t row, size_t k, size_t first,
                                     float (*restrict out)[TILE])
{
    tile_u32 c[GROUP];
    memcpy(&c[0], line[0].c0 + first, sizeof c[0]);
    memcpy(&c[1], line[lines > 1].c0 + first, sizeof c[1]);
    memcpy(&c[2], line[lines > 2 ? 2 : 0].c0 + first, sizeof c[2]);
    /* the narrow form, the common one, unrolled, and for a whole tile with the steps' distance a
     * constant of the loads (8% on tc-v100); the others as they come */
    if (form == NARROW && row == TILE)
        all_blocks(t, NARROW, line, lines, tile_e + first, tile_v + first, TILE, k, true, c);
    else if (form == NARROW)
        all_blocks(t, NARROW, line, lines, tile_e + first, tile_v + first, row, k, true, c);
    else
        all_blocks(t, form, line, lines, tile_e + first, tile_v + first, row, k, false, c);
    for (size_t i = 0; i < lines; i++)
        memcpy(out[i] + first, &c[i], sizeof c[i]);
}

#undef tile_i32
#undef tile_u32
#undef tile_i64
#undef tile_u64
#undef tile_f32
#undef tile_f64
#undef load_i32
#undef load_f32
#undef select_i32
#undef below_i32
#undef max_i32
#undef min_i32
#undef broadcast_i32
#undef pow2_f64
#undef pow2_f32
#undef block_terms
#undef block_step
#undef group_step
#undef all_blocks
#undef group_against_lanes
#undef LANE_NAME
#undef LANES
