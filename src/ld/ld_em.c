/* SPDX-License-Identifier: MIT */
/* Two-locus haplotype frequencies from unphased genotypes. The arithmetic keeps PLINK 1.9's order
 * of operations, tolerances and choice among the cubic's roots, so that the printed 6 digits are
 * the same. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ld_em.h"
#include "../snp/snp_chrom.h"
#include "../common/cpu_features.h"

#define EM_PI 3.1415926535897932
#define EM_EPSILON 0.000000000931322574615478515625            /* 2^-30: equal roots */
#define EM_SMALLISH_EPSILON 0.00000000002910383045673370361328125 /* 2^-35: roots at the bounds */
#define EM_SMALL_EPSILON 0.00000000000005684341886080801486968994140625 /* 2^-44: D taken as 0 */
#define EM_SQRT_HALF 0.70710678118654746

/* Genotype class planes of SNP i (raw planes) under a chromosome's haploid rules: with a male
 * heterozygous call on X in the data, males' heterozygous calls are missing on X; with such a call
 * or a non-male call on Y, only males' homozygous calls count on Y. */
static void classes(const snp_data_t *d, int64_t i, int cls, int w, uint64_t out[3])
{
	uint64_t a = snp_plane(d, i, SNP_PA)[w], b = snp_plane(d, i, SNP_PB)[w], v = snp_plane(d, i, SNP_PV)[w];
	uint64_t m = d->male ? d->male[w] : 0, het = a & ~b;
	if (cls == SNP_CHR_X && (d->hh & SNP_HH_X)) v &= ~(het & m), het &= ~m;
	if (cls == SNP_CHR_Y && (d->hh & SNP_HH_Y)) v &= m & ~het, het = 0;
	out[0] = b & v;
	out[1] = het;
	out[2] = v & ~a;
}

/* Whether a chromosome's haploid rule changes the classes (classes() below). */
static int haploid(const snp_data_t *d, int cls)
{
	return (cls == SNP_CHR_X && (d->hh & SNP_HH_X)) || (cls == SNP_CHR_Y && (d->hh & SNP_HH_Y));
}

/* First index and count of the X variants (PLINK keeps each chromosome together). */
static void x_span(const snp_data_t *d, int64_t *xs, int64_t *nx)
{
	*xs = 0, *nx = 0;
	for (int64_t i = 0; i < d->n_snp; ++i)
		if (snp_chr_class(d->var[i].chr) == SNP_CHR_X) {
			if (!*nx) *xs = i;
			++*nx;
		}
}

/* PLINK's X range for a block starting at m of n variants: [max(m, xs) - m, min(xe, m + n) - max(m, xs)). */
static void x_range(int64_t m, int64_t n, int64_t xs, int64_t xe, int64_t *lo, int64_t *hi)
{
	*lo = *hi = 0;
	if (xe == xs || !(m < xe && m + n > xs)) return;
	int64_t a = m > xs ? m : xs, b = xe < m + n ? xe : m + n;
	*lo = a - m, *hi = b - a;
}

int ld_em_plan(const snp_data_t *d, const uint8_t *first, int64_t back0, int64_t end, ld_em_plan_t *p)
{
	memset(p, 0, sizeof *p);
	int64_t m = d->n_snp, last = m - 1, n1 = m, xs, nx;
	if (first) {
		if (!(p->rank = malloc(sizeof *p->rank * (size_t)(m + 1)))) return -1;
		n1 = 0;
		for (int64_t i = 0; i < m; ++i) {
			p->rank[i] = n1;
			if (first[i]) n1++, last = i;
		}
	}
	p->last_cls = snp_chr_class(d->var[last].chr);
	for (p->stale_end = last + 1; p->stale_end < m && !strcmp(d->var[p->stale_end].chr, d->var[last].chr);) p->stale_end++;
	x_span(d, &xs, &nx);
	x_range(0, n1, xs, xs + nx, &p->x1_lo, &p->x1_hi);
	int64_t m2 = first ? back0 : 1;
	x_range(m2, end - m2, xs, xs + nx, &p->x2_lo, &p->x2_hi);
	p->x2_lo += m2, p->x2_hi += m2;
	if (!(p->plain = malloc((size_t)m + 1))) return -1;
	for (int64_t i = 0; i < m; ++i) {
		int64_t r = p->rank ? p->rank[i] : i;
		int ci = snp_chr_class(d->var[i].chr), cj = i < p->stale_end ? p->last_cls : ci;
		p->plain[i] = (uint8_t)((!haploid(d, ci) && !(r >= p->x1_lo && r < p->x1_hi)) |
		                        (!haploid(d, cj) && !(i >= p->x2_lo && i < p->x2_hi)) << 1);
	}
	return 0;
}

