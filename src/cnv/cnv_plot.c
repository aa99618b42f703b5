/* SPDX-License-Identifier: MIT */
/* Report plots of gvk cnv (gvk.h, gvk_cnv_plot): per sample a genome-wide panel and per-contig
 * panels (log2 ratio per region, segments, calls coloured by copy number), and a cohort heatmap
 * of the calls; the drawing, for any canvas back end. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/err.h"
#include "cnv.h"
#include "cnv_canvas.h"
#include "../common/file_hooks.h"
#include "cnv_write.h"

/* What every plot reads, computed once per run. */
typedef struct {
	const gvk_cnv_counts_t *c;
	const gvk_cnv_result_t *r;
	const gvk_cnv_opts_t *o;
	double *med;    /* m: the cohort's median normalized count per region */
	double *off;    /* n_seqs + 1: where each contig starts on the concatenated genome (bp) */
	size_t *seg_at; /* n_seqs * N + 1: first segment of (contig q, sample s) at q * N + s */
	double unit;    /* bp per x-axis unit: Mb, or regions for a plain matrix */
	const char *unit_name;
} plot_ctx_t;

typedef struct {
	double x, y, w, h; /* plot area in pixels */
	double g0, g1;     /* genome range shown (bp of the concatenated genome) */
	double v0, v1;     /* value range, bottom to top */
} panel_t;

enum { STRIP_H = 12 };      /* the calls strip under a panel */
static const double MIN_CALL_PX = 3; /* a call is never drawn narrower: 1 Mb of 3 Gb is 0.5 px wide */

static cnv_color_t rgb(unsigned v)
{
	return (cnv_color_t){(unsigned char)(v >> 16), (unsigned char)(v >> 8), (unsigned char)v, 1};
}

static cnv_color_t faded(cnv_color_t c, double a)
{
	c.a = a;
	return c;
}

/* Copy-number colours (red losses, blue gains, grey normal) by distance from the normal class. */
static int cn_bucket(int cn, int cn2)
{
	int d = cn - cn2;
	return d < -2 ? 0 : d > 3 ? 5 : d + 2;
}

static cnv_color_t cn_color(int cn, int cn2)
{
	static const unsigned pal[] = {0xb2182b, 0xef8a62, 0xbdbdbd, 0x67a9cf, 0x2166ac, 0x542788};
	return rgb(pal[cn_bucket(cn, cn2)]);
}

static double px(const panel_t *pn, double g)
{
	return pn->x + (g - pn->g0) / (pn->g1 - pn->g0) * pn->w;
}

static double py(const panel_t *pn, double v)
{
	v = v < pn->v0 ? pn->v0 : v > pn->v1 ? pn->v1 : v;
	return pn->y + (pn->v1 - v) / (pn->v1 - pn->v0) * pn->h;
}

/* Pixel span of [g0, g1], widened about its middle to at least min pixels, kept in the panel. */
static void span_px(const panel_t *pn, double g0, double g1, double min, double *a, double *b)
{
	*a = px(pn, g0), *b = px(pn, g1);
	if (*b - *a < min) {
		double mid = (*a + *b) / 2;
		*a = mid - min / 2, *b = mid + min / 2;
	}
	if (*a < pn->x) *b += pn->x - *a, *a = pn->x;
	if (*b > pn->x + pn->w) *a -= *b - pn->x - pn->w, *b = pn->x + pn->w;
}

/* log2 of a region's normalized count over the cohort's median (NaN where the median is below one
 * read: nothing to compare with); +0.5 keeps a zero count finite. */
static double ratio(const plot_ctx_t *p, int s, int row)
{
	double med = p->med[row];
	if (!(med >= 1)) return NAN;
	return log2((p->r->norm[(size_t)s * p->c->m + row] + 0.5) / (med + 0.5));
}

static double seg_value(const plot_ctx_t *p, const gvk_cnv_seg_t *g)
{
	return p->o->use_median ? g->median : g->mean;
}

