/* SPDX-License-Identifier: MIT */
/* Pair-HMM engine: validates a batch, runs the float pass, re-runs the pairs that underflow in
 * double, and turns raw sums into log10 likelihoods (docs/pairhmm.md, Semantics 7). Pairs are sorted by shape
 * so that the pairs sharing a vector have similar lengths, then spread over threads in blocks.
 * A shared engine (opts.shared) queues concurrent calls and computes them merged
 * (pairhmm_merge.c), each batch on one of its contexts. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/device_policy.h"
#include "../common/err.h"
#include "../common/gpu_lock.h"
#include "../common/log.h"
#include "../common/threads.h"
#include "pairhmm_engine.h"
#include "pairhmm_kernel.h"
#include "pairhmm_merge.h"
#include "pairhmm_tables.h"
#include "../serve/serve_client.h"

/* What one batch at a time needs: the GPU back end (NULL on the CPU) and arrays kept from one
 * call to the next (fresh ones cost a page fault per 4 KiB, in the serial part of every call). */
typedef struct {
	phmm_gpu_t *gpu;
	float *fsum;
	double *dsum;
	size_t *sel, cap;
	/* A merged batch: the callers' reads, haplotypes and pairs side by side, and its results. */
	gvk_read_t *mr;
	gvk_hap_t *mh;
	gvk_pair_t *mp;
	double *ml;
	uint8_t *mu;
	size_t cap_r, cap_h, cap_p, cap_l, cap_u;
} phmm_ctx_t;

/* Contexts of a shared engine: while some batches are on the GPU, the next one is packed. */
enum { SHARED_CTX = PHMM_MERGE_MAX_CTX };

struct gvk_pairhmm_s {
	gvk_pairhmm_opts_t opt;
	const phmm_isa_t *isa;
	int nctx;
	phmm_ctx_t ctx[SHARED_CTX];
	phmm_merge_t *merge; /* shared engines */
	pthread_mutex_t lock; /* stats and name, for shared engines */
	char name[96];
	gvk_pairhmm_stats_t st;
	double gpu_s_closed; /* kernel time of a GPU back end closed after a failure */
	int gpu_tried;       /* auto mode: the GPU was opened, or found missing, already */
	gvk_pool_t *pool;    /* CPU workers kept between calls (NULL: one thread, or GPU only) */
	srv_clients_t *srv;  /* opts.server: connections to it (NULL: none, or it was not there) */
	atomic_int srv_gone; /* the server stopped answering: every call is computed here */
	char *server, *gpu_lock; /* copies of the options' paths */
	int gpu_lock_fd;     /* the GPU lock held, or -1 */
	char srv_device[128];
};


void gvk_pairhmm_opts_init(gvk_pairhmm_opts_t *opt)
{
	if (!opt) return;
	memset(opt, 0, sizeof *opt);
	opt->flavour = GVK_PHMM_FMA;
	opt->threads = 1;
	opt->device = GVK_DEVICE_AUTO;
	opt->isa = GVK_ISA_AUTO;
	opt->gpu = -1;
	opt->merge_max_pairs = 65536;
	opt->merge_contexts = 8;
	opt->gpu_gap_share = 1;
	gvk_log_default(&opt->log);
}

static void set_name(gvk_pairhmm_t *e)
{
	const phmm_gpu_t *g = e->ctx[0].gpu;
	if (e->srv && !atomic_load(&e->srv_gone))
		snprintf(e->name, sizeof e->name, "server:%.80s", e->srv_device);
	else if (g)
		snprintf(e->name, sizeof e->name, "gpu:%s", phmm_gpu_name(g));
	else
		snprintf(e->name, sizeof e->name, "cpu-%s", e->isa->name);
}

/* Device auto with a GPU lock: whether this process may open the GPU (it holds the lock, or
 * the lock file cannot be used at all); says so when another process holds it. */
