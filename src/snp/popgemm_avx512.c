/* SPDX-License-Identifier: MIT */
/* AVX-512 kernels with VPOPCNTDQ: eight words per popcount. Compiled with -mavx512f
 * -mavx512vpopcntdq -mbmi2; popgemm_dispatch.c calls them only on CPUs that have all three.
 * Columns go in groups of four (LD) or eight (FastID) so that one transposing reduction sums
 * eight accumulators at once instead of one horizontal sum per pair. */
#include <immintrin.h>
#include <string.h>

#include "popgemm.h"

/* Words per chunk: lane sums of one chunk stay below 2^17 and whole-vector sums below 2^21, so
 * three counts can share one 64-bit lane during the reduction. */
enum { CHUNK = 4096 };

#define PC(x) _mm512_popcnt_epi64(x)
#define AND(a, b) _mm512_and_si512(a, b)
#define ADD(a, b) _mm512_add_epi64(a, b)
#define LD(p) _mm512_load_si512(p)

/* out[k] = sum of the 8 lanes of v[k], k = 0..7. */
static inline void reduce8(const __m512i v[8], uint64_t out[8])
{
	__m512i p[4];
	for (int k = 0; k < 4; ++k)
		p[k] = ADD(_mm512_unpacklo_epi64(v[2 * k], v[2 * k + 1]), _mm512_unpackhi_epi64(v[2 * k], v[2 * k + 1]));
	__m512i q0 = ADD(_mm512_shuffle_i64x2(p[0], p[1], 0x88), _mm512_shuffle_i64x2(p[0], p[1], 0xdd));
	__m512i q1 = ADD(_mm512_shuffle_i64x2(p[2], p[3], 0x88), _mm512_shuffle_i64x2(p[2], p[3], 0xdd));
	__m512i r = ADD(_mm512_shuffle_i64x2(q0, q1, 0x88), _mm512_shuffle_i64x2(q0, q1, 0xdd));
	_mm512_storeu_si512(out, r);
}

static inline __m512i pack3(__m512i a, __m512i b, __m512i c)
{
	return ADD(a, ADD(_mm512_slli_epi64(b, 21), _mm512_slli_epi64(c, 42)));
}

#define F0(s) ((int32_t)((s) & 0x1fffff))
#define F1(s) ((int32_t)(((s) >> 21) & 0x1fffff))
#define F2(s) ((int32_t)((s) >> 42))

/* Two columns against x over words [w0, w1): pk[0..3] = packed (n, av, bv), (va, vb, xy) per column. */
static inline void two_cols(const uint64_t *xa, const uint64_t *xb, const uint64_t *xv, const uint64_t *y0,
                            const uint64_t *y1, int nw, int w0, int w1, __m512i pk[4])
{
	__m512i z = _mm512_setzero_si512();
	__m512i n0 = z, av0 = z, bv0 = z, va0 = z, vb0 = z, xy0 = z;
	__m512i n1 = z, av1 = z, bv1 = z, va1 = z, vb1 = z, xy1 = z;
	for (int w = w0; w < w1; w += 8) {
		__m512i a = LD(xa + w), b = LD(xb + w), v = LD(xv + w);
		__m512i c = LD(y0 + w), d = LD(y0 + nw + w), u = LD(y0 + 2 * nw + w);
		xy0 = ADD(xy0, ADD(ADD(PC(AND(a, c)), PC(AND(a, d))), ADD(PC(AND(b, c)), PC(AND(b, d)))));
		n0 = ADD(n0, PC(AND(v, u))), av0 = ADD(av0, PC(AND(a, u))), bv0 = ADD(bv0, PC(AND(b, u)));
		va0 = ADD(va0, PC(AND(c, v))), vb0 = ADD(vb0, PC(AND(d, v)));
		c = LD(y1 + w), d = LD(y1 + nw + w), u = LD(y1 + 2 * nw + w);
		xy1 = ADD(xy1, ADD(ADD(PC(AND(a, c)), PC(AND(a, d))), ADD(PC(AND(b, c)), PC(AND(b, d)))));
		n1 = ADD(n1, PC(AND(v, u))), av1 = ADD(av1, PC(AND(a, u))), bv1 = ADD(bv1, PC(AND(b, u)));
		va1 = ADD(va1, PC(AND(c, v))), vb1 = ADD(vb1, PC(AND(d, v)));
	}
	pk[0] = pack3(n0, av0, bv0), pk[1] = pack3(va0, vb0, xy0);
	pk[2] = pack3(n1, av1, bv1), pk[3] = pack3(va1, vb1, xy1);
}

