/* test_report.c — the report page's pieces: text escaped for HTML and SVG, and the histogram of
 * ratios to the bound, which must count every check once, in the bin its ratio falls in. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "report/plot.h"

/* What `write` writes into a FILE, as a string (the caller frees it). */
#define CAPTURED(write)                                                                            \
    ({                                                                                             \
        char *text_ = NULL;                                                                        \
        size_t size_ = 0;                                                                          \
        FILE *f_ = open_memstream(&text_, &size_);                                                 \
        cr_assert(f_);                                                                             \
        write;                                                                                     \
        fclose(f_);                                                                                \
        text_;                                                                                     \
    })

Test(report, text_is_escaped)
{
    char *out = CAPTURED(fpd_html_text(f_, "<script>a&b</script>\"q\" 'x' </svg>"));
    cr_assert_str_eq(out, "&lt;script&gt;a&amp;b&lt;/script&gt;&quot;q&quot; &#39;x&#39; &lt;/svg&gt;");
    free(out);
    /* control characters, which XML forbids, become U+FFFD; UTF-8 text and newlines stay */
    out = CAPTURED(fpd_html_text(f_, "a\x01" "b\x1b[31m\x7f" "c\nd\t\xc3\xa9"));
    cr_assert_str_eq(out, "a&#xFFFD;b&#xFFFD;[31m&#xFFFD;c\nd\t\xc3\xa9");
    free(out);
    out = CAPTURED(fpd_html_printf(f_, "%s=%d", "<i>", 3));
    cr_assert_str_eq(out, "&lt;i&gt;=3");
    free(out);
}

/* The bars' counts, from their titles ("ratio X to Y: N checks"), and how many are of `colour`. */
static size_t bar_total(const char *svg, const char *colour, size_t *coloured, size_t *bars)
{
    size_t total = 0;
    *coloured = *bars = 0;
    for (const char *p = svg; (p = strstr(p, "<rect class='bar'")); p++) {
        const char *title = strstr(p, "<title>");
        const char *colon = strstr(title, ": ");
        cr_assert(title && colon);
        size_t n = strtoul(colon + 2, NULL, 10);
        total += n;
        (*bars)++;
        const char *fill = strstr(p, "fill='");
        if (strncmp(fill + 6, colour, strlen(colour)) == 0)
            *coloured += n;
    }
    return total;
}

Test(report, histogram_counts_every_check_once)
{
    const double ratios[] = {0, 0, 1e-3, 2e-3, 0.5, 0.99, 1.01, 2, 40, NAN, INFINITY};
    char *svg = CAPTURED(fpd_plot_ratio_histogram(f_, "addmm <&>", ratios, sizeof ratios / sizeof ratios[0], 0));
    size_t beyond, bars;
    cr_assert_eq(bar_total(svg, "#D55E00", &beyond, &bars), 7, "%s", svg);
    cr_assert_eq(beyond, 3, "ratios over 1 in the bars beyond the bound: %zu", beyond);
    cr_assert(strstr(svg, "7 checks differ; 2 bitwise equal (ratio 0, not drawn); the rest not finite"), "%s", svg);
    cr_assert(strstr(svg, "addmm &lt;&amp;&gt;"), "the title escaped");
    cr_assert(!strstr(svg, "addmm <&>"), "the title never raw");
    free(svg);
}

Test(report, histogram_spans_any_range)
{
    /* from 1e-300 to 1e300: whole decades, the lowest bin taking what lies below it */
    const double ratios[] = {1e-300, 1e-200, 1e-5, 0.1, 1e300};
    char *svg = CAPTURED(fpd_plot_ratio_histogram(f_, "wide", ratios, 5, 0));
    size_t beyond, bars;
    cr_assert_eq(bar_total(svg, "#D55E00", &beyond, &bars), 5, "%s", svg);
    cr_assert_eq(beyond, 1);
    cr_assert(bars <= 30, "%zu bars", bars);
    cr_assert(strstr(svg, "<title>ratio under 1: 4 checks</title>"), "the lowest bin says what it holds: %s", svg);
    cr_assert(strstr(svg, "or more: 1 check</title>"), "the highest too");
    free(svg);
    /* nothing that differs: an empty plot with its axes, no bar */
    const double same[] = {0, 0, 0};
    svg = CAPTURED(fpd_plot_ratio_histogram(f_, "same", same, 3, 0));
    cr_assert_eq(bar_total(svg, "#D55E00", &beyond, &bars), 0);
    cr_assert(strstr(svg, "0 checks differ; 3 bitwise equal"));
    free(svg);
    /* equal checks given as a count add to the zeros, and are not "not finite" */
    svg = CAPTURED(fpd_plot_ratio_histogram(f_, "counted", ratios, 2, 5));
    cr_assert(strstr(svg, "2 checks differ; 5 bitwise equal (ratio 0, not drawn)</text>"), "%s", svg);
    free(svg);
}

Test(report, scatter_draws_what_it_says)
{
    enum { N = 10000 };
    struct fpd_plot_point *pts = malloc(N * sizeof *pts);
    cr_assert(pts);
    for (size_t i = 0; i < N; i++)
        pts[i] = (struct fpd_plot_point){(double)(i % 1000 + 1), (double)(i % 7) / 7, i % 5 == 0};
    char *svg = CAPTURED(fpd_plot_fraction(f_, "k <m>", "k", pts, N));
    size_t drawn = 0;
    for (const char *p = svg; (p = strstr(p, "<circle class='point'")); p++)
        drawn++;
    /* 10000 points: one in 3 drawn, and said */
    cr_assert_eq(drawn, (N + 2) / 3, "%zu points drawn", drawn);
    cr_assert(strstr(svg, "10000 checks that differ (one in 3 drawn)"), "the subtitle says so");
    cr_assert(strstr(svg, "k &lt;m&gt;") && !strstr(svg, "k <m>"), "the title escaped");
    cr_assert(strstr(svg, "(log scale)"), "1 to 1000 is drawn on a log axis");
    free(svg);
    svg = CAPTURED(fpd_plot_fraction(f_, "few", "m", pts, 10));
    drawn = 0;
    for (const char *p = svg; (p = strstr(p, "<circle class='point'")); p++)
        drawn++;
    cr_assert_eq(drawn, 10);
    cr_assert(!strstr(svg, "drawn)"), "all drawn: nothing said");
    free(svg);
    free(pts);
}
