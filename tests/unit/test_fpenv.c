/* The floating-point environment check: each control setting a backend can leave behind is seen,
 * named and undone; the sticky exception flags are not a change. */
#define _GNU_SOURCE /* feenableexcept */
#include <criterion/criterion.h>
#include <fenv.h>
#include <string.h>
#if defined(__x86_64__)
#include <pmmintrin.h>
#endif

#include "common/fpenv.h"

/* Leaves the default behind whatever a test did. */
static void back_to_default(void) { fpd_fpenv_reset(); }
TestSuite(fpenv, .fini = back_to_default);

/* Sets the environment, checks it is seen and named, restores it, checks it is gone. */
static void expect_seen(const char *name)
{
    cr_expect(!fpd_fpenv_is_default(), "%s: not seen", name);
    char what[256];
    bool was_default = fpd_fpenv_restore_default(what, sizeof what);
    cr_expect(!was_default, "%s: restore said nothing changed", name);
    cr_expect(strstr(what, name), "%s: described as \"%s\"", name, what);
    cr_expect(fpd_fpenv_is_default(), "%s: still set after the restore", name);
}

Test(fpenv, the_default_is_default)
{
    cr_expect(fpd_fpenv_is_default());
    char what[64] = "untouched";
    cr_expect(fpd_fpenv_restore_default(what, sizeof what));
    cr_expect_str_eq(what, "untouched", "a default environment is not described");
}

Test(fpenv, rounding_modes)
{
    static const struct {
        int mode;
        const char *name;
    } modes[] = {{FE_UPWARD, "rounding toward +Inf"}, {FE_DOWNWARD, "rounding toward -Inf"},
                 {FE_TOWARDZERO, "rounding toward zero"}};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        cr_assert_eq(fesetround(modes[i].mode), 0);
        expect_seen(modes[i].name);
        cr_expect_eq(fegetround(), FE_TONEAREST);
    }
}

#if defined(__x86_64__) /* elsewhere only the rounding mode is checked */
Test(fpenv, unmasked_traps)
{
    feenableexcept(FE_INVALID); /* nothing below raises it: the check reads registers, no arithmetic */
    expect_seen("traps on invalid operations");
    cr_expect_eq(fegetexcept(), 0, "traps masked again");
    feenableexcept(FE_DIVBYZERO);
    expect_seen("traps on division by zero");
}

#endif

Test(fpenv, sticky_flags_are_not_a_change)
{
    volatile double zero = 0;
    volatile double q = 1 / zero;
    (void)q;
    cr_assert(fetestexcept(FE_DIVBYZERO));
    cr_expect(fpd_fpenv_is_default(), "a raised flag is ordinary arithmetic, not a changed setting");
    fesetround(FE_UPWARD);
    fpd_fpenv_reset();
    cr_expect(fetestexcept(FE_DIVBYZERO), "and the reset leaves it raised");
}

#if defined(__x86_64__)
Test(fpenv, flush_to_zero_and_denormals_are_zero)
{
    _mm_setcsr(_mm_getcsr() | _MM_FLUSH_ZERO_ON);
    expect_seen("flush-to-zero on");
    _mm_setcsr(_mm_getcsr() | _MM_DENORMALS_ZERO_ON);
    expect_seen("denormals-are-zero on");
    _mm_setcsr(_mm_getcsr() | _MM_FLUSH_ZERO_ON | _MM_DENORMALS_ZERO_ON);
    char what[256];
    fpd_fpenv_describe(what, sizeof what);
    cr_expect_str_eq(what, "flush-to-zero on, denormals-are-zero on");
    fpd_fpenv_reset();
    /* and the arithmetic is IEEE's again: the smallest subnormal survives */
    volatile float tiny = 0x1p-149f, one = 1.0f;
    cr_expect(tiny * one > 0);
}

Test(fpenv, x87_precision)
{
    unsigned short cw;
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    cw = (unsigned short)((cw & ~0x0300u) | 0x0200u); /* 53-bit significands, as some runtimes set */
    __asm__ volatile("fldcw %0" : : "m"(cw));
    expect_seen("x87 precision 53 bits");
}
#endif

Test(fpenv, a_short_buffer_is_cut_not_overrun)
{
    cr_assert_eq(fesetround(FE_UPWARD), 0);
    char what[8];
    memset(what, 'x', sizeof what);
    fpd_fpenv_describe(what, 5);
    cr_expect_eq(strlen(what), 4);
    cr_expect_eq(what[5], 'x');
}