static int gpu_lock_won(gvk_pairhmm_t *e)
{
	if (e->opt.device != GVK_DEVICE_AUTO || !e->gpu_lock || e->gpu_lock_fd >= 0 || !gvk_gpu_nodes_present()) return 1;
	return gvk_gpu_lock_claim(e->gpu_lock, &e->gpu_lock_fd, &e->opt.log, "Pair-HMM");
}

/* opts.server: the engine's calls go there when it answers now; else it says so and the engine
 * computes on the CPU. */
static int connect_server(gvk_pairhmm_t *e, const char *path)
{
	gvk_err_t cerr = {0, ""};
	if (!(e->server = strdup(path)) || !(e->srv = srv_clients_create(path))) return gvk_err_set(NULL, GVK_ERR_NOMEM, "out of memory");
	srv_client_t *c = srv_clients_take(e->srv, &cerr);
	if (c) {
		snprintf(e->srv_device, sizeof e->srv_device, "%s", srv_client_device(c));
		srv_clients_give(e->srv, c, 0);
		return 0;
	}
	gvk_logf(&e->opt.log, GVK_LOG_WARN, "gvk serve cannot be used (%s); Pair-HMM computes on the CPU", cerr.msg);
	srv_clients_destroy(e->srv);
	e->srv = NULL;
	return 0;
}

/* Opens the GPU back end of every context; device auto keeps the CPU when there is none. */
static int open_gpus(gvk_pairhmm_t *e, gvk_err_t *err)
{
	if (!gpu_lock_won(e)) return 0;
	for (int c = 0; c < e->nctx; ++c) {
		gvk_err_t gerr = {0, ""};
		if ((e->ctx[c].gpu = phmm_gpu_open(&e->opt, &gerr)) != NULL) continue;
		while (c > 0) phmm_gpu_close(e->ctx[--c].gpu), e->ctx[c].gpu = NULL;
		gvk_gpu_lock_release(e->gpu_lock_fd), e->gpu_lock_fd = -1;
		if (e->opt.device == GVK_DEVICE_GPU) return gvk_err_set(err, gerr.code ? gerr.code : GVK_ERR_GPU, "%s", gerr.msg);
		if (gerr.code != GVK_ERR_UNSUPPORTED)
			gvk_logf(&e->opt.log, GVK_LOG_WARN, "the GPU cannot be used (%s); computing on the CPU", gerr.msg);
		break;
	}
	return 0;
}

static void merged_batch(void *arg, int ctx, phmm_req_t *batch);

int gvk_pairhmm_opts_check(const gvk_pairhmm_opts_t *o, gvk_err_t *err)
{
	if (!o) return gvk_err_null(err, __func__, "o");
	if (o->flavour != GVK_PHMM_FMA && o->flavour != GVK_PHMM_NOFMA)
		return gvk_err_set(err, GVK_ERR_ARG, "flavour %d is not GVK_PHMM_FMA or _NOFMA", o->flavour);
	if (o->threads < 0) return gvk_err_set(err, GVK_ERR_ARG, "threads must be >= 0 (0: all processors), not %d", o->threads);
	if (o->device < GVK_DEVICE_AUTO || o->device > GVK_DEVICE_GPU)
		return gvk_err_set(err, GVK_ERR_ARG, "device %d is not GVK_DEVICE_AUTO, _CPU or _GPU", o->device);
	if (o->gpu < -1) return gvk_err_set(err, GVK_ERR_ARG, "gpu must be -1 (every GPU) or a device index, not %d", o->gpu);
	if (o->merge_wait_us < 0 || o->merge_wait_us > 1000000)
		return gvk_err_set(err, GVK_ERR_ARG, "merge_wait_us must be 0 to 1000000, not %d", o->merge_wait_us);
	if (o->merge_max_pairs < 1) return gvk_err_set(err, GVK_ERR_ARG, "merge_max_pairs must be >= 1, not %d", o->merge_max_pairs);
	if (o->merge_contexts < 1 || o->merge_contexts > SHARED_CTX)
		return gvk_err_set(err, GVK_ERR_ARG, "merge_contexts must be 1 to %d, not %d", SHARED_CTX, o->merge_contexts);
	if (!(o->gpu_min_work >= 0)) return gvk_err_set(err, GVK_ERR_ARG, "gpu_min_work must be 0 (the policy's) or positive");
	return 0;
}

