/* SPDX-License-Identifier: MIT */
/* The fast paths of gvk ld against the straightforward ones, on random data with awkward sizes and
 * edge cases (monomorphic, all missing, all heterozygous, no missing call):
 * - the unphased D' table from the kernels' nine plane intersections (every kernel set) against a
 *   naive count and against the class-by-class count;
 * - the estimate with a --ld-window-r2 cut-off against the full estimate: a pair left out must be
 *   below the cut-off, and every other value is the same bits (every table of counts 0..2, D' ties
 *   included, and the cut-off at a value and one step above it);
 * - the batched cut-off of --clump's rows (ld_em_below_many) against ld_em_stats's own, table by
 *   table and over a batch of every small table;
 * - the Hardy-Weinberg threshold test without the whole distribution (snp_hwe_fails) against
 *   snp_hwe_p < threshold, every count up to 40 samples and random ones up to 200,000;
 * - numbers read by snp_num_double / snp_num_i64 against strtod / strtoll, bit for bit, on random
 *   decimals and the awkward tokens (signs, exponents, hex, inf, nan, long mantissas);
 * - a .bed row's low-bit and high-bit planes (snp_bed_bits, every build this CPU runs) against the
 *   codes read sample by sample;
 * - the .bed decoder's whole-word path against its sample-by-sample path, and the threaded reader
 *   (rows with gaps) against one thread;
 * - tables and text matrices formatted on several threads against one thread, byte for byte, and
 *   their gzip output (compressed in pieces on several threads) against the plain text.
 * Usage: test_ld_fast SEED TMPDIR */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ld/ld_em.h"
#include "ld/ld_engine.h"
#include "ld/ld_write.h"
#include "snp/plink_io.h"
#include "snp/snp_geno.h"
#include "snp/snp_num.h"
#include "snp/snp_qc.h"
#include "snp/snp_bed_bits.h"

#include "test_planes.h"
#include "test_rng.h"

static int fails;
#define CHECK(c, ...) do { if (!(c)) { if (fails++ < 10) fprintf(stderr, __VA_ARGS__); } } while (0)

/* Genotype x (-1 missing) of SNP i, sample s, with the edge cases at fixed SNPs. */
static int8_t draw(int64_t i, double p, double miss)
{
	int x = (unif() < p) + (unif() < p);
	if (i % 7 == 5) x = 0;  /* monomorphic */
	if (i % 11 == 4) x = 1; /* all heterozygous */
	if (i % 3 != 0 && unif() < miss) x = -1;
	if (i % 13 == 6) x = -1; /* all missing */
	return (int8_t)x;
}

static void make_data(snp_data_t *d, int8_t *g, int64_t m, int64_t n, double miss)
{
	gvk_err_t err;
	memset(d, 0, sizeof *d);
	snp_data_alloc_planes(d, m, n, &err);
	d->var = calloc((size_t)m, sizeof *d->var);
	for (int64_t i = 0; i < m; ++i) {
		double p = unif();
		d->var[i] = (snp_var_t){.chr = "1", .id = "s", .a1 = "A", .a2 = "G", .bp = i + 1};
		for (int64_t s = 0; s < n; ++s) {
			int x = g[i * n + s] = draw(i, p, miss);
			if (x < 0) continue;
			test_put_call(d, i, s, x);
		}
		snp_data_set_full(d, i);
	}
}

/* Class of a call as ld_em.h numbers them: 0 = two copies (B), 1 = one, 2 = none. */
static void naive_table(const int8_t *g, int64_t n, int64_t i, int64_t j, uint32_t c[18])
{
	memset(c, 0, 18 * sizeof *c);
	for (int64_t s = 0; s < n; ++s) {
		int x = g[i * n + s], y = g[j * n + s];
		if (x >= 0 && y >= 0) c[3 * (2 - x) + (2 - y)]++;
	}
}

