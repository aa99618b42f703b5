/* SPDX-License-Identifier: MIT */
/* The CNV engine (gvk_cnv_create / gvk_cnv_run): the cn.mops pipeline from a count matrix to
 * integer copy numbers. */
#define _DEFAULT_SOURCE /* sysconf's _SC_PHYS_PAGES */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/device_policy.h"
#include "../common/err.h"
#include "../common/log.h"
#include "../common/threads.h"
#include "cnv.h"
#include "cnv_em.h"

void gvk_cnv_opts_init(gvk_cnv_opts_t *o, int exome)
{
	static const double I[9] = {0.025, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4};
	if (!o) return;
	memset(o, 0, sizeof *o);
	o->n_classes = 9;
	o->gpu = -1;
	memcpy(o->I, I, sizeof I);
	o->cn2 = 2;
	o->prior_impact = exome ? 10 : 1;
	o->cyc = 20;
	o->norm = 1;
	o->norm_type = GVK_CNV_NORM_POISSON;
	o->size_factor = GVK_CNV_NORM_MEAN;
	o->norm_qu = 0.25, o->qu_size_factor = 0.75;
	o->upper = 0.5;
	o->lower = exome ? -0.8 : -0.9;
	o->min_width = exome ? 5 : 3;
	o->min_read_count = exome ? 1 : 5;
	o->seg_alpha = 0.05, o->seg_delta = 20, o->seg_max_int = 40, o->seg_cyber_weight = 50;
	o->threads = 1;
	o->device = GVK_DEVICE_AUTO;
	gvk_log_default(&o->log);
}

struct gvk_cnv_s {
	gvk_cnv_opts_t o;
	int gpu; /* -1: not looked for yet, 0: none usable, 1: usable */
	size_t gpu_chunk_regions; /* tests (cnv_set_testing): regions per GPU EM chunk, 0 automatic */
	int force_redo;           /* tests: the near-tie redo path after a CPU EM too */
};

void cnv_set_testing(gvk_cnv_t *e, size_t gpu_chunk_regions, int force_redo)
{
	e->gpu_chunk_regions = gpu_chunk_regions, e->force_redo = force_redo;
}

void gvk_cnv_counts_free(gvk_cnv_counts_t *c)
{
	if (!c) return;
	for (int s = 0; s < c->N && c->samples; ++s) free(c->samples[s]);
	for (int q = 0; q < c->n_seqs && c->seq_names; ++q) free(c->seq_names[q]);
	free(c->samples), free(c->seq_names), free(c->seq_off), free(c->start), free(c->end), free(c->x);
	free(c->seq_len);
	memset(c, 0, sizeof *c);
}

void gvk_cnv_result_free(gvk_cnv_result_t *r)
{
	if (!r) return;
	free(r->norm), free(r->cov), free(r->lambda), free(r->alpha), free(r->post), free(r->sini), free(r->ini);
	free(r->cls), free(r->seg_stat), free(r->call), free(r->segs), free(r->cnvs), free(r->cnvr), free(r->cnvr_cn);
	free(r->nf_size), free(r->nf_before), free(r->nf_final), free(r->nf_u), free(r->nf_bw), free(r->nf_mode);
	free(r->nf_nuser), free(r->nf_excluded);
	free(r->sp_eps), free(r->sp_sd), free(r->sp_q95), free(r->sp_ninit);
	free(r);
}