gvk_pairhmm_t *gvk_pairhmm_create(const gvk_pairhmm_opts_t *opt, gvk_err_t *err)
{
	if (!opt) {
		gvk_err_null(err, __func__, "opt");
		return NULL;
	}
	if (gvk_pairhmm_opts_check(opt, err) < 0) return NULL;
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
	e->opt.server = e->opt.gpu_lock = NULL;
	if (e->opt.threads < 1) e->opt.threads = gvk_ncpu();
	e->isa = isa;
	char note[256];
	int passed = phmm_isa_note(isa, opt->isa, note, sizeof note);
	if (passed) gvk_logf(&e->opt.log, GVK_LOG_INFO, "pairhmm: CPU kernel %s", note);
	e->nctx = opt->shared ? opt->merge_contexts : 1;
	e->gpu_lock_fd = -1;
	pthread_mutex_init(&e->lock, NULL);
	/* With a server, the engine's own work (the server gone, raw sums) is the CPU's. */
	if (opt->server && opt->device != GVK_DEVICE_CPU) {
		e->opt.device = GVK_DEVICE_CPU;
		if (connect_server(e, opt->server) < 0) {
			gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
			gvk_pairhmm_destroy(e);
			return NULL;
		}
	}
	if (opt->gpu_lock && !(e->gpu_lock = strdup(opt->gpu_lock))) {
		gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		gvk_pairhmm_destroy(e);
		return NULL;
	}
	/* --device gpu opens the GPU now and fails without one; auto opens it at the first pass big
	 * enough to be worth the GPU's start-up (a CUDA context), so small inputs stay on the CPU, except
	 * in a shared engine, whose calls are small by design and merged. */
	if (e->opt.device == GVK_DEVICE_GPU || (opt->shared && e->opt.device == GVK_DEVICE_AUTO)) {
		if (open_gpus(e, err) < 0) {
			gvk_pairhmm_destroy(e);
			return NULL;
		}
		e->gpu_tried = 1;
	}
	e->gpu_tried |= e->opt.device == GVK_DEVICE_CPU;
	/* GATK sends one small batch per call: starting the threads anew for each cost more than
	 * the batch itself on many cores. */
	if (e->opt.device != GVK_DEVICE_GPU && e->opt.threads > 1) e->pool = gvk_pool_create(e->opt.threads);
	if (opt->shared && !(e->merge = phmm_merge_create(e->nctx, opt->merge_wait_us, (size_t)opt->merge_max_pairs,
	                                                  merged_batch, e))) {
		gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		gvk_pairhmm_destroy(e);
		return NULL;
	}
	set_name(e);
	return e;
}

static void ctx_free(phmm_ctx_t *c)
{
	if (c->gpu) phmm_gpu_close(c->gpu);
	free(c->fsum), free(c->dsum), free(c->sel);
	free(c->mr), free(c->mh), free(c->mp), free(c->ml), free(c->mu);
	memset(c, 0, sizeof *c);
}

void gvk_pairhmm_destroy(gvk_pairhmm_t *e)
{
	if (!e) return;
	for (int c = 0; c < e->nctx; ++c) ctx_free(&e->ctx[c]);
	phmm_merge_destroy(e->merge);
	gvk_pool_destroy(e->pool);
	srv_clients_destroy(e->srv);
	gvk_gpu_lock_release(e->gpu_lock_fd);
	free(e->server), free(e->gpu_lock);
	pthread_mutex_destroy(&e->lock);
	free(e);
}

void phmm_shared_merge_stats(const gvk_pairhmm_t *e, phmm_merge_stats_t *st)
{
	if (e) phmm_merge_stats(e->merge, st);
}