static void test_tables(int64_t m, int64_t n, double miss)
{
	snp_data_t d;
	int8_t *g = malloc((size_t)(m * n) + 1);
	make_data(&d, g, m, n, miss);
	ld_em_plan_t plan;
	ld_em_plan(&d, NULL, 0, m, &plan);
	const pg_isa_t *sets[3] = {&pg_isa_scalar, pg_isa_word(), pg_isa_select(GVK_ISA_AUTO)};
	pg_ldtab_t *t = malloc(sizeof *t * (size_t)m);
	long stride = (long)SNP_PLANES * d.nw;
	for (int v = 0; v < 3; ++v) {
		if (!sets[v]) continue;
		for (int64_t i = 0; i < m; ++i) {
			int64_t pc = 0;
			for (int64_t s = 0; s < n; ++s) pc += g[i * n + s] >= 1;
			CHECK(sets[v]->popcount(snp_plane(&d, i, SNP_PA), d.nw) == pc, "%s popcount of SNP %lld\n", sets[v]->name,
			      (long long)i);
			int64_t ny = m - i - 1;
			if (ny <= 0) continue;
			sets[v]->tab_row(snp_plane(&d, i, 0), snp_plane(&d, i + 1, 0), stride, (int)ny, d.nw, t);
			for (int64_t k = 0; k < ny; ++k) {
				uint32_t want[18], got[18], cls[18];
				int xi, xj;
				naive_table(g, n, i, i + 1 + k, want);
				ld_em_table(&t[k], got);
				ld_em_counts(&d, &plan, i, i + 1 + k, &xi, &xj, cls);
				CHECK(ld_em_plain(&plan, i, i + 1 + k), "pair %lld,%lld not plain\n", (long long)i, (long long)(i + 1 + k));
				CHECK(!memcmp(want, got, sizeof want) && !memcmp(want, cls, sizeof want),
				      "%s table of %lld,%lld (%lld samples)\n", sets[v]->name, (long long)i, (long long)(i + 1 + k),
				      (long long)n);
			}
		}
	}
	ld_em_plan_free(&plan);
	free(t);
	free(g);
	snp_data_free(&d);
}

static int same_bits(double a, double b) { return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0; }

/* The estimate of c with cut-offs around its own value and at random. */
static void check_drop(const uint32_t c[18], int xi, int xj)
{
	for (int r2 = 0; r2 < 2; ++r2) {
		double r, dd, dp;
		ld_em_stats(c, xi, xj, r2, 0.0, &r, &dd, &dp);
		double a = fabs(r), drops[4] = {a, nextafter(a, INFINITY), unif(), 0.2};
		for (int k = 0; k < 4; ++k) {
			if (!(drops[k] > 0)) continue;
			double r1, d1, p1;
			ld_em_stats(c, xi, xj, r2, drops[k], &r1, &d1, &p1);
			if (isnan(r1) && !isnan(r))
				CHECK(a < drops[k], "table %u %u %u / %u %u %u / %u %u %u: left out at cut-off %.17g, value %.17g\n", c[0],
				      c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], drops[k], r);
			if (r2 && !xi && !xj) {
				uint32_t kk[4], ctr = c[4];
				uint8_t skip = 2;
				ld_em_knowns_plain(c, kk);
				const uint32_t *kp[4] = {&kk[0], &kk[1], &kk[2], &kk[3]};
				ld_em_below_many(kp, &ctr, 1, drops[k], &skip);
				CHECK(skip == (isnan(r1) != 0), "table %u %u %u / %u %u %u / %u %u %u: batched cut-off %.17g says %d\n",
				      c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], drops[k], skip);
			}
			if (isnan(r1) && !isnan(r)) continue;
			CHECK(same_bits(r, r1) && same_bits(dd, d1) && same_bits(dp, p1),
			      "table %u %u %u / %u %u %u / %u %u %u: cut-off %.17g changed the values\n", c[0], c[1], c[2], c[3],
			      c[4], c[5], c[6], c[7], c[8], drops[k]);
			if (k == 0) CHECK(!isnan(r1) || isnan(r), "a value equal to the cut-off was left out\n");
		}
	}
}

