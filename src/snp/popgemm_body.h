/* SPDX-License-Identifier: MIT */
/* Word-at-a-time kernels, included by popgemm_scalar.c (portable) and popgemm_popcnt.c (built
 * with the POPCNT instruction). PG_NAME(x) names the instance. */
#include <string.h>

#include "popgemm.h"

#define PG_PC(x) ((int32_t)__builtin_popcountll(x))

/* One column at a time: each pair's counts come from one pass over the two SNPs' words. */
static void PG_NAME(ld_row)(const uint64_t *x, const uint64_t *y, long stride, int ny, int nw, int64_t n_bits,
                            int full_x, const int32_t *tot_x, const uint8_t *full_y, const int32_t *tot_y,
                            pg_ldcnt_t *out)
{
	const uint64_t *xa = x, *xb = x + nw, *xv = x + 2 * nw;
	for (int k = 0; k < ny; ++k) {
		const uint64_t *ya = y + (long)k * stride, *yb = ya + nw, *yv = yb + nw;
		int32_t aa = 0, ab = 0, ba = 0, bb = 0;
		pg_ldcnt_t *o = &out[k];
		if (full_x && full_y[k]) {
			for (int w = 0; w < nw; ++w) {
				aa += PG_PC(xa[w] & ya[w]), ab += PG_PC(xa[w] & yb[w]);
				ba += PG_PC(xb[w] & ya[w]), bb += PG_PC(xb[w] & yb[w]);
			}
			o->n = (int32_t)n_bits;
			o->sx = tot_x[0] + tot_x[1], o->sxx = tot_x[0] + 3 * tot_x[1];
			o->sy = tot_y[2 * k] + tot_y[2 * k + 1], o->syy = tot_y[2 * k] + 3 * tot_y[2 * k + 1];
		} else {
			int32_t n = 0, av = 0, bv = 0, va = 0, vb = 0;
			for (int w = 0; w < nw; ++w) {
				uint64_t a = xa[w], b = xb[w], v = xv[w], c = ya[w], d = yb[w], u = yv[w];
				aa += PG_PC(a & c), ab += PG_PC(a & d), ba += PG_PC(b & c), bb += PG_PC(b & d);
				n += PG_PC(v & u), av += PG_PC(a & u), bv += PG_PC(b & u), va += PG_PC(c & v), vb += PG_PC(d & v);
			}
			o->n = n;
			o->sx = av + bv, o->sxx = av + 3 * bv;
			o->sy = va + vb, o->syy = va + 3 * vb;
		}
		o->sxy = aa + ab + ba + bb;
	}
}

static void PG_NAME(tab_row)(const uint64_t *x, const uint64_t *y, long stride, int ny, int nw, pg_ldtab_t *out)
{
	const uint64_t *xa = x, *xb = x + nw, *xv = x + 2 * nw;
	for (int k = 0; k < ny; ++k) {
		const uint64_t *ya = y + (long)k * stride, *yb = ya + nw, *yv = yb + nw;
		pg_ldtab_t t = {0};
		for (int w = 0; w < nw; ++w) {
			uint64_t a = xa[w], b = xb[w], v = xv[w], c = ya[w], d = yb[w], u = yv[w];
			t.n += PG_PC(v & u), t.av += PG_PC(a & u), t.bv += PG_PC(b & u), t.va += PG_PC(c & v), t.vb += PG_PC(d & v);
			t.aa += PG_PC(a & c), t.ab += PG_PC(a & d), t.ba += PG_PC(b & c), t.bb += PG_PC(b & d);
		}
		out[k] = t;
	}
}

/* The even bits of x packed into the low 32 bits. */
static inline uint64_t PG_NAME(even_bits)(uint64_t x)
{
	x &= 0x5555555555555555u;
	x = (x | x >> 1) & 0x3333333333333333u;
	x = (x | x >> 2) & 0x0f0f0f0f0f0f0f0fu;
	x = (x | x >> 4) & 0x00ff00ff00ff00ffu;
	x = (x | x >> 8) & 0x0000ffff0000ffffu;
	return (x | x >> 16) & 0x00000000ffffffffu;
}

/* 8 bytes of a row as a little-endian word: sample 4 k + q of byte k at bits 8 k + 2 q. */
static inline uint64_t PG_NAME(le64)(const uint8_t *p)
{
	uint64_t x = 0;
	for (int k = 7; k >= 0; --k) x = x << 8 | p[k];
	return x;
}

/* 32 codes a word: the codes' low bits l and high bits h split out by shifts. */
static void PG_NAME(bed_row)(const uint8_t *row, int64_t n, uint64_t *pa, uint64_t *pb, uint64_t *pv)
{
	int64_t bpr = (n + 3) / 4, nw = (n + 63) / 64;
	for (int64_t w = 0; w < nw; ++w) {
		uint8_t tail[16] = {0};
		const uint8_t *p = row + 16 * w;
		if (16 * w + 16 > bpr) p = memcpy(tail, p, (size_t)(bpr - 16 * w)); /* a short last word */
		uint64_t x0 = PG_NAME(le64)(p), x1 = PG_NAME(le64)(p + 8);
		uint64_t l = PG_NAME(even_bits)(x0) | PG_NAME(even_bits)(x1) << 32;
		uint64_t h = PG_NAME(even_bits)(x0 >> 1) | PG_NAME(even_bits)(x1 >> 1) << 32;
		uint64_t keep = w == nw - 1 && n % 64 ? ((uint64_t)1 << (n % 64)) - 1 : ~(uint64_t)0;
		pa[w] = ~l & keep, pb[w] = ~l & ~h & keep, pv[w] = (~l | h) & keep;
	}
}

static int64_t PG_NAME(popcount)(const uint64_t *p, long n)
{
	int64_t s = 0;
	for (long w = 0; w < n; ++w) s += PG_PC(p[w]);
	return s;
}

static void PG_NAME(fid_row)(pg_op_t op, const uint64_t *q, const uint64_t *d, int nd, int nw, uint32_t *out)
{
	for (int k = 0; k < nd; ++k) {
		const uint64_t *p = d + (long)k * nw;
		uint32_t s = 0;
		if (op == PG_XOR)
			for (int w = 0; w < nw; ++w) s += (uint32_t)PG_PC(q[w] ^ p[w]);
		else if (op == PG_ANDNOT)
			for (int w = 0; w < nw; ++w) s += (uint32_t)PG_PC(p[w] & ~q[w]);
		else
			for (int w = 0; w < nw; ++w) s += (uint32_t)PG_PC(p[w] & q[w]);
		out[k] = s;
	}
}
