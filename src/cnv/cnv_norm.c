/* SPDX-License-Identifier: MIT */
/* Normalization of the count matrix per reference sequence (docs/cnv.md, Semantics 2), reproducing R's
 * normalizeChromosomes() bit for bit: the arithmetic of every step follows R's primitives. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/err.h"
#include "../common/threads.h"
#include "cnv.h"
#include "cnv_xf80.h"

/* Most frequent non-zero value (ties: the smallest), NAN when there is none. */
static double stat_mode(double *v, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; ++i)
		if (v[i] != 0) v[k++] = v[i];
	if (!k) return NAN;
	cnv_sort(v, k);
	double best = v[0];
	size_t run = 0, best_run = 0;
	for (size_t i = 0; i < k; ++i) {
		run = (i > 0 && v[i] == v[i - 1]) ? run + 1 : 1;
		if (run > best_run) best_run = run, best = v[i];
	}
	return best;
}

typedef struct {
	const gvk_cnv_counts_t *c;
	const gvk_cnv_opts_t *o;
	gvk_cnv_result_t *res;
	const double *global_sf;
	uint8_t *empty;
	double *tmp; /* max(rows, rows * N) scratch */
	double *f;
} blk_t;

static int size_factors(blk_t *b, int q, const int *rows, size_t nr, double *sf, gvk_err_t *err)
{
	const gvk_cnv_counts_t *c = b->c;
	int N = c->N, m = c->m, kind = b->o->size_factor;
	if (b->o->norm_type == GVK_CNV_NORM_POISSON && kind != GVK_CNV_NORM_MEAN) kind = GVK_CNV_NORM_MEDIAN;
	int fallback = 0;
	for (int s = 0; s < N; ++s) {
		const double *col = c->x + (size_t)s * m;
		if (kind == GVK_CNV_NORM_MEAN) {
			cnv_ld_t sum = cnv_ld(0.0);
			for (size_t i = 0; i < nr; ++i) sum = cnv_ld_add(sum, cnv_ld(col[rows[i]]));
			sf[s] = cnv_ld_double(cnv_ld_div(sum, cnv_ld_n(nr)));
			continue;
		}
		for (size_t i = 0; i < nr; ++i) b->tmp[i] = col[rows[i]];
		if (kind == GVK_CNV_NORM_MEDIAN) sf[s] = cnv_r_median(b->tmp, nr);
		else if (kind == GVK_CNV_NORM_QUANT) cnv_sort(b->tmp, nr), sf[s] = cnv_r_quantile7(b->tmp, nr, b->o->qu_size_factor);
		else sf[s] = stat_mode(b->tmp, nr);
		if (isnan(sf[s])) fallback = 1;
	}
	if (fallback) memcpy(sf, b->global_sf, (size_t)N * sizeof *sf);
	for (int s = 0; s < N; ++s)
		if (sf[s] == 0)
			return gvk_err_set(err, GVK_ERR_FORMAT, "normalization: sample %s has a size factor of 0 on %s; "
			                   "remove samples or sequences without reads", c->samples[s], c->seq_names[q]);
	return 0;
}

/* Variance-to-mean rescaling of the poisson mode (docs/cnv.md, Semantics 2 step 6): divides f by the mode. */
static int poisson_scale(blk_t *b, int q, const int *rows, size_t nr, double *f, gvk_err_t *err)
{
	const gvk_cnv_counts_t *c = b->c;
	int N = c->N, m = c->m, rc = GVK_ERR_NOMEM;
	double *z = malloc((size_t)N * sizeof *z), *v = malloc(nr * sizeof *v);
	if (!z || !v) goto out;
	for (size_t i = 0; i < nr; ++i) {
		cnv_ld_t sum = cnv_ld(0.0);
		for (int s = 0; s < N; ++s) {
			z[s] = c->x[(size_t)s * m + rows[i]] * f[s];
			sum = cnv_ld_add(sum, cnv_ld(z[s]));
		}
		double mean = cnv_ld_double(cnv_ld_div(sum, cnv_ld_n((size_t)N)));
		v[i] = cnv_r_var(z, (size_t)N) / mean;
	}
	memcpy(b->tmp, v, nr * sizeof *v);
	cnv_sort(b->tmp, nr);
	double u = cnv_r_quantile7(b->tmp, nr, 0.95);
	cnv_kde_t kde;
	rc = cnv_density_mode(v, nr, u, CNV_KDE_AUTO, &kde);
	b->res->nf_u[q] = u, b->res->nf_bw[q] = kde.bw, b->res->nf_mode[q] = kde.mode;
	b->res->nf_nuser[q] = rc == 0 ? (int)kde.n_user : 0;
	if (rc < 0) goto out;
	if (isfinite(kde.mode))
		for (int s = 0; s < N; ++s) f[s] = f[s] * 1 / kde.mode;
out:
	free(z);
	free(v);
	if (rc == GVK_ERR_FORMAT)
		return gvk_err_set(err, rc, "normalization: sequence %s: the density grid would need %.0f points (95%% quantile "
		                   "of variance/mean = %.6g); at most %zu (2^24) are allowed, the grid growing with the counts' "
		                   "magnitude; --norm-type mean, median, quant or mode has no such step",
		                   c->seq_names[q], kde.grid, u, CNV_KDE_MAX_GRID);
	return rc < 0 ? gvk_err_set(err, rc, "out of memory in normalization (sequence %s)", c->seq_names[q]) : 0;
}