/* Every table with cells 0..2 in one batch of ld_em_below_many, against ld_em_stats one by one. */
static void check_batch(double drop)
{
	enum { N = 19683 };
	static uint32_t k[4][N], ctr[N], c[N][18];
	static uint8_t skip[N];
	for (int code = 0; code < N; ++code) {
		for (int q = 0, x = code; q < 9; ++q, x /= 3) c[code][q] = (uint32_t)(x % 3);
		uint32_t kk[4];
		ld_em_knowns_plain(c[code], kk);
		for (int q = 0; q < 4; ++q) k[q][code] = kk[q];
		ctr[code] = c[code][4];
	}
	const uint32_t *kp[4] = {k[0], k[1], k[2], k[3]};
	ld_em_below_many(kp, ctr, N, drop, skip);
	for (int code = 0; code < N; ++code) {
		double r, dd, dp;
		ld_em_stats(c[code], 0, 0, 1, drop, &r, &dd, &dp);
		CHECK(skip[code] == (isnan(r) != 0), "table %d of the batch: cut-off %g says %d\n", code, drop, skip[code]);
	}
}

static void test_drop(void)
{
	uint32_t c[18] = {0};
	for (int code = 0; code < 19683; ++code) { /* every table with cells 0..2 */
		for (int k = 0, x = code; k < 9; ++k, x /= 3) c[k] = (uint32_t)(x % 3);
		check_drop(c, 0, 0);
	}
	check_batch(0.5), check_batch(0.05), check_batch(0.999);
	for (int rep = 0; rep < 20000; ++rep) {
		uint32_t big = rep % 2 ? 40 : 4000;
		for (int k = 0; k < 9; ++k) c[k] = (uint32_t)(next() % big);
		if (rep % 5 == 0) c[4] = 0;
		if (rep % 7 == 0) c[0] = c[8] = 0; /* no double homozygotes of one phase */
		int xi = rep % 3 == 1, xj = rep % 4 == 1;
		for (int k = 0; k < 9; ++k) c[9 + k] = (xi || xj) ? (uint32_t)(next() % (c[k] + 1)) : 0;
		check_drop(c, xi, xj);
	}
}

static void check_hwe(int64_t het, int64_t h1, int64_t h2, double thr, int midp)
{
	int want = snp_hwe_p(het, h1, h2, midp) < thr, got = snp_hwe_fails(het, h1, h2, thr, midp);
	CHECK(want == got, "hwe %lld %lld %lld at %g%s: %d, the whole distribution says %d\n", (long long)het, (long long)h1,
	      (long long)h2, thr, midp ? " midp" : "", got, want);
}

static void test_hwe(void)
{
	static const double thr[] = {1e-300, 1e-50, 1e-6, 1e-3, 0.05, 0.3, 0.5, 0.9, 0.9999};
	for (int64_t n = 0; n <= 40; ++n)
		for (int64_t het = 0; het <= n; ++het)
			for (int64_t h1 = 0; het + h1 <= n; ++h1)
				for (size_t k = 0; k < sizeof thr / sizeof *thr; ++k) check_hwe(het, h1, n - het - h1, thr[k], (int)(het + h1) & 1);
	for (int rep = 0; rep < 20000; ++rep) {
		int64_t n = 1 + (int64_t)(next() % (rep % 50 ? 5000 : 200000));
		double f = unif(), f2 = f * f * unif() * 1.2;
		int64_t h2 = (int64_t)(f2 * (double)n), het = (int64_t)((2 * f * (1 - f)) * (double)n * (0.5 + unif()));
		if (h2 > n) h2 = n;
		if (h2 + het > n) het = n - h2;
		double t = rep % 4 ? pow(10, -12 * unif()) : 1e-6;
		/* the threshold at the p-value itself, where only the exact sums can decide */
		if (rep % 7 == 0) t = snp_hwe_p(het, n - h2 - het, h2, rep & 1);
		check_hwe(het, n - h2 - het, h2, t, rep & 1);
	}
}

/* Rows of n samples (random codes; the padding bits of the last byte set, which must not show) to
 * bit planes. */
