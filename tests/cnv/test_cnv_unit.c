/* SPDX-License-Identifier: MIT */
/* Unit cases of the cn.mops reference (per-region EM, fast segmentation), self-consistency
 * checks of the pipeline, and the normalization's density mode against the slow exact sum.
 * Usage: test_cnv_unit em em_cases.tsv | segment in.tsv out.tsv | misc | kde small_counts.tsv.gz | ttail ttail_mpmath.tsv */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gvk.h"
#include "common/lineio.h"
#include "common/splitmix.h"
#include "common/threads.h"
#include "cnv/cnv.h"
#include "cnv/cnv_em.h"
#include "cnv/cnv_fft.h"
#include "cnv/cnv_xf80.h"
#include "cnv_run_once.h"

static long n_checked, n_failed;

static int close_enough(double got, double exp)
{
	double d = fabs(got - exp), s = fmax(fabs(got), fabs(exp));
	if (got == exp) return 1;
	if (s < 1e-80) return d < 1e-90;
	return d <= 1e-9 * s;
}

static void check_val(const char *cs, const char *what, int i, double got, double exp, int exact)
{
	++n_checked;
	if (exact ? got == exp : close_enough(got, exp)) return;
	if (n_failed++ < 20) fprintf(stderr, "%s %s[%d]: got %.17g, expected %.17g\n", cs, what, i, got, exp);
}

static int parse_list(const char *s, double *v, int cap)
{
	int n = 0;
	while (*s && n < cap) {
		char *e;
		v[n++] = strtod(s, &e);
		s = *e == ',' ? e + 1 : e;
		if (*e && *e != ',') break;
	}
	return n;
}

static int split(char *line, char **f, int cap)
{
	int n = 0;
	for (char *p = line; n < cap;) {
		f[n++] = p;
		char *t = strchr(p, '\t');
		if (!t) break;
		*t = 0, p = t + 1;
	}
	return n;
}

static int run_em(const char *path)
{
	gvk_err_t err;
	gvk_lr_t *lr = gvk_lr_open(path, &err);
	if (!lr) return fprintf(stderr, "%s\n", err.msg), 1;
	char *line, *f[16] = {0};
	size_t len;
	int cases = 0;
	gvk_lr_next(lr, &line, &len, &err);
	while (gvk_lr_next(lr, &line, &len, &err) > 0) {
		if (split(line, f, 16) < 13) return fprintf(stderr, "bad case line\n"), 1;
		int N = atoi(f[1]);
		double x[256], cov[256], lam[9], alp[9], ecn[256], esini[256], epost[9 * 256], ini;
		double glam[9], galp[9], gsini[256], gpost[9 * 256];
		uint8_t gcls[256];
		parse_list(f[5], x, 256), parse_list(f[6], cov, 256), parse_list(f[7], lam, 9), parse_list(f[8], alp, 9);
		parse_list(f[9], ecn, 256), parse_list(f[10], esini, 256), parse_list(f[12], epost, 9 * 256);
		ini = strtod(f[11], NULL);
		gvk_cnv_opts_t o;
		gvk_cnv_opts_init(&o, 0);
		o.prior_impact = strtod(f[2], NULL), o.cyc = atoi(f[3]), o.min_read_count = strtod(f[4], NULL);
		cnv_em_par_t p;
		cnv_em_par_init(&p, &o, N, cov);
		double gini;
		cnv_em_one(&p, x, cov, glam, galp, gpost, gsini, &gini, gcls);
		for (int i = 0; i < 9; ++i) check_val(f[0], "lambda", i, glam[i], lam[i], 0);
		for (int i = 0; i < 9; ++i) check_val(f[0], "alpha", i, galp[i], alp[i], 0);
		for (int k = 0; k < N; ++k) check_val(f[0], "expCN", k, gcls[k], ecn[k], 1);
		for (int k = 0; k < N; ++k) check_val(f[0], "sINI", k, gsini[k], esini[k], 0);
		check_val(f[0], "INI", 0, gini, ini, 0);
		for (int k = 0; k < 9 * N; ++k) check_val(f[0], "posterior", k, gpost[k], epost[k], 0);
		/* The CPU back end on a one-region job must agree with the single-region call. */
		double jl[9], ja[9], js[256], jini, jp[9 * 256];
		uint8_t jc[256];
		cnv_em_job_t j = {1, 1, x, cov, jl, ja, jp, js, &jini, jc};
		cnv_em_cpu(&p, &j, 1, &err);
		for (int i = 0; i < 9; ++i) check_val(f[0], "job lambda", i, jl[i], glam[i], 1);
		for (int k = 0; k < 9 * N; ++k) check_val(f[0], "job posterior", k, jp[k], gpost[k], 1);
		++cases;
	}
	gvk_lr_close(lr);
	printf("em: %d cases, %ld values checked, %ld differ\n", cases, n_checked, n_failed);
	return cases > 0 && n_failed == 0 ? 0 : 1;
}