static double gpos(const plot_ctx_t *p, int q, double pos)
{
	return p->off[q] + pos;
}

/* ---- set-up ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int ctx_init(plot_ctx_t *p, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r, const gvk_cnv_opts_t *o)
{
	memset(p, 0, sizeof *p);
	p->c = c, p->r = r, p->o = o;
	p->unit = c->is_matrix ? 1 : 1e6, p->unit_name = c->is_matrix ? "region" : "Mb";
	size_t m = (size_t)c->m, N = (size_t)c->N, pairs = (size_t)c->n_seqs * N;
	p->med = malloc(m * sizeof *p->med);
	p->off = malloc(((size_t)c->n_seqs + 1) * sizeof *p->off);
	p->seg_at = calloc(pairs + 1, sizeof *p->seg_at);
	double *v = malloc(N * sizeof *v);
	if (!p->med || !p->off || !p->seg_at || !v) {
		free(v);
		return -1;
	}
	for (size_t row = 0; row < m; ++row) {
		for (size_t s = 0; s < N; ++s) v[s] = r->norm[s * m + row];
		qsort(v, N, sizeof *v, cmp_double);
		p->med[row] = N % 2 ? v[N / 2] : (v[N / 2 - 1] + v[N / 2]) / 2;
	}
	free(v);
	p->off[0] = 0;
	for (int q = 0; q < c->n_seqs; ++q) {
		double len = (double)c->end[c->seq_off[q + 1] - 1];
		if (c->seq_len && c->seq_len[q] > len) len = (double)c->seq_len[q];
		p->off[q + 1] = p->off[q] + len;
	}
	/* segments come by contig, then sample: a count per pair, then prefix sums */
	for (size_t k = 0; k < r->n_segs; ++k) ++p->seg_at[(size_t)r->segs[k].seq * N + r->segs[k].sample + 1];
	for (size_t k = 0; k < pairs; ++k) p->seg_at[k + 1] += p->seg_at[k];
	return 0;
}

static void ctx_free(plot_ctx_t *p)
{
	free(p->med), free(p->off), free(p->seg_at);
}

/* Tick spacing of about n ticks over range: 1, 2, 2.5 or 5 times a power of ten. */
static double nice_step(double range, int n)
{
	double raw = range / n, p10 = pow(10, floor(log10(raw)));
	static const double mult[] = {1, 2, 2.5, 5, 10};
	for (int i = 0; i < 5; ++i)
		if (mult[i] * p10 >= raw) return mult[i] * p10;
	return 10 * p10;
}

/* The value range of sample s over contigs [q0, q1): the points' 0.5 and 99.5 % quantiles (a lone
 * outlier does not squash the rest), every segment, and at least -1.2..1.2, padded. */
static void value_range(const plot_ctx_t *p, int s, int q0, int q1, double *lo, double *hi)
{
	const gvk_cnv_counts_t *c = p->c;
	int a = c->seq_off[q0], b = c->seq_off[q1], n = 0;
	double *v = malloc((size_t)(b - a + 1) * sizeof *v);
	*lo = -1.2, *hi = 1.2;
	for (int row = a; v && row < b; ++row) {
		double x = ratio(p, s, row);
		if (isfinite(x)) v[n++] = x;
	}
	if (v && n > 0) {
		qsort(v, (size_t)n, sizeof *v, cmp_double);
		*lo = fmin(*lo, v[(size_t)(0.005 * (n - 1))]), *hi = fmax(*hi, v[(size_t)(0.995 * (n - 1))]);
	}
	free(v);
	for (int q = q0; q < q1; ++q) {
		size_t k = (size_t)q * c->N + s;
		for (size_t i = p->seg_at[k]; i < p->seg_at[k + 1]; ++i) {
			double x = seg_value(p, &p->r->segs[i]);
			*lo = fmin(*lo, x), *hi = fmax(*hi, x);
		}
	}
	double pad = 0.06 * (*hi - *lo);
	*lo -= pad, *hi += pad;
}

/* ---- pieces of a panel ---- */

