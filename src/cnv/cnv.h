/* SPDX-License-Identifier: MIT */
/* Internal interface of the CNV engine: R-compatible statistics and the pipeline stages. */
#ifndef GVK_CNV_H
#define GVK_CNV_H

#include <stddef.h>
#include "gvk.h"

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
 * (docs/cnv.md, Semantics 5-7); res already holds norm, sini and the EM outputs. When redo is given (the EM
 * ran where its last bits differ from the CPU's), each sequence whose segmentation met a near tie
 * gets its EM redone by redo and is segmented again, so that ties fall as with the CPU EM. */
int cnv_call(const gvk_cnv_counts_t *c, const gvk_cnv_opts_t *o, gvk_cnv_result_t *res, cnv_redo_fn redo,
             void *redo_arg, gvk_err_t *err);

/* gvk_cnv_run spread over processes (the CLI's MPI driver; the library itself has no MPI): each
 * process holds the whole counts and result arrays, runs the EM of its regions [r0, r1) and the
 * segmentation of its (sequence, sample) pairs [p0, p1) (pair q * N + s), and the hooks join what
 * the processes computed. Every hook is called on every process with its status so far and
 * returns the status agreed by all. */
typedef struct {
	int r0, r1, p0, p1;
	void *ctx;
	/* after the EM: every region's EM outputs (lambda, alpha, post, sini, ini, cls) on every process */
	int (*em_join)(void *ctx, const gvk_cnv_counts_t *c, gvk_cnv_result_t *r, int rc, gvk_err_t *err);
	/* after the segmentation: again[q] (one per sequence) set wherever any process set it */
	int (*near_join)(void *ctx, uint8_t *again, int n_seqs, int rc, gvk_err_t *err);
	/* after the segmentation: every pair's pieces, scores, calls and diagnostics on the process
	 * that calls (*calls = 1 there, 0 elsewhere); pieces belong to the caller (malloc'ed) */
	int (*seg_join)(void *ctx, const gvk_cnv_counts_t *c, gvk_cnv_result_t *r, cnv_piece_t **pieces, int *n_pieces,
	                int rc, int *calls, gvk_err_t *err);
} cnv_split_t;

/* cnv_call with the segmentation spread as sp says (NULL: cnv_call). On a process where
 * seg_join says another one calls, res holds the segmentation of its own pairs only. */
int cnv_call_split(const gvk_cnv_counts_t *c, const gvk_cnv_opts_t *o, gvk_cnv_result_t *res, cnv_redo_fn redo,
                   void *redo_arg, const cnv_split_t *sp, gvk_err_t *err);
/* Bytes a run holds per region: its counts, its row of the layout and the model's arrays (those
 * of result_alloc) for N samples and n classes; and the machine's physical memory in bytes. */
double cnv_region_bytes(int N, int n_classes, int keep_posterior);
double cnv_phys_bytes(void);
/* gvk_cnv_run with the EM and the segmentation spread as sp says (NULL: gvk_cnv_run). */
int cnv_run_split(gvk_cnv_t *e, const gvk_cnv_counts_t *c, const cnv_split_t *sp, gvk_cnv_result_t **out,
                  gvk_err_t *err);

/* The rows of a count matrix whose lines lie in bytes [lo, hi) of path (line starts; the header
 * is read from the file's start), for a reader that splits the file (gvk cnv under MPI). line0:
 * the number of the range's first line, for messages. c has the range's regions only (m may be
 * 0); sequences are checked for contiguity within the range; a plain matrix's regions are
 * numbered from 1 within the range. A plain (uncompressed) file only. */
int cnv_counts_read_range(const char *path, int as_matrix, int threads, int64_t lo, int64_t hi, long line0,
                          gvk_cnv_counts_t *c, gvk_err_t *err);

/* gvk_cnv_count_bams counting only one share of the rows (the share-th of shares runs of equal
 * rows, [*row0, *row1)) in every file, for ranks that split the regions (gvk cnv under MPI with
 * more ranks than files); c has every row, those of other shares 0. */
int cnv_count_bams_share(const char *const *paths, int n_paths, const char *bed, const gvk_cnv_bam_opts_t *o,
                         int share, int shares, int *row0, int *row1, gvk_cnv_counts_t *c, gvk_err_t *err);

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

/* Test-only settings of an engine (not in gvk_cnv_opts_t): GPU EM chunks of gpu_chunk_regions
 * regions (0: sized to the free device memory; the streaming's tests), and force_redo 1 to take the
 * near-tie redo path after a CPU EM too (nothing may change). The CLI maps GVK_CNV_GPU_CHUNK and
 * GVK_CNV_FORCE_REDO to them. */
void cnv_set_testing(gvk_cnv_t *e, size_t gpu_chunk_regions, int force_redo);

#endif