/* cnv_log_t_upper, the near-tie tail, against mpmath (tests/cnv/ttail_ref.py): the correctly rounded
 * log tail minus log 2, bit for bit, on every target; within an ulp where the exact value lies
 * within 1e-25 of a rounding midpoint. */
static int run_ttail(const char *path)
{
	gvk_err_t err;
	gvk_lr_t *lr = gvk_lr_open(path, &err);
	if (!lr) return fprintf(stderr, "%s\n", err.msg), 1;
	char *line, *f[4];
	size_t len;
	int cases = 0;
	while (gvk_lr_next(lr, &line, &len, &err) > 0) {
		if (line[0] == '#') continue;
		if (split(line, f, 4) < 4) return fprintf(stderr, "%s: bad line %d\n", path, cases + 2), 1;
		double t = strtod(f[0], NULL), df = strtod(f[1], NULL), want = strtod(f[2], NULL), got = cnv_log_t_upper(t, df);
		int close = atoi(f[3]);
		++cases;
		if (close ? fabs(got - want) <= fabs(nextafter(want, 0) - want) : got == want) ++n_checked;
		else if (n_failed++ < 20)
			fprintf(stderr, "t %.17g df %.17g: got %.17g, want %.17g%s\n", t, df, got, want, close ? " (within an ulp)" : "");
	}
	gvk_lr_close(lr);
	printf("ttail: %d cases, %ld differ\n", cases, n_failed);
	return cases > 0 && n_failed == 0 ? 0 : 1;
}

static int run_segment(const char *in, const char *out)
{
	gvk_err_t err;
	gvk_lr_t *li = gvk_lr_open(in, &err), *lo = gvk_lr_open(out, &err);
	if (!li || !lo) return fprintf(stderr, "%s\n", err.msg), 1;
	char *line, *f[8] = {0};
	size_t len;
	/* expected segments, all cases */
	char ids[256][64];
	double es[256][4];
	int ne = 0, cases = 0;
	gvk_lr_next(lo, &line, &len, &err);
	while (gvk_lr_next(lo, &line, &len, &err) > 0 && ne < 256) {
		if (split(line, f, 5) < 5) return fprintf(stderr, "bad segment output line\n"), 1;
		snprintf(ids[ne], sizeof ids[ne], "%s", f[0]);
		for (int k = 0; k < 4; ++k) es[ne][k] = !strcmp(f[k + 1], "NA") ? NAN : strtod(f[k + 1], NULL);
		++ne;
	}
	gvk_lr_next(li, &line, &len, &err);
	while (gvk_lr_next(li, &line, &len, &err) > 0) {
		if (split(line, f, 8) < 7) return fprintf(stderr, "bad segment case line\n"), 1;
		int n = atoi(f[2]);
		double *x = malloc((size_t)n * sizeof *x), *st = malloc((size_t)n * sizeof *st), *got = malloc((size_t)n * sizeof *got);
		parse_list(f[3], x, n), parse_list(f[6], st, n);
		cnv_seg_par_t p = {atoi(f[1]), 20, 40, 0.05, 50};
		cnv_piece_t *pc;
		int np, ninit;
		double diag[3];
		if (cnv_segment(x, n, &p, got, &pc, &np, diag, &ninit, NULL) < 0) return fprintf(stderr, "segment failed\n"), 1;
		check_val(f[0], "eps", 0, diag[0], strtod(f[4], NULL), 0);
		check_val(f[0], "sd", 0, diag[1], strtod(f[5], NULL), 0);
		for (int i = 0; i < n; ++i) check_val(f[0], "stat", i, got[i], st[i], 0);
		int k = 0;
		for (int e = 0; e < ne; ++e) {
			if (strcmp(ids[e], f[0])) continue;
			if (isnan(es[e][0])) { /* the package failed here; the intended result is one segment */
				check_val(f[0], "constant: pieces", 0, np, 1, 1);
				check_val(f[0], "constant: end", 0, pc[0].end, n - 1, 1);
				check_val(f[0], "constant: mean", 0, pc[0].mean, x[0], 1);
				k = np;
				continue;
			}
			if (k >= np) {
				check_val(f[0], "pieces", k, np, k + 1, 1);
				continue;
			}
			check_val(f[0], "start", k, pc[k].start + 1, es[e][0], 1);
			check_val(f[0], "end", k, pc[k].end + 1, es[e][1], 1);
			check_val(f[0], "mean", k, pc[k].mean, es[e][2], 0);
			check_val(f[0], "median", k, pc[k].median, es[e][3], 0);
			++k;
		}
		check_val(f[0], "number of pieces", 0, np, k, 1);
		free(x), free(st), free(got), free(pc);
		++cases;
	}
	gvk_lr_close(li), gvk_lr_close(lo);
	printf("segment: %d cases, %ld values checked, %ld differ\n", cases, n_checked, n_failed);
	return cases > 0 && n_failed == 0 ? 0 : 1;
}