static const cnv_color_t BLACK = {0, 0, 0, 1}, WHITE = {255, 255, 255, 1};

static void y_axis(cnv_canvas_t *cv, const panel_t *pn)
{
	double step = nice_step(pn->v1 - pn->v0, 6);
	char lab[32];
	for (double t = ceil(pn->v0 / step) * step; t <= pn->v1 + 1e-9; t += step) {
		double y = py(pn, t);
		int zero = fabs(t) < step / 2;
		cv->ops->line(cv, pn->x, y, pn->x + pn->w, y, zero ? 1.2 : 0.6, rgb(zero ? 0x888888 : 0xdddddd), 0);
		snprintf(lab, sizeof lab, "%g", fabs(t) < step / 2 ? 0.0 : t);
		cv->ops->text(cv, pn->x - 5, y + 4, lab, 11, CNV_RIGHT, 0, 0, BLACK);
	}
	cv->ops->text(cv, pn->x - 40, pn->y + pn->h / 2, "log2 ratio", 12, CNV_CENTER, 1, 0, BLACK);
}

/* The thresholds on the segment values as dashed lines, where they fall inside the panel. */
static void thresholds(cnv_canvas_t *cv, const plot_ctx_t *p, const panel_t *pn)
{
	double t[2] = {p->o->upper, p->o->lower};
	for (int i = 0; i < 2; ++i)
		if (t[i] > pn->v0 && t[i] < pn->v1)
			cv->ops->line(cv, pn->x, py(pn, t[i]), pn->x + pn->w, py(pn, t[i]), 0.8, rgb(0xe0a0a0), 1);
}

/* Alternate shading and boundary lines of the contigs (genome panels), names under the strip. */
static void contig_bands(cnv_canvas_t *cv, const plot_ctx_t *p, const panel_t *pn, double label_y)
{
	const gvk_cnv_counts_t *c = p->c;
	for (int q = 0; q < c->n_seqs; ++q) {
		double a = px(pn, p->off[q]), b = px(pn, p->off[q + 1]);
		if (q % 2) cv->ops->rect(cv, a, pn->y, b - a, pn->h, rgb(0xf3f3f3));
		if (q > 0) cv->ops->line(cv, a, pn->y, a, pn->y + pn->h + STRIP_H + 4, 0.6, rgb(0xbbbbbb), 0);
		const char *name = c->seq_names[q];
		double room = b - a - 2;
		/* the name if it fits, else without 'chr', else nothing: a genome of 60 contigs keeps the
		 * large ones named */
		if (strlen(name) * 6.5 > room && !strncmp(name, "chr", 3)) name += 3;
		if (strlen(name) * 6.5 <= room || (q == 0 && c->n_seqs == 1))
			cv->ops->text(cv, (a + b) / 2, label_y, name, 11, CNV_CENTER, 0, 0, BLACK);
	}
}

/* Position ticks of one contig panel, in the context's unit. */
static void position_axis(cnv_canvas_t *cv, const plot_ctx_t *p, const panel_t *pn, int q, double label_y)
{
	double span = (pn->g1 - pn->g0) / p->unit, step = nice_step(span, 8);
	char lab[48];
	for (double t = 0; t <= span + 1e-9; t += step) {
		double x = px(pn, pn->g0 + t * p->unit);
		cv->ops->line(cv, x, pn->y, x, pn->y + pn->h, 0.5, rgb(0xeeeeee), 0);
		cv->ops->line(cv, x, pn->y + pn->h + STRIP_H + 2, x, pn->y + pn->h + STRIP_H + 6, 0.8, BLACK, 0);
		snprintf(lab, sizeof lab, "%g", t);
		cv->ops->text(cv, x, label_y, lab, 11, CNV_CENTER, 0, 0, BLACK);
	}
	snprintf(lab, sizeof lab, "position on %.20s (%s)", p->c->seq_names[q], p->unit_name);
	cv->ops->text(cv, pn->x + pn->w / 2, label_y + 18, lab, 12, CNV_CENTER, 0, 0, BLACK);
}

