/* test_text.c — untrusted text made safe: shown on a terminal, written into a Python script, pasted
 * into a shell; and the names and numbers that reach them checked. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/backend.h"
#include "common/text.h"
#include "store/corpus.h"

Test(text, invisible_characters_are_escaped)
{
    static const struct {
        const char *in, *shown;
    } cases[] = {
        {"exe\xe2\x80\xaetxt", "exe\\xe2\\x80\\xaetxt"},       /* U+202E RIGHT-TO-LEFT OVERRIDE */
        {"a\xe2\x81\xa6" "b", "a\\xe2\\x81\\xa6b"},            /* U+2066 LEFT-TO-RIGHT ISOLATE */
        {"zero\xe2\x80\x8bwidth", "zero\\xe2\\x80\\x8bwidth"}, /* U+200B */
        {"\xef\xbb\xbf" "bom", "\\xef\\xbb\\xbfbom"},          /* U+FEFF */
        {"line\xe2\x80\xa8sep", "line\\xe2\\x80\\xa8sep"},     /* U+2028 */
        {"tag\xf3\xa0\x80\x81", "tag\\xf3\\xa0\\x80\\x81"},    /* U+E0001 LANGUAGE TAG */
        {"\x1b[2J\x9b", "\\x1b[2J\\x9b"},                     /* C0, and a byte that is no UTF-8 */
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82"}, /* printable: kept */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[256];
        cr_expect_str_eq(fpd_printable(cases[i].in, out, sizeof out), cases[i].shown, "case %zu", i);
    }
}

/* A Python literal of hostile text, read back by Python, is that text: nothing ends the literal,
 * the line, or runs. */
Test(text, python_literals_hold_any_text)
{
    const char *hostile = "x'+str(__import__('os').system('false'))+'\r\nimport os\\'\"\"\"#\x01";
    char path[] = "/tmp/fpdiv-literal-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "import sys\nwant = bytes.fromhex(sys.argv[1]).decode('latin-1')\ngot = ");
    fpd_put_python_literal(f, hostile);
    fprintf(f, "\nsys.exit(0 if got == want else 1)\n");
    fclose(f);
    char hex[256] = "", cmd[1024];
    for (const unsigned char *c = (const unsigned char *)hostile; *c; c++)
        snprintf(hex + strlen(hex), sizeof hex - strlen(hex), "%02x", *c);
    snprintf(cmd, sizeof cmd, "python3 %s %s", path, hex);
    int status = system(cmd);
    unlink(path);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "Python read back other text (status %d)", status);
}

Test(text, shell_commands_are_only_quoted_words)
{
    static const char *const valid[] = {"fpdiv sweep --relation addmm", "fpdiv explain --svg 'a b.svg'",
                                        "fpdiv bisect 'it'\\''s here'", "fpdiv x 'a;b' c"};
    static const char *const invalid[] = {"fpdiv sweep; rm -rf ~", "fpdiv sweep $(id)", "fpdiv sweep `id`",
                                          "fpdiv 'unclosed", "fpdiv a  b", "fpdiv a | sh", "fpdiv a > f",
                                          "fpdiv a\nid", "fpdiv *", "", "fpdiv a "};
    for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++)
        cr_expect(fpd_shell_words_valid(valid[i]), "refused: %s", valid[i]);
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++)
        cr_expect(!fpd_shell_words_valid(invalid[i]), "accepted: %s", invalid[i]);
    /* whatever fpd_shell_word makes of a word is valid */
    const char *words[] = {"plain", "with space", "it's", "'", "''", "$(id)", "a\nb", "\x1b[2J"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        char word[256], command[300];
        snprintf(command, sizeof command, "fpdiv sweep %s", fpd_shell_word(words[i], word, sizeof word));
        cr_expect(fpd_shell_words_valid(command), "fpd_shell_word's own '%s' refused", command);
    }
}

Test(text, backend_names_are_those_fpdiv_writes)
{
    static const char *const valid[] = {"seq", "openblas@Haswell", "tc-h100", "torch-compile", "my_lib.2+x",
                                        "mkl@AVX512_E1", "blis@zen3"};
    static const char *const invalid[] = {"", "@x", "a@", "a@b@c", "a b", "x'y", "a;b", "../x", "a/b", "-x", "_x",
                                          "a@b-c", "caf\xc3\xa9",
                                          "a123456789012345678901234567890123456789012345678901234567890123"};
    for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++)
        cr_expect(fpd_backend_name_valid(valid[i]), "refused: %s", valid[i]);
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++)
        cr_expect(!fpd_backend_name_valid(invalid[i]), "accepted: %s", invalid[i]);
}

/* A stored element is exactly the value it shows, or it is refused: no rounding, no flush to 0. */
Test(text, hex_floats_are_read_exactly)
{
    static const struct {
        enum fpd_dtype t;
        const char *text;
        bool ok;
        uint64_t bits;
    } cases[] = {
        {FPD_F64, "0x1p-1074", true, 1},                       /* the least subnormal */
        {FPD_F64, "0x1p-1075", false, 0},                      /* half of it: would round */
        {FPD_F64, "0x1p-99999", false, 0},                     /* would be flushed to 0 */
        {FPD_F64, "0x1.fffffffffffffp+1023", true, 0x7fefffffffffffffull},
        {FPD_F64, "0x1p+1024", false, 0},                      /* overflows */
        {FPD_F64, "0x1.00000000000008p+0", false, 0},          /* 53 bits and one more */
        {FPD_F64, "0x10000000000000000000p-76", true, 0x3ff0000000000000ull}, /* 1, written long */
        {FPD_F64, "0x0.000000000000000000000000000001p+120", true, 0x3ff0000000000000ull},
        {FPD_F64, "-0x0p+0", true, 0x8000000000000000ull},
        {FPD_F64, "0x1.8", true, 0x3ff8000000000000ull},       /* no exponent: as float.fromhex */
        {FPD_F64, "0x1p+99999999999999999999", false, 0},
        {FPD_F64, "0x", false, 0},
        {FPD_F64, "0x1p", false, 0},
        {FPD_F64, "+0x1p+0", false, 0},
        {FPD_F64, "0X1p+0", false, 0},
        {FPD_F32, "0x1p-149", true, 1},
        {FPD_F32, "0x1p-150", false, 0},
        {FPD_F16, "0x1.ffcp+15", true, 0x7bff},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t bits = 0;
        int rc = fpd_element_parse(cases[i].t, cases[i].text, &bits);
        cr_expect_eq(rc == FPD_OK, cases[i].ok, "%s: %s", cases[i].text, rc == FPD_OK ? "accepted" : "refused");
        if (cases[i].ok && rc == FPD_OK)
            cr_expect_eq(bits, cases[i].bits, "%s: bits %llx", cases[i].text, (unsigned long long)bits);
    }
    /* a 5000-digit significand: refused where a digit is set past 53 bits, read where all are 0 */
    char *text = malloc(5100);
    strcpy(text, "0x1.");
    memset(text + 4, '0', 5000);
    strcpy(text + 5004, "p+0");
    uint64_t bits;
    cr_expect_eq(fpd_element_parse(FPD_F64, text, &bits), FPD_OK);
    text[4999] = '1';
    cr_expect_eq(fpd_element_parse(FPD_F64, text, &bits), FPD_ERR_INPUT);
    free(text);
}