/* Deterministic synthetic counts: two sequences, a deletion in sample 1, a flat low sequence. */
static void synth(gvk_cnv_counts_t *c, int m, int N, int flat_second)
{
	memset(c, 0, sizeof *c);
	c->m = m, c->N = N, c->n_seqs = 2;
	c->samples = malloc((size_t)N * sizeof *c->samples);
	for (int s = 0; s < N; ++s) {
		c->samples[s] = malloc(16);
		snprintf(c->samples[s], 16, "S%d", s + 1);
	}
	c->seq_names = malloc(2 * sizeof *c->seq_names);
	c->seq_names[0] = strdup("chr1"), c->seq_names[1] = strdup("chr2");
	c->seq_off = malloc(3 * sizeof *c->seq_off);
	c->seq_off[0] = 0, c->seq_off[1] = m / 2, c->seq_off[2] = m;
	c->start = malloc((size_t)m * sizeof *c->start), c->end = malloc((size_t)m * sizeof *c->end);
	c->x = malloc((size_t)m * N * sizeof *c->x);
	uint64_t st = 12345;
	for (int r = 0; r < m; ++r) {
		int q = r >= m / 2, i = r - c->seq_off[q];
		c->start[r] = (int64_t)i * 1000 + 1, c->end[r] = (int64_t)(i + 1) * 1000;
		for (int s = 0; s < N; ++s) {
			st = st * 6364136223846793005ULL + 1442695040888963407ULL;
			double u = (double)(st >> 11) / 9007199254740992.0;
			double mu = q && flat_second ? 2 : 80 * (1 + 0.1 * s);
			if (!q && s == 0 && i >= 100 && i < 120) mu *= 0.5;
			c->x[(size_t)s * m + r] = q && flat_second ? (double)((r + s) % 3) : floor(mu + (u - 0.5) * 2 * sqrt(mu) * 1.7);
		}
	}
}

/* Selection-based quantiles and medians equal the sort-based ones, ties and all. */
static void check_selection(void)
{
	uint64_t st = 99;
	double a[3000], b[3000], c[3000];
	for (int trial = 0; trial < 200; ++trial) {
		st = st * 6364136223846793005ULL + 1442695040888963407ULL;
		size_t n = 1 + (size_t)(st >> 33) % 2999;
		for (size_t i = 0; i < n; ++i) {
			st = st * 6364136223846793005ULL + 1442695040888963407ULL;
			a[i] = trial % 3 == 0 ? (double)((st >> 40) % 7) : (double)(st >> 11) / 9007199254740992.0 - 0.5;
		}
		double p = (double)(trial % 21) / 20.0;
		memcpy(b, a, n * sizeof *a), memcpy(c, a, n * sizeof *a);
		cnv_sort(b, n);
		check_val("select", "quantile", trial, cnv_r_quantile7_sel(c, n, p), cnv_r_quantile7(b, n, p), 1);
		memcpy(c, a, n * sizeof *a);
		double med = n & 1 ? b[n / 2] : cnv_r_mean(b + n / 2 - 1, 2);
		check_val("select", "median", trial, cnv_r_median(c, n), med, 1);
		for (size_t i = 1; i < n; ++i)
			if (b[i - 1] > b[i]) check_val("sort", "order", (int)i, b[i - 1], b[i], 1);
	}
}

/* cnv_lgamma: x86-64 glibc's lgamma() bits (the table, from it) on every CPU and, where the C library
 * is x86-64 glibc itself, on random arguments of each interval of the approximation. */
