/* plot.h — a sweep as an SVG line plot: error and bound ratio against the varied dimension. */
#ifndef FPD_PLOT_H
#define FPD_PLOT_H

#include <stdio.h>

#include "engine/bisect.h"

/* Two panels sharing the x axis (log scale when the range spans two decades or more): the largest
 * |a - b| and the ratio to the rounding bound, both on log scales, with the bound (ratio 1) drawn.
 * Points where the paths agree (`same`) are marked along the bottom of each panel. */
void fpd_plot_sweep(FILE *f, const char *title, const char *x_label, const struct fpd_shape_probe *points, size_t n);

#endif