void ld_em_plan_free(ld_em_plan_t *p)
{
	free(p->rank);
	free(p->plain);
	memset(p, 0, sizeof *p);
}

/* Classes 0 = B, 1 = A & ~B, 2 = V & ~A of each SNP (B within A within V), by inclusion and
 * exclusion from the nine intersections. */
void ld_em_table(const pg_ldtab_t *t, uint32_t c[18])
{
	int32_t hb = t->bv - t->ba, ha = t->vb - t->ab;      /* B x (V & ~A), (V & ~A) x B */
	c[0] = (uint32_t)t->bb;
	c[1] = (uint32_t)(t->ba - t->bb);
	c[2] = (uint32_t)hb;
	c[3] = (uint32_t)(t->ab - t->bb);
	c[4] = (uint32_t)(t->aa - t->ab - t->ba + t->bb);
	c[5] = (uint32_t)(t->av - t->aa - hb);
	c[6] = (uint32_t)ha;
	c[7] = (uint32_t)(t->va - t->aa - ha);
	c[8] = (uint32_t)(t->n - t->av - t->va + t->aa);
	memset(c + 9, 0, 9 * sizeof *c);
}

void ld_em_counts(const snp_data_t *d, const ld_em_plan_t *p, int64_t i, int64_t j, int *xi, int *xj, uint32_t c[18])
{
	int64_t r = p->rank ? p->rank[i] : i;
	*xi = r >= p->x1_lo && r < p->x1_hi;
	*xj = j >= p->x2_lo && j < p->x2_hi;
	int ci = snp_chr_class(d->var[i].chr), cj = j < p->stale_end ? p->last_cls : snp_chr_class(d->var[j].chr);
	int males = (*xi || *xj) && d->male_raw;
	memset(c, 0, 18 * sizeof *c);
	for (int w = 0; w < d->nw; ++w) {
		uint64_t a[3], b[3], mr = males ? d->male_raw[w] : 0;
		classes(d, i, ci, w, a);
		classes(d, j, cj, w, b);
		for (int x = 0; x < 3; ++x)
			for (int y = 0; y < 3; ++y) {
				uint64_t both = a[x] & b[y];
				c[3 * x + y] += (uint32_t)__builtin_popcountll(both);
				if (mr) c[9 + 3 * x + y] += (uint32_t)__builtin_popcountll(both & mr);
			}
	}
}

/* Real roots of x^3 + a x^2 + b x + c in s[], ascending as PLINK orders them; returns how many
 * (roots closer than 2^-30 count once). */
