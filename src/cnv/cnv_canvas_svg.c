/* SPDX-License-Identifier: MIT */
/* The SVG back end of the plot canvas without cairo: elements written as they are drawn. */
#include <stdlib.h>

#include "../common/err.h"
#include "cnv_canvas.h"

static void color(FILE *fp, const char *attr, cnv_color_t c)
{
	fprintf(fp, " %s=\"#%02x%02x%02x\"", attr, c.r, c.g, c.b);
	if (c.a < 1) fprintf(fp, " %s-opacity=\"%.3g\"", attr, c.a);
}

static void svg_rect(cnv_canvas_t *cv, double x, double y, double w, double h, cnv_color_t fill)
{
	fprintf(cv->fp, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"", x, y, w, h);
	color(cv->fp, "fill", fill);
	fprintf(cv->fp, "/>\n");
}

static void svg_line(cnv_canvas_t *cv, double x0, double y0, double x1, double y1, double width, cnv_color_t c,
                     int dashed)
{
	fprintf(cv->fp, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke-width=\"%.3g\"", x0, y0, x1, y1, width);
	color(cv->fp, "stroke", c);
	fprintf(cv->fp, "%s/>\n", dashed ? " stroke-dasharray=\"4 3\"" : "");
}

static void svg_dot(cnv_canvas_t *cv, double x, double y, double radius, cnv_color_t c)
{
	fprintf(cv->fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.3g\"", x, y, radius);
	color(cv->fp, "fill", c);
	fprintf(cv->fp, "/>\n");
}

static void xml_text(FILE *fp, const char *s)
{
	for (; *s; ++s) {
		if (*s == '<') fputs("&lt;", fp);
		else if (*s == '>') fputs("&gt;", fp);
		else if (*s == '&') fputs("&amp;", fp);
		else if (*s == '"') fputs("&quot;", fp);
		else fputc(*s, fp);
	}
}

static void svg_text(cnv_canvas_t *cv, double x, double y, const char *s, double size, int anchor, int vertical,
                     int bold, cnv_color_t c)
{
	static const char *anchors[] = {"start", "middle", "end"};
	fprintf(cv->fp, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%.3g\" text-anchor=\"%s\"%s", x, y, size, anchors[anchor],
	        bold ? " font-weight=\"bold\"" : "");
	if (vertical) fprintf(cv->fp, " transform=\"rotate(-90 %.2f %.2f)\"", x, y);
	color(cv->fp, "fill", c);
	fputc('>', cv->fp);
	xml_text(cv->fp, s);
	fprintf(cv->fp, "</text>\n");
}

static int svg_close(cnv_canvas_t *cv, gvk_err_t *err)
{
	fprintf(cv->fp, "</svg>\n");
	int bad = ferror(cv->fp);
	free(cv);
	return bad ? gvk_err_set(err, GVK_ERR_IO, "write error") : 0;
}

static const cnv_canvas_ops_t svg_ops = {svg_rect, svg_line, svg_dot, svg_text, svg_close};

cnv_canvas_t *cnv_canvas_svg(FILE *fp, double w, double h, gvk_err_t *err)
{
	cnv_canvas_t *cv = malloc(sizeof *cv);
	if (!cv) {
		gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		return NULL;
	}
	*cv = (cnv_canvas_t){&svg_ops, fp, w, h, NULL};
	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" viewBox=\"0 0 %g %g\" "
	            "font-family=\"DejaVu Sans, sans-serif\">\n",
	        w, h, w, h);
	return cv;
}
