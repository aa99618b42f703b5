/* SPDX-License-Identifier: MIT */
/* Per-region EM on the CPU (docs/cnv.md, Semantics 3), threads over blocks of regions. The arithmetic is
 * the package's, operation for operation: the linear-domain 1e-100 floor, the I^2 * median first
 * step and the posterior of the last E-step (one step behind the returned lambda and alpha). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/err.h"
#include "../common/threads.h"
#include "cnv.h"
#include "cnv_em.h"
#define CNV_K_FN static inline
#include "cnv_em_kernel.h"

#define EM_FLOOR 1e-100

void cnv_em_par_init(cnv_em_par_t *p, const gvk_cnv_opts_t *o, int N, const double *cov)
{
	memset(p, 0, sizeof *p);
	p->n = o->n_classes, p->N = N, p->h = o->cn2, p->cyc = o->cyc;
	double sum = 0.0;
	for (int i = 0; i < p->n; ++i) {
		p->I[i] = o->I[i];
		p->log2I[i] = log2(o->I[i]);
		p->abs_log2I[i] = fabs(p->log2I[i]);
		p->alpha_init[i] = i == p->h ? 0.6 : 0.05;
		sum += p->alpha_init[i];
		p->prior[i] = i == p->h ? o->prior_impact : 0.0;
	}
	for (int i = 0; i < p->n; ++i) p->alpha_init[i] /= sum;
	for (int i = 0; i < p->n; ++i) p->prior_sum = p->prior_sum + p->prior[i];
	p->min_read_count = o->min_read_count;
	p->cov_is_one = 1;
	for (int k = 0; k < N; ++k)
		if (cov[k] != 1.0) p->cov_is_one = 0;
	p->log_domain = o->log_domain;
}

int cnv_em_is_shortcut(const cnv_em_par_t *p, const cnv_em_job_t *j, size_t r)
{
	for (int k = 0; k < p->N; ++k)
		if (!(j->x[(size_t)k * j->ld + r] <= p->min_read_count)) return 0;
	return 1;
}

void cnv_em_set_shortcut(const cnv_em_par_t *p, cnv_em_job_t *j, size_t r)
{
	size_t ld = j->ld;
	for (int i = 0; i < p->n; ++i) {
		j->lambda[i * ld + r] = 0.0;
		j->alpha[i * ld + r] = i == p->h ? 1.0 : 0.0;
	}
	for (int k = 0; k < p->N; ++k) {
		j->sini[k * ld + r] = 0.0;
		j->cls[k * ld + r] = (uint8_t)p->h;
		if (j->post)
			for (int i = 0; i < p->n; ++i) j->post[((size_t)k * p->n + i) * ld + r] = i == p->h ? 1.0 : 0.0;
	}
	j->ini[r] = 0.0;
}

/* Scratch of one worker: posteriors (sample-major, n per sample), log-gamma, x / cov. */
typedef struct {
	double *p, *lg, *tmp, *x;
} em_ws_t;

static double median_over_cov(const cnv_em_par_t *p, const double *x, const double *cov, double *tmp)
{
	int N = p->N;
	for (int k = 0; k < N; ++k) tmp[k] = x[k] / cov[k];
	double m0 = cnv_r_median(tmp, (size_t)N);
	if (m0 < 1e-10) {
		for (int k = 0; k < N; ++k) tmp[k] = x[k] / cov[k];
		m0 = cnv_r_mean(tmp, (size_t)N);
		if (!(m0 >= 1.0)) m0 = 1.0;
	}
	return m0;
}

/* E-step of one sample k: posteriors into pk[0..n-1]. zcut[i] is an exponent below which
 * alpha_i * exp(z) is certainly under the 1e-100 floor (two nats of margin), so that exp() can
 * be skipped with a bit-identical result. */
static inline void estep(const cnv_em_par_t *p, double xk, double ck, double lgk, const double *lam,
                         const double *loglam, const double *alpha, const double *zcut, double *pk)
{
	int n = p->n;
	double sum = 0.0;
	if (p->log_domain) {
		sum = cnv_k_estep_log(n, xk, ck, lgk, lam, alpha, pk);
		for (int i = 0; i < n; ++i) pk[i] = pk[i] / sum;
		return;
	}
	for (int i = 0; i < n; ++i) {
		double cl = ck * lam[i];
		double z = xk * (loglam ? loglam[i] : log(cl)) - lgk - cl;
		double w = z < zcut[i] ? EM_FLOOR : alpha[i] * exp(z);
		if (w < EM_FLOOR) w = EM_FLOOR;
		pk[i] = w;
		sum = sum + w;
	}
	for (int i = 0; i < n; ++i) pk[i] = pk[i] / sum;
}

/* The EM proper on one region; x, cov contiguous (N). Leaves the last posteriors in ws->p. */
static void cnv_em_region(const cnv_em_par_t *p, const double *x, const double *cov, em_ws_t *ws, double *lambda,
                   double *alpha)
{
	int n = p->n, N = p->N;
	double meanx = 0.0, loglam[GVK_CNV_MAX_CLASSES], zcut[GVK_CNV_MAX_CLASSES];
	for (int k = 0; k < N; ++k) {
		ws->lg[k] = cnv_lgamma(x[k] + 1);
		meanx = meanx + x[k];
	}
	meanx = meanx / N;
	double m0 = median_over_cov(p, x, cov, ws->tmp);
	for (int i = 0; i < n; ++i) {
		lambda[i] = p->I[i] * m0 * p->I[i];
		alpha[i] = p->alpha_init[i];
	}
	double *P = ws->p;
	for (int cyc = 0; cyc < p->cyc; ++cyc) {
		/* With every coverage 1, log(1 * lambda) is log(lambda): computed once per class. */
		if (p->cov_is_one)
			for (int i = 0; i < n; ++i) loglam[i] = log(lambda[i]);
		for (int i = 0; i < n; ++i) zcut[i] = -230.25850929940458 - log(alpha[i]) - 2.0;
		for (int k = 0; k < N; ++k)
			estep(p, x[k], cov[k], ws->lg[k], lambda, p->cov_is_one ? loglam : NULL, alpha, zcut, P + (size_t)k * n);
		cnv_k_mstep(p, n, meanx, cov, P, 1, lambda, alpha);
	}
}

