/* SPDX-License-Identifier: MIT */
/* The GPU EM against the CPU EM on random count matrices of odd sizes.
 *   test_cnv_em_gpu emu [SEED]  the kernel body (cnv_em_kernel.h) run on the CPU, one region after
 *                               another in chunks as the device sees them, plus the host's
 *                               shortcut overwrite: bit for bit equal to cnv_em_cpu (same libm)
 *   test_cnv_em_gpu gpu [SEED]  the real back end, whole and in forced small chunks, to the
 *                               tolerance of docs/cnv.md (notes of the back end on stderr); exit 77
 *                               without a usable GPU */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "common/splitmix.h"
#include "cnv/cnv.h"
#include "cnv/cnv_em.h"

#define CNV_K_FN static inline
#include "cnv/cnv_em_kernel.h"

/* Rows of several kinds: ordinary counts around a row depth (with a CNV-like sample now and then),
 * all at or under minReadCount (shortcut), mostly zero (median fallback), real-valued normalized
 * counts, and deep rows with an outlier (every term under the floor). */
static void fill(double *x, size_t m, int N, uint64_t *st)
{
	for (size_t r = 0; r < m; ++r) {
		int kind = (int)(gvk_splitmix_unif(st) * 10);
		double depth = 5 + gvk_splitmix_unif(st) * 200;
		for (int k = 0; k < N; ++k) {
			double v, u = gvk_splitmix_unif(st);
			switch (kind) {
			case 0: v = floor(u * 5); break;
			case 1: v = u < 0.7 ? 0 : floor(u * 30); break;
			case 2: v = depth * (0.8 + 0.4 * u) / 1.7; break;
			case 3: v = k == 0 ? 5000 : floor(1e4 + 100 * u); break;
			default: v = floor(depth * (u < 0.05 ? 0.5 : u > 0.97 ? 1.5 : 1) * (0.85 + 0.3 * gvk_splitmix_unif(st))); break;
			}
			x[(size_t)k * m + r] = v;
		}
	}
}

typedef struct {
	const char *name;
	int exome, n_classes, cyc, log_domain, cov_random, post;
} variant_t;

static const variant_t variants[] = {
	{"default", 0, 9, 20, 0, 0, 1},   {"exome", 1, 9, 20, 0, 0, 0},   {"coverage", 0, 9, 20, 0, 1, 1},
	{"log-domain", 0, 9, 20, 1, 0, 1}, {"5 classes", 0, 5, 20, 0, 0, 1}, {"2 cycles", 0, 9, 2, 0, 1, 0},
};
static const int sizes[][2] = {{1, 2}, {37, 3}, {1001, 7}, {4097, 10}, {2500, 33}, {333, 100}};

typedef struct {
	double *lambda, *alpha, *post, *sini, *ini;
	uint8_t *cls;
} out_t;

static int out_alloc(out_t *o, size_t m, int n, int N, int post)
{
	o->lambda = malloc(m * n * sizeof(double)), o->alpha = malloc(m * n * sizeof(double));
	o->post = post ? malloc(m * n * N * sizeof(double)) : NULL;
	o->sini = malloc(m * N * sizeof(double)), o->ini = malloc(m * sizeof(double)), o->cls = malloc(m * N);
	return o->lambda && o->alpha && (!post || o->post) && o->sini && o->ini && o->cls ? 0 : -1;
}

static void out_free(out_t *o)
{
	free(o->lambda), free(o->alpha), free(o->post), free(o->sini), free(o->ini), free(o->cls);
}

static cnv_em_job_t job_of(size_t m, const double *x, const double *cov, out_t *o)
{
	cnv_em_job_t j = {m, m, x, cov, o->lambda, o->alpha, o->post, o->sini, o->ini, o->cls};
	return j;
}

/* The device pass emulated: chunks of `chunk` regions, each in the device layout (stride = chunk
 * length), every region through cnv_k_region, then the host overwrite of the shortcut rows. */
