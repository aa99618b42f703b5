/* SPDX-License-Identifier: MIT */
/* Internal interface of the CNV engine: R-compatible statistics and the pipeline stages. */
#ifndef GVK_CNV_H
#define GVK_CNV_H

#include <stddef.h>
#include "gvk.h"
#include "cnv_testing.h"

/* Statistics computed the way R computes them (docs/cnv.md, Semantics 9), so that normalized counts come
 * out bit for bit: means and variances accumulate in R's long double with R's second pass, in the
 * x87 format on every target (cnv_xf80.h). */
double cnv_r_mean(const double *x, size_t n);         /* mean() */
double cnv_r_var(const double *x, size_t n);          /* var(), denominator n - 1 */
double cnv_r_median(double *x, size_t n);             /* median(); reorders x */
double cnv_r_quantile7(const double *sorted, size_t n, double p); /* quantile(type = 7) */
double cnv_r_quantile7_sel(double *v, size_t n, double p);        /* the same, v unsorted (reordered) */
double cnv_lgamma(double x); /* lgamma() with x86-64 glibc's bits on every CPU (cnv_lgamma.c) */
void cnv_sort(double *x, size_t n);

/* Normalization of one run (docs/cnv.md, Semantics 2): writes norm (N x m) and the diagnostics of res. */
int cnv_normalize(const gvk_cnv_counts_t *c, const gvk_cnv_opts_t *o, gvk_cnv_result_t *res, gvk_err_t *err);
/* Coverage factors for norm = 2 (docs/cnv.md, Semantics 2). */
int cnv_coverage(const gvk_cnv_counts_t *c, double *cov, gvk_err_t *err);

/* Mode of a Gaussian kernel density of v on [0, u] as R's density() and approx() find it
 * (docs/cnv.md, Semantics 9): R's grid of G points, bandwidth and first maximum, whatever the magnitude of v. The grid
 * grows with u (G >= 100 u), so it is bounded: above CNV_KDE_MAX_GRID points the mode is refused
 * (GVK_ERR_FORMAT, no message: the caller names the data); out of memory: GVK_ERR_NOMEM. Mode
 * and bandwidth are NAN when undefined (n < 2, u not positive and finite). method: how the
 * density is evaluated, CNV_KDE_AUTO (by cost) or forced (tests); the mode is the same. */
#define CNV_KDE_MAX_GRID ((size_t)1 << 24)
enum { CNV_KDE_AUTO = 0, CNV_KDE_DIRECT, CNV_KDE_FFT };
typedef struct {
	double mode, bw;
	double n_user, grid; /* user grid ceil(100 u) and internal grid G (when refused: what it needed) */
	int method;          /* CNV_KDE_DIRECT or CNV_KDE_FFT: how the density was evaluated */
	size_t n_exact;      /* grid points whose density was summed exactly */
} cnv_kde_t;
int cnv_density_mode(const double *v, size_t n, double u, int method, cnv_kde_t *out);

/* Fast segmentation of one vector (docs/cnv.md, Semantics 5). */
typedef struct {
	int min_seg, delta, max_int;
	double alpha, cyber_weight;
} cnv_seg_par_t;

/* A final segment (gvk.h): start, end 0-based inclusive within the vector. */
typedef gvk_cnv_piece_t cnv_piece_t;

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
 * (docs/cnv.md, Semantics 5-7); res already holds norm, sini and the EM outputs. When redo is given (the EM
 * ran where its last bits differ from the CPU's), each sequence whose segmentation met a near tie
 * gets its EM redone by redo and is segmented again, so that ties fall as with the CPU EM. */
int cnv_call(const gvk_cnv_counts_t *c, const gvk_cnv_opts_t *o, gvk_cnv_result_t *res, cnv_redo_fn redo,
             void *redo_arg, gvk_err_t *err);

/* gvk_cnv_run spread over processes (gvk.h, gvk_cnv_run_split). */
typedef gvk_cnv_split_t cnv_split_t;

/* cnv_call with the segmentation spread as sp says (NULL: cnv_call). On a process where
 * seg_join says another one calls, res holds the segmentation of its own pairs only. */
int cnv_call_split(const gvk_cnv_counts_t *c, const gvk_cnv_opts_t *o, gvk_cnv_result_t *res, cnv_redo_fn redo,
                   void *redo_arg, const cnv_split_t *sp, gvk_err_t *err);
/* Bytes a run holds per region: its counts, its row of the layout and the model's arrays (those
 * of result_alloc) for N samples and n classes; and the machine's physical memory in bytes. */
double cnv_region_bytes(int N, int n_classes, int keep_posterior);
double cnv_phys_bytes(void);

/* Rows of read counting: one list of [start, end] (1-based inclusive) per sequence name. */
typedef struct {
	int n_seqs, m;
	char **names;
	int *off; /* n_seqs + 1 */
	int64_t *start, *end;
} cnv_layout_t;

void cnv_layout_free(cnv_layout_t *l);
/* BED targets (0-based half-open, converted to 1-based inclusive); the rows of a sequence must
 * be contiguous. Errors name the file and line. */
int cnv_read_bed(const char *path, cnv_layout_t *l, gvk_err_t *err);

#endif