static int cubic_roots(double a, double b, double c, double s[3])
{
	double a2 = a * a;
	double qq = (a2 - 3 * b) * (1.0 / 9.0);
	double rr = (2 * a2 * a - 9 * a * b + 27 * c) * (1.0 / 54.0);
	double r2 = rr * rr, q3 = qq * qq * qq, adiv3 = a * (1.0 / 3.0), sq, t;
	if (r2 < q3) {
		sq = sqrt(qq);
		t = acos(rr / (qq * sq)) * (1.0 / 3.0);
		sq *= -2;
		s[0] = sq * cos(t) - adiv3;
		s[1] = sq * cos(t + (2.0 * EM_PI / 3.0)) - adiv3;
		s[2] = sq * cos(t - (2.0 * EM_PI / 3.0)) - adiv3;
		if (s[0] > s[1]) {
			t = s[0], s[0] = s[1];
			if (t > s[2]) s[1] = s[2], s[2] = t;
			else s[1] = t;
			if (s[0] > s[1]) t = s[0], s[0] = s[1], s[1] = t;
		} else if (s[1] > s[2]) {
			t = s[1], s[1] = s[2], s[2] = t;
		}
		if (s[1] - s[0] < EM_EPSILON) {
			s[1] = s[2];
			return s[1] - s[0] < EM_EPSILON ? 1 : 2;
		}
		return s[2] - s[1] < EM_EPSILON ? 2 : 3;
	}
	t = -pow(fabs(rr) + sqrt(r2 - q3), 1.0 / 3.0);
	if (t == 0.0) {
		s[0] = -adiv3;
		return 1;
	}
	if (rr < 0.0) t = -t;
	sq = qq / t;
	s[0] = t + sq - adiv3;
	if (fabs(t - sq) >= EM_EPSILON * 8) return 1;
	if (t >= 0.0) s[1] = s[0], s[0] = -t - adiv3;
	else s[1] = -t - adiv3;
	return 2;
}

/* Haplotype counts known from the homozygous cells, the double heterozygotes, and the frequencies
 * they give before the double heterozygotes are split. */
typedef struct {
	double k11, k12, k21, k22, center, f11, f12, f21, f22, half;
} em_t;

static double lnlike(const em_t *e, double incr)
{
	double f11 = e->f11 + incr, f22 = e->f22 + incr;
	double f12 = e->f12 + (e->half - incr), f21 = e->f21 + (e->half - incr);
	double ll = e->center * log(f11 * f22 + f12 * f21);
	if (e->k11 != 0.0) ll += e->k11 * log(f11);
	if (e->k12 != 0.0) ll += e->k12 * log(f12);
	if (e->k21 != 0.0) ll += e->k21 * log(f21);
	if (e->k22 != 0.0) ll += e->k22 * log(f22);
	return ll;
}

/* Candidate shares of the double heterozygotes for haplotype 11 within [0, half]: s[lo, hi). */
static void candidates(const em_t *e, double p1122, double p1221, double s[3], int *lo, int *hi)
{
	*lo = 0, *hi = 1;
	if (p1122 != 0.0 || p1221 != 0.0) {
		*hi = cubic_roots(0.5 * (e->f11 + e->f22 - e->f12 - e->f21 - 3 * e->half),
		                  0.5 * (p1122 + p1221 + e->half * (e->f12 + e->f21 - e->f11 - e->f22 + e->half)),
		                  -0.5 * e->half * p1122, s);
		while (*hi && s[*hi - 1] > e->half + EM_SMALLISH_EPSILON) --*hi;
		while (*lo < *hi && s[*lo] < -EM_SMALLISH_EPSILON) ++*lo;
		if (*lo == *hi) {
			*lo = 0, *hi = 2, s[0] = 0, s[1] = e->half; /* a double root at a bound: try both bounds */
		} else {
			if (s[*lo] < 0) s[*lo] = 0;
			if (s[*hi - 1] > e->half) s[*hi - 1] = e->half;
		}
		return;
	}
	double xx = e->f11 + e->f22, xy = e->f12 + e->f21;
	s[0] = 0;
	if (xx + EM_SMALLISH_EPSILON < e->half + xy && xy + EM_SMALLISH_EPSILON < e->half + xx) {
		*hi = 3, s[1] = (e->half + xy - xx) * 0.5, s[2] = e->half;
	} else {
		*hi = 2, s[1] = e->half;
	}
}

/* PLINK keeps the last candidate whose likelihood beats the first candidate's (it compares each
 * with the first, not with the best so far); the same choice is made here. */
static double pick(const em_t *e, const double s[3], int lo, int hi)
{
	double best = s[lo];
	if (hi > lo + 1) {
		double first = lnlike(e, best);
		for (int k = lo + 1; k < hi; ++k)
			if (lnlike(e, s[k]) > first) best = s[k];
	}
	return best;
}

/* The frequencies before the double heterozygotes are split: e, and allele 1's at each SNP (f1x,
 * fx1); 1 when undefined. */
