#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cnv_write.h"

static void coords(FILE *fp, const gvk_cnv_counts_t *c, int q, int first, int last)
{
	fprintf(fp, "%s\t%lld\t%lld", c->seq_names[q], (long long)c->start[first], (long long)c->end[last]);
}

int cnv_write_segments(FILE *fp, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r, int cnvs)
{
	fprintf(fp, "sample\tchr\tstart\tend\tmean\tmedian\tCN\n");
	size_t n = cnvs ? r->n_cnvs : r->n_segs;
	for (size_t k = 0; k < n; ++k) {
		const gvk_cnv_seg_t *g = &r->segs[cnvs ? r->cnvs[k] : k];
		fprintf(fp, "%s\t", c->samples[g->sample]);
		coords(fp, c, g->seq, g->first, g->last);
		fprintf(fp, "\t%.17g\t%.17g\t%d\n", g->mean, g->median, g->cn);
	}
	return ferror(fp) ? -1 : 0;
}

int cnv_write_cnvr(FILE *fp, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r)
{
	fprintf(fp, "chr\tstart\tend");
	for (int s = 0; s < c->N; ++s) fprintf(fp, "\t%s", c->samples[s]);
	fputc('\n', fp);
	for (size_t k = 0; k < r->n_cnvr; ++k) {
		const gvk_cnv_region_t *g = &r->cnvr[k];
		coords(fp, c, g->seq, g->first, g->last);
		for (int s = 0; s < c->N; ++s) fprintf(fp, "\t%d", g->cn[s]);
		fputc('\n', fp);
	}
	return ferror(fp) ? -1 : 0;
}

int cnv_write_regions(FILE *fp, const gvk_cnv_counts_t *c, const double *v, const uint8_t *iv, int ncol,
                      const char *const *names)
{
	size_t m = (size_t)c->m;
	fprintf(fp, "chr\tstart\tend");
	for (int k = 0; k < ncol; ++k) fprintf(fp, "\t%s", names ? names[k] : c->samples[k]);
	fputc('\n', fp);
	for (int q = 0; q < c->n_seqs; ++q)
		for (int r = c->seq_off[q]; r < c->seq_off[q + 1]; ++r) {
			coords(fp, c, q, r, r);
			for (int k = 0; k < ncol; ++k) {
				if (iv) fprintf(fp, "\t%d", iv[k * m + r]);
				else fprintf(fp, "\t%.17g", v[k * m + r]);
			}
			fputc('\n', fp);
		}
	return ferror(fp) ? -1 : 0;
}

int cnv_write_counts(FILE *fp, const gvk_cnv_counts_t *c)
{
	size_t m = (size_t)c->m;
	fprintf(fp, "chr\tstart\tend");
	for (int s = 0; s < c->N; ++s) fprintf(fp, "\t%s", c->samples[s]);
	fputc('\n', fp);
	for (int q = 0; q < c->n_seqs; ++q)
		for (int r = c->seq_off[q]; r < c->seq_off[q + 1]; ++r) {
			coords(fp, c, q, r, r);
			for (int s = 0; s < c->N; ++s) fprintf(fp, "\t%.0f", c->x[s * m + r]);
			fputc('\n', fp);
		}
	return ferror(fp) ? -1 : 0;
}

int cnv_write_posterior(FILE *fp, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r)
{
	size_t m = (size_t)c->m;
	int n = r->n;
	fprintf(fp, "chr\tstart\tend\tsample");
	for (int i = 0; i < n; ++i) fprintf(fp, "\tpost_CN%d", i);
	fputc('\n', fp);
	for (int q = 0; q < c->n_seqs; ++q)
		for (int rr = c->seq_off[q]; rr < c->seq_off[q + 1]; ++rr)
			for (int s = 0; s < c->N; ++s) {
				coords(fp, c, q, rr, rr);
				fprintf(fp, "\t%s", c->samples[s]);
				for (int i = 0; i < n; ++i) fprintf(fp, "\t%.17g", r->post[((size_t)s * n + i) * m + rr]);
				fputc('\n', fp);
			}
	return ferror(fp) ? -1 : 0;
}