static int emulate(const cnv_em_par_t *p, cnv_em_job_t *j, size_t chunk)
{
	int n = p->n, N = p->N;
	size_t nN = (size_t)n * N;
	double *buf = malloc(chunk * (3 * N + nN + 2 * n + 1) * sizeof(double));
	uint8_t *cls = malloc(chunk * N);
	if (!buf || !cls) return free(buf), free(cls), -1;
	for (size_t r0 = 0; r0 < j->m; r0 += chunk) {
		size_t L = j->m - r0 < chunk ? j->m - r0 : chunk;
		double *x = buf, *lg = x + N * L, *sini = lg + N * L, *P = sini + N * L, *lam = P + nN * L;
		double *alp = lam + n * L, *ini = alp + n * L;
		for (int k = 0; k < N; ++k) memcpy(x + k * L, j->x + k * j->ld + r0, L * sizeof(double));
		for (size_t r = 0; r < L; ++r)
			cnv_k_region(p, n, L, x + r, j->cov, lg + r, sini + r, P + r, lam + r, alp + r, sini + r, ini + r, cls + r);
		for (size_t r = 0; r < L; ++r) {
			size_t g = r0 + r, ld = j->ld;
			for (int i = 0; i < n; ++i) j->lambda[i * ld + g] = lam[i * L + r], j->alpha[i * ld + g] = alp[i * L + r];
			for (int k = 0; k < N; ++k) j->sini[k * ld + g] = sini[k * L + r], j->cls[k * ld + g] = cls[k * L + r];
			j->ini[g] = ini[r];
			if (j->post)
				for (size_t c = 0; c < nN; ++c) j->post[c * ld + g] = P[c * L + r];
			if (cnv_em_is_shortcut(p, j, g)) cnv_em_set_shortcut(p, j, g);
		}
	}
	free(buf), free(cls);
	return 0;
}

typedef struct {
	double max_rel;
	long bad, near_ties, checked;
} cmp_t;

/* Relative difference, values at or under the floor's scale compared absolutely (tests/data). */
static void cmp_val(cmp_t *c, double a, double b, double tol, const char *what, size_t r)
{
	++c->checked;
	if (a == b) return;
	double d = fabs(a - b), s = fmax(fabs(a), fabs(b));
	if (s < 1e-90 && d < 1e-90) return;
	double rel = d / s;
	if (rel > c->max_rel) c->max_rel = rel;
	if (rel > tol && c->bad++ < 5) fprintf(stderr, "  %s region %zu: %.17g vs %.17g (rel %.3g)\n", what, r, a, b, rel);
}

/* A class may differ only where the reference posteriors of the two classes are a near tie. */
static void cmp_cls(cmp_t *c, const cnv_em_par_t *p, const out_t *a, const out_t *b, size_t m, size_t r, int k, double tol)
{
	++c->checked;
	int ca = a->cls[k * m + r], cb = b->cls[k * m + r];
	if (ca == cb) return;
	if (a->post) {
		double pa = a->post[((size_t)k * p->n + ca) * m + r], pb = a->post[((size_t)k * p->n + cb) * m + r];
		if (fabs(pa - pb) <= tol * fmax(pa, pb)) {
			++c->near_ties;
			return;
		}
	}
	if (c->bad++ < 5) fprintf(stderr, "  class region %zu sample %d: %d vs %d\n", r, k, ca, cb);
}

static void compare(cmp_t *c, const cnv_em_par_t *p, const out_t *a, const out_t *b, size_t m, double tol)
{
	int n = p->n, N = p->N;
	for (size_t r = 0; r < m; ++r) {
		for (int i = 0; i < n; ++i) {
			cmp_val(c, a->lambda[i * m + r], b->lambda[i * m + r], tol, "lambda", r);
			cmp_val(c, a->alpha[i * m + r], b->alpha[i * m + r], tol, "alpha", r);
		}
		for (int k = 0; k < N; ++k) {
			cmp_val(c, a->sini[k * m + r], b->sini[k * m + r], tol, "sINI", r);
			cmp_cls(c, p, a, b, m, r, k, tol);
		}
		/* I/NI is a mean: R's long-double one and the device's double-double one (both nearly
		 * correctly rounded) differ by an ulp about once in 10^4 */
		cmp_val(c, a->ini[r], b->ini[r], tol > 4.5e-16 ? tol : 4.5e-16, "INI", r);
		if (a->post && b->post)
			for (size_t q = 0; q < (size_t)n * N; ++q) cmp_val(c, a->post[q * m + r], b->post[q * m + r], tol, "posterior", r);
	}
}

/* The double-double mean of the device against R's long-double mean on random vectors. */
static int check_mean(uint64_t *st)
{
	long diff = 0, far = 0;
	double v[101];
	for (int t = 0; t < 200000; ++t) {
		int n = 1 + (int)(gvk_splitmix_unif(st) * 100);
		for (int i = 0; i < n; ++i) v[i] = t & 1 ? floor(gvk_splitmix_unif(st) * 1000) / (1 + gvk_splitmix_unif(st)) : gvk_splitmix_unif(st) * pow(10, gvk_splitmix_unif(st) * 8 - 4);
		double a = cnv_k_mean(v, 1, n), b = cnv_r_mean(v, (size_t)n);
		if (a != b) ++diff;
		if (a != b && nextafter(a, b) != b) ++far;
	}
	printf("double-double mean vs R's mean: %ld of 200000 differ by one ulp, %ld by more\n", diff, far);
	return far > 0;
}

