/* CPU benchmark of the CNV pipeline on synthetic cohorts generated in memory (deterministic):
 * the whole pipeline from a count matrix, with the EM step also timed on its own.
 * Usage: bench_cnv [small | large | M N] [THREADS ...]
 *   small = 50,000 windows x 20 samples (default), large = 3,000,000 windows x 100 samples.
 *   Thread counts default to 1 and all processors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "common/threads.h"
#include "cnv/cnv_em.h"

static uint64_t rng_next(uint64_t *s)
{
	*s += 0x9e3779b97f4a7c15ULL;
	uint64_t z = *s;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double unif(uint64_t *s)
{
	return ((double)(rng_next(s) >> 11) + 0.5) / 9007199254740992.0;
}

/* Poisson by inversion for small means, normal approximation above 50. */
static double poisson(uint64_t *s, double mu)
{
	if (mu > 50) {
		double g = sqrt(-2 * log(unif(s))) * cos(6.283185307179586 * unif(s));
		double v = floor(mu + sqrt(mu) * g + 0.5);
		return v < 0 ? 0 : v;
	}
	double l = exp(-mu), p = unif(s), k = 0, t = l;
	while (p > t && k < 1000) p -= t, ++k, t *= mu / k;
	return k;
}

/* 22 sequences of 1 kb windows, ~100 reads per window, per-sample coverage, 10 % gamma-like
 * over-dispersion, and one CNV (CN0, CN1, CN3 or CN4) of 5-50 windows per 5,000 windows and sample. */
static int make_cohort(gvk_cnv_counts_t *c, int m, int N)
{
	memset(c, 0, sizeof *c);
	int Q = m >= 22 * 100 ? 22 : 1;
	c->m = m, c->N = N, c->n_seqs = Q;
	c->samples = calloc((size_t)N, sizeof *c->samples);
	c->seq_names = calloc((size_t)Q, sizeof *c->seq_names);
	c->seq_off = malloc((size_t)(Q + 1) * sizeof *c->seq_off);
	c->start = malloc((size_t)m * sizeof *c->start), c->end = malloc((size_t)m * sizeof *c->end);
	c->x = malloc((size_t)m * N * sizeof *c->x);
	double *base = malloc((size_t)m * sizeof *base), *cov = malloc((size_t)N * sizeof *cov);
	if (!c->samples || !c->seq_names || !c->seq_off || !c->start || !c->end || !c->x || !base || !cov) return -1;
	for (int s = 0; s < N; ++s) {
		c->samples[s] = malloc(16);
		snprintf(c->samples[s], 16, "S%03d", s + 1);
	}
	for (int q = 0; q <= Q; ++q) c->seq_off[q] = (int)((int64_t)m * q / Q);
	for (int q = 0; q < Q; ++q) {
		c->seq_names[q] = malloc(16);
		snprintf(c->seq_names[q], 16, Q == 1 ? "chr1" : "chr%d", q + 1);
		for (int r = c->seq_off[q]; r < c->seq_off[q + 1]; ++r) {
			int64_t i = r - c->seq_off[q];
			c->start[r] = i * 1000 + 1, c->end[r] = (i + 1) * 1000;
		}
	}
	uint64_t st = 20240611;
	for (int r = 0; r < m; ++r) base[r] = 100 * (0.7 + 0.6 * unif(&st));
	for (int s = 0; s < N; ++s) cov[s] = 0.7 + 0.8 * unif(&st);
	static const double fold[4] = {0.01, 0.5, 1.5, 2};
	for (int s = 0; s < N; ++s) {
		double *col = c->x + (size_t)s * m;
		uint64_t ss = st ^ ((uint64_t)s * 0x632be59bd9b4e019ULL);
		int ev_start = -1, ev_end = -1;
		double f = 1;
		for (int r = 0; r < m; ++r) {
			if (r % 5000 == 0) {
				ev_start = r + (int)(unif(&ss) * 4000), ev_end = ev_start + 5 + (int)(unif(&ss) * 45);
				f = fold[(int)(unif(&ss) * 4)];
			}
			double mu = base[r] * cov[s] * (r >= ev_start && r < ev_end ? f : 1) * (0.9 + 0.2 * unif(&ss));
			col[r] = poisson(&ss, mu);
		}
	}
	free(base), free(cov);
	return 0;
}

int main(int argc, char **argv)
{
	int m = 50000, N = 20, a = 1;
	if (argc > 1 && !strcmp(argv[1], "small")) a = 2;
	else if (argc > 1 && !strcmp(argv[1], "large")) m = 3000000, N = 100, a = 2;
	else if (argc > 2 && atoi(argv[1]) > 0 && atoi(argv[2]) > 1) m = atoi(argv[1]), N = atoi(argv[2]), a = 3;
	int threads[16], nt = 0;
	for (; a < argc && nt < 16; ++a)
		if ((threads[nt] = atoi(argv[a])) > 0) ++nt;
	if (!nt) {
		threads[nt++] = 1;
		if (gvk_ncpu() > 1) threads[nt++] = gvk_ncpu();
	}
	gvk_cnv_counts_t c;
	double t0 = gvk_seconds();
	if (make_cohort(&c, m, N) < 0) return fprintf(stderr, "bench_cnv: out of memory\n"), 1;
	printf("cohort: %d windows x %d samples, %d sequences, generated in %.2f s\n", m, N, c.n_seqs, gvk_seconds() - t0);
	printf("%-8s %8s %10s %10s %12s %10s %12s %7s %7s\n", "threads", "device", "total_s", "em_s", "regions/s",
	       "norm_s", "em_regions/s", "seg_s", "CNVs");
	for (int k = 0; k < nt; ++k) {
		gvk_cnv_opt_t o;
		gvk_cnv_opt_init(&o, 0);
		o.threads = threads[k];
		o.device = GVK_DEVICE_CPU;
		gvk_cnv_result_t *r;
		gvk_err_t err;
		double t1 = gvk_seconds();
		if (gvk_cnv_run(&c, &o, &r, &err) < 0) return fprintf(stderr, "bench_cnv: %s\n", err.msg), 1;
		double dt = gvk_seconds() - t1;
		printf("%-8d %8s %10.3f %10.3f %12.4g %10.3f %12.4g %7.3f %7zu\n", threads[k], r->device_name, dt, r->t_em,
		       m / dt, r->t_norm, m / r->t_em, r->t_call, r->n_cnvs);
		fflush(stdout);
		gvk_cnv_result_free(r);
	}
	gvk_cnv_counts_free(&c);
	return 0;
}
