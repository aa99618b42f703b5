/* SPDX-License-Identifier: MIT */
/* Pair-HMM engine: validates a batch, runs the float pass, re-runs the pairs that underflow in
 * double, and turns raw sums into log10 likelihoods (spec section 8.1). Pairs are sorted by shape
 * so that the pairs sharing a vector have similar lengths, then spread over threads in blocks. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/err.h"
#include "../common/threads.h"
#include "pairhmm_engine.h"
#include "pairhmm_kernel.h"
#include "pairhmm_tables.h"

struct gvk_pairhmm_s {
	gvk_pairhmm_opts_t opt;
	const phmm_isa_t *isa;
	phmm_gpu_t *gpu; /* NULL when computing on the CPU */
	char name[96];
	gvk_pairhmm_stats_t st;
	double gpu_s_closed; /* kernel time of a GPU back end closed after a failure */
	int gpu_tried;       /* auto mode: the GPU was opened, or found missing, already */
	/* Per-batch arrays kept from one call to the next: fresh ones cost a page fault per 4 KiB,
	 * in the serial part of every call. */
	float *fsum;
	double *dsum;
	size_t *sel, cap;
};

/* Cells below which a pass in auto mode stays on the CPU while no GPU is open. */
#define PHMM_AUTO_GPU_CELLS 2e9

void gvk_pairhmm_opts_init(gvk_pairhmm_opts_t *opt)
{
	memset(opt, 0, sizeof *opt);
	opt->flavour = GVK_PHMM_FMA;
	opt->threads = 1;
	opt->device = GVK_DEVICE_AUTO;
	opt->isa = GVK_ISA_AUTO;
	opt->gpu = -1;
}

gvk_pairhmm_t *gvk_pairhmm_create(const gvk_pairhmm_opts_t *opt, gvk_err_t *err)
{
	if (opt->flavour != GVK_PHMM_FMA && opt->flavour != GVK_PHMM_NOFMA) {
		gvk_err_set(err, GVK_ERR_ARG, "unknown Pair-HMM flavour %d", opt->flavour);
		return NULL;
	}
	const phmm_isa_t *isa = phmm_isa_select(opt->isa);
	if (!isa) {
		gvk_err_set(err, GVK_ERR_UNSUPPORTED, "the requested CPU kernel is not available on this CPU or build");
		return NULL;
	}
	gvk_pairhmm_t *e = calloc(1, sizeof *e);
	if (!e) {
		gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		return NULL;
	}
	e->opt = *opt;
	if (e->opt.threads < 1) e->opt.threads = gvk_ncpu();
	e->isa = isa;
	/* --device gpu opens the GPU now and fails without one; auto opens it at the first pass big
	 * enough to be worth the GPU's start-up (about 0.3 s), so small inputs stay on the CPU. */
	if (opt->device == GVK_DEVICE_GPU) {
		gvk_err_t gerr = {0, ""};
		if (!(e->gpu = phmm_gpu_open(opt, &gerr))) {
			gvk_err_set(err, gerr.code ? gerr.code : GVK_ERR_GPU, "%s", gerr.msg);
			free(e);
			return NULL;
		}
	}
	e->gpu_tried = opt->device != GVK_DEVICE_AUTO;
	if (e->gpu)
		snprintf(e->name, sizeof e->name, "gpu:%s", phmm_gpu_name(e->gpu));
	else
		snprintf(e->name, sizeof e->name, "cpu-%s", isa->name);
	return e;
}

void gvk_pairhmm_destroy(gvk_pairhmm_t *e)
{
	if (!e) return;
	if (e->gpu) phmm_gpu_close(e->gpu);
	free(e->fsum), free(e->dsum), free(e->sel);
	free(e);
}

const char *gvk_pairhmm_device_name(const gvk_pairhmm_t *e) { return e->name; }

void gvk_pairhmm_stats(const gvk_pairhmm_t *e, gvk_pairhmm_stats_t *st)
{
	*st = e->st;
	st->gpu_kernel_s = e->gpu_s_closed + (e->gpu ? phmm_gpu_kernel_seconds(e->gpu) : 0);
}

int gvk_pairhmm_gpu_count(void) { return phmm_gpu_count(); }

typedef struct {
	uint64_t key;
	size_t idx;
} sort_key_t;