/* The back end's notes (a smaller chunk after an out-of-memory), for gpu_backend_emu.sh. */
static void print_log(void *arg, int level, const char *msg)
{
	(void)arg, (void)level;
	fprintf(stderr, "%s\n", msg);
}

static int run_case(int gpu, const variant_t *v, size_t m, int N, uint64_t *st, double tol, cmp_t *tot)
{
	gvk_cnv_opts_t o;
	gvk_cnv_opts_init(&o, v->exome);
	o.cyc = v->cyc, o.log_domain = v->log_domain;
	if (v->n_classes == 5) {
		static const double I5[5] = {0.025, 0.5, 1, 1.5, 2};
		o.n_classes = 5, o.cn2 = 2;
		memcpy(o.I, I5, sizeof I5);
	}
	double *x = malloc(m * N * sizeof(double)), *cov = malloc(N * sizeof(double));
	out_t a, b;
	if (!x || !cov || out_alloc(&a, m, o.n_classes, N, v->post) < 0 || out_alloc(&b, m, o.n_classes, N, v->post) < 0)
		return fprintf(stderr, "out of memory\n"), -1;
	fill(x, m, N, st);
	for (int k = 0; k < N; ++k) cov[k] = v->cov_random ? 0.6 + 0.8 * gvk_splitmix_unif(st) : 1.0;
	cnv_em_par_t p;
	cnv_em_par_init(&p, &o, N, cov);
	cnv_em_job_t ja = job_of(m, x, cov, &a), jb = job_of(m, x, cov, &b);
	gvk_err_t err;
	gvk_log_t log = {print_log, NULL, GVK_LOG_DEBUG};
	int rc = cnv_em_cpu(&p, &ja, 2, &err);
	size_t chunks[3] = {m, 97, 1};
	for (int t = 0; rc == 0 && t < 3; ++t) {
		if (t == 2 && m > 400) break; /* one-region chunks only on small inputs */
		cmp_t c = {0, 0, 0, 0};
		memset(b.sini, 0xff, m * N * sizeof(double)); /* stale values must not survive */
		if (gpu) {
			rc = cnv_em_gpu(&p, &jb, 3, chunks[t], -1, &log, &err);
			if (rc < 0) fprintf(stderr, "cnv_em_gpu: %s\n", err.msg);
		} else {
			rc = emulate(&p, &jb, chunks[t]);
		}
		if (rc == 0) compare(&c, &p, &a, &b, m, tol);
		printf("%-10s %5zu x %3d chunk %5zu: max rel %.3g, %ld near ties, %ld bad of %ld\n", v->name, m, N, chunks[t],
		       c.max_rel, c.near_ties, c.bad, c.checked);
		if (c.bad) rc = -1;
		if (c.max_rel > tot->max_rel) tot->max_rel = c.max_rel;
		tot->near_ties += c.near_ties, tot->checked += c.checked;
	}
	free(x), free(cov), out_free(&a), out_free(&b);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "emu") && strcmp(argv[1], "gpu"))) {
		fprintf(stderr, "usage: test_cnv_em_gpu emu|gpu [SEED]\n");
		return 2;
	}
	int gpu = !strcmp(argv[1], "gpu");
	uint64_t st = argc > 2 ? strtoull(argv[2], NULL, 10) : 12345;
	gvk_err_t gerr = {0, ""};
	if (gpu && cnv_em_gpu_check(&gerr) < 0) {
		printf("skip: %s\n", gerr.msg);
		return 77;
	}
	/* The emulation shares the CPU's libm, so only a different operation order could differ;
	 * the device's exp/log/lgamma are within 2 ulp of glibc's (docs/cnv.md). */
	double tol = gpu ? 1e-9 : 0.0;
	int fail = gpu ? 0 : check_mean(&st);
	cmp_t tot = {0, 0, 0, 0};
	for (size_t v = 0; v < sizeof variants / sizeof *variants; ++v)
		for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s)
			if (run_case(gpu, &variants[v], (size_t)sizes[s][0], sizes[s][1], &st, tol, &tot) < 0) ++fail;
	printf("%s: %s; max relative difference %.3g, %ld near-tie classes, %ld values\n", argv[1],
	       fail ? "FAILED" : "ok", tot.max_rel, tot.near_ties, tot.checked);
	return fail ? 1 : 0;
}