static void check_lgamma(void)
{
	static const struct { double x; uint64_t bits; } tab[] = {
		{1.0000000000000001e-30, 0x405144f69ff9ffc4ull},
		{0.10000000000000001, 0x4002058e35f3deedull},
		{0.25, 0x3ff49bbd81c16efbull},
		{0.5, 0x3fe250d048e7a1bdull},
		{0.75, 0x3fca051c372609edull},
		{0.90000000000000002, 0x3fb0fe0882e465b2ull},
		{0.94999999999999996, 0x3f9fb648aaf97604ull},
		{1.2, 0xbfb5db138c7d70c6ull},
		{1.4616321449683622, 0xbfbf19b9bcc38a42ull},
		{1.5, 0xbfbeeb95b094c191ull},
		{1.75, 0xbfb59b4fd6875a6eull},
		{1.9990000000000001, 0xbf3bafbb9e26f3e4ull},
		{2.5, 0x3fd2383e809a67e8ull},
		{3, 0x3fe62e42fefa39efull},
		{4.75, 0x400677f44aba1addull},
		{7.9989999999999997, 0x40210bd9c3b52f7dull},
		{8, 0x40210ce1f32dcc2full},
		{9, 0x4025358e82fcb70dull},
		{10, 0x40299a8921a7f7d0ull},
		{39.943327295185163, 0x405a9b19dcc840f2ull},
		{44.389878935725108, 0x405ec05e3dca62a3ull},
		{77.002300043829109, 0x407003b2a208ee9eull},
		{1000.5, 0x40b714ac96c9d5d3ull},
		{99364, 0x412fdbff09651914ull},
		{1e+17, 0x43ca77b9ddb24c21ull},
		{1e+18, 0x44018a77921997bdull},
	};
	for (size_t i = 0; i < sizeof tab / sizeof *tab; ++i) {
		double want;
		memcpy(&want, &tab[i].bits, sizeof want);
		check_val("lgamma", "table", (int)i, cnv_lgamma(tab[i].x), want, 1);
	}
#if defined(__x86_64__) && defined(__GLIBC__)
	uint64_t st = 44;
	for (int i = 0; i < 300000; ++i) {
		double u = gvk_splitmix_unif(&st), x = i % 3 == 0 ? 10 * u : i % 3 == 1 ? 1e5 * u : ldexp(u, i % 120 - 60);
		check_val("lgamma", "glibc", i, cnv_lgamma(x), lgamma(x), 1);
	}
#endif
}

static int run_misc(void)
{
	check_selection();
	check_lgamma();
	gvk_cnv_counts_t c;
	gvk_err_t err;
	synth(&c, 600, 8, 1);
	gvk_cnv_opts_t o;
	gvk_cnv_opts_init(&o, 0);
	o.keep_posterior = 1;
	gvk_cnv_result_t *r1, *r2;
	if (run_once(&c, &o, &r1, &err) < 0) return fprintf(stderr, "%s\n", err.msg), 1;
	o.threads = 3;
	if (run_once(&c, &o, &r2, &err) < 0) return fprintf(stderr, "%s\n", err.msg), 1;
	size_t mN = (size_t)c.m * c.N;
	check_val("threads", "posterior identical", 0,
	          memcmp(r1->post, r2->post, mN * 9 * sizeof(double)) == 0 && memcmp(r1->sini, r2->sini, mN * sizeof(double)) == 0 &&
	              r1->n_segs == r2->n_segs && memcmp(r1->segs, r2->segs, r1->n_segs * sizeof *r1->segs) == 0, 1, 1);
	/* The flat second sequence takes the shortcut everywhere: sI/NI is 0 and each sample gets a
	 * single segment over it (the package fails here). */
	int flat = 0;
	for (size_t k = 0; k < r1->n_segs; ++k)
		if (r1->segs[k].seq == 1) {
			++flat;
			check_val("constant", "segment first", (int)k, r1->segs[k].first, c.seq_off[1], 1);
			check_val("constant", "segment last", (int)k, r1->segs[k].last, c.m - 1, 1);
			check_val("constant", "segment mean", (int)k, r1->segs[k].mean, 0, 1);
		}
	check_val("constant", "segments", 0, flat, c.N, 1);
	/* The planted half-coverage stretch of sample 1 is called as a loss. */
	int found = 0;
	for (size_t k = 0; k < r1->n_cnvs; ++k) {
		const gvk_cnv_seg_t *g = &r1->segs[r1->cnvs[k]];
		if (g->sample == 0 && g->seq == 0 && g->first <= 105 && g->last >= 115 && g->cn == 1) found = 1;
	}
	check_val("synthetic", "loss found", 0, found, 1, 1);
	/* Without a usable GPU, device gpu is refused and says why. */
	o.device = GVK_DEVICE_GPU;
	gvk_cnv_result_t *r3 = NULL;
	int rc = run_once(&c, &o, &r3, &err);
	if (!cnv_em_gpu_available())
		check_val("device", "gpu refused", 0, rc == (gvk_cnv_have_gpu() ? GVK_ERR_GPU : GVK_ERR_UNSUPPORTED) && r3 == NULL, 1, 1);
	gvk_cnv_result_free(r3);
	/* Log-domain E-step: same calls on ordinary data. */
	o.device = GVK_DEVICE_CPU, o.log_domain = 1, o.keep_posterior = 0;
	if (run_once(&c, &o, &r3, &err) < 0) return fprintf(stderr, "%s\n", err.msg), 1;
	check_val("log-domain", "CNVs", 0, (double)r3->n_cnvs, (double)r1->n_cnvs, 1);
	gvk_cnv_result_free(r1), gvk_cnv_result_free(r2), gvk_cnv_result_free(r3);
	/* One sample only is refused. */
	c.N = 1;
	check_val("input", "one sample refused", 0, run_once(&c, &o, &r3, &err) == GVK_ERR_ARG, 1, 1);
	c.N = 8;
	gvk_cnv_counts_free(&c);
	printf("misc: %ld checks, %ld failed\n", n_checked, n_failed);
	return n_failed ? 1 : 0;
}

