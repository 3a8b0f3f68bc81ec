/* plot.c — hand-written SVG: a handful of elements, no library needed for that. */
#include "report/plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"

enum { WIDTH = 900, PANEL_H = 260, LEFT = 90, RIGHT = 30, TOP = 60, GAP = 70, BOTTOM = 60 };

/* Colours from Okabe and Ito's palette, told apart with any colour vision. */
#define WITHIN_COLOUR "#0072B2" /* blue: within the bound; a sweep's |a - b| */
#define BEYOND_COLOUR "#D55E00" /* vermillion: beyond it */
#define RATIO_COLOUR "#E69F00"  /* orange: a sweep's ratio to the bound */
#define AGREE_COLOUR "#009E73"  /* bluish green: both paths bitwise equal */

struct axis {
    double lo, hi; /* in plot units (log10 where log) */
    bool log;
};

static double to_unit(const struct axis *a, double v) { return a->log ? log10(v) : v; }

static double x_pixel(const struct axis *a, double v)
{
    return LEFT + (to_unit(a, v) - a->lo) / (a->hi - a->lo) * (WIDTH - LEFT - RIGHT);
}

static double y_pixel(const struct axis *a, double v, double top)
{
    return top + PANEL_H - (to_unit(a, v) - a->lo) / (a->hi - a->lo) * PANEL_H;
}

/* Decade ticks for a log axis, or about 8 round ticks for a linear one. */
static void ticks(const struct axis *a, double *out, size_t *n)
{
    *n = 0;
    if (a->log) {
        for (double e = ceil(a->lo); e <= a->hi && *n < 40; e++)
            out[(*n)++] = pow(10, e);
        return;
    }
    double span = a->hi - a->lo, step = pow(10, floor(log10(span / 8)));
    if (span / step > 16)
        step *= 5;
    else if (span / step > 8)
        step *= 2;
    for (double v = ceil(a->lo / step) * step; v <= a->hi && *n < 40; v += step)
        out[(*n)++] = v;
}

static void label(double v, bool log, char *buf, size_t size)
{
    if (log && (v < 1e-3 || v >= 1e5))
        snprintf(buf, size, "1e%d", (int)lround(log10(v)));
    else
        snprintf(buf, size, "%g", v);
}

/* A plot's opening: its svg element (its class, and `description` for screen readers), a white
 * ground, and its title. Both strings are text, escaped here. */
static void plot_opening(FILE *f, const char *kind, int height, const char *description, const char *title)
{
    fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' class='plot %s' width='%d' height='%d' viewBox='0 0 %d %d' "
               "font-family='sans-serif' role='img' aria-label='",
            kind, WIDTH, height, WIDTH, height);
    fpd_html_text(f, description);
    fprintf(f, "'>\n<rect width='100%%' height='100%%' fill='white'/>\n");
    fprintf(f, "<text x='%d' y='24' font-size='16' text-anchor='middle'>", WIDTH / 2);
    fpd_html_text(f, title);
    fputs("</text>\n", f);
}