/* Sxy only, for four columns with no missing calls. */
static inline void four_full(const uint64_t *xa, const uint64_t *xb, const uint64_t *const y[4], int nw, int w0, int w1,
                             __m512i acc[4])
{
	__m512i z = _mm512_setzero_si512();
	acc[0] = acc[1] = acc[2] = acc[3] = z;
	for (int w = w0; w < w1; w += 8) {
		__m512i a = LD(xa + w), b = LD(xb + w);
		for (int k = 0; k < 4; ++k) {
			__m512i c = LD(y[k] + w), d = LD(y[k] + nw + w);
			acc[k] = ADD(acc[k], ADD(ADD(PC(AND(a, c)), PC(AND(a, d))), ADD(PC(AND(b, c)), PC(AND(b, d)))));
		}
	}
}

static void ld_row(const uint64_t *x, const uint64_t *y, long stride, int ny, int nw, int64_t n_bits, int full_x,
                   const int32_t *tot_x, const uint8_t *full_y, const int32_t *tot_y, pg_ldcnt_t *out)
{
	const uint64_t *xa = x, *xb = x + nw, *xv = x + 2 * nw;
	for (int k0 = 0; k0 < ny; k0 += 4) {
		int m = ny - k0 < 4 ? ny - k0 : 4;
		const uint64_t *yk[4];
		int full = full_x;
		for (int k = 0; k < 4; ++k) {
			int kk = k < m ? k : m - 1; /* pad the last group with a repeated column */
			yk[k] = y + (long)(k0 + kk) * stride;
			full &= full_y[k0 + kk];
		}
		int32_t c[4][6] = {{0}};
		for (int w0 = 0; w0 < nw; w0 += CHUNK) {
			int w1 = w0 + CHUNK < nw ? w0 + CHUNK : nw;
			__m512i v[8];
			uint64_t s[8];
			if (full) {
				four_full(xa, xb, yk, nw, w0, w1, v);
				v[4] = v[5] = v[6] = v[7] = _mm512_setzero_si512();
				reduce8(v, s);
				for (int k = 0; k < 4; ++k) c[k][5] += (int32_t)s[k];
				continue;
			}
			two_cols(xa, xb, xv, yk[0], yk[1], nw, w0, w1, v);
			if (m > 2) two_cols(xa, xb, xv, yk[2], yk[3], nw, w0, w1, v + 4);
			else v[4] = v[5] = v[6] = v[7] = _mm512_setzero_si512(); /* a group of one or two */
			reduce8(v, s);
			for (int k = 0; k < 4; ++k) {
				uint64_t p = s[2 * k], q = s[2 * k + 1];
				c[k][0] += F0(p), c[k][1] += F1(p), c[k][2] += F2(p);
				c[k][3] += F0(q), c[k][4] += F1(q), c[k][5] += F2(q);
			}
		}
		for (int k = 0; k < m; ++k) {
			pg_ldcnt_t *o = &out[k0 + k];
			const int32_t *ty = tot_y + 2 * (k0 + k);
			if (full) {
				o->n = (int32_t)n_bits;
				o->sx = tot_x[0] + tot_x[1], o->sxx = tot_x[0] + 3 * tot_x[1];
				o->sy = ty[0] + ty[1], o->syy = ty[0] + 3 * ty[1];
			} else {
				o->n = c[k][0];
				o->sx = c[k][1] + c[k][2], o->sxx = c[k][1] + 3 * c[k][2];
				o->sy = c[k][3] + c[k][4], o->syy = c[k][3] + 3 * c[k][4];
			}
			o->sxy = c[k][5];
		}
	}
}

/* The nine intersections of one column with x over words [w0, w1), packed three to a lane:
 * pk[0] = (n, av, bv), pk[1] = (va, vb, aa), pk[2] = (ab, ba, bb). */
static inline void tab_col(const uint64_t *xa, const uint64_t *xb, const uint64_t *xv, const uint64_t *y, int nw, int w0,
                           int w1, __m512i pk[3])
{
	__m512i z = _mm512_setzero_si512();
	__m512i n = z, av = z, bv = z, va = z, vb = z, aa = z, ab = z, ba = z, bb = z;
	for (int w = w0; w < w1; w += 8) {
		__m512i a = LD(xa + w), b = LD(xb + w), v = LD(xv + w);
		__m512i c = LD(y + w), d = LD(y + nw + w), u = LD(y + 2 * nw + w);
		n = ADD(n, PC(AND(v, u))), av = ADD(av, PC(AND(a, u))), bv = ADD(bv, PC(AND(b, u)));
		va = ADD(va, PC(AND(c, v))), vb = ADD(vb, PC(AND(d, v)));
		aa = ADD(aa, PC(AND(a, c))), ab = ADD(ab, PC(AND(a, d))), ba = ADD(ba, PC(AND(b, c))), bb = ADD(bb, PC(AND(b, d)));
	}
	pk[0] = pack3(n, av, bv), pk[1] = pack3(va, vb, aa), pk[2] = pack3(ab, ba, bb);
}