/* Faint bands behind the points where sample s has a call, and the calls strip under the panel. */
static void call_bands(cnv_canvas_t *cv, const plot_ctx_t *p, const panel_t *pn, int s, int q0, int q1)
{
	const gvk_cnv_counts_t *c = p->c;
	double sy = pn->y + pn->h + 2;
	cv->ops->rect(cv, pn->x, sy, pn->w, STRIP_H, rgb(0xf7f7f7));
	for (int q = q0; q < q1; ++q) {
		size_t k = (size_t)q * c->N + s;
		for (size_t i = p->seg_at[k]; i < p->seg_at[k + 1]; ++i) {
			const gvk_cnv_seg_t *g = &p->r->segs[i];
			if (!g->is_cnv) continue;
			double a, b;
			span_px(pn, gpos(p, q, (double)c->start[g->first] - 1), gpos(p, q, (double)c->end[g->last]), MIN_CALL_PX,
			        &a, &b);
			cnv_color_t col = cn_color(g->cn, p->o->cn2);
			cv->ops->rect(cv, a, pn->y, b - a, pn->h, faded(col, 0.22));
			cv->ops->rect(cv, a, sy, b - a, STRIP_H, col);
		}
	}
}

/* The regions' log2 ratios of sample s; a point whose pixel already holds one is skipped, so that
 * a genome of a million regions makes a file of the panel's size, not the data's. */
static void points(cnv_canvas_t *cv, const plot_ctx_t *p, const panel_t *pn, int s, int q0, int q1)
{
	int W = (int)pn->w + 1, H = (int)pn->h + 1;
	unsigned char *used = calloc((size_t)W * H, 1);
	const gvk_cnv_counts_t *c = p->c;
	cnv_color_t col = rgb(0x9a9a9a);
	for (int q = q0; q < q1; ++q)
		for (int row = c->seq_off[q]; row < c->seq_off[q + 1]; ++row) {
			double v = ratio(p, s, row);
			if (!isfinite(v)) continue;
			double x = px(pn, gpos(p, q, 0.5 * ((double)c->start[row] + (double)c->end[row]))), y = py(pn, v);
			int ix = (int)(x - pn->x), iy = (int)(y - pn->y);
			if (ix < 0 || ix >= W || iy < 0 || iy >= H) continue;
			if (used) {
				if (used[(size_t)iy * W + ix]) continue;
				used[(size_t)iy * W + ix] = 1;
			}
			cv->ops->dot(cv, x, y, 1.3, col);
		}
	free(used);
}

/* Segment values of sample s: normal segments dark, calls thick in their copy number's colour,
 * labelled with it when labels is set (contig panels). */
static void segments(cnv_canvas_t *cv, const plot_ctx_t *p, const panel_t *pn, int s, int q0, int q1, int labels)
{
	const gvk_cnv_counts_t *c = p->c;
	char lab[16];
	double free_x = -1e9; /* labels left to right: one that would overlap the last is left out */
	for (int pass = 0; pass < 2; ++pass) /* calls over the normal segments */
		for (int q = q0; q < q1; ++q) {
			size_t k = (size_t)q * c->N + s;
			for (size_t i = p->seg_at[k]; i < p->seg_at[k + 1]; ++i) {
				const gvk_cnv_seg_t *g = &p->r->segs[i];
				if (g->is_cnv != pass) continue;
				double a, b, v = seg_value(p, g), y = py(pn, v);
				span_px(pn, gpos(p, q, (double)c->start[g->first] - 1), gpos(p, q, (double)c->end[g->last]),
				        pass ? MIN_CALL_PX + 2 : 0, &a, &b);
				cnv_color_t col = pass ? cn_color(g->cn, p->o->cn2) : rgb(0x37474f);
				/* a call stands out of the points: its colour on a white edge */
				if (pass) cv->ops->line(cv, a - 1, y, b + 1, y, 6, WHITE, 0);
				cv->ops->line(cv, a, y, b, y, pass ? 4 : 1.8, col, 0);
				if (!pass || !labels || (a + b) / 2 - 14 < free_x) continue;
				free_x = (a + b) / 2 + 16;
				snprintf(lab, sizeof lab, "CN%d", g->cn);
				double ly = v < 0 ? y + 15 : y - 6;
				if (ly < pn->y + 12) ly = y + 15;
				if (ly > pn->y + pn->h - 3) ly = y - 6;
				cv->ops->text(cv, (a + b) / 2, ly, lab, 11, CNV_CENTER, 0, 1, col);
			}
		}
}