int cnv_write_norm_factors(FILE *fp, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r)
{
	fprintf(fp, "chr\tsample\tn_windows\tn_excluded_allbelow1\tsizeFactor_mean\tfactor_before_v2m\tv2m_q95\t"
	            "density_n_user\tdensity_bw\tv2m_mode\tfinal_factor\n");
	for (int q = 0; q < c->n_seqs; ++q)
		for (int s = 0; s < c->N; ++s) {
			size_t k = (size_t)q * c->N + s;
			fprintf(fp, "%s\t%s\t%d\t%d\t%.17g\t%.17g\t%.17g\t%d\t%.17g\t%.17g\t%.17g\n", c->seq_names[q], c->samples[s],
			        c->seq_off[q + 1] - c->seq_off[q], r->nf_excluded[q], r->nf_size[k], r->nf_before[k], r->nf_u[q],
			        r->nf_nuser[q], r->nf_bw[q], r->nf_mode[q], r->nf_final[k]);
		}
	return ferror(fp) ? -1 : 0;
}

int cnv_write_seg_params(FILE *fp, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r)
{
	fprintf(fp, "chr\tsample\tn\teps\tsd\tgain_median_threshold\tloss_median_threshold\tstat_q95\t"
	            "n_initial_breakpoints\n");
	for (int q = 0; q < c->n_seqs; ++q)
		for (int s = 0; s < c->N; ++s) {
			size_t k = (size_t)q * c->N + s;
			fprintf(fp, "%s\t%s\t%d\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%d\n", c->seq_names[q], c->samples[s],
			        c->seq_off[q + 1] - c->seq_off[q], r->sp_eps[k], r->sp_sd[k], 2 * r->sp_sd[k], -2 * r->sp_sd[k],
			        r->sp_q95[k], r->sp_ninit[k]);
		}
	return ferror(fp) ? -1 : 0;
}

static void list(FILE *fp, const double *v, int n)
{
	for (int i = 0; i < n; ++i) fprintf(fp, "%s%.15g", i ? "," : "", v[i]);
}

int cnv_write_params(FILE *fp, const gvk_cnv_opt_t *o, const gvk_cnv_result_t *r)
{
	static const char *types[] = {"mean", "median", "quant", "mode", "poisson"};
	fprintf(fp, "name\tvalue\nmethod\tcn.mops\nI\t");
	list(fp, o->I, o->n_classes);
	fprintf(fp, "\nclasses\t");
	for (int i = 0; i < o->n_classes; ++i) fprintf(fp, "%sCN%d", i ? "," : "", i);
	fprintf(fp, "\npriorImpact\t%.15g\ncyc\t%d\nnormType\t%s\nnormQu\t%.15g\nupperThreshold\t%.15g\n", o->prior_impact,
	        o->cyc, types[o->norm_type], o->norm_qu, o->upper);
	fprintf(fp, "lowerThreshold\t%.15g\nminWidth\t%d\nsegAlgorithm\tfast\nminReadCount\t%.15g\nuseMedian\t%s\ncov\t",
	        o->lower, o->min_width, o->min_read_count, o->use_median ? "TRUE" : "FALSE");
	list(fp, r->cov, r->N);
	fprintf(fp, "\nversion\tgvk %s\n", GVK_VERSION);
	return ferror(fp) ? -1 : 0;
}

static void xml_text(FILE *fp, const char *s)
{
	for (; *s; ++s) {
		if (*s == '<') fputs("&lt;", fp);
		else if (*s == '>') fputs("&gt;", fp);
		else if (*s == '&') fputs("&amp;", fp);
		else fputc(*s, fp);
	}
}

