/* SPDX-License-Identifier: MIT */
/* The per-region EM (docs/cnv.md, Semantics 3) behind a small interface, so that a GPU back end can run
 * beside the CPU one. Every array is region-fastest with leading dimension ld (element (c, r) at
 * c * ld + r), which gives coalesced loads when one GPU thread handles one region. */
#ifndef GVK_CNV_EM_H
#define GVK_CNV_EM_H

#include <stddef.h>
#include <stdint.h>
#include "gvk.h"

typedef struct {
	int n, N, h, cyc;          /* classes, samples, index of CN2, cycles */
	double I[GVK_CNV_MAX_CLASSES], log2I[GVK_CNV_MAX_CLASSES], abs_log2I[GVK_CNV_MAX_CLASSES];
	double alpha_init[GVK_CNV_MAX_CLASSES], prior[GVK_CNV_MAX_CLASSES];
	double prior_sum, min_read_count;
	int cov_is_one;            /* every coverage factor is exactly 1 */
	int log_domain;            /* opt-in log-sum-exp E-step */
} cnv_em_par_t;

/* One batch of regions. x and cov are inputs; the rest are outputs (post may be NULL). */
typedef struct {
	size_t m, ld;
	const double *x;           /* N x ld */
	const double *cov;         /* N */
	double *lambda, *alpha;    /* n x ld */
	double *post;              /* (k * n + i) x ld, or NULL */
	double *sini;              /* N x ld */
	double *ini;               /* ld */
	uint8_t *cls;              /* N x ld */
} cnv_em_job_t;

void cnv_em_par_init(cnv_em_par_t *p, const gvk_cnv_opts_t *o, int N, const double *cov);

/* 1 when every x of region r is <= minReadCount (the shortcut of docs/cnv.md, Semantics 3). */
int cnv_em_is_shortcut(const cnv_em_par_t *p, const cnv_em_job_t *j, size_t r);
/* Writes the shortcut constants into region r. A back end may run the EM on every region and
 * let the caller overwrite the shortcut rows afterwards (as gcn.MOPS does). */
void cnv_em_set_shortcut(const cnv_em_par_t *p, cnv_em_job_t *j, size_t r);

/* CPU back end: all regions of the job on `threads` threads, shortcut included. */
int cnv_em_cpu(const cnv_em_par_t *p, cnv_em_job_t *j, int threads, gvk_err_t *err);

/* GPU back end (cnv_em_gpu.cu; cnv_em_nogpu.c when built without CUDA). available() is 1 when a
 * device can be used (and creates its context). cnv_em_gpu runs every region on the device and
 * overwrites the shortcut rows on the host, which, like the packing of chunks, uses `threads`
 * host threads. chunk > 0 forces chunks of that many regions (tests of the streaming); 0 sizes
 * them to the free device memory. A smaller chunk after an out-of-memory is reported to log. */
int cnv_em_gpu_available(void);
/* available() with the reason when not: 1, or a negative code with err set (GVK_ERR_GPU: "no GPU
 * (...)" on a machine without one, else the runtime's error; GVK_ERR_UNSUPPORTED in a build
 * without a GPU back end). */
int cnv_em_gpu_check(gvk_err_t *err);
int cnv_em_gpu(const cnv_em_par_t *p, cnv_em_job_t *j, int threads, size_t chunk, int gpu, const gvk_log_t *log,
               gvk_err_t *err);
/* The device's name ("none" without one), for benchmarks and messages. */
void cnv_em_gpu_name(char *buf, size_t n);

/* One region as a standalone call (used by the integer copy numbers and the unit tests):
 * x and cov have N entries; lambda, alpha n; post n * N (sample-major) or NULL; sini, cls N.
 * Returns 0 or GVK_ERR_NOMEM. */
int cnv_em_one(const cnv_em_par_t *p, const double *x, const double *cov, double *lambda, double *alpha,
               double *post, double *sini, double *ini, uint8_t *cls);

#endif