static void test_bits(int64_t n)
{
	int nw = (int)(((n + 63) / 64 + 7) / 8 * 8);
	int64_t bytes = (n + 3) / 4;
	uint8_t *row = malloc((size_t)bytes + 64);
	uint64_t *l = calloc((size_t)nw, 8), *h = calloc((size_t)nw, 8), *l2 = calloc((size_t)nw, 8), *h2 = calloc((size_t)nw, 8);
	snp_bed_bits_fn fast = snp_bed_bits_pick();
	for (int rep = 0; rep < 20; ++rep) {
		for (int64_t b = 0; b < bytes; ++b) row[b] = (uint8_t)next();
		memset(l, 0xff, (size_t)nw * 8), memset(h, 0xff, (size_t)nw * 8);
		memset(l2, 0xff, (size_t)nw * 8), memset(h2, 0xff, (size_t)nw * 8);
		snp_bed_bits_portable(row, n, nw, l, h);
		fast(row, n, nw, l2, h2);
		int bad = 0;
		for (int64_t k = 0; k < (int64_t)nw * 64; ++k) {
			int code = k < n ? (row[k / 4] >> (2 * (k % 4))) & 3 : 0;
			int lb = (int)(l[k / 64] >> (k % 64) & 1), hb = (int)(h[k / 64] >> (k % 64) & 1);
			bad += lb != (code & 1) || hb != (code >> 1);
		}
		CHECK(!bad, "%lld samples: %d bits of the portable planes differ from the codes\n", (long long)n, bad);
		CHECK(!memcmp(l, l2, (size_t)nw * 8) && !memcmp(h, h2, (size_t)nw * 8), "%lld samples: the fast planes differ\n",
		      (long long)n);
	}
	free(row), free(l), free(h), free(l2), free(h2);
}

/* snp_num_double and snp_num_i64 on token t (a prefix of it when cut) against the C library. */
static void check_num(const char *t)
{
	char *e1;
	const char *e2;
	size_t n = strlen(t);
	double want = strtod(t, &e1), got = snp_num_double(t, t + n, &e2);
	CHECK(same_bits(want, got) && e1 - t == e2 - t, "'%s': strtod %.17g (%td bytes), snp_num_double %.17g (%td)\n", t, want,
	      e1 - t, got, e2 - t);
	errno = 0;
	long long iw = strtoll(t, &e1, 10);
	int ok = !errno && e1 != t && !*e1;
	int64_t ig = 0;
	int rc = snp_num_i64(t, t + n, &ig);
	CHECK((rc == 0) == ok && (!ok || ig == iw), "'%s': strtoll %lld (%s), snp_num_i64 %lld (%d)\n", t, iw, ok ? "whole" : "not",
	      (long long)ig, rc);
}

static void test_numbers(void)
{
	static const char *odd[] = {"0", "-0", "+0", "0.", ".5", "-.5", "+.5", ".", "-", "+", "", "e5", "1e", "1e+", "1e-5x",
	                            "5e-324", "1e-400", "1e309", "1.7976931348623157e308", "2.2250738585072014e-308",
	                            "0x1p-3", "0X10", "inf", "-INF", "nan", "NA", "1,5", "12abc", "9007199254740993",
	                            "9007199254740992", "123456789012345678901234567890", "0.000000000000000000000001234",
	                            "1e22", "1e23", "4.35e-22", "9223372036854775807", "9223372036854775808",
	                            "-9223372036854775808", "000000000000000000000000012", "1.0e+0001", "0.1e-21"};
	for (size_t k = 0; k < sizeof odd / sizeof *odd; ++k) check_num(odd[k]);
	char t[64];
	for (int rep = 0; rep < 200000; ++rep) {
		int len = 0, digits = 1 + (int)(next() % 20), point = (int)(next() % (digits + 2)) - 1;
		if (next() % 4 == 0) t[len++] = next() % 2 ? '-' : '+';
		for (int q = 0; q < digits; ++q) {
			if (q == point) t[len++] = '.';
			t[len++] = (char)('0' + (q == 0 && next() % 3 == 0 ? 0 : next() % 10));
		}
		if (next() % 3 == 0) len += snprintf(t + len, sizeof t - (size_t)len, "e%d", (int)(next() % 61) - 30);
		t[len] = 0;
		check_num(t);
	}
}