/* ---- The normalization's density mode (cnv_density_mode) against the slow exact sum ---- */

/* R's dnorm(x, 0, sigma), written out again for the reference. */
static double ref_dnorm(double x, double sigma)
{
	const double c = 0.398942280401432677939946059934;
	x = fabs(x / sigma);
	if (x >= 2 * sqrt(1.79769313486231570e308)) return 0.0;
	if (x < 5) return c * exp(-0.5 * x * x) / sigma;
	if (x > sqrt(-2 * 0.693147180559945309417232121458 * (-1021 + 1 - 53))) return 0.0;
	double x1 = ldexp(nearbyint(ldexp(x, 16)), -16), x2 = x - x1;
	return c / sigma * (exp(-0.5 * x1 * x1) * exp((-0.5 * x2 - x1) * x2));
}

static double ref_bw(const double *v, size_t n)
{
	double *s = malloc(n * sizeof *s);
	memcpy(s, v, n * sizeof *v);
	cnv_sort(s, n);
	double hi = sqrt(cnv_r_var(v, n)), iqr = cnv_r_quantile7(s, n, 0.75) - cnv_r_quantile7(s, n, 0.25);
	free(s);
	double lo = fmin(hi, iqr / 1.34);
	if (!(lo != 0.0)) {
		lo = hi;
		if (lo == 0.0) lo = fabs(v[0]);
		if (lo == 0.0) lo = 1.0;
	}
	return 0.9 * lo * pow((double)n, -0.2);
}

/* The mode the slow way, as gvk found it before: R's BinDist on the whole grid, every grid point
 * summed over all bins in increasing order (the O(G^2) loop; going through the list of non-empty
 * bins only leaves out terms that add exactly 0), approx() by bisection, the first maximum. */
static double ref_mode(const double *v, size_t n, double u, double *bw_out)
{
	double nu = u * 100.0;
	size_t n_user = (size_t)ceil(nu), G = 512;
	if (nu > 512) G = (size_t)1 << (int)ceil(log2(nu));
	double bw = *bw_out = ref_bw(v, n);
	double *y = calloc(G, sizeof *y), *k = malloc(G * sizeof *k), *dens = malloc(G * sizeof *dens);
	double *xo = malloc(G * sizeof *xo);
	size_t *nz = malloc(G * sizeof *nz), nnz = 0;
	double lo = 0.0 - 4 * bw, up = u + 4 * bw, delta = (up - lo) / (double)(G - 1), w = 1.0 / (double)n;
	for (size_t i = 0; i < n; ++i) {
		if (!isfinite(v[i])) continue;
		double pos = (v[i] - lo) / delta, fl = floor(pos), fx = pos - fl;
		long ix = (long)fl;
		if (ix >= 0 && ix <= (long)G - 2) y[ix] += w * (1 - fx), y[ix + 1] += w * fx;
		else if (ix == -1) y[0] += w * fx;
		else if (ix == (long)G - 1) y[ix] += w * (1 - fx);
	}
	for (size_t q = 0; q < G; ++q)
		if (y[q] != 0.0) nz[nnz++] = q;
	double kstep = 2 * (up - lo) / (double)(2 * G - 1), xstep = (up - lo) / (double)(G - 1);
	for (size_t t = 0; t < G; ++t) k[t] = ref_dnorm((double)t * kstep, bw);
	for (size_t t = 0; t < G; ++t) {
		double s = 0.0;
		for (size_t i = 0; i < nnz; ++i) s += y[nz[i]] * k[t > nz[i] ? t - nz[i] : nz[i] - t];
		dens[t] = s > 0 ? s : 0.0;
	}
	for (size_t t = 0; t < G; ++t) xo[t] = lo + (double)t * xstep;
	xo[G - 1] = up;
	double step = n_user > 1 ? u / (double)(n_user - 1) : 0.0, best = -1.0, mode = NAN;
	for (size_t j = 0; j < n_user; ++j) {
		double xv = j == n_user - 1 ? u : (double)j * step;
		if (xv < xo[0] || xv > xo[G - 1]) continue;
		size_t a = 0, b = G - 1;
		while (a < b - 1) {
			size_t mid = (a + b) / 2;
			if (xv < xo[mid]) b = mid;
			else a = mid;
		}
		double yv = xv == xo[b] ? dens[b] : xv == xo[a] ? dens[a] : dens[a] + (dens[b] - dens[a]) * ((xv - xo[a]) / (xo[b] - xo[a]));
		if (yv > best) best = yv, mode = xv;
	}
	free(y), free(k), free(dens), free(xo), free(nz);
	return mode;
}