/* Copy-number colour key (and, for sample panels, the point and segment marks) from (x, y). */
static void legend(cnv_canvas_t *cv, const plot_ctx_t *p, double x, double y, int marks)
{
	int cn2 = p->o->cn2, n = p->o->n_classes;
	char lab[24];
	if (marks) {
		cv->ops->dot(cv, x + 5, y - 4, 2, rgb(0x8c8c8c));
		cv->ops->text(cv, x + 13, y, "region: log2(count / cohort median)", 11, CNV_LEFT, 0, 0, BLACK);
		cv->ops->line(cv, x + 230, y - 4, x + 250, y - 4, 2, rgb(0x37474f), 0);
		cv->ops->text(cv, x + 255, y, "segment mean of sI/NI", 11, CNV_LEFT, 0, 0, BLACK);
		x += 410;
	}
	cv->ops->text(cv, x, y, "copy number:", 11, CNV_LEFT, 0, 0, BLACK);
	x += 90;
	for (int b = 0; b < 6; ++b) {
		int lo = n, hi = -1; /* the classes of colour bucket b */
		for (int cn = 0; cn < n; ++cn)
			if (cn_bucket(cn, cn2) == b) lo = cn < lo ? cn : lo, hi = cn;
		if (hi < 0) continue;
		if (lo == hi) snprintf(lab, sizeof lab, "CN%d", lo);
		else if (b == 0) snprintf(lab, sizeof lab, "CN%d-%d", lo, hi);
		else snprintf(lab, sizeof lab, "CN%d+", lo);
		cv->ops->rect(cv, x, y - 10, 14, 12, cn_color(lo, cn2));
		cv->ops->text(cv, x + 18, y, lab, 11, CNV_LEFT, 0, 0, BLACK);
		x += 30 + 7 * (double)strlen(lab);
	}
}

static void frame(cnv_canvas_t *cv, const panel_t *pn)
{
	cnv_color_t k = rgb(0x555555);
	double x0 = pn->x, x1 = pn->x + pn->w, y0 = pn->y, y1 = pn->y + pn->h;
	cv->ops->line(cv, x0, y0, x1, y0, 0.8, k, 0);
	cv->ops->line(cv, x0, y1, x1, y1, 0.8, k, 0);
	cv->ops->line(cv, x0, y0, x0, y1, 0.8, k, 0);
	cv->ops->line(cv, x1, y0, x1, y1, 0.8, k, 0);
}

static int count_calls(const plot_ctx_t *p, int s, int q0, int q1)
{
	int n = 0;
	for (int q = q0; q < q1; ++q) {
		size_t k = (size_t)q * p->c->N + s;
		for (size_t i = p->seg_at[k]; i < p->seg_at[k + 1]; ++i) n += p->r->segs[i].is_cnv;
	}
	return n;
}

/* ---- whole plots ---- */

enum { PANEL_W = 1500, PANEL_H = 440, LEFT = 70 };

