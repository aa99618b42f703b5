/* SPDX-License-Identifier: MIT */
/* The cairo back end of the plot canvas: one drawing for PNG (image surface) and SVG (SVG
 * surface), written to the output set's stream. */
#include <math.h>
#include <stdlib.h>

#include "../common/err.h"
#include "cnv_canvas.h"

#ifdef GVK_HAVE_CAIRO
#include <cairo-svg.h>
#include <cairo.h>

typedef struct {
	cairo_surface_t *sf;
	cairo_t *cr;
	int png;
} cairo_impl_t;

static cairo_t *ctx(cnv_canvas_t *cv)
{
	return ((cairo_impl_t *)cv->impl)->cr;
}

static void source(cairo_t *cr, cnv_color_t c)
{
	cairo_set_source_rgba(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0, c.a);
}

static void ca_rect(cnv_canvas_t *cv, double x, double y, double w, double h, cnv_color_t fill)
{
	cairo_t *cr = ctx(cv);
	source(cr, fill);
	cairo_rectangle(cr, x, y, w, h);
	cairo_fill(cr);
}

static void ca_line(cnv_canvas_t *cv, double x0, double y0, double x1, double y1, double width, cnv_color_t c,
                    int dashed)
{
	cairo_t *cr = ctx(cv);
	static const double dash[] = {4, 3};
	source(cr, c);
	cairo_set_line_width(cr, width);
	cairo_set_dash(cr, dash, dashed ? 2 : 0, 0);
	cairo_move_to(cr, x0, y0);
	cairo_line_to(cr, x1, y1);
	cairo_stroke(cr);
}

static void ca_dot(cnv_canvas_t *cv, double x, double y, double radius, cnv_color_t c)
{
	cairo_t *cr = ctx(cv);
	source(cr, c);
	cairo_new_sub_path(cr);
	cairo_arc(cr, x, y, radius, 0, 6.283185307179586);
	cairo_fill(cr);
}

static void ca_text(cnv_canvas_t *cv, double x, double y, const char *s, double size, int anchor, int vertical,
                    int bold, cnv_color_t c)
{
	cairo_t *cr = ctx(cv);
	cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
	                       bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
	cairo_text_extents_t e;
	cairo_text_extents(cr, s, &e);
	double dx = anchor == CNV_CENTER ? -e.x_advance / 2 : anchor == CNV_RIGHT ? -e.x_advance : 0;
	cairo_save(cr);
	cairo_translate(cr, x, y);
	if (vertical) cairo_rotate(cr, -1.5707963267948966);
	source(cr, c);
	cairo_move_to(cr, dx, 0);
	cairo_show_text(cr, s);
	cairo_restore(cr);
}

static cairo_status_t to_stream(void *fp, const unsigned char *data, unsigned int len)
{
	return fwrite(data, 1, len, fp) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

static int ca_close(cnv_canvas_t *cv, gvk_err_t *err)
{
	cairo_impl_t *im = cv->impl;
	cairo_status_t st = cairo_status(im->cr);
	cairo_destroy(im->cr);
	if (st == CAIRO_STATUS_SUCCESS && im->png) st = cairo_surface_write_to_png_stream(im->sf, to_stream, cv->fp);
	cairo_surface_finish(im->sf);
	if (st == CAIRO_STATUS_SUCCESS) st = cairo_surface_status(im->sf);
	cairo_surface_destroy(im->sf);
	free(im), free(cv);
	return st == CAIRO_STATUS_SUCCESS ? 0 : gvk_err_set(err, GVK_ERR_IO, "cairo: %s", cairo_status_to_string(st));
}

static const cnv_canvas_ops_t cairo_ops = {ca_rect, ca_line, ca_dot, ca_text, ca_close};

int cnv_have_cairo(void)
{
	return 1;
}

cnv_canvas_t *cnv_canvas_cairo(FILE *fp, int png, double w, double h, gvk_err_t *err)
{
	cnv_canvas_t *cv = malloc(sizeof *cv);
	cairo_impl_t *im = malloc(sizeof *im);
	if (!cv || !im) {
		free(cv), free(im);
		gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		return NULL;
	}
	im->png = png;
	im->sf = png ? cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)ceil(w), (int)ceil(h))
	             : cairo_svg_surface_create_for_stream(to_stream, fp, w, h);
	im->cr = cairo_create(im->sf);
	if (cairo_status(im->cr) != CAIRO_STATUS_SUCCESS) {
		gvk_err_set(err, GVK_ERR_NOMEM, "cairo: %s", cairo_status_to_string(cairo_status(im->cr)));
		cairo_destroy(im->cr);
		cairo_surface_destroy(im->sf);
		free(cv), free(im);
		return NULL;
	}
	*cv = (cnv_canvas_t){&cairo_ops, fp, w, h, im};
	return cv;
}

#else

int cnv_have_cairo(void)
{
	return 0;
}

cnv_canvas_t *cnv_canvas_cairo(FILE *fp, int png, double w, double h, gvk_err_t *err)
{
	(void)fp, (void)png, (void)w, (void)h;
	gvk_err_set(err, GVK_ERR_UNSUPPORTED, "this gvk was built without cairo, so it cannot write PNG plots; use "
	            "--plot-format svg or rebuild with cairo (Debian: libcairo2-dev)");
	return NULL;
}
#endif