int gvk_cnv_opts_check(const gvk_cnv_opts_t *o, gvk_err_t *err)
{
	if (!o) return gvk_err_null(err, __func__, "o");
	if (o->n_classes < 2 || o->n_classes > GVK_CNV_MAX_CLASSES || o->cn2 < 0 || o->cn2 >= o->n_classes)
		return gvk_err_set(err, GVK_ERR_ARG, "invalid classes (need 2..%d fold changes and CN2 among them)", GVK_CNV_MAX_CLASSES);
	for (int i = 0; i < o->n_classes; ++i)
		if (!(o->I[i] > 0) || !isfinite(o->I[i])) return gvk_err_set(err, GVK_ERR_ARG, "fold changes must be positive");
	if (o->cyc < 1) return gvk_err_set(err, GVK_ERR_ARG, "cyc must be at least 1");
	if (o->norm < 0 || o->norm > 2) return gvk_err_set(err, GVK_ERR_ARG, "norm must be 0, 1 or 2");
	if (o->norm_type < GVK_CNV_NORM_MEAN || o->norm_type > GVK_CNV_NORM_POISSON || o->size_factor < GVK_CNV_NORM_MEAN ||
	    o->size_factor > GVK_CNV_NORM_MODE)
		return gvk_err_set(err, GVK_ERR_ARG, "unknown normalization type");
	if (!(o->prior_impact >= 0) || o->min_width < 1 || !(o->seg_alpha > 0))
		return gvk_err_set(err, GVK_ERR_ARG, "invalid priorImpact, minWidth or segmentation alpha");
	if (o->device != GVK_DEVICE_AUTO && o->device != GVK_DEVICE_CPU && o->device != GVK_DEVICE_GPU)
		return gvk_err_set(err, GVK_ERR_ARG, "unknown device %d", o->device);
	if (o->gpu < -1) return gvk_err_set(err, GVK_ERR_ARG, "gpu must be -1 (the first GPU) or a device index, not %d", o->gpu);
	if (!(o->gpu_min_work >= 0)) return gvk_err_set(err, GVK_ERR_ARG, "gpu_min_work must be 0 (the default) or positive");
	return 0;
}

typedef struct {
	const char *name;
	int idx;
} named_t;

static int by_name(const void *a, const void *b)
{
	const named_t *x = a, *y = b;
	int d = strcmp(x->name, y->name);
	return d ? d : (x->idx > y->idx) - (x->idx < y->idx);
}

/* Every output (table, VCF) names the samples: a name given twice is refused before the model
 * runs. */
static int check_names(const gvk_cnv_counts_t *c, gvk_err_t *err)
{
	named_t *s = malloc((size_t)c->N * sizeof *s);
	if (!s) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for %d sample names", c->N);
	int rc = 0;
	for (int k = 0; k < c->N && rc == 0; ++k) {
		s[k].name = c->samples[k], s[k].idx = k;
		if (!s[k].name) rc = gvk_err_set(err, GVK_ERR_ARG, "sample %d has no name", k + 1);
	}
	if (rc == 0) qsort(s, c->N, sizeof *s, by_name);
	for (int k = 1; k < c->N && rc == 0; ++k)
		if (!strcmp(s[k - 1].name, s[k].name))
			rc = gvk_err_set(err, GVK_ERR_ARG, "sample names must be distinct: '%s' names samples %d and %d",
			                 s[k].name, s[k - 1].idx + 1, s[k].idx + 1);
	free(s);
	return rc;
}

static int check_counts(const gvk_cnv_counts_t *c, gvk_err_t *err)
{
	if (c->N < 2) return gvk_err_set(err, GVK_ERR_ARG, "cn.mops needs at least two samples (got %d)", c->N);
	if (c->m < 1) return gvk_err_set(err, GVK_ERR_ARG, "the count matrix has no regions");
	if (!c->x || !c->samples || !c->seq_off || c->n_seqs < 1 || c->seq_off[0] != 0 || c->seq_off[c->n_seqs] != c->m)
		return gvk_err_set(err, GVK_ERR_ARG, "the counts are incomplete (no matrix, sample names or sequence offsets)");
	int rc = check_names(c, err);
	if (rc < 0) return rc;
	for (size_t k = 0; k < (size_t)c->m * c->N; ++k)
		if (!(c->x[k] >= 0) || !isfinite(c->x[k]))
			return gvk_err_set(err, GVK_ERR_FORMAT, "count of sample %s, region %zu is negative or not finite",
			                   c->samples[k / c->m], k % c->m + 1);
	return 0;
}

gvk_cnv_t *gvk_cnv_create(const gvk_cnv_opts_t *o, gvk_err_t *err)
{
	if (!o) return gvk_err_null(err, __func__, "o"), NULL;
	if (gvk_cnv_opts_check(o, err) < 0) return NULL;
	gvk_cnv_t *e = calloc(1, sizeof *e);
	if (!e) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory"), NULL;
	e->o = *o, e->gpu = -1;
	if (e->o.threads < 1) e->o.threads = gvk_ncpu(); /* 0: all processors, as in every engine */
	if (o->device == GVK_DEVICE_GPU && (e->gpu = cnv_em_gpu_check(err)) < 0) {
		free(e);
		return NULL;
	}
	return e;
}