/* One panel: series y(points) as a polyline broken where the value is missing (<= 0). */
static void panel(FILE *f, const struct axis *x, const struct fpd_shape_probe *pts, size_t n, double top,
                  const char *name, double (*value)(const struct fpd_shape_probe *), bool bound_line,
                  const char *colour)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double v = pts[i].tested ? value(&pts[i]) : 0;
        if (v > 0 && isfinite(v))
            lo = fmin(lo, v), hi = fmax(hi, v);
    }
    if (bound_line)
        lo = fmin(lo, 1), hi = fmax(hi, 1);
    if (!(lo <= hi))
        lo = 1e-8, hi = 1;
    struct axis y = {floor(log10(lo)), ceil(log10(hi)), true};
    if (y.hi <= y.lo)
        y.hi = y.lo + 1;
    double t[40];
    size_t nt;
    char buf[32];
    fprintf(f, "<rect x='%d' y='%g' width='%d' height='%d' fill='none' stroke='#888'/>\n", LEFT, top,
            WIDTH - LEFT - RIGHT, PANEL_H);
    ticks(&y, t, &nt);
    for (size_t i = 0; i < nt; i++) {
        double py = y_pixel(&y, t[i], top);
        label(t[i], true, buf, sizeof buf);
        fprintf(f, "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#ddd'/>\n", LEFT, WIDTH - RIGHT, py, py);
        fprintf(f, "<text x='%d' y='%.1f' font-size='12' text-anchor='end'>%s</text>\n", LEFT - 6, py + 4, buf);
    }
    ticks(x, t, &nt);
    for (size_t i = 0; i < nt; i++) {
        double px = x_pixel(x, t[i]);
        label(t[i], x->log, buf, sizeof buf);
        fprintf(f, "<line x1='%.1f' x2='%.1f' y1='%g' y2='%g' stroke='#ddd'/>\n", px, px, top, top + PANEL_H);
        fprintf(f, "<text x='%.1f' y='%g' font-size='12' text-anchor='middle'>%s</text>\n", px, top + PANEL_H + 16, buf);
    }
    if (bound_line) {
        double py = y_pixel(&y, 1, top);
        fprintf(f, "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#c00' stroke-dasharray='6,4'/>\n", LEFT,
                WIDTH - RIGHT, py, py);
        fprintf(f, "<text x='%d' y='%.1f' font-size='12' fill='#c00' text-anchor='end'>rounding bound</text>\n",
                WIDTH - RIGHT - 4, py - 5);
    }
    bool open = false; /* a polyline is being written */
    for (size_t i = 0; i < n; i++) {
        double v = pts[i].tested ? value(&pts[i]) : 0;
        double px = x_pixel(x, pts[i].value);
        if (v > 0 && isfinite(v)) {
            if (!open)
                fprintf(f, "<polyline class='series' fill='none' stroke='%s' stroke-width='1.5' points='", colour);
            fprintf(f, " %.1f,%.1f", px, y_pixel(&y, v, top));
            open = true;
            continue;
        }
        if (open)
            fprintf(f, "'/>\n");
        open = false;
        if (pts[i].tested) /* the paths agree here: a tick on the bottom edge */
            fprintf(f, "<line class='agree' x1='%.1f' x2='%.1f' y1='%g' y2='%g' stroke='" AGREE_COLOUR "'/>\n", px, px,
                    top + PANEL_H - 6, top + PANEL_H);
    }
    if (open)
        fprintf(f, "'/>\n");
    fprintf(f, "<text x='22' y='%g' font-size='13' transform='rotate(-90 22 %g)' text-anchor='middle'>%s</text>\n",
            top + PANEL_H / 2.0, top + PANEL_H / 2.0, name);
}

static double max_abs(const struct fpd_shape_probe *p) { return p->metrics.diff ? p->metrics.max_abs : 0; }
static double ratio(const struct fpd_shape_probe *p) { return p->metrics.diff ? p->metrics.ratio : 0; }

void fpd_plot_sweep(FILE *f, const char *title, const char *x_label, const struct fpd_shape_probe *pts, size_t n)
{
    double xlo = n ? pts[0].value : 1, xhi = n ? pts[n - 1].value : 2;
    if (xhi <= xlo)
        xhi = xlo + 1;
    struct axis x = {xlo, xhi, xlo > 0 && xhi / xlo >= 100};
    if (x.log)
        x.lo = log10(xlo), x.hi = log10(xhi);
    int height = TOP + 2 * PANEL_H + GAP + BOTTOM;
    /* for a screen reader: what is drawn, then the title (a plugin's names are anyone's: escaped there) */
    const char *what = "the largest |a - b| and the ratio to the rounding bound against ";
    char *description = malloc(strlen(what) + strlen(x_label) + strlen(title) + 3);
    if (description)
        sprintf(description, "%s%s: %s", what, x_label, title);
    plot_opening(f, "sweep", height, description ? description : what, title);
    free(description);
    fprintf(f, "<text x='%d' y='46' font-size='12' fill='#555' text-anchor='middle'>green ticks: both paths "
               "bitwise equal (same)</text>\n", WIDTH / 2);
    panel(f, &x, pts, n, TOP, "max |a − b|", max_abs, false, WITHIN_COLOUR);
    panel(f, &x, pts, n, TOP + PANEL_H + GAP, "ratio to bound", ratio, true, RATIO_COLOUR);
    fprintf(f, "<text x='%d' y='%d' font-size='13' text-anchor='middle'>", LEFT + (WIDTH - LEFT - RIGHT) / 2,
            height - 14);
    fpd_html_text(f, x_label);
    fprintf(f, "%s</text>\n", x.log ? " (log scale)" : "");
    fprintf(f, "</svg>\n");
}


enum { HIST_H = 240, MAX_BINS = 30 };

/* The plotting area's frame, `height` high from `top`. */
static void frame(FILE *f, int top, int height)
{
    fprintf(f, "<rect x='%d' y='%d' width='%d' height='%d' fill='none' stroke='#888'/>\n", LEFT, top,
            WIDTH - LEFT - RIGHT, height);
}

/* A horizontal grid line at py, labelled on the left. */
static void y_gridline(FILE *f, double py, double value)
{
    fprintf(f, "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#ddd'/>\n", LEFT, WIDTH - RIGHT, py, py);
    fprintf(f, "<text x='%d' y='%.1f' font-size='12' text-anchor='end'>%g</text>\n", LEFT - 6, py + 4, value);
}