static int norm_block(blk_t *b, int q, int *rows, gvk_err_t *err)
{
	const gvk_cnv_counts_t *c = b->c;
	gvk_cnv_result_t *res = b->res;
	int N = c->N, m = c->m, r0 = c->seq_off[q], r1 = c->seq_off[q + 1];
	double *f = b->f, *sf = res->nf_size + (size_t)q * N;
	int all_zero = 1;
	size_t nr = 0;
	for (int r = r0; r < r1; ++r) {
		int empty = 1;
		for (int s = 0; s < N; ++s) {
			double x = c->x[(size_t)s * m + r];
			if (x != 0) all_zero = 0;
			if (!(x < 1)) empty = 0;
		}
		b->empty[r] = (uint8_t)empty;
		if (!empty) rows[nr++] = r;
	}
	res->nf_excluded[q] = (r1 - r0) - (int)nr;
	for (int s = 0; s < N; ++s) f[s] = 1.0, sf[s] = NAN;
	res->nf_u[q] = res->nf_bw[q] = res->nf_mode[q] = NAN;
	if (all_zero) {
		for (int r = r0; r < r1; ++r) b->empty[r] = 0;
	} else if (nr > 1) {
		int rc = size_factors(b, q, rows, nr, sf, err);
		if (rc < 0) return rc;
		int t = b->o->norm_type;
		double num;
		if (t == GVK_CNV_NORM_MEAN || t == GVK_CNV_NORM_POISSON) {
			num = cnv_r_mean(sf, (size_t)N);
		} else if (t == GVK_CNV_NORM_MEDIAN || t == GVK_CNV_NORM_QUANT) {
			memcpy(b->tmp, sf, (size_t)N * sizeof *sf);
			num = t == GVK_CNV_NORM_MEDIAN ? cnv_r_median(b->tmp, (size_t)N)
			                               : (cnv_sort(b->tmp, (size_t)N), cnv_r_quantile7(b->tmp, (size_t)N, b->o->norm_qu));
		} else {
			size_t k = 0;
			for (size_t i = 0; i < nr; ++i)
				for (int s = 0; s < N; ++s) b->tmp[k++] = c->x[(size_t)s * m + rows[i]];
			num = stat_mode(b->tmp, k);
		}
		for (int s = 0; s < N; ++s) f[s] = num / sf[s];
		for (int s = 0; s < N; ++s) res->nf_before[(size_t)q * N + s] = f[s];
		if (t == GVK_CNV_NORM_POISSON && (rc = poisson_scale(b, q, rows, nr, f, err)) < 0) return rc;
	}
	for (int s = 0; s < N; ++s)
		if (!isfinite(f[s])) {
			for (int k = 0; k < N; ++k) f[k] = 1.0;
			break;
		}
	for (int s = 0; s < N; ++s) {
		res->nf_final[(size_t)q * N + s] = f[s];
		const double *in = c->x + (size_t)s * m;
		double *out = res->norm + (size_t)s * m;
		for (int r = r0; r < r1; ++r) out[r] = b->empty[r] ? 0.0 : in[r] * f[s];
	}
	return 0;
}

typedef struct {
	const gvk_cnv_counts_t *c;
	const gvk_cnv_opts_t *o;
	gvk_cnv_result_t *res;
	const double *gsf;
	uint8_t *empty;
	size_t scratch, max_rows;
	int nth;
	int *rcs;          /* per sequence */
	gvk_err_t *errs;   /* per sequence */
} norm_run_t;

