/* SPDX-License-Identifier: MIT */
/* NEON kernels: two words per vector, counted with vcntq_u8 (a count per byte), summed in byte
 * lanes for up to 31 vectors (at most 8 a byte each time, so below 256), then widened by pairwise
 * adds into 32-bit lanes. */
#include <arm_neon.h>
#include <string.h>

#include "popgemm.h"

/* Words summed in byte lanes before widening: 31 vectors of two words. */
enum { SPAN = 62 };

typedef struct {
	uint8x16_t b;
	uint32x4_t w;
} acc_t;

static inline void acc_add(acc_t *a, uint64x2_t x) { a->b = vaddq_u8(a->b, vcntq_u8(vreinterpretq_u8_u64(x))); }

static inline void acc_widen(acc_t *a)
{
	a->w = vpadalq_u16(a->w, vpaddlq_u8(a->b));
	a->b = vdupq_n_u8(0);
}

static inline int32_t acc_sum(acc_t *a)
{
	acc_widen(a);
	return (int32_t)vaddvq_u32(a->w);
}

static inline void acc_zero(acc_t *a, int n)
{
	for (int k = 0; k < n; ++k) a[k].b = vdupq_n_u8(0), a[k].w = vdupq_n_u32(0);
}

#define LD(p) vld1q_u64(p)
#define AND vandq_u64

/* The nine intersections of x's planes (a, b, v) with y's (c, d, u), as pg_ldtab_t. */
static pg_ldtab_t nine(const uint64_t *xa, const uint64_t *xb, const uint64_t *xv, const uint64_t *ya,
                       const uint64_t *yb, const uint64_t *yv, int nw)
{
	acc_t t[9];
	acc_zero(t, 9);
	for (int w = 0; w < nw;) {
		const int end = nw - w > SPAN ? w + SPAN : nw;
		for (; w < end; w += 2) {
			const uint64x2_t a = LD(xa + w), b = LD(xb + w), v = LD(xv + w);
			const uint64x2_t c = LD(ya + w), d = LD(yb + w), u = LD(yv + w);
			acc_add(&t[0], AND(v, u)), acc_add(&t[1], AND(a, u)), acc_add(&t[2], AND(b, u));
			acc_add(&t[3], AND(c, v)), acc_add(&t[4], AND(d, v));
			acc_add(&t[5], AND(a, c)), acc_add(&t[6], AND(a, d)), acc_add(&t[7], AND(b, c)), acc_add(&t[8], AND(b, d));
		}
		for (int k = 0; k < 9; ++k) acc_widen(&t[k]);
	}
	return (pg_ldtab_t){acc_sum(&t[0]), acc_sum(&t[1]), acc_sum(&t[2]), acc_sum(&t[3]), acc_sum(&t[4]),
	                    acc_sum(&t[5]), acc_sum(&t[6]), acc_sum(&t[7]), acc_sum(&t[8])};
}

/* pc(a & c) + pc(a & d) + pc(b & c) + pc(b & d): x's A1 dosage times y's, for SNPs called everywhere */
static int32_t dosage_product(const uint64_t *xa, const uint64_t *xb, const uint64_t *ya, const uint64_t *yb, int nw)
{
	acc_t t[4];
	acc_zero(t, 4);
	for (int w = 0; w < nw;) {
		const int end = nw - w > SPAN ? w + SPAN : nw;
		for (; w < end; w += 2) {
			const uint64x2_t a = LD(xa + w), b = LD(xb + w), c = LD(ya + w), d = LD(yb + w);
			acc_add(&t[0], AND(a, c)), acc_add(&t[1], AND(a, d));
			acc_add(&t[2], AND(b, c)), acc_add(&t[3], AND(b, d));
		}
		for (int q = 0; q < 4; ++q) acc_widen(&t[q]);
	}
	return acc_sum(&t[0]) + acc_sum(&t[1]) + acc_sum(&t[2]) + acc_sum(&t[3]);
}

#include "popgemm_rows.h"

static int64_t popcount(const uint64_t *p, long n)
{
	int64_t s = 0;
	long w = 0;
	for (; w + 1 < n;) {
		acc_t t;
		acc_zero(&t, 1);
		const long end = n - 1 - w > SPAN ? w + SPAN : n - 1;
		for (; w < end; w += 2) acc_add(&t, LD(p + w));
		s += acc_sum(&t);
	}
	if (w < n) s += __builtin_popcountll(p[w]);
	return s;
}

static void fid_row(pg_op_t op, const uint64_t *q, const uint64_t *d, int nd, int nw, uint32_t *out)
{
	for (int k = 0; k < nd; ++k) {
		const uint64_t *p = d + (long)k * nw;
		acc_t t;
		acc_zero(&t, 1);
		for (int w = 0; w < nw;) {
			const int end = nw - w > SPAN ? w + SPAN : nw;
			if (op == PG_XOR)
				for (; w < end; w += 2) acc_add(&t, veorq_u64(LD(q + w), LD(p + w)));
			else if (op == PG_ANDNOT)
				for (; w < end; w += 2) acc_add(&t, vbicq_u64(LD(p + w), LD(q + w)));
			else
				for (; w < end; w += 2) acc_add(&t, AND(LD(p + w), LD(q + w)));
			acc_widen(&t);
		}
		out[k] = (uint32_t)acc_sum(&t);
	}
}

const pg_isa_t pg_isa_neon = {"cpu-neon", ld_row, tab_row, bed_row, popcount, fid_row};
