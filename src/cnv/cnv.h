/* SPDX-License-Identifier: MIT */
/* Internal interface of the CNV engine: R-compatible statistics and the pipeline stages. */
#ifndef GVK_CNV_H
#define GVK_CNV_H

#include <stddef.h>
#include "gvk.h"

/* Statistics computed the way R computes them (spec section 13), so that normalized counts come
 * out bit for bit: means and variances accumulate in long double with R's second pass. */
double cnv_r_mean(const double *x, size_t n);         /* mean() */
double cnv_r_var(const double *x, size_t n);          /* var(), denominator n - 1 */
double cnv_r_median(double *x, size_t n);             /* median(); reorders x */
double cnv_r_quantile7(const double *sorted, size_t n, double p); /* quantile(type = 7) */
double cnv_r_quantile7_sel(double *v, size_t n, double p);        /* the same, v unsorted (reordered) */
void cnv_sort(double *x, size_t n);

/* Normalization of one run (spec section 4): writes norm (N x m) and the diagnostics of res. */
int cnv_normalize(const gvk_cnv_counts_t *c, const gvk_cnv_opt_t *o, gvk_cnv_result_t *res, gvk_err_t *err);
/* Coverage factors for norm = 2 (spec 4.2). */
int cnv_coverage(const gvk_cnv_counts_t *c, double *cov, gvk_err_t *err);

/* Mode of a Gaussian kernel density of v on [0, u] as R's density() finds it (spec 13.4). */
double cnv_density_mode(const double *v, size_t n, double u, int *n_user, double *bw);

/* Fast segmentation of one vector (spec section 7). */
typedef struct {
	int min_seg, delta, max_int;
	double alpha, cyber_weight;
} cnv_seg_par_t;

typedef struct {
	int start, end; /* 0-based inclusive */
	double mean, median;
} cnv_piece_t;

/* x: n values (copied, non-finite values replaced); stat: n scores out; pieces: allocated final
 * segments; diag (may be NULL): eps, sd, q95 and the number of initial cuts; near_tie (may be
 * NULL) set to 1 when the local-maximum filter met two neighbouring scores equal to ~1e-12, whose
 * order a last-bit difference in x could reverse. */
int cnv_segment(const double *x, int n, const cnv_seg_par_t *p, double *stat, cnv_piece_t **pieces,
                int *n_pieces, double diag[3], int *n_init, int *near_tie);

/* Natural log of the upper tail P(T_df > t) of Student's t, t >= 0 (R's pt(t, df, 0, 1)). */
double cnv_log_t_upper(double t, double df);

/* Recomputes the EM of sequence q's regions in res (on the CPU); see cnv_call. */
typedef int (*cnv_redo_fn)(void *arg, int q, gvk_err_t *err);

/* Segmentation of every (sequence, sample), calls, CNVs, CNV regions and integer copy numbers
 * (spec sections 7-9); res already holds norm, sini and the EM outputs. When redo is given (the EM
 * ran where its last bits differ from the CPU's), each sequence whose segmentation met a near tie
 * gets its EM redone by redo and is segmented again, so that ties fall as with the CPU EM. */
int cnv_call(const gvk_cnv_counts_t *c, const gvk_cnv_opt_t *o, gvk_cnv_result_t *res, cnv_redo_fn redo,
             void *redo_arg, gvk_err_t *err);

#endif