static int em_setup(double k11, double k12, double k21, double k22, uint32_t center, em_t *e, double *f1x, double *fx1)
{
	*e = (em_t){k11, k12, k21, k22, (double)(int32_t)center, 0, 0, 0, 0, 0};
	double twice = k11 + k12 + k21 + k22 + 2 * e->center;
	if (twice == 0.0) return 1;
	double rec = 1.0 / twice;
	e->f11 = k11 * rec, e->f12 = k12 * rec, e->f21 = k21 * rec, e->f22 = k22 * rec;
	e->half = e->center * rec;
	*f1x = e->f11 + e->f12 + e->half;
	*fx1 = e->f11 + e->f21 + e->half;
	return !center && e->f11 * e->f22 == 0.0 && e->f12 * e->f21 == 0.0;
}

/* r, or signed r^2 when r2, from D and the allele frequencies. */
static double em_r(double dv, double expect, double f2x, double fx2, int r2)
{
	return r2 ? fabs(dv) * dv / (expect * f2x * fx2) : dv / sqrt(expect * f2x * fx2);
}

/* Whether |r| (r2: |r^2|) is below drop whatever share of the double heterozygotes haplotype 11
 * gets. That share s lies in [0, half], so the computed f11 = f11 + s lies between the sums with 0
 * and with half, and D, |D| and r (r^2) follow it monotonically in rounded arithmetic too: the
 * larger |D| at the two ends bounds the value the estimate would print. */
static int em_below(const em_t *e, double expect, double f2x, double fx2, int r2, double drop)
{
	double lo = e->f11 - expect, hi = (e->f11 + e->half) - expect;
	double m = fabs(lo) > fabs(hi) ? fabs(lo) : fabs(hi);
	return fabs(em_r(m, expect, f2x, fx2, r2)) < drop;
}

/* The tables of a batch (ld_em_below_many) split by cell: the four known haplotype counts and
 * the double heterozygotes, as em_knowns and em_setup take them off X. */
static inline __attribute__((always_inline)) void below_body(const uint32_t *const k[4], const uint32_t *ctr,
                                                            int64_t n, double drop, uint8_t *skip)
{
	const uint32_t *restrict a = k[0], *restrict b = k[1], *restrict c = k[2], *restrict d = k[3];
	uint8_t *restrict out = skip;
	for (int64_t q = 0; q < n; ++q) {
		double k11 = (double)a[q], k12 = (double)b[q], k21 = (double)c[q], k22 = (double)d[q];
		double center = (double)(int32_t)ctr[q];
		double twice = k11 + k12 + k21 + k22 + 2 * center;
		double rec = 1.0 / twice;
		double f11 = k11 * rec, f12 = k12 * rec, f21 = k21 * rec, f22 = k22 * rec, half = center * rec;
		double f1x = f11 + f12 + half, fx1 = f11 + f21 + half;
		int undefined = (twice == 0.0) | ((ctr[q] == 0) & (f11 * f22 == 0.0) & (f12 * f21 == 0.0));
		double f2x = 1.0 - f1x, fx2 = 1.0 - fx1, expect = fx1 * f1x;
		double lo = fabs(f11 - expect), hi = fabs((f11 + half) - expect), m = lo > hi ? lo : hi;
		double r = fabs(fabs(m) * m / (expect * f2x * fx2));
		out[q] = (uint8_t)(undefined | (r < drop));
	}
}

static void below_portable(const uint32_t *const k[4], const uint32_t *ctr, int64_t n, double drop, uint8_t *skip)
{
	below_body(k, ctr, n, drop, skip);
}

#if defined(__x86_64__) && defined(__GNUC__) && (defined(__clang__) || __GNUC__ >= 8)
__attribute__((target("avx512f,avx512dq"))) static void below_avx512(const uint32_t *const k[4], const uint32_t *ctr,
                                                                     int64_t n, double drop, uint8_t *skip)
{
	below_body(k, ctr, n, drop, skip);
}
#define EM_BELOW_AVX512 1
#endif