/* A .bed of m rows for n samples (random codes, padding bits set in odd rows). */
static void write_bed(const char *path, uint8_t *rows, int64_t m, int64_t n)
{
	int64_t bpr = (n + 3) / 4;
	for (int64_t i = 0; i < m; ++i) {
		double p = unif(), miss = i % 3 ? 0.05 : 0.0;
		for (int64_t b = 0; b < bpr; ++b) {
			uint8_t byte = 0;
			for (int q = 0; q < 4; ++q) {
				int64_t s = 4 * b + q;
				int code = (unif() < p) + (unif() < p); /* 0, 2 or 3 below */
				code = code == 0 ? 3 : code == 1 ? 2 : 0;
				if (unif() < miss || i % 13 == 6) code = 1;
				if (s >= n) code = i % 2 ? 3 : 0;
				byte |= (uint8_t)(code << (2 * q));
			}
			rows[i * bpr + b] = byte;
		}
	}
	FILE *fp = fopen(path, "wb");
	fwrite("\x6c\x1b\x01", 1, 3, fp);
	fwrite(rows, 1, (size_t)(m * bpr), fp);
	fclose(fp);
}

static void vars_for(snp_data_t *d, int64_t m)
{
	d->var = calloc((size_t)m, sizeof *d->var);
	for (int64_t i = 0; i < m; ++i) d->var[i] = (snp_var_t){.chr = "1", .id = "s", .a1 = "A", .a2 = "G", .bp = i + 1};
	d->n_snp = m;
}

static int same_data(const snp_data_t *a, const snp_data_t *b)
{
	size_t words = (size_t)a->n_snp * SNP_PLANES * (size_t)a->nw;
	int ok = a->n_snp == b->n_snp && a->nw == b->nw && !memcmp(a->w, b->w, words * 8) &&
	         !memcmp(a->full, b->full, (size_t)a->n_snp) && a->hh == b->hh;
	for (int64_t i = 0; ok && i < a->n_snp; ++i)
		ok = a->a2f[i] == b->a2f[i] && a->rate[i] == b->rate[i] && !strcmp(a->var[i].a1, b->var[i].a1);
	return ok;
}

static void test_decode(int64_t m, int64_t n, const char *dir)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/fast.bed", dir);
	uint8_t *rows = malloc((size_t)(m * ((n + 3) / 4)) + 1);
	write_bed(path, rows, m, n);
	snp_samples_t ss = {calloc((size_t)n, sizeof *ss.s), n};
	for (int64_t s = 0; s < n; ++s) ss.s[s] = (snp_sample_t){.sex = 2, .kept = 1, .founder = 1};
	snp_geno_ctx_t c;
	gvk_err_t err;
	snp_geno_ctx_init(&c, &ss, 0, 0, &err);
	CHECK(c.plain, "every sample a founder, yet not plain\n");
	/* every row, and every row but a few (gaps in the rows read) */
	int64_t *src = malloc(sizeof *src * (size_t)m), kept = 0;
	for (int64_t i = 0; i < m; ++i) src[i] = i;
	snp_data_t one = {0};
	vars_for(&one, m);
	c.plain = 0;
	snp_geno_alloc(&one, m, &c, &err);
	for (int64_t i = 0; i < m; ++i) snp_geno_row(&one, i, rows + i * ((n + 3) / 4), &c);
	c.plain = 1;
	const pg_isa_t *sets[3] = {&pg_isa_scalar, pg_isa_word(), pg_isa_select(GVK_ISA_AUTO)};
	for (int v = 0; v < 3; ++v) { /* whole words, one thread */
		if (!sets[v]) continue;
		snp_data_t word = {0};
		vars_for(&word, m);
		c.isa = sets[v];
		snp_read_bed(path, src, m, n, &c, &word, &err);
		CHECK(same_data(&one, &word), "%lld x %lld: the %s word decoder differs from sample by sample\n", (long long)m,
		      (long long)n, sets[v]->name);
		snp_data_free(&word);
	}
	c.isa = pg_isa_select(GVK_ISA_AUTO);
	for (int64_t i = 0; i < m; ++i)
		if (i % 5 != 2 && i % 17 != 9) src[kept++] = i;
	snp_data_t ref = {0};
	vars_for(&ref, kept);
	c.threads = 1;
	snp_read_bed(path, src, m, n, &c, &ref, &err);
	for (int t = 2; t <= 5; t += 3) {
		snp_data_t par = {0};
		vars_for(&par, kept);
		c.threads = t;
		CHECK(snp_read_bed(path, src, m, n, &c, &par, &err) == 0, "read on %d threads: %s\n", t, err.msg);
		CHECK(same_data(&ref, &par), "%lld rows on %d threads differ from one\n", (long long)kept, t);
		snp_data_free(&par);
	}
	snp_data_free(&ref), snp_data_free(&one);
	snp_geno_ctx_free(&c);
	free(ss.s);
	free(src);
	free(rows);
}