/* Derived calls (docs/cnv.md, Semantics 4) from the posteriors P (sample-major). */
static void derive(const cnv_em_par_t *p, const double *P, double *sini, uint8_t *cls, size_t ld, double *ini,
                   double *tmp)
{
	int n = p->n, N = p->N;
	for (int k = 0; k < N; ++k) {
		const double *pk = P + (size_t)k * n;
		int best = 0;
		double s = 0.0, a = 0.0;
		for (int i = 0; i < n; ++i) {
			if (pk[i] > pk[best]) best = i;
			s = s + p->log2I[i] * pk[i];
			a = a + p->abs_log2I[i] * pk[i];
		}
		sini[(size_t)k * ld] = s;
		cls[(size_t)k * ld] = (uint8_t)best;
		tmp[k] = a;
	}
	*ini = cnv_r_mean(tmp, (size_t)N);
}

static int ws_alloc(em_ws_t *ws, int n, int N)
{
	ws->p = malloc((size_t)n * N * sizeof *ws->p);
	ws->lg = malloc((size_t)N * sizeof *ws->lg);
	ws->tmp = malloc((size_t)N * sizeof *ws->tmp);
	ws->x = malloc((size_t)N * sizeof *ws->x);
	return ws->p && ws->lg && ws->tmp && ws->x ? 0 : -1;
}

static void ws_free(em_ws_t *ws)
{
	free(ws->p), free(ws->lg), free(ws->tmp), free(ws->x);
}

int cnv_em_one(const cnv_em_par_t *p, const double *x, const double *cov, double *lambda, double *alpha,
               double *post, double *sini, double *ini, uint8_t *cls)
{
	int n = p->n, N = p->N, shortcut = 1;
	for (int k = 0; k < N; ++k)
		if (!(x[k] <= p->min_read_count)) shortcut = 0;
	if (shortcut) {
		for (int i = 0; i < n; ++i) lambda[i] = 0.0, alpha[i] = i == p->h ? 1.0 : 0.0;
		for (int k = 0; k < N; ++k) {
			sini[k] = 0.0, cls[k] = (uint8_t)p->h;
			if (post)
				for (int i = 0; i < n; ++i) post[(size_t)k * n + i] = i == p->h ? 1.0 : 0.0;
		}
		*ini = 0.0;
		return 0;
	}
	em_ws_t ws;
	if (ws_alloc(&ws, n, N) < 0) {
		ws_free(&ws);
		return GVK_ERR_NOMEM;
	}
	cnv_em_region(p, x, cov, &ws, lambda, alpha);
	derive(p, ws.p, sini, cls, 1, ini, ws.tmp);
	if (post) memcpy(post, ws.p, (size_t)n * N * sizeof *post);
	ws_free(&ws);
	return 0;
}

typedef struct {
	const cnv_em_par_t *p;
	cnv_em_job_t *j;
	int nth;
	size_t block;
	int failed;
} em_run_t;

static void em_worker(void *arg, int tid)
{
	em_run_t *run = arg;
	const cnv_em_par_t *p = run->p;
	cnv_em_job_t *j = run->j;
	int n = p->n, N = p->N;
	size_t ld = j->ld;
	em_ws_t ws;
	if (ws_alloc(&ws, n, N) < 0) {
		run->failed = 1;
		ws_free(&ws);
		return;
	}
	double lam[GVK_CNV_MAX_CLASSES], alp[GVK_CNV_MAX_CLASSES];
	for (size_t b0 = (size_t)tid * run->block; b0 < j->m; b0 += (size_t)run->nth * run->block) {
		size_t b1 = b0 + run->block < j->m ? b0 + run->block : j->m;
		for (size_t r = b0; r < b1; ++r) {
			if (cnv_em_is_shortcut(p, j, r)) {
				cnv_em_set_shortcut(p, j, r);
				continue;
			}
			for (int k = 0; k < N; ++k) ws.x[k] = j->x[(size_t)k * ld + r];
			cnv_em_region(p, ws.x, j->cov, &ws, lam, alp);
			for (int i = 0; i < n; ++i) j->lambda[i * ld + r] = lam[i], j->alpha[i * ld + r] = alp[i];
			derive(p, ws.p, j->sini + r, j->cls + r, ld, j->ini + r, ws.tmp);
			if (j->post)
				for (int k = 0; k < N; ++k)
					for (int i = 0; i < n; ++i) j->post[((size_t)k * n + i) * ld + r] = ws.p[(size_t)k * n + i];
		}
	}
	ws_free(&ws);
}

int cnv_em_cpu(const cnv_em_par_t *p, cnv_em_job_t *j, int threads, gvk_err_t *err)
{
	em_run_t run = {p, j, threads < 1 ? 1 : threads, 256, 0};
	gvk_parallel(run.nth, em_worker, &run);
	return run.failed ? gvk_err_set(err, GVK_ERR_NOMEM, "out of memory in the EM") : 0;
}