void ld_em_below_many(const uint32_t *const k[4], const uint32_t *ctr, int64_t n, double drop, uint8_t *skip)
{
#ifdef EM_BELOW_AVX512
	if (cpu_has(CPUF_AVX512F | CPUF_AVX512DQ)) {
		below_avx512(k, ctr, n, drop, skip);
		return;
	}
#endif
	below_portable(k, ctr, n, drop, skip);
}

void ld_em_knowns_plain(const uint32_t c[9], uint32_t k[4])
{
	k[0] = 2 * c[0] + c[1] + c[3], k[1] = 2 * c[2] + c[1] + c[5];
	k[2] = 2 * c[6] + c[3] + c[7], k[3] = 2 * c[8] + c[5] + c[7];
}

/* Known haplotype counts from the table: k[0..3] for haplotypes 11, 12, 21, 22, with males' single
 * X haplotype counted once. */
static void em_knowns(const uint32_t c[18], int xi, int xj, double k[4])
{
	k[0] = (double)(2 * c[0] + c[1] + c[3]), k[1] = (double)(2 * c[2] + c[1] + c[5]);
	k[2] = (double)(2 * c[6] + c[3] + c[7]), k[3] = (double)(2 * c[8] + c[5] + c[7]);
	const double w = 1.0 - EM_SQRT_HALF;
	if (xi && xj) {
		k[0] -= (double)(int32_t)c[9], k[1] -= (double)(int32_t)c[11];
		k[2] -= (double)(int32_t)c[15], k[3] -= (double)(int32_t)c[17];
	} else if (xi) {
		k[0] -= (double)(2 * c[9] + c[10]) * w, k[1] -= (double)(2 * c[11] + c[10]) * w;
		k[2] -= (double)(2 * c[15] + c[16]) * w, k[3] -= (double)(2 * c[17] + c[16]) * w;
	} else if (xj) {
		k[0] -= (double)(2 * c[9] + c[12]) * w, k[1] -= (double)(2 * c[11] + c[12]) * w;
		k[2] -= (double)(2 * c[15] + c[14]) * w, k[3] -= (double)(2 * c[17] + c[14]) * w;
	}
}

/* The estimated frequency of haplotype 11 after the double heterozygotes are split. */
static double em_f11(const em_t *e, uint32_t center)
{
	double f11 = e->f11;
	if (center) {
		double s[3];
		int lo, hi;
		candidates(e, e->f11 * e->f22, e->f12 * e->f21, s, &lo, &hi);
		f11 += pick(e, s, lo, hi);
	}
	return f11;
}

int ld_em_phased_r2(const uint32_t c[18], int x, double *r2)
{
	double k[4], f1x, fx1;
	em_t e;
	em_knowns(c, x, x, k);
	if (em_setup(k[0], k[1], k[2], k[3], c[4], &e, &f1x, &fx1)) return 1;
	double expect = fx1 * f1x, dv = em_f11(&e, c[4]) - expect;
	*r2 = dv * dv / (expect * (1.0 - f1x) * (1.0 - fx1));
	return 0;
}

void ld_em_stats(const uint32_t c[18], int xi, int xj, int r2, double drop, double *r, double *dd, double *dprime)
{
	double k[4];
	em_knowns(c, xi, xj, k);
	em_t e;
	double f1x, fx1;
	if (em_setup(k[0], k[1], k[2], k[3], c[4], &e, &f1x, &fx1)) {
		*r = *dd = *dprime = NAN;
		return;
	}
	double f2x = 1.0 - f1x, fx2 = 1.0 - fx1, expect = fx1 * f1x;
	if (drop > 0 && em_below(&e, expect, f2x, fx2, r2, drop)) {
		*r = *dd = *dprime = NAN;
		return;
	}
	double dv = em_f11(&e, c[4]) - expect;
	if (fabs(dv) < EM_SMALL_EPSILON) {
		*r = *dd = *dprime = 0.0;
		return;
	}
	*r = em_r(dv, expect, f2x, fx2, r2);
	*dd = dv;
	if (dv >= 0) *dprime = dv / (fx1 * f2x < fx2 * f1x ? fx1 * f2x : fx2 * f1x);
	else *dprime = dv / (expect < fx2 * f2x ? expect : fx2 * f2x);
}
