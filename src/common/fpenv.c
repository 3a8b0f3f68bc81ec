/* fpenv.c — reading, describing and resetting the floating-point control settings. */
#include "common/fpenv.h"

#include <fenv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define X86_CONTROL 1
#endif

struct control_bit {
    unsigned mask, value; /* the setting is on when (register & mask) == value */
    const char *what;
};

#ifdef X86_CONTROL
/* SSE's MXCSR: what every float and double operation of fpdiv uses. The default is 0x1f80: all
 * exceptions masked, round to nearest, no flush-to-zero, no denormals-are-zero. */
#define MXCSR_DEFAULT 0x1f80u
#define MXCSR_CONTROL 0xffc0u /* bits 0-5 are the sticky flags */
static const struct control_bit mxcsr_bits[] = {
    {0x8000, 0x8000, "flush-to-zero on"},
    {0x0040, 0x0040, "denormals-are-zero on"},
    {0x6000, 0x2000, "rounding toward -Inf"},
    {0x6000, 0x4000, "rounding toward +Inf"},
    {0x6000, 0x6000, "rounding toward zero"},
    {0x0080, 0x0000, "traps on invalid operations"},
    {0x0100, 0x0000, "traps on denormal operands"},
    {0x0200, 0x0000, "traps on division by zero"},
    {0x0400, 0x0000, "traps on overflow"},
    {0x0800, 0x0000, "traps on underflow"},
    {0x1000, 0x0000, "traps on inexact results"},
};

/* The x87 control word: long double arithmetic (the C library's, MPFR's). Default 0x037f:
 * exceptions masked, 64-bit significands, round to nearest (bit 6 is reserved). */
#define X87_CONTROL 0x0f3fu
#define X87_DEFAULT_WORD 0x037fu
#define X87_DEFAULT (X87_DEFAULT_WORD & X87_CONTROL)
static const struct control_bit x87_bits[] = {
    {0x0c00, 0x0400, "x87 rounding toward -Inf"},
    {0x0c00, 0x0800, "x87 rounding toward +Inf"},
    {0x0c00, 0x0c00, "x87 rounding toward zero"},
    {0x0300, 0x0000, "x87 precision 24 bits"},
    {0x0300, 0x0200, "x87 precision 53 bits"},
    {0x0001, 0x0000, "x87 traps on invalid operations"},
    {0x0002, 0x0000, "x87 traps on denormal operands"},
    {0x0004, 0x0000, "x87 traps on division by zero"},
    {0x0008, 0x0000, "x87 traps on overflow"},
    {0x0010, 0x0000, "x87 traps on underflow"},
    {0x0020, 0x0000, "x87 traps on inexact results"},
};

static unsigned x87_control_word(void)
{
    uint16_t cw;
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    return cw;
}

bool fpd_fpenv_is_default(void)
{
    return (_mm_getcsr() & MXCSR_CONTROL) == MXCSR_DEFAULT && (x87_control_word() & X87_CONTROL) == X87_DEFAULT;
}
#else
/* Elsewhere, the rounding mode: the one control setting C itself names. */
bool fpd_fpenv_is_default(void) { return fegetround() == FE_TONEAREST; }
#endif

static void append(char *buf, size_t size, size_t *used, const char *what)
{
    int n = snprintf(buf + *used, size - *used, "%s%s", *used ? ", " : "", what);
    if (n > 0)
        *used = *used + (size_t)n < size ? *used + (size_t)n : size - 1;
}

#ifdef X86_CONTROL
/* Every listed setting that is on, in the table's order. */
static void describe_bits(const struct control_bit *bits, size_t count, unsigned reg, char *buf, size_t size,
                          size_t *used)
{
    for (size_t i = 0; i < count; i++)
        if ((reg & bits[i].mask) == bits[i].value)
            append(buf, size, used, bits[i].what);
}
#endif

void fpd_fpenv_describe(char *buf, size_t size)
{
    if (size == 0)
        return;
    buf[0] = '\0';
    size_t used = 0;
#ifdef X86_CONTROL
    describe_bits(mxcsr_bits, sizeof mxcsr_bits / sizeof mxcsr_bits[0], _mm_getcsr(), buf, size, &used);
    unsigned cw = x87_control_word();
    if ((cw & X87_CONTROL) != X87_DEFAULT)
        describe_bits(x87_bits, sizeof x87_bits / sizeof x87_bits[0], cw, buf, size, &used);
#else
    static const struct {
        int mode;
        const char *what;
    } modes[] = {{FE_DOWNWARD, "rounding toward -Inf"}, {FE_UPWARD, "rounding toward +Inf"},
                 {FE_TOWARDZERO, "rounding toward zero"}};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (fegetround() == modes[i].mode)
            append(buf, size, &used, modes[i].what);
#endif
    if (used == 0 && !fpd_fpenv_is_default())
        append(buf, size, &used, "a control setting fpdiv does not name");
}

void fpd_fpenv_reset(void)
{
#ifdef X86_CONTROL
    /* Written directly rather than through fesetenv(FE_DFL_ENV), which older C libraries leave
     * flush-to-zero set by, and which clears the sticky flags too. */
    _mm_setcsr((_mm_getcsr() & ~MXCSR_CONTROL) | MXCSR_DEFAULT);
    uint16_t cw = X87_DEFAULT_WORD;
    __asm__ volatile("fldcw %0" : : "m"(cw));
#else
    fesetround(FE_TONEAREST);
#endif
}

/* What loading a plugin or opening a backend changed, for main to report: the core does not
 * print. */
enum { MAX_NOTICES = 16 };
static char *notices[MAX_NOTICES];
static size_t notice_count, notices_taken;

void fpd_fpenv_restore_noting(const char *who, const char *hint)
{
    char changed[256], notice[1024];
    if (fpd_fpenv_restore_default(changed, sizeof changed) || notice_count == MAX_NOTICES)
        return;
    snprintf(notice, sizeof notice, "%s changed the floating-point environment (%s%s%s); fpdiv put IEEE's default back",
             who, changed, hint ? "; " : "", hint ? hint : "");
    if ((notices[notice_count] = strdup(notice)) != NULL)
        notice_count++;
}

size_t fpd_fpenv_take_notices(const char *const **out)
{
    *out = (const char *const *)notices + notices_taken;
    size_t n = notice_count - notices_taken;
    notices_taken = notice_count;
    return n;
}

bool fpd_fpenv_restore_default(char *buf, size_t size)
{
    if (fpd_fpenv_is_default())
        return true;
    fpd_fpenv_describe(buf, size);
    fpd_fpenv_reset();
    return false;
}