void fpd_plot_ratio_histogram(FILE *f, const char *title, const double *ratios, size_t n, size_t equal)
{
    size_t plotted = 0, zero = equal;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (fpclassify(ratios[i]) == FP_ZERO) /* bitwise equal outputs: nothing to place on a log axis */
            zero++;
        else if (ratios[i] > 0 && isfinite(ratios[i]))
            plotted++, lo = fmin(lo, log10(ratios[i])), hi = fmax(hi, log10(ratios[i]));
    }
    /* half-decade bins (whole decades where those would be too many), the bound's 1 inside */
    double width = 0.5;
    if (!plotted)
        lo = -1, hi = 0;
    lo = fmin(floor(lo / width) * width, -width);
    hi = fmax(floor(hi / width) * width + width, width);
    if ((hi - lo) / width > MAX_BINS) { /* whole decades, at most MAX_BINS of them round the bound */
        width = 1, lo = floor(lo), hi = ceil(hi);
        lo = fmax(lo, fmin(-1, hi - MAX_BINS));
        hi = fmin(hi, lo + MAX_BINS);
    }
    /* the bound is a bin edge, so a bin is all within it or all beyond; a ratio outside the
     * window goes into the end bin on its side, whose title then says so */
    size_t bins = (size_t)lround((hi - lo) / width);
    size_t count[MAX_BINS] = {0}, highest = 1;
    bool below = false, above = false;
    for (size_t i = 0; i < n; i++) {
        if (!(ratios[i] > 0 && isfinite(ratios[i])))
            continue;
        double at = floor((log10(ratios[i]) - lo) / width);
        below |= at < 0, above |= at >= (double)bins;
        size_t b = at < 0 ? 0 : at >= (double)bins ? bins - 1 : (size_t)at;
        if (++count[b] > highest)
            highest = count[b];
    }
    struct axis x = {lo, hi, true}, y = {0, (double)highest, false};
    int top = 64, height = top + HIST_H + BOTTOM;
    char description[256];
    snprintf(description, sizeof description, "%.64s: ratio to the rounding bound, %zu checks that differ", title,
             plotted);
    plot_opening(f, "histogram", height, description, title);
    fprintf(f, "<text x='%d' y='42' font-size='12' fill='#555' text-anchor='middle'>%zu checks differ; "
               "%zu bitwise equal (ratio 0, not drawn)%s</text>\n",
            WIDTH / 2, plotted, zero, plotted + zero < n + equal ? "; the rest not finite" : "");
    frame(f, top, HIST_H);
    double t[40];
    size_t nt;
    char buf[32];
    ticks(&y, t, &nt);
    for (size_t i = 0; i < nt; i++) {
        if (t[i] - floor(t[i]) > 0) /* counts are whole */
            continue;
        y_gridline(f, top + HIST_H - t[i] / y.hi * HIST_H, t[i]);
    }
    ticks(&x, t, &nt);
    for (size_t i = 0; i < nt; i++) {
        label(t[i], true, buf, sizeof buf);
        fprintf(f, "<text x='%.1f' y='%d' font-size='12' text-anchor='middle'>%s</text>\n", x_pixel(&x, t[i]),
                top + HIST_H + 16, buf);
    }
    for (size_t b = 0; b < bins; b++) {
        if (!count[b])
            continue;
        double left = pow(10, lo + b * width), right = pow(10, lo + (b + 1) * width);
        double px = x_pixel(&x, left), pw = x_pixel(&x, right) - px, ph = (double)count[b] / y.hi * HIST_H;
        char range[64];
        if (b == 0 && below)
            snprintf(range, sizeof range, "under %.3g", right);
        else if (b == bins - 1 && above)
            snprintf(range, sizeof range, "%.3g or more", left);
        else
            snprintf(range, sizeof range, "%.3g to %.3g", left, right);
        fprintf(f, "<rect class='bar' x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='%s'><title>ratio %s: %zu "
                   "check%s</title></rect>\n",
                px + 1, top + HIST_H - ph, pw - 2, ph, lo + (double)b * width >= 0 ? BEYOND_COLOUR : WITHIN_COLOUR,
                range, count[b], count[b] == 1 ? "" : "s");
    }
    double bound = x_pixel(&x, 1);
    fprintf(f, "<line x1='%.1f' x2='%.1f' y1='%d' y2='%d' stroke='#000' stroke-dasharray='6,4'/>\n", bound, bound,
            top, top + HIST_H);
    fprintf(f, "<text x='%.1f' y='%d' font-size='12' text-anchor='start'>rounding bound</text>\n", bound + 4, top + 14);
    int key = WIDTH - RIGHT - 330;
    fprintf(f, "<rect x='%d' y='%d' width='12' height='12' fill='" WITHIN_COLOUR "'/><text x='%d' y='%d' "
               "font-size='12'>within (reorder)</text>\n",
            key, 48, key + 16, 58);
    fprintf(f, "<rect x='%d' y='%d' width='12' height='12' fill='" BEYOND_COLOUR "'/><text x='%d' y='%d' "
               "font-size='12'>beyond (bound)</text>\n",
            key + 140, 48, key + 156, 58);
    fprintf(f, "<text x='22' y='%.1f' font-size='13' transform='rotate(-90 22 %.1f)' text-anchor='middle'>checks"
               "</text>\n", top + HIST_H / 2.0, top + HIST_H / 2.0);
    fprintf(f, "<text x='%d' y='%d' font-size='13' text-anchor='middle'>max |a − b| / (2 bound), log scale</text>\n",
            LEFT + (WIDTH - LEFT - RIGHT) / 2, height - 14);
    fprintf(f, "</svg>\n");
}