/* Sample s over contigs [q0, q1): the genome panel (all contigs) or one contig's. */
static void draw_sample(cnv_canvas_t *cv, const plot_ctx_t *p, int s, int q0, int q1)
{
	const gvk_cnv_counts_t *c = p->c;
	int genome = q1 - q0 > 1 || c->n_seqs == 1;
	panel_t pn = {LEFT, 48, cv->w - LEFT - 20, 300, p->off[q0], p->off[q1], 0, 0};
	value_range(p, s, q0, q1, &pn.v0, &pn.v1);
	cv->ops->rect(cv, 0, 0, cv->w, cv->h, WHITE);
	char title[320];
	int n = count_calls(p, s, q0, q1);
	if (genome) snprintf(title, sizeof title, "%.200s: %d CNV%s", c->samples[s], n, n == 1 ? "" : "s");
	else snprintf(title, sizeof title, "%.150s, %.100s: %d CNV%s", c->samples[s], c->seq_names[q0], n, n == 1 ? "" : "s");
	cv->ops->text(cv, LEFT, 24, title, 15, CNV_LEFT, 0, 1, BLACK);
	double label_y = pn.y + pn.h + STRIP_H + 18;
	if (genome) contig_bands(cv, p, &pn, label_y);
	call_bands(cv, p, &pn, s, q0, q1);
	y_axis(cv, &pn);
	if (!genome) position_axis(cv, p, &pn, q0, label_y);
	thresholds(cv, p, &pn);
	points(cv, p, &pn, s, q0, q1);
	segments(cv, p, &pn, s, q0, q1, !genome);
	frame(cv, &pn);
	legend(cv, p, LEFT, label_y + (genome ? 34 : 52), 1);
}

/* Row height of the heatmap: the cohort in about 600 pixels, 3 to 22 per sample. */
static double heat_row(int N)
{
	double h = 600.0 / N;
	return h < 3 ? 3 : h > 22 ? 22 : h;
}

/* Samples x genome: each sample's calls in its copy number's colour over alternating contigs. */
static void draw_cohort(cnv_canvas_t *cv, const plot_ctx_t *p, int unused_s, int q0, int q1)
{
	const gvk_cnv_counts_t *c = p->c;
	double rh = heat_row(c->N), left = 110;
	panel_t pn = {left, 48, cv->w - left - 20, rh * c->N, p->off[q0], p->off[q1], 0, 1};
	cv->ops->rect(cv, 0, 0, cv->w, cv->h, WHITE);
	char title[96];
	snprintf(title, sizeof title, "Cohort: %zu CNVs of %d samples, %zu CNV regions", p->r->n_cnvs, c->N, p->r->n_cnvr);
	cv->ops->text(cv, left, 24, title, 15, CNV_LEFT, 0, 1, BLACK);
	for (int q = q0; q < q1; ++q) {
		double a = px(&pn, p->off[q]), b = px(&pn, p->off[q + 1]);
		cv->ops->rect(cv, a, pn.y, b - a, pn.h, rgb(q % 2 ? 0xe4e4e4 : 0xf2f2f2));
	}
	double gap = rh >= 6 ? 1 : 0, fs = rh - 2 < 11 ? rh - 2 : 11;
	for (size_t i = 0; i < p->r->n_cnvs; ++i) {
		const gvk_cnv_seg_t *g = &p->r->segs[p->r->cnvs[i]];
		double a, b, y = pn.y + rh * g->sample;
		span_px(&pn, gpos(p, g->seq, (double)c->start[g->first] - 1), gpos(p, g->seq, (double)c->end[g->last]),
		        MIN_CALL_PX, &a, &b);
		cv->ops->rect(cv, a, y, b - a, rh - gap, cn_color(g->cn, p->o->cn2));
	}
	for (int s = 0; s < c->N; ++s) {
		if (gap > 0) cv->ops->line(cv, pn.x, pn.y + rh * (s + 1) - 0.5, pn.x + pn.w, pn.y + rh * (s + 1) - 0.5, 1, WHITE, 0);
		if (fs >= 6) cv->ops->text(cv, left - 6, pn.y + rh * s + rh / 2 + fs * 0.35, c->samples[s], fs, CNV_RIGHT, 0, 0, BLACK);
	}
	for (int q = 1; q < c->n_seqs; ++q) {
		double a = px(&pn, p->off[q]);
		cv->ops->line(cv, a, pn.y, a, pn.y + pn.h + 4, 0.8, rgb(0x999999), 0);
	}
	for (int q = 0; q < c->n_seqs; ++q) {
		double a = px(&pn, p->off[q]), b = px(&pn, p->off[q + 1]);
		const char *name = c->seq_names[q];
		if (strlen(name) * 6.5 > b - a - 2 && !strncmp(name, "chr", 3)) name += 3;
		if (strlen(name) * 6.5 <= b - a - 2 || c->n_seqs == 1)
			cv->ops->text(cv, (a + b) / 2, pn.y + pn.h + 18, name, 11, CNV_CENTER, 0, 0, BLACK);
	}
	(void)unused_s;
	legend(cv, p, left, cv->h - 16, 0);
}

