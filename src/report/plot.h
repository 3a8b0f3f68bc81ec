/* plot.h — SVG plots: a sweep's error and bound ratio against the varied dimension, and a
 * campaign's ratios to the bound. */
#ifndef FPD_PLOT_H
#define FPD_PLOT_H

#include <stdbool.h>
#include <stdio.h>

#include "engine/bisect.h"

/* Two panels sharing the x axis (log scale when the range spans two decades or more): the largest
 * |a - b| and the ratio to the rounding bound, both on log scales, with the bound (ratio 1) drawn.
 * Points where the paths agree (`same`) are marked along the bottom of each panel. `points` in
 * ascending order of value; `title` and `x_label` are text (escaped here). */
void fpd_plot_sweep(FILE *f, const char *title, const char *x_label, const struct fpd_shape_probe *points, size_t n);

/* A histogram of checks' ratios to the rounding bound (max |a - b| / (2 bound)), on half-decade
 * bins of a log axis with the bound (1) marked: bars within it one colour, beyond it another. Ratios
 * of 0 and `equal` more checks (bitwise equal) are counted in the subtitle, not drawn. `title` is
 * text (escaped here). */
void fpd_plot_ratio_histogram(FILE *f, const char *title, const double *ratios, size_t n, size_t equal);

/* A point of a scatter plot; `beyond`: drawn in the colour of what is beyond the bound. */
struct fpd_plot_point {
    double x, y;
    bool beyond;
};
/* The fraction of elements that differ (y, 0 to 1) against a dimension (x, log scale where it
 * spans two decades), one point per check, at most a few thousand drawn (every Nth, said so). */
void fpd_plot_fraction(FILE *f, const char *title, const char *x_label, const struct fpd_plot_point *pts, size_t n);

#endif