int cnv_write_svg(FILE *fp, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r, int s, const gvk_cnv_opt_t *o)
{
	const double W = 1000, PH = 140, L = 70, TOP = 40, ymin = -6, ymax = 3;
	size_t m = (size_t)c->m;
	double H = TOP + PH * c->n_seqs + 20, pw = W - L - 20;
	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" font-family=\"sans-serif\" font-size=\"11\">\n", W, H);
	fprintf(fp, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"%g\" y=\"20\" font-size=\"14\">", L);
	xml_text(fp, c->samples[s]);
	fprintf(fp, ": sI/NI per region (grey), segment means (blue), CNV calls (red loss, green gain) with copy number</text>\n");
	for (int q = 0; q < c->n_seqs; ++q) {
		int r0 = c->seq_off[q], r1 = c->seq_off[q + 1], n = r1 - r0;
		double y0 = TOP + PH * q, ph = PH - 25;
#define YP(v) (y0 + ph * (ymax - fmax(ymin, fmin(ymax, (v)))) / (ymax - ymin))
#define XP(i) (L + pw * ((double)(i) + 0.5) / (double)n)
		fprintf(fp, "<g>\n<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"#888\"/>\n", L, y0, pw, ph);
		fprintf(fp, "<text x=\"5\" y=\"%g\">", y0 + ph / 2);
		xml_text(fp, c->seq_names[q]);
		fprintf(fp, "</text>\n");
		for (double t = ymin; t <= ymax; t += 3)
			fprintf(fp, "<line x1=\"%g\" x2=\"%g\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%g\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
			        L, L + pw, YP(t), YP(t), L - 4, YP(t) + 4, t);
		fprintf(fp, "<line x1=\"%g\" x2=\"%g\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#faa\" stroke-dasharray=\"4\"/>\n", L, L + pw, YP(o->upper), YP(o->upper));
		fprintf(fp, "<line x1=\"%g\" x2=\"%g\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#faa\" stroke-dasharray=\"4\"/>\n", L, L + pw, YP(o->lower), YP(o->lower));
		/* at most ~2000 points per panel: the extreme value of each bucket */
		int step = n > 2000 ? (n + 1999) / 2000 : 1;
		fprintf(fp, "<g fill=\"#999\">");
		for (int a = 0; a < n; a += step) {
			double v = r->sini[s * m + r0 + a];
			for (int b = a + 1; b < a + step && b < n; ++b)
				if (fabs(r->sini[s * m + r0 + b]) > fabs(v)) v = r->sini[s * m + r0 + b];
			fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"1.2\"/>", XP(a), YP(v));
		}
		fprintf(fp, "</g>\n");
		fprintf(fp, "<text x=\"%g\" y=\"%g\">%lld</text><text x=\"%g\" y=\"%g\" text-anchor=\"end\">%lld</text>\n", L,
		        y0 + ph + 12, (long long)c->start[r0], L + pw, y0 + ph + 12, (long long)c->end[r1 - 1]);
		for (size_t k = 0; k < r->n_segs; ++k) {
			const gvk_cnv_seg_t *g = &r->segs[k];
			if (g->sample != s || g->seq != q) continue;
			double v = o->use_median ? g->median : g->mean, x0 = XP(g->first - r0) - 0.5 * pw / n, x1 = XP(g->last - r0) + 0.5 * pw / n;
			const char *col = !g->is_cnv ? "#2255cc" : v < 0 ? "#cc2222" : "#22aa22";
			fprintf(fp, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%d\"/>\n", x0, x1,
			        YP(v), YP(v), col, g->is_cnv ? 3 : 2);
			if (g->is_cnv)
				fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">CN%d</text>\n", x0, YP(v) + (v < 0 ? 14 : -5), col, g->cn);
		}
		fprintf(fp, "</g>\n");
#undef XP
#undef YP
	}
	fprintf(fp, "</svg>\n");
	return ferror(fp) ? -1 : 0;
}
