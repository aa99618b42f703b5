/* SPDX-License-Identifier: MIT */
/* A drawing surface for the CNV plots: the drawing code (cnv_plot.c) calls these operations, and
 * a back end turns them into PNG or SVG: cairo's image and SVG surfaces, or, for SVG in a build
 * without cairo, SVG text written directly. Coordinates are in pixels (points for SVG), y down. */
#ifndef GVK_CNV_CANVAS_H
#define GVK_CNV_CANVAS_H

#include <stdio.h>
#include "gvk.h"

typedef struct {
	unsigned char r, g, b;
	double a; /* opacity, 0..1 */
} cnv_color_t;

enum { CNV_LEFT, CNV_CENTER, CNV_RIGHT };

typedef struct cnv_canvas cnv_canvas_t;

typedef struct {
	void (*rect)(cnv_canvas_t *cv, double x, double y, double w, double h, cnv_color_t fill);
	void (*line)(cnv_canvas_t *cv, double x0, double y0, double x1, double y1, double width, cnv_color_t c,
	             int dashed);
	void (*dot)(cnv_canvas_t *cv, double x, double y, double radius, cnv_color_t c);
	/* anchor: CNV_LEFT/CENTER/RIGHT of (x, y) on the baseline; vertical: rotated to read upwards */
	void (*text)(cnv_canvas_t *cv, double x, double y, const char *s, double size, int anchor, int vertical,
	             int bold, cnv_color_t c);
	/* Writes what is left to the stream and frees the canvas; 0 or an error code with err set. */
	int (*close)(cnv_canvas_t *cv, gvk_err_t *err);
} cnv_canvas_ops_t;

struct cnv_canvas {
	const cnv_canvas_ops_t *ops;
	FILE *fp;
	double w, h;
	void *impl;
};

/* SVG text written directly (no cairo needed). */
cnv_canvas_t *cnv_canvas_svg(FILE *fp, double w, double h, gvk_err_t *err);
/* cairo: PNG (png = 1) or SVG; NULL with err set in a build without cairo. */
cnv_canvas_t *cnv_canvas_cairo(FILE *fp, int png, double w, double h, gvk_err_t *err);
int cnv_have_cairo(void);

#endif