enum { MAX_POINTS = 4000 };

void fpd_plot_fraction(FILE *f, const char *title, const char *x_label, const struct fpd_plot_point *pts, size_t n)
{
    double xlo = INFINITY, xhi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        xlo = fmin(xlo, pts[i].x), xhi = fmax(xhi, pts[i].x);
    if (!(xlo <= xhi))
        xlo = 1, xhi = 2;
    if (xhi <= xlo)
        xhi = xlo + 1;
    struct axis x = {xlo, xhi, xlo > 0 && xhi / xlo >= 100}, y = {0, 1, false};
    if (x.log)
        x.lo = log10(xlo), x.hi = log10(xhi);
    /* a campaign can have a million differing checks: every stride-th is drawn, and said to be */
    size_t stride = n > MAX_POINTS ? (n + MAX_POINTS - 1) / MAX_POINTS : 1;
    int top = 64, height = top + PANEL_H + BOTTOM;
    char description[256];
    snprintf(description, sizeof description, "%.64s: the fraction of elements that differ against %.64s, %zu checks",
             title, x_label, n);
    plot_opening(f, "scatter", height, description, title);
    fprintf(f, "<text x='%d' y='42' font-size='12' fill='#555' text-anchor='middle'>%zu checks that differ", WIDTH / 2,
            n);
    if (stride > 1)
        fprintf(f, " (one in %zu drawn)", stride);
    fputs("</text>\n", f);
    frame(f, top, PANEL_H);
    double t[40];
    size_t nt;
    char buf[32];
    ticks(&y, t, &nt);
    for (size_t i = 0; i < nt; i++)
        y_gridline(f, y_pixel(&y, t[i], top), t[i]);
    ticks(&x, t, &nt);
    for (size_t i = 0; i < nt; i++) {
        label(t[i], x.log, buf, sizeof buf);
        fprintf(f, "<text x='%.1f' y='%d' font-size='12' text-anchor='middle'>%s</text>\n", x_pixel(&x, t[i]),
                top + PANEL_H + 16, buf);
    }
    for (size_t i = 0; i < n; i += stride)
        fprintf(f, "<circle class='point' cx='%.1f' cy='%.1f' r='3' fill='%s' fill-opacity='0.6'><title>%g: %.3g"
                   "</title></circle>\n",
                x_pixel(&x, pts[i].x), y_pixel(&y, pts[i].y, top), pts[i].beyond ? BEYOND_COLOUR : WITHIN_COLOUR,
                pts[i].x, pts[i].y);
    int key = WIDTH - RIGHT - 360;
    fprintf(f, "<circle cx='%d' cy='%d' r='5' fill='" WITHIN_COLOUR "'/><text x='%d' y='%d' font-size='12'>within "
               "the bound (reorder)</text>\n", key + 6, 54, key + 16, 58);
    fprintf(f, "<circle cx='%d' cy='%d' r='5' fill='" BEYOND_COLOUR "'/><text x='%d' y='%d' font-size='12'>improbable "
               "or worse</text>\n", key + 216, 54, key + 226, 58);
    fprintf(f, "<text x='22' y='%.1f' font-size='13' transform='rotate(-90 22 %.1f)' text-anchor='middle'>fraction "
               "of elements that differ</text>\n", top + PANEL_H / 2.0, top + PANEL_H / 2.0);
    fprintf(f, "<text x='%d' y='%d' font-size='13' text-anchor='middle'>", LEFT + (WIDTH - LEFT - RIGHT) / 2, height - 14);
    fpd_html_text(f, x_label);
    fprintf(f, "%s</text>\n</svg>\n", x.log ? " (log scale)" : "");
}