void gvk_cnv_destroy(gvk_cnv_t *e)
{
	free(e);
}

/* In step with result_alloc: norm, sini, seg_stat, call (doubles) and cls (a byte) per sample,
 * lambda and alpha per class, ini, post per class and sample when kept; and the counts and the
 * layout's start and end. */
double cnv_region_bytes(int N, int n_classes, int keep_posterior)
{
	double n = n_classes, s = N;
	return 8 * 4 * s + s + 8 * 2 * n + 8 + (keep_posterior ? 8 * n * s : 0) + 8 * s + 16;
}

double cnv_phys_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
	return pages > 0 && size > 0 ? (double)pages * (double)size : INFINITY;
}

/* Refused before the allocation rather than met in it: a count matrix of billions of regions
 * would have the system swap or kill the process before malloc said no. */
static int check_memory(const gvk_cnv_counts_t *c, const gvk_cnv_opts_t *o, gvk_err_t *err)
{
	double need = (double)c->m * cnv_region_bytes(c->N, o->n_classes, o->keep_posterior), have = cnv_phys_bytes();
	if (need <= have) return 0;
	return gvk_err_set(err, GVK_ERR_NOMEM,
	                   "the cn.MOPS model of %d regions x %d samples needs about %.1f GiB, more than the %.1f GiB of "
	                   "memory here: count in longer windows or fewer regions%s",
	                   c->m, c->N, need / (1 << 30), have / (1 << 30), o->keep_posterior ? ", or leave out the posterior" : "");
}

static gvk_cnv_result_t *result_alloc(const gvk_cnv_counts_t *c, const gvk_cnv_opts_t *o)
{
	gvk_cnv_result_t *r = calloc(1, sizeof *r);
	if (!r) return NULL;
	size_t m = (size_t)c->m, N = (size_t)c->N, n = (size_t)o->n_classes, qn = (size_t)c->n_seqs * N;
	size_t Q = (size_t)c->n_seqs;
	r->m = c->m, r->N = c->N, r->n = o->n_classes;
	r->norm = malloc(m * N * sizeof(double));
	r->cov = malloc(N * sizeof(double));
	r->lambda = malloc(m * n * sizeof(double));
	r->alpha = malloc(m * n * sizeof(double));
	r->post = o->keep_posterior ? malloc(m * n * N * sizeof(double)) : NULL;
	r->sini = malloc(m * N * sizeof(double));
	r->ini = malloc(m * sizeof(double));
	r->cls = malloc(m * N);
	r->seg_stat = calloc(m * N, sizeof(double));
	r->call = malloc(m * N * sizeof(double));
	r->nf_size = malloc(qn * sizeof(double));
	r->nf_before = malloc(qn * sizeof(double));
	r->nf_final = malloc(qn * sizeof(double));
	r->nf_u = malloc(Q * sizeof(double));
	r->nf_bw = malloc(Q * sizeof(double));
	r->nf_mode = malloc(Q * sizeof(double));
	r->nf_nuser = calloc(Q, sizeof(int));
	r->nf_excluded = calloc(Q, sizeof(int));
	r->sp_eps = calloc(qn, sizeof(double));
	r->sp_sd = calloc(qn, sizeof(double));
	r->sp_q95 = calloc(qn, sizeof(double));
	r->sp_ninit = calloc(qn, sizeof(int));
	if (!r->norm || !r->cov || !r->lambda || !r->alpha || (o->keep_posterior && !r->post) || !r->sini || !r->ini ||
	    !r->cls || !r->seg_stat || !r->call || !r->nf_size || !r->nf_before || !r->nf_final || !r->nf_u || !r->nf_bw ||
	    !r->nf_mode || !r->nf_nuser || !r->nf_excluded || !r->sp_eps || !r->sp_sd || !r->sp_q95 || !r->sp_ninit) {
		gvk_cnv_result_free(r);
		return NULL;
	}
	for (size_t k = 0; k < qn; ++k) r->nf_size[k] = r->nf_before[k] = NAN, r->nf_final[k] = 1.0;
	return r;
}

int gvk_cnv_have_gpu(void)
{
#ifdef GVK_HAVE_CUDA
	return 1;
#else
	return 0;
#endif
}