const char *gvk_pairhmm_device_name(const gvk_pairhmm_t *e) { return e ? e->name : "none"; }

void gvk_pairhmm_stats(const gvk_pairhmm_t *e, gvk_pairhmm_stats_t *st)
{
	if (!st) return;
	if (!e) {
		memset(st, 0, sizeof *st);
		return;
	}
	gvk_pairhmm_t *m = (gvk_pairhmm_t *)e; /* the lock only */
	pthread_mutex_lock(&m->lock);
	*st = e->st;
	st->gpu_kernel_s = e->gpu_s_closed;
	for (int c = 0; c < e->nctx; ++c)
		if (e->ctx[c].gpu) st->gpu_kernel_s += phmm_gpu_kernel_seconds(e->ctx[c].gpu);
	pthread_mutex_unlock(&m->lock);
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
	gvk_pool_run(e->pool, nt, pass_worker, &p);
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
	size_t b = gvk_part(j->n, t, j->nt), e = gvk_part(j->n, t + 1, j->nt);
	size_t k = first_bad_pair(j->reads, j->haps, j->pairs, b, e);
	j->bad[t] = k < e ? k : j->n;
}

/* Checks every pair on the engine's threads and names the first bad one. */
static int check_pairs(const gvk_pairhmm_t *e, const gvk_read_t *reads, const gvk_hap_t *haps,
                       const gvk_pair_t *pairs, size_t n, gvk_err_t *err)
{
	check_job_t j = {reads, haps, pairs, n, {0}, n < 65536 ? 1 : e->opt.threads};
	if (j.nt > CHECK_MAX_THREADS) j.nt = CHECK_MAX_THREADS;
	gvk_pool_run(e->pool, j.nt, check_worker, &j);
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

/* The final log10 values (docs/pairhmm.md, Semantics 7 and 10) and the statistics, on all threads: serial, they cost a
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
	const size_t end = gvk_part(j->n, t + 1, j->nt);
	for (size_t k = gvk_part(j->n, t, j->nt); k < end; ++k) {
		int dbl = j->e->opt.force_double || j->fsum[k] < PHMM_DOUBLE_THRESHOLD;
		j->out->log10[k] = dbl ? phmm_final_double(j->dsum[k]) : phmm_final_float(j->fsum[k]);
		if (j->out->used_double) j->out->used_double[k] = (uint8_t)dbl;
		cells += (uint64_t)j->reads[j->pairs[k].read].len * (uint64_t)j->haps[j->pairs[k].hap].len;
		nd += (uint64_t)dbl;
	}
	j->cells[t] = cells, j->ndouble[t] = nd;
}

/* Device auto, no GPU open yet: opens it for a pass big enough to be worth its start-up. */
static void auto_open_gpu(gvk_pairhmm_t *e, phmm_ctx_t *c, const gvk_read_t *reads, const gvk_hap_t *haps,
                          const gvk_pair_t *pairs, size_t n)
{
	double cells = 0;
	for (size_t k = 0; k < n; ++k) cells += (double)reads[pairs[k].read].len * haps[pairs[k].hap].len;
	if (!gvk_policy_auto_gpu(GVK_ENGINE_PAIRHMM, cells, e->opt.gpu_min_work)) return;
	gvk_err_t gerr = {0, ""};
	e->gpu_tried = 1;
	if (!gpu_lock_won(e)) return;
	c->gpu = phmm_gpu_open(&e->opt, &gerr);
	if (!c->gpu) gvk_gpu_lock_release(e->gpu_lock_fd), e->gpu_lock_fd = -1;
	if (c->gpu)
		set_name(e);
	else if (gerr.code != GVK_ERR_UNSUPPORTED)
		gvk_logf(&e->opt.log, GVK_LOG_WARN, "the GPU cannot be used (%s); computing on the CPU", gerr.msg);
}

/* Runs one pass on the context's GPU when it has one, else on the CPU; a GPU failure falls back
 * to the CPU unless the GPU was asked for. */
static int run_pass(gvk_pairhmm_t *e, phmm_ctx_t *c, const gvk_read_t *reads, const gvk_hap_t *haps,
                    const gvk_pair_t *pairs, const size_t *sel, size_t n, int dbl, float *fsum, double *dsum,
                    gvk_err_t *err)
{
	if (c->gpu) {
		gvk_err_t gerr = {0, ""};
		int rc = phmm_gpu_pass(c->gpu, reads, haps, pairs, sel, n, dbl, fsum, dsum, &gerr);
		if (rc == 0) return 0;
		if (e->opt.device == GVK_DEVICE_GPU) return gvk_err_set(err, rc, "%s", gerr.msg);
		gvk_logf(&e->opt.log, GVK_LOG_WARN, "GPU failed (%s); continuing on the CPU", gerr.msg);
		pthread_mutex_lock(&e->lock);
		e->gpu_s_closed += phmm_gpu_kernel_seconds(c->gpu);
		phmm_gpu_close(c->gpu);
		c->gpu = NULL;
		if (c == &e->ctx[0]) set_name(e);
		pthread_mutex_unlock(&e->lock);
	}
	int rc = cpu_pass(e, reads, haps, pairs, sel, n, dbl, fsum, dsum);
	return rc < 0 ? gvk_err_set(err, rc, "out of memory in the Pair-HMM engine") : 0;
}

/* Room for n pairs' sums in context c. */
static int ctx_reserve(phmm_ctx_t *c, size_t n, gvk_err_t *err)
{
	if (n <= c->cap) return 0;
	free(c->fsum), free(c->dsum), free(c->sel);
	c->fsum = malloc(n * sizeof *c->fsum), c->dsum = malloc(n * sizeof *c->dsum), c->sel = malloc(n * sizeof *c->sel);
	c->cap = c->fsum && c->dsum && c->sel ? n : 0;
	return c->cap ? 0 : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for %zu pairs", n);
}

/* A checked batch on context c: the float pass, the double pass over the pairs that need it, and
 * the final values. */
static int compute(gvk_pairhmm_t *e, phmm_ctx_t *c, const gvk_read_t *reads, const gvk_hap_t *haps,
                   const gvk_pair_t *pairs, size_t n, gvk_pairhmm_out_t *out, gvk_err_t *err)
{
	int rc = ctx_reserve(c, n, err);
	if (rc < 0) return rc;
	float *fsum = out->fsum ? out->fsum : c->fsum;
	double *dsum = out->dsum ? out->dsum : c->dsum;
	size_t *sel = c->sel;
	if (!e->gpu_tried) auto_open_gpu(e, c, reads, haps, pairs, n);
	const int all_double = e->opt.force_double || out->dsum != NULL;
	if (e->opt.force_double)
		memset(fsum, 0, n * sizeof *fsum);
	else if ((rc = run_pass(e, c, reads, haps, pairs, NULL, n, 0, fsum, NULL, err)) < 0)
		return rc;
	size_t nd = 0;
	for (size_t k = 0; k < n; ++k)
		if (all_double || fsum[k] < PHMM_DOUBLE_THRESHOLD) sel[nd++] = k;
	if ((rc = run_pass(e, c, reads, haps, pairs, sel, nd, 1, NULL, dsum, err)) < 0) return rc;
	final_job_t fj = {e, reads, haps, pairs, n, fsum, dsum, out, n < 65536 ? 1 : e->opt.threads, {0}, {0}};
	if (fj.nt > FINAL_MAX_THREADS) fj.nt = FINAL_MAX_THREADS;
	gvk_pool_run(e->pool, fj.nt, final_worker, &fj);
	uint64_t cells = 0, ndbl = 0;
	for (int t = 0; t < fj.nt; ++t) cells += fj.cells[t], ndbl += fj.ndouble[t];
	pthread_mutex_lock(&e->lock);
	e->st.cells += cells, e->st.double_pairs += ndbl, e->st.pairs += n;
	pthread_mutex_unlock(&e->lock);
	return 0;
}

/* Grows *p to hold n elements of size sz (capacity in *cap). */
static int grow(void **p, size_t *cap, size_t n, size_t sz)
{
	if (n <= *cap) return 0;
	size_t c = n + n / 2;
	void *q = realloc(*p, c * sz);
	if (!q) return -1;
	*p = q, *cap = c;
	return 0;
}

/* The reads and haplotypes a request's pairs use: indices 0 .. max. */
static void req_extent(const phmm_req_t *r, size_t *nr, size_t *nh)
{
	int32_t mr = -1, mh = -1;
	for (size_t k = 0; k < r->n; ++k) {
		if (r->pairs[k].read > mr) mr = r->pairs[k].read;
		if (r->pairs[k].hap > mh) mh = r->pairs[k].hap;
	}
	*nr = (size_t)(mr + 1), *nh = (size_t)(mh + 1);
}

/* Puts the batch's requests side by side in the context's merged arrays; 0 or -1 (memory). */
static int merge_inputs(phmm_ctx_t *c, phmm_req_t *batch, size_t *np_out, int *want_used)
{
	size_t nr = 0, nh = 0, np = 0;
	*want_used = 0;
	for (phmm_req_t *r = batch; r; r = r->next) {
		size_t rr, hh;
		req_extent(r, &rr, &hh);
		if (grow((void **)&c->mr, &c->cap_r, nr + rr, sizeof *c->mr) || grow((void **)&c->mh, &c->cap_h, nh + hh, sizeof *c->mh) ||
		    grow((void **)&c->mp, &c->cap_p, np + r->n, sizeof *c->mp))
			return -1;
		memcpy(c->mr + nr, r->reads, rr * sizeof *c->mr);
		memcpy(c->mh + nh, r->haps, hh * sizeof *c->mh);
		for (size_t k = 0; k < r->n; ++k)
			c->mp[np + k] = (gvk_pair_t){r->pairs[k].read + (int32_t)nr, r->pairs[k].hap + (int32_t)nh};
		nr += rr, nh += hh, np += r->n;
		*want_used |= r->out->used_double != NULL;
	}
	if (grow((void **)&c->ml, &c->cap_l, np, sizeof *c->ml) || grow((void **)&c->mu, &c->cap_u, np, sizeof *c->mu))
		return -1;
	*np_out = np;
	return 0;
}

/* The shared engine's batch (phmm_batch_fn): one request alone is computed in place; several are
 * merged, computed as one and their results copied back. */
static void merged_batch(void *arg, int ctx, phmm_req_t *batch)
{
	gvk_pairhmm_t *e = arg;
	phmm_ctx_t *c = &e->ctx[ctx];
	gvk_err_t err = {0, ""};
	int rc;
	if (!batch->next) {
		batch->rc = compute(e, c, batch->reads, batch->haps, batch->pairs, batch->n, batch->out, &batch->err);
		return;
	}
	size_t np = 0;
	int want_used = 0;
	if (merge_inputs(c, batch, &np, &want_used) < 0)
		rc = gvk_err_set(&err, GVK_ERR_NOMEM, "out of memory merging %zu pairs", np);
	else {
		gvk_pairhmm_out_t o = {c->ml, want_used ? c->mu : NULL, NULL, NULL};
		rc = compute(e, c, c->mr, c->mh, c->mp, np, &o, &err);
	}
	size_t off = 0;
	for (phmm_req_t *r = batch; r; r = r->next) {
		r->rc = rc;
		if (rc < 0) {
			r->err = err;
			continue;
		}
		memcpy(r->out->log10, c->ml + off, r->n * sizeof *c->ml);
		if (r->out->used_double) memcpy(r->out->used_double, c->mu + off, r->n);
		off += r->n;
	}
}

/* A call through the server: 0 when it answered, 1 when this call is to be computed here. A server
 * that fails a call (it is gone, or its device failed: the call was checked here already) is said
 * once and left for good: the engine computes every call itself from then on. */
static int server_call(gvk_pairhmm_t *e, const gvk_read_t *reads, const gvk_hap_t *haps, const gvk_pair_t *pairs,
                       size_t n, gvk_pairhmm_out_t *out)
{
	gvk_err_t serr = {0, ""};
	srv_client_t *c = srv_clients_take(e->srv, &serr);
	int rc = c ? srv_client_pairhmm(c, e->opt.flavour, e->opt.force_double, reads, haps, pairs, n, out, &serr) : SRV_GONE;
	if (c) srv_clients_give(e->srv, c, rc < 0 && rc != SRV_LOCAL);
	if (rc == 0) {
		uint64_t cells = 0;
		for (size_t k = 0; k < n; ++k) cells += (uint64_t)reads[pairs[k].read].len * (uint64_t)haps[pairs[k].hap].len;
		pthread_mutex_lock(&e->lock);
		e->st.pairs += n, e->st.cells += cells;
		pthread_mutex_unlock(&e->lock);
		return 0;
	}
	if (rc != SRV_LOCAL && !atomic_exchange(&e->srv_gone, 1)) {
		gvk_logf(&e->opt.log, GVK_LOG_WARN, "gvk serve %s (%s); Pair-HMM computes on the CPU", srv_failure(rc), serr.msg);
		pthread_mutex_lock(&e->lock);
		set_name(e);
		pthread_mutex_unlock(&e->lock);
	}
	return 1;
}

int gvk_pairhmm_pairs(gvk_pairhmm_t *e, const gvk_read_t *reads, const gvk_hap_t *haps,
                      const gvk_pair_t *pairs, size_t n, gvk_pairhmm_out_t *out, gvk_err_t *err)
{
	const char *null = !e ? "e" : !out ? "out" : !out->log10 ? "out->log10" : n == 0 ? NULL : !reads ? "reads" : !haps ? "haps" : !pairs ? "pairs" : NULL;
	if (null) return gvk_err_null(err, __func__, null);
	int rc = check_pairs(e, reads, haps, pairs, n, err);
	if (rc < 0 || n == 0) return rc;
	if (e->srv && !atomic_load(&e->srv_gone) && !out->fsum && !out->dsum && server_call(e, reads, haps, pairs, n, out) == 0)
		return 0;
	if (!e->merge) return compute(e, &e->ctx[0], reads, haps, pairs, n, out, err);
	phmm_req_t r;
	memset(&r, 0, sizeof r);
	r.reads = reads, r.haps = haps, r.pairs = pairs, r.n = n, r.out = out;
	r.solo = out->fsum || out->dsum; /* raw sums are per call (dsum changes the passes) */
	rc = phmm_merge_submit(e->merge, &r);
	if (rc < 0 && err) *err = r.err;
	return rc;
}

int gvk_pairhmm_batch(gvk_pairhmm_t *e, const gvk_read_t *reads, int n_reads, const gvk_hap_t *haps,
                      int n_haps, double *out, gvk_err_t *err)
{
	if (n_reads < 0 || n_haps < 0) return gvk_err_set(err, GVK_ERR_ARG, "negative batch size");
	size_t n = (size_t)n_reads * (size_t)n_haps;
	if (n == 0) return 0;
	const char *null = !e ? "e" : !reads ? "reads" : !haps ? "haps" : !out ? "out" : NULL;
	if (null) return gvk_err_null(err, __func__, null);
	gvk_pair_t *pairs = malloc(n * sizeof *pairs);
	if (!pairs) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for %zu pairs", n);
	for (int r = 0; r < n_reads; ++r)
		for (int h = 0; h < n_haps; ++h) pairs[(size_t)r * n_haps + h] = (gvk_pair_t){r, h};
	gvk_pairhmm_out_t o = {out, NULL, NULL, NULL};
	int rc = gvk_pairhmm_pairs(e, reads, haps, pairs, n, &o, err);
	free(pairs);
	return rc;
}