#ifdef GVK_HAVE_ZLIB
#include <zlib.h>
#endif

/* The text of a file, gzip or not (NULL when it cannot be read); *len its length. */
static char *slurp(const char *path, long *len)
{
#ifdef GVK_HAVE_ZLIB
	gzFile f = gzopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap);
	int got;
	while (f && b && (got = gzread(f, b + n, (unsigned)(cap - n))) > 0)
		if ((n += (size_t)got) == cap) b = realloc(b, cap *= 2);
	if (f) gzclose(f);
	*len = (long)n;
	return b;
#else
	FILE *fp = fopen(path, "rb");
	fseek(fp, 0, SEEK_END);
	*len = ftell(fp);
	rewind(fp);
	char *b = malloc((size_t)*len + 1);
	*len = (long)fread(b, 1, (size_t)*len, fp);
	fclose(fp);
	return b;
#endif
}

/* The writer's output for one shape on t threads, in a file; returns its text. */
static char *written(const snp_data_t *d, ld_writer_t proto, ld_opt_t o, int t, const char *dir, long *len)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/fast%d.ld", dir, t);
	gvk_err_t err;
	ld_writer_t w = proto;
	w.fp = fopen(path, "wb");
	w.threads = t;
	o.threads = t;
	int rc = ld_writer_init(&w, &err);
	if (rc == 0) rc = ld_run(d, &o, ld_writer_sink, &w, NULL, &err);
	if (rc == 0) rc = ld_writer_finish(&w, &err);
	CHECK(rc == 0, "writer on %d threads: %s\n", t, err.msg);
	ld_writer_free(&w);
	fclose(w.fp);
	return slurp(path, len);
}