/* Whether the EM goes to the GPU: always under device GPU (gvk_cnv_create found one), under AUTO
 * when the policy's size is reached and a GPU is usable (looked for once per engine). */
static int want_gpu(gvk_cnv_t *e, const gvk_cnv_counts_t *c)
{
	if (e->o.device == GVK_DEVICE_CPU) return 0;
	if (e->o.device == GVK_DEVICE_AUTO && !gvk_policy_auto_gpu(GVK_ENGINE_CNV, (double)c->m * c->N, e->o.gpu_min_work))
		return 0;
	if (e->gpu < 0) e->gpu = cnv_em_gpu_available();
	return e->gpu;
}

/* The EM on the GPU when chosen; under AUTO a GPU failure (after the back end has already tried
 * smaller chunks) falls back to the CPU with a warning. */
static int run_em(const cnv_em_par_t *par, cnv_em_job_t *job, const gvk_cnv_opts_t *o, size_t chunk, int use_gpu, char *name,
                  size_t name_len, gvk_err_t *err)
{
	int threads = o->threads < 1 ? 1 : o->threads;
	if (use_gpu) {
		gvk_err_t gerr = {0, ""};
		int rc = cnv_em_gpu(par, job, threads, chunk, o->gpu, &o->log, &gerr);
		if (rc == 0 || o->device == GVK_DEVICE_GPU) {
			snprintf(name, name_len, "gpu");
			return rc < 0 ? gvk_err_set(err, rc, "%s", gerr.msg) : 0;
		}
		gvk_logf(&o->log, GVK_LOG_WARN, "the GPU EM failed (%s); running it on the CPU", gerr.msg);
	}
	snprintf(name, name_len, "cpu");
	return cnv_em_cpu(par, job, threads, err);
}

/* cnv_call's redo: the EM of one sequence's regions again on the CPU. The GPU's exp/log differ
 * from the C library's in the last bits, which can reverse a near tie of two neighbouring
 * segmentation scores; with the CPU's EM values the tie falls as with the package. */
typedef struct {
	const gvk_cnv_counts_t *c;
	const cnv_em_par_t *par;
	const cnv_em_job_t *job; /* the whole EM job */
	int threads;
} em_redo_t;

static int em_redo_cpu(void *arg, int q, gvk_err_t *err)
{
	const em_redo_t *d = arg;
	const cnv_em_job_t *w = d->job;
	size_t r0 = (size_t)d->c->seq_off[q], len = (size_t)d->c->seq_off[q + 1] - r0;
	cnv_em_job_t j = {len,         w->ld,         w->x + r0,   w->cov,      w->lambda + r0, w->alpha + r0,
	                  w->post ? w->post + r0 : NULL, w->sini + r0, w->ini + r0, w->cls + r0};
	return cnv_em_cpu(d->par, &j, d->threads, err);
}