static int same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static double quantile95(const double *v, size_t n)
{
	double *s = malloc(n * sizeof *s);
	memcpy(s, v, n * sizeof *v);
	cnv_sort(s, n);
	double u = cnv_r_quantile7(s, n, 0.95);
	free(s);
	return u;
}

static size_t kde_grid(double u)
{
	double nu = 100 * u;
	return nu > 512 ? (size_t)1 << (int)ceil(log2(nu)) : 512;
}

/* Every evaluation method must give the reference's mode and bandwidth bit for bit. */
static void kde_compare(const char *what, int id, const double *v, size_t n, double u, int *used_fft)
{
	double rbw, rm = ref_mode(v, n, u, &rbw);
	/* a forced transform of a long grid would only slow the test down */
	int last = kde_grid(u) <= ((size_t)1 << 18) ? CNV_KDE_FFT : CNV_KDE_DIRECT;
	for (int method = CNV_KDE_AUTO; method <= last; ++method) {
		cnv_kde_t k;
		int rc = cnv_density_mode(v, n, u, method, &k);
		char tag[96];
		snprintf(tag, sizeof tag, "%s (method %d)", what, method);
		check_val(tag, "rc", id, rc, 0, 1);
		++n_checked;
		if (!same_double(k.mode, rm) || !same_double(k.bw, rbw)) {
			if (n_failed++ < 20)
				fprintf(stderr, "%s[%d]: n %zu u %.17g: mode %.17g bw %.17g, expected %.17g bw %.17g\n", tag, id, n, u,
				        k.mode, k.bw, rm, rbw);
		}
		if (method == CNV_KDE_AUTO && used_fft) *used_fft = k.method == CNV_KDE_FFT;
	}
}

/* Synthetic variance/mean ratios of several shapes at a given magnitude. */
static void kde_sample(uint64_t *st, int family, double scale, double *v, size_t n)
{
	for (size_t i = 0; i < n; ++i) {
		double a = gvk_splitmix_unif(st), b = gvk_splitmix_unif(st);
		double g = sqrt(-2 * log(a)) * cos(6.283185307179586 * b);
		if (family == 0) v[i] = scale * (1 + 0.3 * g) * (1 + 0.3 * g) * (gvk_splitmix_unif(st) < 0.05 ? 5 + 45 * a : 1);
		else if (family == 1) v[i] = scale * floor(5 * a);              /* a few values: bumps of near-equal height */
		else if (family == 2) v[i] = scale * (b < 0.5 ? 1 : 3) * (1 + 0.05 * g); /* two modes of equal weight */
		else if (family == 3) v[i] = scale * exp(3 * g);                /* heavy tail: a long grid, sparse bins */
		else v[i] = scale;                                              /* all equal: the bandwidth's fall-back */
	}
}

/* Random inputs of many sizes, shapes and magnitudes, each method against the reference. */
static void kde_random(void)
{
	static const size_t sizes[] = {2, 3, 6, 20, 200, 2000, 8000, 20000};
	static const double scales[] = {1e-3, 0.3, 1, 7, 40, 300, 3000, 1e5};
	uint64_t st = 7;
	int trials = 0, fft = 0;
	double *v = malloc(20000 * sizeof *v);
	for (int t = 0; t < 400; ++t) {
		size_t n = sizes[gvk_splitmix64(&st) % 8];
		double scale = scales[gvk_splitmix64(&st) % 8];
		int family = (int)(gvk_splitmix64(&st) % 5);
		kde_sample(&st, family, scale, v, n);
		double u = quantile95(v, n);
		size_t G = kde_grid(u), nz = 2 * n < G ? 2 * n : G;
		if (!(u > 0) || G > CNV_KDE_MAX_GRID || (double)G * (double)nz > 2e7) continue;
		int used = 0;
		kde_compare("random", t, v, n, u, &used);
		++trials, fft += used;
	}
	/* Dense, wide densities on grids of 4096 to 16384 points, where the automatic choice convolves. */
	for (int t = 0; t < 30; ++t) {
		size_t n = 3000 + (size_t)(gvk_splitmix64(&st) % 4000);
		int family = t % 3 == 2 ? 2 : t % 3;
		kde_sample(&st, family, 6 + 8 * gvk_splitmix_unif(&st), v, n);
		int used = 0;
		kde_compare("dense", t, v, n, quantile95(v, n), &used);
		++trials, fft += used;
	}
	free(v);
	printf("kde: %d random inputs, %d of them convolved by FFT in the automatic choice\n", trials, fft);
	check_val("random", "some FFT cases", 0, fft >= 10, 1, 1);
}