/* Sequences are independent: each worker takes every nth one with its own scratch. */
static void norm_worker(void *arg, int tid)
{
	norm_run_t *run = arg;
	const gvk_cnv_counts_t *c = run->c;
	double *tmp = malloc(run->scratch * sizeof *tmp), *f = malloc((size_t)c->N * sizeof *f);
	int *rows = malloc(run->max_rows * sizeof *rows);
	blk_t b = {c, run->o, run->res, run->gsf, run->empty, tmp, f};
	for (int q = tid; q < c->n_seqs; q += run->nth)
		run->rcs[q] = tmp && f && rows ? norm_block(&b, q, rows, &run->errs[q])
		                               : gvk_err_set(&run->errs[q], GVK_ERR_NOMEM, "out of memory in normalization");
	free(tmp), free(f), free(rows);
}

int cnv_normalize(const gvk_cnv_counts_t *c, const gvk_cnv_opts_t *o, gvk_cnv_result_t *res, gvk_err_t *err)
{
	int N = c->N, m = c->m, rc = 0;
	size_t max_rows = 1;
	for (int q = 0; q < c->n_seqs; ++q)
		if ((size_t)(c->seq_off[q + 1] - c->seq_off[q]) > max_rows) max_rows = (size_t)(c->seq_off[q + 1] - c->seq_off[q]);
	/* the mode of a whole block needs rows x N values; everything else one column */
	size_t scratch = max_rows > (size_t)N ? max_rows : (size_t)N;
	if (o->norm_type == GVK_CNV_NORM_MODE) scratch *= (size_t)N;
	double *gsf = malloc((size_t)N * sizeof *gsf);
	uint8_t *empty = calloc((size_t)m, 1);
	int *rcs = calloc((size_t)c->n_seqs, sizeof *rcs);
	gvk_err_t *errs = calloc((size_t)c->n_seqs, sizeof *errs);
	if (!gsf || !empty || !rcs || !errs) {
		rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory in normalization");
		goto out;
	}
	for (int s = 0; s < N; ++s) {
		cnv_ld_t sum = cnv_ld(0.0);
		for (int r = 0; r < m; ++r) sum = cnv_ld_add(sum, cnv_ld(c->x[(size_t)s * m + r]));
		gsf[s] = cnv_ld_double(sum);
		if (gsf[s] == 0) {
			rc = gvk_err_set(err, GVK_ERR_FORMAT, "normalization: sample %s has no reads at all", c->samples[s]);
			goto out;
		}
	}
	int nth = o->threads < 1 ? 1 : o->threads > c->n_seqs ? c->n_seqs : o->threads;
	norm_run_t run = {c, o, res, gsf, empty, scratch, max_rows, nth, rcs, errs};
	gvk_parallel(nth, norm_worker, &run);
	for (int q = 0; q < c->n_seqs; ++q) /* the first sequence's error, whatever the threads */
		if (rcs[q] < 0) {
			if (err) *err = errs[q];
			rc = rcs[q];
			break;
		}
out:
	free(gsf), free(empty), free(rcs), free(errs);
	return rc;
}

int cnv_coverage(const gvk_cnv_counts_t *c, double *cov, gvk_err_t *err)
{
	int N = c->N, m = c->m;
	double *sorted = malloc((size_t)m * sizeof *sorted), *sel = malloc((size_t)m * sizeof *sel);
	if (!sorted || !sel) {
		free(sorted), free(sel);
		return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	}
	for (int s = 0; s < N; ++s) {
		const double *col = c->x + (size_t)s * m;
		memcpy(sorted, col, (size_t)m * sizeof *col);
		cnv_sort(sorted, (size_t)m);
		double lo = cnv_r_quantile7(sorted, (size_t)m, 0.05), hi = cnv_r_quantile7(sorted, (size_t)m, 0.95);
		size_t k = 0;
		for (int r = 0; r < m; ++r)
			if (col[r] > lo && col[r] < hi) sel[k++] = col[r];
		cov[s] = k ? cnv_r_mean(sel, k) : NAN;
	}
	memcpy(sorted, cov, (size_t)N * sizeof *cov);
	double med = cnv_r_median(sorted, (size_t)N);
	free(sorted), free(sel);
	if (!(med != 0) || !isfinite(med)) return gvk_err_set(err, GVK_ERR_FORMAT, "norm 2: the median of the coverage factors is 0");
	for (int s = 0; s < N; ++s) cov[s] /= med;
	return 0;
}