/* Columns in groups of eight: 24 packed vectors, summed by three transposing reductions. */
static void tab_row(const uint64_t *x, const uint64_t *y, long stride, int ny, int nw, pg_ldtab_t *out)
{
	const uint64_t *xa = x, *xb = x + nw, *xv = x + 2 * nw;
	for (int k0 = 0; k0 < ny; k0 += 8) {
		int m = ny - k0 < 8 ? ny - k0 : 8;
		int32_t c[8][9] = {{0}};
		for (int w0 = 0; w0 < nw; w0 += CHUNK) {
			int w1 = w0 + CHUNK < nw ? w0 + CHUNK : nw;
			__m512i v[24];
			uint64_t s[24];
			for (int k = 0; k < 8; ++k) {
				if (k < m) tab_col(xa, xb, xv, y + (long)(k0 + k) * stride, nw, w0, w1, v + 3 * k);
				else v[3 * k] = v[3 * k + 1] = v[3 * k + 2] = _mm512_setzero_si512();
			}
			for (int r = 0; r < 3; ++r) reduce8(v + 8 * r, s + 8 * r);
			for (int k = 0; k < m; ++k)
				for (int q = 0; q < 3; ++q) {
					uint64_t p = s[3 * k + q];
					c[k][3 * q] += F0(p), c[k][3 * q + 1] += F1(p), c[k][3 * q + 2] += F2(p);
				}
		}
		for (int k = 0; k < m; ++k)
			out[k0 + k] = (pg_ldtab_t){c[k][0], c[k][1], c[k][2], c[k][3], c[k][4], c[k][5], c[k][6], c[k][7], c[k][8]};
	}
}

/* 32 codes a word: the codes' low and high bits gathered by PEXT (BMI2, which every AVX-512 CPU
 * has); a short last word from a zero-padded copy. */
static void bed_row(const uint8_t *row, int64_t n, uint64_t *pa, uint64_t *pb, uint64_t *pv)
{
	const uint64_t lo = 0x5555555555555555u, hi = 0xaaaaaaaaaaaaaaaau;
	int64_t bpr = (n + 3) / 4, nw = (n + 63) / 64;
	for (int64_t w = 0; w < nw; ++w) {
		uint64_t x[2] = {0, 0};
		if (16 * w + 16 <= bpr) memcpy(x, row + 16 * w, 16);
		else memcpy(x, row + 16 * w, (size_t)(bpr - 16 * w));
		uint64_t l = _pext_u64(x[0], lo) | _pext_u64(x[1], lo) << 32;
		uint64_t h = _pext_u64(x[0], hi) | _pext_u64(x[1], hi) << 32;
		uint64_t keep = w == nw - 1 && n % 64 ? ((uint64_t)1 << (n % 64)) - 1 : ~(uint64_t)0;
		pa[w] = ~l & keep, pb[w] = ~l & ~h & keep, pv[w] = (~l | h) & keep;
	}
}

/* n words, whole vectors unaligned, then single words. */
static int64_t popcount(const uint64_t *p, long n)
{
	__m512i acc = _mm512_setzero_si512();
	long w = 0;
	for (; w + 8 <= n; w += 8) acc = ADD(acc, PC(_mm512_loadu_si512(p + w)));
	int64_t s = _mm512_reduce_add_epi64(acc);
	for (; w < n; ++w) s += __builtin_popcountll(p[w]);
	return s;
}

static inline __m512i op_vec(pg_op_t op, __m512i q, __m512i d)
{
	return op == PG_XOR ? _mm512_xor_si512(q, d) : op == PG_ANDNOT ? _mm512_andnot_si512(q, d) : AND(q, d);
}

static void fid_row(pg_op_t op, const uint64_t *q, const uint64_t *d, int nd, int nw, uint32_t *out)
{
	for (int k0 = 0; k0 < nd; k0 += 8) {
		int m = nd - k0 < 8 ? nd - k0 : 8;
		const uint64_t *p[8];
		for (int k = 0; k < 8; ++k) p[k] = d + (long)(k0 + (k < m ? k : m - 1)) * nw;
		__m512i acc[8];
		for (int k = 0; k < 8; ++k) acc[k] = _mm512_setzero_si512();
		for (int w = 0; w < nw; w += 8) {
			__m512i a = _mm512_loadu_si512(q + w);
			for (int k = 0; k < 8; ++k) acc[k] = ADD(acc[k], PC(op_vec(op, a, _mm512_loadu_si512(p[k] + w))));
		}
		uint64_t s[8];
		reduce8(acc, s);
		for (int k = 0; k < m; ++k) out[k0 + k] = (uint32_t)s[k];
	}
}

const pg_isa_t pg_isa_avx512 = {"cpu-avx512", ld_row, tab_row, bed_row, popcount, fid_row};
