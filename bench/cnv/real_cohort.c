/* SPDX-License-Identifier: MIT */
/* The realistic cohort of real_cohort.h. */
#include "real_cohort.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/splitmix.h"
#include "common/threads.h"

enum { N_SEQ = 24, WINDOW = 1000, BLOCK_ROWS = 8192, EVENT_SPAN = 5000 };

/* GRCh38 sequence lengths in Mb (chr1..chr22, chrX, chrY), for the windows' share per sequence. */
static const double seq_mb[N_SEQ] = {248.96, 242.19, 198.30, 190.21, 181.54, 170.81, 159.35, 145.14,
                                     138.39, 133.80, 135.09, 133.28, 114.36, 107.04, 101.99, 90.34,
                                     83.26,  80.37,  58.62,  64.44,  46.71,  50.82,  156.04, 57.23};

typedef struct {
	int m, N, nth;
	int seq_off[N_SEQ + 1];
	double *size; /* per-sample size factors */
	uint64_t seed;
	FILE *fp;
	int r0;       /* first row of the current round */
	char **buf;
	size_t *len;
} cohort_t;

/* A generator state for one (stream, key): independent of everything else drawn. */
static uint64_t stream(uint64_t seed, uint64_t stream_id, uint64_t key)
{
	uint64_t s = seed ^ (stream_id * 0xd1b54a32d192ed03ULL) ^ (key * 0x9e3779b97f4a7c15ULL);
	gvk_splitmix64(&s);
	return s;
}

static double normal(uint64_t *s)
{
	double a = gvk_splitmix_unif(s), b = gvk_splitmix_unif(s);
	return sqrt(-2 * log(a)) * cos(6.283185307179586 * b);
}

/* Gamma(shape) / shape, mean 1 and variance 1 / shape (Wilson-Hilferty; shape >= 20 here). */
static double gamma_mean1(uint64_t *s, double shape)
{
	double c = 1.0 / (9 * shape), t = 1 - c + normal(s) * sqrt(c);
	return t > 0 ? t * t * t : 0;
}

/* Poisson by inversion for small means, normal approximation above 50. */
static double poisson(uint64_t *s, double mu)
{
	if (mu > 50) {
		double v = floor(mu + sqrt(mu) * normal(s) + 0.5);
		return v < 0 ? 0 : v;
	}
	double l = exp(-mu), p = gvk_splitmix_unif(s), k = 0, t = l;
	while (p > t && k < 1000) p -= t, ++k, t *= mu / k;
	return k;
}

/* Window r's expected count at size factor 1, shared by every sample: GC content and mappability
 * (CV 20 %), 1 % of windows poorly mappable, 0.2 % in assembly gaps (no reads at all). */
static double window_mean(const cohort_t *c, int r)
{
	uint64_t s = stream(c->seed, 1, (uint64_t)r);
	double u = gvk_splitmix_unif(&s), mu = 5000 * gamma_mean1(&s, 25);
	if (u < 0.002) return 0;
	if (u < 0.01) mu *= 0.2 * gvk_splitmix_unif(&s);
	return mu;
}

/* Copy-number fold of sample s at window r: half of the spans of 5,000 windows hold one event of
 * 5-100 windows, a homozygous or heterozygous loss or a gain of one or two copies. */
static double cnv_fold(const cohort_t *c, int r, int s)
{
	static const double fold[4] = {0.02, 0.5, 1.5, 2};
	int span = r / EVENT_SPAN;
	uint64_t st = stream(c->seed, 2, (uint64_t)s << 32 | (uint64_t)span);
	if (gvk_splitmix_unif(&st) < 0.5) return 1;
	int start = span * EVENT_SPAN + (int)(gvk_splitmix_unif(&st) * (EVENT_SPAN - 100));
	int len = 5 + (int)(gvk_splitmix_unif(&st) * 96);
	double f = fold[(int)(gvk_splitmix_unif(&st) * 4)];
	return r >= start && r < start + len ? f : 1;
}

/* Negative binomial as a gamma-Poisson mixture: shape 100 makes the variance mu + mu^2 / 100,
 * about 50 times the Poisson variance at 5,000 reads. */
static double count(const cohort_t *c, double mu, int r, int s)
{
	uint64_t st = stream(c->seed, 3, (uint64_t)r << 32 | (uint64_t)s);
	return poisson(&st, mu * c->size[s] * cnv_fold(c, r, s) * gamma_mean1(&st, 100));
}