/* The real transform against a plain DFT, and forward then inverse giving 2n times the signal. */
static void fft_check(void)
{
	uint64_t st = 3;
	for (size_t n = 2; n <= 256; n *= 2) {
		size_t L = 2 * n;
		double *x = malloc(L * sizeof *x), *X = malloc(L * sizeof *X), worst = 0, back = 0;
		cnv_fft_t f;
		cnv_fft_init(&f, n);
		for (size_t j = 0; j < L; ++j) x[j] = gvk_splitmix_unif(&st) - 0.5;
		memcpy(X, x, L * sizeof *x);
		cnv_fft_real_forward(&f, X);
		for (size_t k = 0; k <= n; ++k) {
			double re = 0, im = 0;
			for (size_t j = 0; j < L; ++j) {
				double a = -6.283185307179586 * (double)((j * k) % L) / (double)L;
				re += x[j] * cos(a), im += x[j] * sin(a);
			}
			double gr = k == 0 ? X[0] : k == n ? X[1] : X[2 * k], gi = k == 0 || k == n ? 0 : X[2 * k + 1];
			worst = fmax(worst, fmax(fabs(gr - re), fabs(gi - im)));
		}
		cnv_fft_real_inverse(&f, X);
		for (size_t j = 0; j < L; ++j) back = fmax(back, fabs(X[j] / (double)L - x[j]));
		check_val("fft", "forward", (int)n, worst < 1e-12, 1, 1);
		check_val("fft", "round trip", (int)n, back < 1e-14, 1, 1);
		cnv_fft_free(&f);
		free(x), free(X);
	}
}

/* The variance/mean ratios of sequence q as the normalization computes them. */
static size_t kde_ratios(const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r, int q, double *v)
{
	int N = c->N, m = c->m;
	size_t n = 0;
	double *z = malloc((size_t)N * sizeof *z);
	for (int row = c->seq_off[q]; row < c->seq_off[q + 1]; ++row) {
		int empty = 1;
		for (int s = 0; s < N; ++s) empty &= c->x[(size_t)s * m + row] < 1;
		if (empty) continue;
		cnv_ld_t sum = cnv_ld(0.0);
		for (int s = 0; s < N; ++s)
			sum = cnv_ld_add(sum, cnv_ld(z[s] = c->x[(size_t)s * m + row] * r->nf_before[(size_t)q * N + s]));
		v[n++] = cnv_r_var(z, (size_t)N) / cnv_ld_double(cnv_ld_div(sum, cnv_ld_n((size_t)N)));
	}
	free(z);
	return n;
}

/* Processor seconds of this thread: a time bound that a busy machine does not stretch. */
static double thread_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The whole run on counts c: each sequence's u, bandwidth and mode equal the reference's, and
 * the mode takes at most cpu_limit processor seconds. Returns the normalization's seconds. */
static double kde_pipeline(const char *what, const gvk_cnv_counts_t *c, double cpu_limit)
{
	gvk_cnv_opts_t o;
	gvk_cnv_opts_init(&o, 0);
	o.threads = 2, o.device = GVK_DEVICE_CPU;
	gvk_cnv_result_t *r;
	gvk_err_t err;
	if (run_once(c, &o, &r, &err) < 0) {
		fprintf(stderr, "%s: %s\n", what, err.msg);
		check_val(what, "run", 0, 0, 1, 1);
		return -1;
	}
	double *v = malloc((size_t)c->m * sizeof *v);
	for (int q = 0; q < c->n_seqs; ++q) {
		size_t n = kde_ratios(c, r, q, v);
		double u = quantile95(v, n), bw, mode = ref_mode(v, n, u, &bw);
		check_val(what, "u", q, r->nf_u[q], u, 1);
		check_val(what, "bandwidth", q, r->nf_bw[q], bw, 1);
		check_val(what, "mode", q, r->nf_mode[q], mode, 1);
		cnv_kde_t k;
		double t0 = thread_cpu();
		cnv_density_mode(v, n, u, CNV_KDE_AUTO, &k);
		double dt = thread_cpu() - t0;
		printf("kde: %s: sequence %d: grid %.0f, %s, %.3f processor seconds\n", what, q, k.grid,
		       k.method == CNV_KDE_FFT ? "FFT" : "direct", dt);
		check_val(what, "processor seconds within the limit", q, dt < cpu_limit, 1, 1);
	}
	double t = r->t_norm;
	free(v);
	gvk_cnv_result_free(r);
	return t;
}

