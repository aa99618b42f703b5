/* SPDX-License-Identifier: MIT */
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

int cnv_write_params(FILE *fp, const gvk_cnv_opts_t *o, const gvk_cnv_result_t *r)
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