static char *put_uint(char *o, unsigned long v)
{
	char d[24];
	int k = 0;
	do d[k++] = (char)('0' + v % 10), v /= 10; while (v);
	while (k) *o++ = d[--k];
	return o;
}

static void seq_name(int q, char name[8])
{
	if (q < 22) snprintf(name, 8, "chr%d", (q + 1) % 100); /* q < 22: the modulus shows the compiler it fits */
	else snprintf(name, 8, "chr%c", q == 22 ? 'X' : 'Y');
}

/* Formats rows [r0 + tid * BLOCK_ROWS, + BLOCK_ROWS) into the thread's buffer. */
static void rows_worker(void *arg, int tid)
{
	cohort_t *c = arg;
	int a = c->r0 + tid * BLOCK_ROWS, b = a + BLOCK_ROWS < c->m ? a + BLOCK_ROWS : c->m, q = 0;
	char *o = c->buf[tid], name[8];
	for (int r = a; r < b; ++r) {
		while (r >= c->seq_off[q + 1]) ++q;
		long long i = r - c->seq_off[q];
		seq_name(q, name);
		o += sprintf(o, "%s\t%lld\t%lld", name, i * WINDOW + 1, (i + 1) * WINDOW);
		double mu = window_mean(c, r);
		for (int s = 0; s < c->N; ++s) {
			*o++ = '\t';
			o = put_uint(o, (unsigned long)count(c, mu, r, s));
		}
		*o++ = '\n';
	}
	c->len[tid] = (size_t)(o - c->buf[tid]);
}

/* Windows per sequence in proportion to its length (at least 2 each). */
static void layout(cohort_t *c)
{
	double total = 0;
	for (int q = 0; q < N_SEQ; ++q) total += seq_mb[q];
	c->seq_off[0] = 0;
	for (int q = 0; q < N_SEQ; ++q) {
		double cum = 0;
		for (int k = 0; k <= q; ++k) cum += seq_mb[k];
		int end = q == N_SEQ - 1 ? c->m : (int)((double)c->m * cum / total);
		c->seq_off[q + 1] = end < c->seq_off[q] + 2 ? c->seq_off[q] + 2 : end;
	}
}

static int write_rows(cohort_t *c)
{
	fputs("chr\tstart\tend", c->fp);
	for (int s = 0; s < c->N; ++s) fprintf(c->fp, "\tS%03d", s + 1);
	fputc('\n', c->fp);
	for (c->r0 = 0; c->r0 < c->m; c->r0 += c->nth * BLOCK_ROWS) {
		gvk_parallel(c->nth, rows_worker, c);
		for (int t = 0; t < c->nth; ++t)
			if (c->len[t] && fwrite(c->buf[t], 1, c->len[t], c->fp) != c->len[t]) return -1;
	}
	return 0;
}

int real_cohort_write(const char *path, int m, int N, int threads)
{
	if (m < 2 * N_SEQ || N < 2) return fprintf(stderr, "real_cohort: need at least %d windows and 2 samples\n", 2 * N_SEQ), -1;
	cohort_t c = {m, N, threads < 1 ? 1 : threads, {0}, NULL, 20240611, NULL, 0, NULL, NULL};
	layout(&c);
	c.size = malloc((size_t)N * sizeof *c.size);
	c.buf = calloc((size_t)c.nth, sizeof *c.buf);
	c.len = calloc((size_t)c.nth, sizeof *c.len);
	c.fp = fopen(path, "w");
	int rc = -1;
	if (!c.size || !c.buf || !c.len || !c.fp) goto out;
	for (int t = 0; t < c.nth; ++t)
		if (!(c.buf[t] = malloc((size_t)BLOCK_ROWS * (48 + 21 * (size_t)N)))) goto out;
	/* per-sample size factors: library sizes from 0.6 to 1.4 times the mean */
	uint64_t st = stream(c.seed, 4, 0);
	for (int s = 0; s < N; ++s) c.size[s] = 0.6 + 0.8 * gvk_splitmix_unif(&st);
	rc = write_rows(&c);
out:
	if (c.fp && fclose(c.fp) != 0) rc = -1;
	if (rc < 0) fprintf(stderr, "real_cohort: cannot write %s\n", path);
	for (int t = 0; c.buf && t < c.nth; ++t) free(c.buf[t]);
	free(c.buf), free(c.len), free(c.size);
	return rc;
}