/* The 6 x 3 matrix of the issue, one count set to big. */
static void counts_6x3(gvk_cnv_counts_t *c, double big)
{
	static const double rows[6][3] = {{5, 6, 7}, {8, 6, 7}, {5, 0, 7}, {9, 6, 4}, {5, 3, 7}, {5, 6, 12}};
	memset(c, 0, sizeof *c);
	c->m = 6, c->N = 3, c->n_seqs = 1;
	c->samples = malloc(3 * sizeof *c->samples);
	for (int s = 0; s < 3; ++s) c->samples[s] = strdup(s == 0 ? "A" : s == 1 ? "B" : "C");
	c->seq_names = malloc(sizeof *c->seq_names);
	c->seq_names[0] = strdup("chr1");
	c->seq_off = malloc(2 * sizeof *c->seq_off);
	c->seq_off[0] = 0, c->seq_off[1] = 6;
	c->start = malloc(6 * sizeof *c->start), c->end = malloc(6 * sizeof *c->end);
	c->x = malloc(18 * sizeof *c->x);
	for (int r = 0; r < 6; ++r) {
		c->start[r] = 100 * r + 1, c->end[r] = 100 * (r + 1);
		for (int s = 0; s < 3; ++s) c->x[s * 6 + r] = rows[r][s];
	}
	c->x[1 * 6 + 2] = big;
}

static int run_kde(const char *small_counts)
{
	fft_check();
	kde_random();
	/* The matrices: grids of 2^18, 2^19 and 2^24 points, a handful of bins. */
	static const double big[] = {10000, 30000, 1000000};
	for (int k = 0; k < 3; ++k) {
		gvk_cnv_counts_t c;
		counts_6x3(&c, big[k]);
		char what[64];
		snprintf(what, sizeof what, "6x3 with %.0f", big[k]);
		/* the O(G^2) sum took tens of seconds on 10,000 and never ended on 1,000,000 */
		double t = kde_pipeline(what, &c, k < 2 ? 0.5 : 5);
		printf("kde: %s: normalization %.3f s\n", what, t);
		check_val(what, "normalization under 30 s", 0, t >= 0 && t < 30, 1, 1);
		gvk_cnv_counts_free(&c);
	}
	/* Beyond the grid's bound: refused, with the size it would have needed. */
	double huge[6] = {1, 2, 3, 4, 5, 4e9};
	cnv_kde_t kd;
	double uh = quantile95(huge, 6);
	check_val("cap", "refused", 0, cnv_density_mode(huge, 6, uh, CNV_KDE_AUTO, &kd), GVK_ERR_FORMAT, 1);
	check_val("cap", "grid needed", 0, kd.grid, ldexp(1.0, (int)ceil(log2(100 * uh))), 1);
	/* The bundled small matrix with every count times 100. */
	gvk_cnv_counts_t c;
	gvk_err_t err;
	if (gvk_cnv_counts_read(small_counts, 0, &c, &err) < 0) return fprintf(stderr, "%s\n", err.msg), 1;
	for (size_t i = 0; i < (size_t)c.m * c.N; ++i) c.x[i] *= 100;
	double t = kde_pipeline("small x 100", &c, 0.5);
	printf("kde: small x 100: normalization %.3f s\n", t);
	check_val("small x 100", "normalization under 30 s", 0, t >= 0 && t < 30, 1, 1);
	gvk_cnv_counts_free(&c);
	printf("kde: %ld checks, %ld failed\n", n_checked, n_failed);
	return n_failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "em")) return run_em(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "segment")) return run_segment(argv[2], argv[3]);
	if (argc >= 2 && !strcmp(argv[1], "misc")) return run_misc();
	if (argc >= 3 && !strcmp(argv[1], "kde")) return run_kde(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "ttail")) return run_ttail(argv[2]);
	fprintf(stderr, "usage: test_cnv_unit em FILE | segment IN OUT | misc | kde COUNTS | ttail FILE\n");
	return 2;
}