/* ---- files ---- */

typedef void (*draw_fn)(cnv_canvas_t *cv, const plot_ctx_t *p, int s, int q0, int q1);

/* Name characters other than letters, digits, '.', '_', '-' become '_': a sample or contig name
 * never makes a path that leaves the prefix's folder. */
static void append_safe(char *dst, size_t cap, const char *s)
{
	size_t n = strlen(dst);
	for (; *s && n + 1 < cap; ++s) {
		char ch = *s;
		int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
		         ch == '_' || ch == '-';
		dst[n++] = ok ? ch : '_';
	}
	dst[n] = 0;
}

/* Where the plots go. */
typedef struct {
	const char *prefix;
	const gvk_cnv_plot_opts_t *po;
	file_hooks_t *files;
} plot_out_t;

/* One drawing on a canvas of the format asked for, written to the stream f. */
static int draw_to(const plot_out_t *out, FILE *fp, int png, const plot_ctx_t *p, double w, double h, draw_fn fn,
                   int s, int q0, int q1, gvk_err_t *err)
{
	cnv_canvas_t *cv;
	if (png) cv = cnv_canvas_cairo(fp, 1, w, h, err);
	else if (out->po->plain_svg || !cnv_have_cairo()) cv = cnv_canvas_svg(fp, w, h, err);
	else cv = cnv_canvas_cairo(fp, 0, w, h, err);
	if (!cv) return gvk_err_code(err, GVK_ERR_IO);
	fn(cv, p, s, q0, q1);
	return cv->ops->close(cv, err);
}

/* One plot in every format asked for: PREFIX[.a][.b].EXT. */
static int emit(const plot_out_t *out, const plot_ctx_t *p, const char *a, const char *b, double w, double h,
                draw_fn fn, int s, int q0, int q1, gvk_err_t *err)
{
	size_t cap = strlen(out->prefix) + (a ? strlen(a) : 0) + (b ? strlen(b) : 0) + 16;
	char *path = malloc(cap);
	if (!path) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	int rc = 0;
	for (int png = 1; png >= 0 && rc == 0; --png) {
		if (png ? !out->po->png : !out->po->svg) continue;
		snprintf(path, cap, "%s.", out->prefix);
		if (a) append_safe(path, cap, a), strcat(path, ".");
		if (b) append_safe(path, cap, b), strcat(path, ".");
		strcat(path, png ? "png" : "svg");
		FILE *fp = file_hooks_open(out->files, path, err);
		if (!fp) {
			rc = gvk_err_code(err, GVK_ERR_IO);
			break;
		}
		rc = draw_to(out, fp, png, p, w, h, fn, s, q0, q1, err);
		if (rc < 0 && err) {
			char m[sizeof err->msg];
			snprintf(m, sizeof m, "%s", err->msg);
			rc = gvk_err_set(err, rc, "%s: %s", path, m);
		}
		rc = file_hooks_close(out->files, fp, rc, err);
	}
	free(path);
	return rc;
}