/* The whole run in this process (sp NULL) or spread as sp says; the arguments are checked. */
static int run_split(gvk_cnv_t *e, const gvk_cnv_counts_t *c, const cnv_split_t *sp, gvk_cnv_result_t **out,
                     gvk_err_t *err)
{
	const gvk_cnv_opts_t *o = &e->o;
	/* first: it reads only the shape, where check_counts reads every count */
	int rc = check_memory(c, o, err);
	if (rc == 0) rc = check_counts(c, err);
	if (rc < 0) return rc;
	int use_gpu = want_gpu(e, c);
	gvk_logf(&o->log, GVK_LOG_DEBUG, "EM of %d regions x %d samples on the %s", c->m, c->N, use_gpu ? "GPU" : "CPU");
	gvk_cnv_result_t *r = result_alloc(c, o);
	if (!r) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for the results (%d regions x %d samples)", c->m, c->N);
	size_t mN = (size_t)c->m * c->N;
	double t0 = gvk_seconds();
	for (int s = 0; s < c->N; ++s) r->cov[s] = 1.0;
	if (o->norm == 0) {
		memcpy(r->norm, c->x, mN * sizeof *r->norm);
	} else {
		rc = cnv_normalize(c, o, r, err);
		if (rc == 0 && o->norm == 2) rc = cnv_coverage(c, r->cov, err);
	}
	if (rc < 0) goto fail;
	double t1 = gvk_seconds();
	/* norm = 2 models raw counts with coverage factors; the normalized copy is for display. */
	cnv_em_par_t par;
	cnv_em_par_init(&par, o, c->N, r->cov);
	cnv_em_job_t job = {(size_t)c->m, (size_t)c->m, o->norm == 2 ? c->x : r->norm, r->cov, r->lambda, r->alpha,
	                    r->post, r->sini, r->ini, r->cls};
	if (sp) {
		/* this process's regions only (as em_redo_cpu cuts a sequence), then every region's outputs */
		size_t r0 = (size_t)sp->r0, len = (size_t)(sp->r1 - sp->r0);
		cnv_em_job_t part = {len,         job.ld,       job.x + r0,   job.cov,      job.lambda + r0, job.alpha + r0,
		                     job.post ? job.post + r0 : NULL, job.sini + r0, job.ini + r0, job.cls + r0};
		snprintf(r->device_name, sizeof r->device_name, "%s", use_gpu ? "gpu" : "cpu");
		if (len > 0) rc = run_em(&par, &part, o, e->gpu_chunk_regions, use_gpu, r->device_name, sizeof r->device_name, err);
		rc = sp->em_join(sp->ctx, c, r, rc, err);
	} else {
		rc = run_em(&par, &job, o, e->gpu_chunk_regions, use_gpu, r->device_name, sizeof r->device_name, err);
	}
	if (rc < 0) goto fail;
	double t2 = gvk_seconds();
	/* force_redo takes the redo path after a CPU EM too (tests: the result must not change). */
	em_redo_t redo = {c, &par, &job, o->threads < 1 ? 1 : o->threads};
	int need_redo = (o->exact_ties && !strcmp(r->device_name, "gpu")) || e->force_redo;
	/* spread over processes, all of them take the same path (they join in it), as chosen */
	if (sp) need_redo = (o->exact_ties && use_gpu) || e->force_redo;
	rc = cnv_call_split(c, o, r, need_redo ? em_redo_cpu : NULL, &redo, sp, err);
	if (rc < 0) goto fail;
	double t3 = gvk_seconds();
	r->t_norm = t1 - t0, r->t_em = t2 - t1, r->t_call = t3 - t2;
	*out = r;
	return 0;
fail:
	gvk_cnv_result_free(r);
	return rc;
}

int gvk_cnv_run(gvk_cnv_t *e, const gvk_cnv_counts_t *c, gvk_cnv_result_t **out, gvk_err_t *err)
{
	if (out) *out = NULL;
	if (!e || !c || !out) return gvk_err_null(err, __func__, !e ? "e" : !c ? "c" : "res");
	return run_split(e, c, NULL, out, err);
}

/* The hooks are all called, and the ranges are the process's part of these counts. */
static int check_split(const gvk_cnv_counts_t *c, const cnv_split_t *sp, gvk_err_t *err)
{
	const char *fn = "gvk_cnv_run_split";
	if (!sp->em_join || !sp->near_join || !sp->seg_join)
		return gvk_err_null(err, fn, !sp->em_join ? "em_join" : !sp->near_join ? "near_join" : "seg_join");
	int64_t pairs = (int64_t)c->n_seqs * c->N;
	if (sp->r0 < 0 || sp->r0 > sp->r1 || sp->r1 > c->m)
		return gvk_err_set(err, GVK_ERR_ARG, "%s: regions [%d, %d) are not within the %d of the counts", fn, sp->r0,
		                   sp->r1, c->m);
	if (sp->p0 < 0 || sp->p0 > sp->p1 || sp->p1 > pairs)
		return gvk_err_set(err, GVK_ERR_ARG, "%s: pairs [%d, %d) are not within the %lld of the counts", fn, sp->p0,
		                   sp->p1, (long long)pairs);
	return 0;
}

int gvk_cnv_run_split(gvk_cnv_t *e, const gvk_cnv_counts_t *c, const gvk_cnv_split_t *sp, gvk_cnv_result_t **res,
                      gvk_err_t *err)
{
	if (res) *res = NULL;
	if (!e || !c || !res) return gvk_err_null(err, __func__, !e ? "e" : !c ? "c" : "res");
	int rc = sp ? check_split(c, sp, err) : 0;
	return rc < 0 ? rc : run_split(e, c, sp, res, err);
}
