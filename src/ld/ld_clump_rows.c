/* SPDX-License-Identifier: MIT */
/* --clump's r^2 rows on the CPU: an index variant's two-locus genotype table against each SNP of
 * its window (nine AND-popcounts a word; on X also the males' four corner cells) and the
 * haplotype-frequency estimate of ld_em.c. The index's genotype classes are formed once per row;
 * a build per instruction set is picked at run time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ld_clump.h"
#include "ld_em.h"
#include "../common/cpu_features.h"

#if defined(__x86_64__) && defined(__GNUC__) && (defined(__clang__) || __GNUC__ >= 8)
#define ROWS_AVX512 1
#include <immintrin.h>
#endif

static const uint64_t *plane(const uint64_t *w, int nw, int64_t s, int p)
{
	return w + ((size_t)s * SNP_PLANES + (size_t)p) * (size_t)nw;
}

/* Genotype classes of SNP s (two copies of A1, one, none) into k[0 .. 3 nw), as PLINK counts them:
 * an X male's call (one copy, or none) is a homozygote. */
static void classes(const uint64_t *w, int nw, int64_t s, const uint64_t *xmale, uint64_t *k)
{
	const uint64_t *a = plane(w, nw, s, SNP_PA), *b = plane(w, nw, s, SNP_PB), *v = plane(w, nw, s, SNP_PV);
	for (int q = 0; q < nw; ++q) {
		uint64_t mx = xmale ? xmale[q] : 0;
		k[q] = b[q] | (a[q] & mx), k[nw + q] = a[q] & ~b[q] & ~mx, k[2 * nw + q] = v[q] & ~a[q];
	}
}

/* The nine cells of the table off X: the index's classes ki against SNP s's. */
static void cells_portable(const uint64_t *ki, const uint64_t *w, int nw, int64_t s, uint32_t c[9])
{
	const uint64_t *a = plane(w, nw, s, SNP_PA), *b = plane(w, nw, s, SNP_PB), *v = plane(w, nw, s, SNP_PV);
	const uint64_t *k0 = ki, *k1 = ki + nw, *k2 = ki + 2 * nw;
	uint64_t t[9] = {0};
	for (int q = 0; q < nw; ++q) {
		uint64_t j0 = b[q], j1 = a[q] & ~b[q], j2 = v[q] & ~a[q];
		t[0] += (uint64_t)__builtin_popcountll(k0[q] & j0), t[1] += (uint64_t)__builtin_popcountll(k0[q] & j1);
		t[2] += (uint64_t)__builtin_popcountll(k0[q] & j2), t[3] += (uint64_t)__builtin_popcountll(k1[q] & j0);
		t[4] += (uint64_t)__builtin_popcountll(k1[q] & j1), t[5] += (uint64_t)__builtin_popcountll(k1[q] & j2);
		t[6] += (uint64_t)__builtin_popcountll(k2[q] & j0), t[7] += (uint64_t)__builtin_popcountll(k2[q] & j1);
		t[8] += (uint64_t)__builtin_popcountll(k2[q] & j2);
	}
	for (int x = 0; x < 9; ++x) c[x] = (uint32_t)t[x];
}

#ifdef ROWS_AVX512
/* The same, eight words at a time; each cell is one ternary-logic AND of an index class with the
 * SNP's planes (a & ~b, v & ~a formed inside it) and one VPOPCNTQ. */
__attribute__((target("avx512f,avx512vpopcntdq"))) static void cells_avx512(const uint64_t *ki, const uint64_t *w,
                                                                            int nw, int64_t s, uint32_t c[9])
{
	const uint64_t *a = plane(w, nw, s, SNP_PA), *b = plane(w, nw, s, SNP_PB), *v = plane(w, nw, s, SNP_PV);
	__m512i t0 = _mm512_setzero_si512(), t1 = t0, t2 = t0, t3 = t0, t4 = t0, t5 = t0, t6 = t0, t7 = t0, t8 = t0;
	for (int q = 0; q < nw; q += 8) {
		__m512i va = _mm512_load_si512(a + q), vb = _mm512_load_si512(b + q), vv = _mm512_load_si512(v + q);
		__m512i x0 = _mm512_loadu_si512(ki + q), x1 = _mm512_loadu_si512(ki + nw + q);
		__m512i x2 = _mm512_loadu_si512(ki + 2 * nw + q);
		/* ternary logic of (class, p, q): 0x40 = class & p & ~q, 0x20 = class & ~p & q */
		t0 = _mm512_add_epi64(t0, _mm512_popcnt_epi64(_mm512_and_si512(x0, vb)));
		t1 = _mm512_add_epi64(t1, _mm512_popcnt_epi64(_mm512_ternarylogic_epi64(x0, va, vb, 0x40)));
		t2 = _mm512_add_epi64(t2, _mm512_popcnt_epi64(_mm512_ternarylogic_epi64(x0, va, vv, 0x20)));
		t3 = _mm512_add_epi64(t3, _mm512_popcnt_epi64(_mm512_and_si512(x1, vb)));
		t4 = _mm512_add_epi64(t4, _mm512_popcnt_epi64(_mm512_ternarylogic_epi64(x1, va, vb, 0x40)));
		t5 = _mm512_add_epi64(t5, _mm512_popcnt_epi64(_mm512_ternarylogic_epi64(x1, va, vv, 0x20)));
		t6 = _mm512_add_epi64(t6, _mm512_popcnt_epi64(_mm512_and_si512(x2, vb)));
		t7 = _mm512_add_epi64(t7, _mm512_popcnt_epi64(_mm512_ternarylogic_epi64(x2, va, vb, 0x40)));
		t8 = _mm512_add_epi64(t8, _mm512_popcnt_epi64(_mm512_ternarylogic_epi64(x2, va, vv, 0x20)));
	}
	c[0] = (uint32_t)_mm512_reduce_add_epi64(t0), c[1] = (uint32_t)_mm512_reduce_add_epi64(t1);
	c[2] = (uint32_t)_mm512_reduce_add_epi64(t2), c[3] = (uint32_t)_mm512_reduce_add_epi64(t3);
	c[4] = (uint32_t)_mm512_reduce_add_epi64(t4), c[5] = (uint32_t)_mm512_reduce_add_epi64(t5);
	c[6] = (uint32_t)_mm512_reduce_add_epi64(t6), c[7] = (uint32_t)_mm512_reduce_add_epi64(t7);
	c[8] = (uint32_t)_mm512_reduce_add_epi64(t8);
}
#endif

