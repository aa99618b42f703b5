/* SPDX-License-Identifier: MIT */
/* SVE kernels, for any vector length: svcntd() words per vector, the last vector of a row
 * predicated (svwhilelt; the loads zero the lanes past the end, which then count 0), counted
 * with svcnt_u64 (a count per 64-bit lane) into 64-bit lane sums, which need no widening. Sizeless
 * SVE types cannot form arrays, so the nine sums are nine variables. */
#include <arm_sve.h>

#include "popgemm.h"

/* sum += pc(x) per lane; x's inactive lanes are zero */
#define ACC(sum, x) (sum = svadd_u64_x(all, sum, svcnt_u64_x(all, x)))
#define LD(p) svld1_u64(pg, (p) + w)
#define SUM(t) (int32_t)svaddv_u64(all, t)

/* The nine intersections of x's planes (a, b, v) with y's (c, d, u), as pg_ldtab_t. */
static pg_ldtab_t nine(const uint64_t *xa, const uint64_t *xb, const uint64_t *xv, const uint64_t *ya,
                       const uint64_t *yb, const uint64_t *yv, int nw)
{
	const svbool_t all = svptrue_b64();
	svuint64_t t0 = svdup_n_u64(0), t1 = t0, t2 = t0, t3 = t0, t4 = t0, t5 = t0, t6 = t0, t7 = t0, t8 = t0;
	for (int64_t w = 0; w < nw; w += (int64_t)svcntd()) {
		const svbool_t pg = svwhilelt_b64(w, (int64_t)nw);
		const svuint64_t a = LD(xa), b = LD(xb), v = LD(xv), c = LD(ya), d = LD(yb), u = LD(yv);
		ACC(t0, svand_u64_x(all, v, u)), ACC(t1, svand_u64_x(all, a, u)), ACC(t2, svand_u64_x(all, b, u));
		ACC(t3, svand_u64_x(all, c, v)), ACC(t4, svand_u64_x(all, d, v));
		ACC(t5, svand_u64_x(all, a, c)), ACC(t6, svand_u64_x(all, a, d));
		ACC(t7, svand_u64_x(all, b, c)), ACC(t8, svand_u64_x(all, b, d));
	}
	return (pg_ldtab_t){SUM(t0), SUM(t1), SUM(t2), SUM(t3), SUM(t4), SUM(t5), SUM(t6), SUM(t7), SUM(t8)};
}

/* pc(a & c) + pc(a & d) + pc(b & c) + pc(b & d): x A1 dosage times y's, for two SNPs called everywhere */
static int32_t dosage_product(const uint64_t *xa, const uint64_t *xb, const uint64_t *ya, const uint64_t *yb, int nw)
{
	const svbool_t all = svptrue_b64();
	svuint64_t s = svdup_n_u64(0);
	for (int64_t w = 0; w < nw; w += (int64_t)svcntd()) {
		const svbool_t pg = svwhilelt_b64(w, (int64_t)nw);
		const svuint64_t a = LD(xa), b = LD(xb), c = LD(ya), d = LD(yb);
		ACC(s, svand_u64_x(all, a, c)), ACC(s, svand_u64_x(all, a, d));
		ACC(s, svand_u64_x(all, b, c)), ACC(s, svand_u64_x(all, b, d));
	}
	return SUM(s);
}

#include "popgemm_rows.h"

static int64_t popcount(const uint64_t *p, long n)
{
	const svbool_t all = svptrue_b64();
	svuint64_t s = svdup_n_u64(0);
	for (int64_t w = 0; w < n; w += (int64_t)svcntd()) {
		const svbool_t pg = svwhilelt_b64(w, (int64_t)n);
		ACC(s, LD(p));
	}
	return (int64_t)svaddv_u64(all, s);
}

/* Four profiles per pass share each load of q (a short last group repeats its last profile);
 * one loop per operation, so that the choice stays out of the inner loop. */
#define FID_LOOP(OP)                                                                                  \
	for (int64_t w = 0; w < nw; w += (int64_t)svcntd()) {                                             \
		const svbool_t pg = svwhilelt_b64(w, (int64_t)nw);                                            \
		const svuint64_t x = LD(q);                                                                   \
		ACC(s0, OP(all, LD(p0), x)), ACC(s1, OP(all, LD(p1), x));                                     \
		ACC(s2, OP(all, LD(p2), x)), ACC(s3, OP(all, LD(p3), x));                                     \
	}

static void fid_row(pg_op_t op, const uint64_t *q, const uint64_t *d, int nd, int nw, uint32_t *out)
{
	const svbool_t all = svptrue_b64();
	for (int k0 = 0; k0 < nd; k0 += 4) {
		const int m = nd - k0 < 4 ? nd - k0 : 4;
		const uint64_t *p0 = d + (long)k0 * nw, *p1 = d + (long)(k0 + (m > 1)) * nw;
		const uint64_t *p2 = d + (long)(k0 + (m > 2 ? 2 : m - 1)) * nw, *p3 = d + (long)(k0 + m - 1) * nw;
		svuint64_t s0 = svdup_n_u64(0), s1 = s0, s2 = s0, s3 = s0;
		if (op == PG_XOR) FID_LOOP(sveor_u64_x)
		else if (op == PG_ANDNOT) FID_LOOP(svbic_u64_x) /* d & ~q */
		else FID_LOOP(svand_u64_x)
		const uint32_t r[4] = {(uint32_t)svaddv_u64(all, s0), (uint32_t)svaddv_u64(all, s1), (uint32_t)svaddv_u64(all, s2),
		                       (uint32_t)svaddv_u64(all, s3)};
		for (int k = 0; k < m; ++k) out[k0 + k] = r[k];
	}
}

const pg_isa_t pg_isa_sve = {"cpu-sve", ld_row, tab_row, bed_row, popcount, fid_row};