static int plot_sample(const plot_out_t *out, const plot_ctx_t *p, int s, gvk_err_t *err)
{
	const gvk_cnv_counts_t *c = p->c;
	int contigs = out->po->contigs;
	int rc = emit(out, p, c->samples[s], "genome", PANEL_W, PANEL_H, draw_sample, s, 0, c->n_seqs, err);
	for (int q = 0; q < c->n_seqs && rc == 0 && c->n_seqs > 1; ++q) {
		if (contigs == GVK_CNV_PLOT_CONTIGS_NONE) break;
		if (contigs == GVK_CNV_PLOT_CONTIGS_CALLS && count_calls(p, s, q, q + 1) == 0) continue;
		rc = emit(out, p, c->samples[s], c->seq_names[q], 1200, PANEL_H, draw_sample, s, q, q + 1, err);
	}
	return rc;
}

static int write_plots(const plot_out_t *out, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r,
                       const gvk_cnv_opts_t *o, gvk_err_t *err)
{
	plot_ctx_t p;
	if (ctx_init(&p, c, r, o) < 0) {
		ctx_free(&p);
		return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for the plots");
	}
	int rc = 0;
	for (int s = 0; s < c->N && rc == 0; ++s) rc = plot_sample(out, &p, s, err);
	if (rc == 0)
		rc = emit(out, &p, "cohort", NULL, PANEL_W, 48 + heat_row(c->N) * c->N + 70, draw_cohort, 0, 0, c->n_seqs, err);
	ctx_free(&p);
	return rc;
}

/* ---- gvk.h ---- */

void gvk_cnv_plot_opts_init(gvk_cnv_plot_opts_t *po)
{
	if (!po) return;
	*po = (gvk_cnv_plot_opts_t){.png = 1, .svg = 0, .contigs = GVK_CNV_PLOT_CONTIGS_CALLS, .plain_svg = 0};
}

static int flag_check(const char *name, int v, gvk_err_t *err)
{
	return v == 0 || v == 1 ? 0 : gvk_err_set(err, GVK_ERR_ARG, "%s must be 0 or 1, not %d", name, v);
}

int gvk_cnv_plot_opts_check(const gvk_cnv_plot_opts_t *po, gvk_err_t *err)
{
	if (!po) return gvk_err_null(err, __func__, "po");
	int rc = flag_check("png", po->png, err);
	if (rc == 0) rc = flag_check("svg", po->svg, err);
	if (rc == 0) rc = flag_check("plain_svg", po->plain_svg, err);
	if (rc == 0 && !po->png && !po->svg)
		rc = gvk_err_set(err, GVK_ERR_ARG, "png and svg are both 0: no format to write");
	if (rc == 0 && (po->contigs < GVK_CNV_PLOT_CONTIGS_CALLS || po->contigs > GVK_CNV_PLOT_CONTIGS_NONE))
		rc = gvk_err_set(err, GVK_ERR_ARG, "contigs must be GVK_CNV_PLOT_CONTIGS_CALLS, _ALL or _NONE (0 to 2), not %d",
		                 po->contigs);
	return rc;
}

int gvk_cnv_plot(const char *prefix, const gvk_cnv_plot_opts_t *po, const gvk_files_t *files,
                 const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r, const gvk_cnv_opts_t *o, gvk_err_t *err)
{
	if (!prefix || !po || !c || !r || !o)
		return gvk_err_null(err, __func__, !prefix ? "prefix" : !po ? "po" : !c ? "c" : !r ? "r" : "o");
	int rc = gvk_cnv_plot_opts_check(po, err);
	if (rc == 0) rc = cnv_result_check(__func__, c, r, o, err);
	if (rc == 0 && po->png && !cnv_have_cairo())
		rc = gvk_err_set(err, GVK_ERR_UNSUPPORTED, "%s: PNG plots need cairo, and this gvk was built without it; ask "
		                 "for SVG (png 0, svg 1) or rebuild with cairo (Debian: libcairo2-dev)", __func__);
	file_hooks_t fh;
	file_hooks_init(&fh, files);
	plot_out_t out = {prefix, po, &fh};
	return rc < 0 ? rc : file_hooks_close_all(&fh, write_plots(&out, c, r, o, err), err);
}