typedef void (*cells_fn)(const uint64_t *, const uint64_t *, int, int64_t, uint32_t[9]);

static cells_fn pick_cells(void)
{
#ifdef ROWS_AVX512
	if (cpu_has(CPUF_AVX512F | CPUF_AVX512VPOPCNTDQ)) return cells_avx512;
#endif
	return cells_portable;
}

/* The table on X: the nine cells, and the four corners again over the male columns (c[9 ..]). */
static void cells_x(const uint64_t *ki, const uint64_t *w, int nw, int64_t s, const uint64_t *xmale, uint32_t c[18])
{
	const uint64_t *a = plane(w, nw, s, SNP_PA), *b = plane(w, nw, s, SNP_PB), *v = plane(w, nw, s, SNP_PV);
	memset(c, 0, 18 * sizeof *c);
	for (int q = 0; q < nw; ++q) {
		uint64_t mx = xmale[q];
		uint64_t kj[3] = {b[q] | (a[q] & mx), a[q] & ~b[q] & ~mx, v[q] & ~a[q]};
		for (int x = 0; x < 3; ++x)
			for (int y = 0; y < 3; ++y) c[3 * x + y] += (uint32_t)__builtin_popcountll(ki[x * nw + q] & kj[y]);
		for (int x = 0; x < 3; x += 2)
			for (int y = 0; y < 3; y += 2) c[9 + 3 * x + y] += (uint32_t)__builtin_popcountll(ki[x * nw + q] & mx & kj[y]);
	}
}

/* The row off X: every table first, then the pairs bound below drop decided at once
 * (ld_em_below_many), and the estimate for the others. buf: 15 n words. */
static void row_plain(const uint64_t *ki, const uint64_t *w, int nw, const int64_t *j, int64_t n, double drop,
                      uint32_t *buf, double *r)
{
	uint32_t *c = buf, *ctr = buf + 9 * n, *k[4] = {buf + 10 * n, buf + 11 * n, buf + 12 * n, buf + 13 * n};
	uint8_t *skip = (uint8_t *)(buf + 14 * n);
	cells_fn cells = pick_cells();
	for (int64_t q = 0; q < n; ++q) {
		uint32_t kk[4];
		cells(ki, w, nw, j[q], c + 9 * q);
		ld_em_knowns_plain(c + 9 * q, kk);
		k[0][q] = kk[0], k[1][q] = kk[1], k[2][q] = kk[2], k[3][q] = kk[3], ctr[q] = c[9 * q + 4];
	}
	if (drop > 0 && n > 0) ld_em_below_many((const uint32_t *const *)k, ctr, n, drop, skip);
	else if (n > 0) memset(skip, 0, (size_t)n);
	for (int64_t q = 0; q < n; ++q) {
		double dd, dp;
		uint32_t t[18];
		if (skip[q]) {
			r[q] = NAN;
			continue;
		}
		memcpy(t, c + 9 * q, 9 * sizeof *t); /* t[9 ..] is read on X only */
		ld_em_stats(t, 0, 0, 1, drop, &r[q], &dd, &dp);
	}
}

void ld_clump_r2_row(const uint64_t *w, int nw, int64_t i, const int64_t *j, int64_t n, const uint64_t *xmale,
                     double drop, double *r)
{
	uint64_t *ki = malloc(sizeof *ki * 3 * (size_t)nw + 1);
	uint32_t *buf = xmale ? NULL : malloc(sizeof *buf * 15 * (size_t)n + 1);
	if (!ki || (!xmale && !buf)) { /* cannot happen for a row of a loaded fileset; NaN leaves every pair out */
		for (int64_t q = 0; q < n; ++q) r[q] = NAN;
		free(ki), free(buf);
		return;
	}
	classes(w, nw, i, xmale, ki);
	if (!xmale) row_plain(ki, w, nw, j, n, drop, buf, r);
	for (int64_t q = 0; xmale && q < n; ++q) {
		uint32_t c[18];
		double dd, dp;
		cells_x(ki, w, nw, j[q], xmale, c);
		ld_em_stats(c, 1, 1, 1, drop, &r[q], &dd, &dp);
	}
	free(ki), free(buf);
}