static void test_writer(int64_t m, int64_t n, const char *dir)
{
	snp_data_t d;
	int8_t *g = malloc((size_t)(m * n) + 1);
	make_data(&d, g, m, n, 0.05);
	struct {
		int shape, r2, spaces, freqs, phase, dcol, dprime, em;
		double r2_min;
		int64_t win;
	} cases[] = {
		{LD_TABLE, 1, 0, 0, 0, 0, 0, 0, 0.2, 10},
		{LD_TABLE, 0, 0, 1, 1, 0, 0, 0, 0.0, 40},
		{LD_TABLE, 1, 0, 1, 1, 0, LD_DP_ABS, 1, 0.05, 25},
		{LD_TABLE, 0, 0, 0, 0, 1, LD_DP_SIGNED, 1, 0.0, 1000},
		{LD_TABLE, 1, 0, 0, 0, 0, 0, 0, 0.0, 1000},
		{LD_SQUARE, 1, 0, 0, 0, 0, 0, 0, 0.0, 10},
		{LD_TRIANGLE, 0, 1, 0, 0, 0, 0, 0, 0.0, 10},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; ++k) {
		ld_writer_t w = {.d = &d, .shape = cases[k].shape, .r2 = cases[k].r2, .spaces = cases[k].spaces,
		                 .r2_min = cases[k].r2_min, .with_freqs = cases[k].freqs, .in_phase = cases[k].phase,
		                 .dcol = cases[k].dcol, .dprime = cases[k].dprime};
		ld_opt_t o;
		ld_opt_init(&o);
		o.shape = cases[k].shape, o.r2 = cases[k].r2, o.em = cases[k].em, o.win_snps = cases[k].win;
		o.device = GVK_DEVICE_CPU, o.stripe_cells = k % 2 ? 5000 : 0; /* many stripes, or one with thousands of pairs */
		o.drop = cases[k].shape == LD_TABLE ? (cases[k].r2 ? cases[k].r2_min : sqrt(cases[k].r2_min)) : 0.0;
		long l1, lt;
		char *one = written(&d, w, o, 1, dir, &l1);
		for (int t = 2; t <= 7; t += 5) {
			char *par = written(&d, w, o, t, dir, &lt);
			CHECK(l1 == lt && !memcmp(one, par, (size_t)l1), "case %zu: %d threads wrote %ld bytes, one %ld (or others)\n", k,
			      t, lt, l1);
			free(par);
		}
#ifdef GVK_HAVE_ZLIB
		/* gzip compressed on one and on several threads: the same text */
		for (int t = 1; t <= 7; t += 6) {
			w.gz = 1;
			char *z = written(&d, w, o, t, dir, &lt);
			CHECK(l1 == lt && !memcmp(one, z, (size_t)l1), "case %zu: gzip on %d threads gave another text\n", k, t);
			free(z);
			w.gz = 0;
		}
		/* and the same compressed bytes: the pieces are cut by the text alone */
		char p1[4096], p7[4096];
		snprintf(p1, sizeof p1, "%s/fast1.ld", dir), snprintf(p7, sizeof p7, "%s/fast7.ld", dir);
		FILE *f1 = fopen(p1, "rb"), *f7 = fopen(p7, "rb");
		int c1 = 0, c7 = 0;
		while (f1 && f7 && (c1 = getc(f1)) == (c7 = getc(f7)) && c1 != EOF) {}
		CHECK(f1 && f7 && c1 == EOF && c7 == EOF, "case %zu: gzip bytes differ between 1 and 7 threads\n", k);
		if (f1) fclose(f1);
		if (f7) fclose(f7);
#endif
		/* without the cut-off in the engine, the same table */
		o.drop = 0.0;
		char *full = written(&d, w, o, 1, dir, &lt);
		CHECK(l1 == lt && !memcmp(one, full, (size_t)l1), "case %zu: the engine's cut-off changed the table\n", k);
		free(full);
		free(one);
	}
	free(g);
	snp_data_free(&d);
}

int main(int argc, char **argv)
{
	if (argc < 3) return fprintf(stderr, "usage: test_ld_fast SEED TMPDIR\n"), 2;
	rng = strtoull(argv[1], NULL, 10) * 0x9e3779b97f4a7c15ull + 1;
	static const int64_t sizes[][2] = {{1, 1}, {12, 63}, {20, 64}, {9, 65}, {33, 130}, {17, 1000}, {5, 4100}};
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; ++k) {
		test_tables(sizes[k][0], sizes[k][1], 0.1);
		test_decode(sizes[k][0] * 3 + 1, sizes[k][1], argv[2]);
	}
	test_decode(700, 37, argv[2]); /* several reader blocks */
	test_drop();
	test_numbers();
	test_hwe();
	static const int64_t bit_sizes[] = {1, 3, 4, 5, 63, 64, 65, 255, 256, 257, 511, 512, 513, 1000, 5003};
	for (size_t k = 0; k < sizeof bit_sizes / sizeof *bit_sizes; ++k) test_bits(bit_sizes[k]);
	test_writer(150, 200, argv[2]);
	if (fails) return fprintf(stderr, "%d checks failed\n", fails), 1;
	printf("ok\n");
	return 0;
}