static int cmp_key_desc(const void *a, const void *b)
{
	uint64_t x = ((const sort_key_t *)a)->key, y = ((const sort_key_t *)b)->key;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* One precision pass over a list of pairs (already sorted by shape). */
typedef struct {
	const phmm_isa_t *isa;
	int fused, dbl;
	const phmm_job_t *jobs;
	const size_t *idx; /* original pair index of each job */
	size_t n;
	atomic_size_t next;
	atomic_int err;
	float *fsum;
	double *dsum;
} pass_t;

static void pass_worker(void *arg, int tid)
{
	pass_t *p = arg;
	gvk_buf_t buf = {NULL, 0};
	const int lanes = p->dbl ? p->isa->lanes_d : p->isa->lanes_f;
	unsigned ftz = phmm_ftz_enter();
	float f[64];
	double d[64];
	for (;;) {
		size_t b = atomic_fetch_add(&p->next, (size_t)lanes);
		if (b >= p->n || atomic_load(&p->err)) break;
		int m = (int)(p->n - b < (size_t)lanes ? p->n - b : (size_t)lanes);
		int rc = p->dbl ? p->isa->kd(p->jobs + b, m, p->fused, d, &buf)
		                : p->isa->kf(p->jobs + b, m, p->fused, f, &buf);
		if (rc < 0) {
			atomic_store(&p->err, rc);
			break;
		}
		for (int k = 0; k < m; ++k) {
			if (p->dbl)
				p->dsum[p->idx[b + k]] = d[k];
			else
				p->fsum[p->idx[b + k]] = f[k];
		}
	}
	phmm_ftz_leave(ftz);
	gvk_buf_free(&buf);
	(void)tid;
}

/* Sorts the selected pairs by shape and runs one pass over them on the CPU threads. */
static int cpu_pass(const gvk_pairhmm_t *e, const gvk_read_t *reads, const gvk_hap_t *haps,
                    const gvk_pair_t *pairs, const size_t *sel, size_t n, int dbl, float *fsum, double *dsum)
{
	if (n == 0) return 0;
	sort_key_t *keys = malloc(n * sizeof *keys);
	phmm_job_t *jobs = malloc(n * sizeof *jobs);
	size_t *idx = malloc(n * sizeof *idx);
	if (!keys || !jobs || !idx) {
		free(keys), free(jobs), free(idx);
		return GVK_ERR_NOMEM;
	}
	for (size_t k = 0; k < n; ++k) {
		const gvk_pair_t *pp = &pairs[sel ? sel[k] : k];
		keys[k].key = (uint64_t)haps[pp->hap].len << 32 | (uint32_t)reads[pp->read].len;
		keys[k].idx = sel ? sel[k] : k;
	}
	qsort(keys, n, sizeof *keys, cmp_key_desc);
	for (size_t k = 0; k < n; ++k) {
		const gvk_pair_t *pp = &pairs[keys[k].idx];
		jobs[k] = (phmm_job_t){&reads[pp->read], &haps[pp->hap]};
		idx[k] = keys[k].idx;
	}
	free(keys);
	pass_t p = {e->isa, e->opt.flavour == GVK_PHMM_FMA, dbl, jobs, idx, n, 0, 0, fsum, dsum};
	int nt = e->opt.threads;
	size_t lanes = (size_t)(dbl ? e->isa->lanes_d : e->isa->lanes_f);
	if ((size_t)nt > (n + lanes - 1) / lanes) nt = (int)((n + lanes - 1) / lanes);
	gvk_parallel(nt, pass_worker, &p);
	free(jobs);
	free(idx);
	return atomic_load(&p.err);
}

/* The first invalid pair of [b, e), or e. */
static size_t first_bad_pair(const gvk_read_t *reads, const gvk_hap_t *haps, const gvk_pair_t *pairs, size_t b, size_t e)
{
	for (size_t k = b; k < e; ++k) {
		const gvk_read_t *r = &reads[pairs[k].read];
		const gvk_hap_t *h = &haps[pairs[k].hap];
		if (r->len < 1 || !r->bases || !r->qual || !r->ins || !r->del || !r->gcp || h->len < 1 || !h->bases) return k;
	}
	return e;
}

enum { CHECK_MAX_THREADS = 64 };
typedef struct {
	const gvk_read_t *reads;
	const gvk_hap_t *haps;
	const gvk_pair_t *pairs;
	size_t n, bad[CHECK_MAX_THREADS];
	int nt;
} check_job_t;

static void check_worker(void *arg, int t)
{
	check_job_t *j = arg;
	size_t b = j->n * (size_t)t / (size_t)j->nt, e = j->n * (size_t)(t + 1) / (size_t)j->nt;
	size_t k = first_bad_pair(j->reads, j->haps, j->pairs, b, e);
	j->bad[t] = k < e ? k : j->n;
}

/* Checks every pair on the engine's threads and names the first bad one. */
static int check_pairs(const gvk_pairhmm_t *e, const gvk_read_t *reads, const gvk_hap_t *haps,
                       const gvk_pair_t *pairs, size_t n, gvk_err_t *err)
{
	check_job_t j = {reads, haps, pairs, n, {0}, n < 65536 ? 1 : e->opt.threads};
	if (j.nt > CHECK_MAX_THREADS) j.nt = CHECK_MAX_THREADS;
	gvk_parallel(j.nt, check_worker, &j);
	size_t k = n;
	for (int t = 0; t < j.nt; ++t) k = j.bad[t] < k ? j.bad[t] : k;
	if (k == n) return 0;
	const gvk_read_t *r = &reads[pairs[k].read];
	if (r->len < 1) return gvk_err_set(err, GVK_ERR_ARG, "pair %zu: read %d is empty", k, pairs[k].read);
	if (!r->bases || !r->qual || !r->ins || !r->del || !r->gcp)
		return gvk_err_set(err, GVK_ERR_ARG, "pair %zu: read %d has a NULL array", k, pairs[k].read);
	return gvk_err_set(err, GVK_ERR_ARG, "pair %zu: haplotype %d is empty", k, pairs[k].hap);
}

double phmm_final_float(float s) { return (double)(log10f(s) - PHMM_LOG10_INIT_F); }
double phmm_final_double(double s) { return log10(s) - PHMM_LOG10_INIT_D; }

/* The final log10 values (spec 8.4) and the statistics, on all threads: serial, they cost a
 * large part of a GPU run's host time. */
enum { FINAL_MAX_THREADS = 256 };
typedef struct {
	const gvk_pairhmm_t *e;
	const gvk_read_t *reads;
	const gvk_hap_t *haps;
	const gvk_pair_t *pairs;
	size_t n;
	const float *fsum;
	const double *dsum;
	gvk_pairhmm_out_t *out;
	int nt;
	uint64_t cells[FINAL_MAX_THREADS], ndouble[FINAL_MAX_THREADS];
} final_job_t;

static void final_worker(void *arg, int t)
{
	final_job_t *j = arg;
	uint64_t cells = 0, nd = 0;
	for (size_t k = j->n * (size_t)t / (size_t)j->nt; k < j->n * (size_t)(t + 1) / (size_t)j->nt; ++k) {
		int dbl = j->e->opt.force_double || j->fsum[k] < PHMM_DOUBLE_THRESHOLD;
		j->out->log10[k] = dbl ? phmm_final_double(j->dsum[k]) : phmm_final_float(j->fsum[k]);
		if (j->out->used_double) j->out->used_double[k] = (uint8_t)dbl;
		cells += (uint64_t)j->reads[j->pairs[k].read].len * (uint64_t)j->haps[j->pairs[k].hap].len;
		nd += (uint64_t)dbl;
	}
	j->cells[t] = cells, j->ndouble[t] = nd;
}

/* Runs one pass on the GPU when there is one, else on the CPU; a GPU failure falls back. */
static void auto_open_gpu(gvk_pairhmm_t *e, const gvk_read_t *reads, const gvk_hap_t *haps,
                          const gvk_pair_t *pairs, size_t n)
{
	double cells = 0;
	for (size_t k = 0; k < n; ++k) cells += (double)reads[pairs[k].read].len * haps[pairs[k].hap].len;
	if (cells < PHMM_AUTO_GPU_CELLS) return;
	gvk_err_t gerr = {0, ""};
	e->gpu_tried = 1;
	e->gpu = phmm_gpu_open(&e->opt, &gerr);
	if (e->gpu)
		snprintf(e->name, sizeof e->name, "gpu:%s", phmm_gpu_name(e->gpu));
	else if (e->opt.verbose && gerr.code != GVK_ERR_UNSUPPORTED)
		fprintf(stderr, "[gvk] the GPU cannot be used (%s); computing on the CPU\n", gerr.msg);
}

static int run_pass(gvk_pairhmm_t *e, const gvk_read_t *reads, const gvk_hap_t *haps,
                    const gvk_pair_t *pairs, const size_t *sel, size_t n, int dbl, float *fsum,
                    double *dsum, gvk_err_t *err)
{
	if (e->gpu) {
		gvk_err_t gerr = {0, ""};
		int rc = phmm_gpu_pass(e->gpu, reads, haps, pairs, sel, n, dbl, fsum, dsum, &gerr);
		if (rc == 0) return 0;
		if (e->opt.device == GVK_DEVICE_GPU) return gvk_err_set(err, rc, "%s", gerr.msg);
		fprintf(stderr, "[gvk] GPU failed (%s); continuing on the CPU\n", gerr.msg);
		e->gpu_s_closed += phmm_gpu_kernel_seconds(e->gpu);
		phmm_gpu_close(e->gpu);
		e->gpu = NULL;
		snprintf(e->name, sizeof e->name, "cpu-%s", e->isa->name);
	}
	int rc = cpu_pass(e, reads, haps, pairs, sel, n, dbl, fsum, dsum);
	return rc < 0 ? gvk_err_set(err, rc, "out of memory in the Pair-HMM engine") : 0;
}

int gvk_pairhmm_pairs(gvk_pairhmm_t *e, const gvk_read_t *reads, const gvk_hap_t *haps,
                      const gvk_pair_t *pairs, size_t n, gvk_pairhmm_out_t *out, gvk_err_t *err)
{
	int rc = check_pairs(e, reads, haps, pairs, n, err);
	if (rc < 0 || n == 0) return rc;
	if (n > e->cap) {
		free(e->fsum), free(e->dsum), free(e->sel);
		e->fsum = malloc(n * sizeof *e->fsum), e->dsum = malloc(n * sizeof *e->dsum), e->sel = malloc(n * sizeof *e->sel);
		e->cap = e->fsum && e->dsum && e->sel ? n : 0;
		if (!e->cap) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for %zu pairs", n);
	}
	float *fsum = out->fsum ? out->fsum : e->fsum;
	double *dsum = out->dsum ? out->dsum : e->dsum;
	size_t *sel = e->sel;
	if (!e->gpu_tried) auto_open_gpu(e, reads, haps, pairs, n);
	const int all_double = e->opt.force_double || out->dsum != NULL;
	if (e->opt.force_double)
		memset(fsum, 0, n * sizeof *fsum);
	else if ((rc = run_pass(e, reads, haps, pairs, NULL, n, 0, fsum, NULL, err)) < 0)
		return rc;
	size_t nd = 0;
	for (size_t k = 0; k < n; ++k)
		if (all_double || fsum[k] < PHMM_DOUBLE_THRESHOLD) sel[nd++] = k;
	if ((rc = run_pass(e, reads, haps, pairs, sel, nd, 1, NULL, dsum, err)) < 0) return rc;
	final_job_t fj = {e, reads, haps, pairs, n, fsum, dsum, out, n < 65536 ? 1 : e->opt.threads, {0}, {0}};
	if (fj.nt > FINAL_MAX_THREADS) fj.nt = FINAL_MAX_THREADS;
	gvk_parallel(fj.nt, final_worker, &fj);
	for (int t = 0; t < fj.nt; ++t) e->st.cells += fj.cells[t], e->st.double_pairs += fj.ndouble[t];
	e->st.pairs += n;
	return 0;
}

int gvk_pairhmm_batch(gvk_pairhmm_t *e, const gvk_read_t *reads, int n_reads, const gvk_hap_t *haps,
                      int n_haps, double *out, gvk_err_t *err)
{
	if (n_reads < 0 || n_haps < 0) return gvk_err_set(err, GVK_ERR_ARG, "negative batch size");
	size_t n = (size_t)n_reads * (size_t)n_haps;
	if (n == 0) return 0;
	gvk_pair_t *pairs = malloc(n * sizeof *pairs);
	if (!pairs) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for %zu pairs", n);
	for (int r = 0; r < n_reads; ++r)
		for (int h = 0; h < n_haps; ++h) pairs[(size_t)r * n_haps + h] = (gvk_pair_t){r, h};
	gvk_pairhmm_out_t o = {out, NULL, NULL, NULL};
	int rc = gvk_pairhmm_pairs(e, reads, haps, pairs, n, &o, err);
	free(pairs);
	return rc;
}
