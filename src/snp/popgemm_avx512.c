/* AVX-512 kernels with VPOPCNTDQ: eight words per popcount. Compiled with -mavx512f
 * -mavx512vpopcntdq; popgemm_dispatch.c calls them only on CPUs that have both. */
#include <immintrin.h>

#include "popgemm.h"

/* Words per chunk: lane sums of one chunk stay below 2^17 and whole-vector sums below 2^21, so
 * three counts can share one 64-bit lane during the final reduction. */
enum { CHUNK = 4096 };

#define PC(x) _mm512_popcnt_epi64(x)
#define AND(a, b) _mm512_and_si512(a, b)
#define ADD(a, b) _mm512_add_epi64(a, b)

static inline void unpack3(__m512i packed, int32_t *f0, int32_t *f1, int32_t *f2)
{
	uint64_t s = (uint64_t)_mm512_reduce_add_epi64(packed);
	const uint64_t m = ((uint64_t)1 << 21) - 1;
	*f0 += (int32_t)(s & m), *f1 += (int32_t)((s >> 21) & m), *f2 += (int32_t)(s >> 42);
}

static inline __m512i pack3(__m512i a, __m512i b, __m512i c)
{
	return ADD(a, ADD(_mm512_slli_epi64(b, 21), _mm512_slli_epi64(c, 42)));
}

static void ld_row(const uint64_t *x, const uint64_t *y, long stride, int ny, int nw, int64_t n_bits, int full_x,
                   const int32_t *tot_x, const uint8_t *full_y, const int32_t *tot_y, pg_ldcnt_t *out)
{
	const uint64_t *xa = x, *xb = x + nw, *xv = x + 2 * nw;
	for (int k = 0; k < ny; ++k) {
		const uint64_t *ya = y + (long)k * stride, *yb = ya + nw, *yv = yb + nw;
		pg_ldcnt_t *o = &out[k];
		int32_t n = 0, av = 0, bv = 0, va = 0, vb = 0, xy = 0;
		int full = full_x && full_y[k];
		for (int w0 = 0; w0 < nw; w0 += CHUNK) {
			int w1 = w0 + CHUNK < nw ? w0 + CHUNK : nw;
			__m512i sxy = _mm512_setzero_si512();
			if (full) {
				for (int w = w0; w < w1; w += 8) {
					__m512i a = _mm512_load_si512(xa + w), b = _mm512_load_si512(xb + w);
					__m512i c = _mm512_load_si512(ya + w), d = _mm512_load_si512(yb + w);
					sxy = ADD(sxy, ADD(ADD(PC(AND(a, c)), PC(AND(a, d))), ADD(PC(AND(b, c)), PC(AND(b, d)))));
				}
				xy += (int32_t)_mm512_reduce_add_epi64(sxy);
				continue;
			}
			__m512i sn = _mm512_setzero_si512(), sav = sn, sbv = sn, sva = sn, svb = sn;
			for (int w = w0; w < w1; w += 8) {
				__m512i a = _mm512_load_si512(xa + w), b = _mm512_load_si512(xb + w), v = _mm512_load_si512(xv + w);
				__m512i c = _mm512_load_si512(ya + w), d = _mm512_load_si512(yb + w), u = _mm512_load_si512(yv + w);
				sxy = ADD(sxy, ADD(ADD(PC(AND(a, c)), PC(AND(a, d))), ADD(PC(AND(b, c)), PC(AND(b, d)))));
				sn = ADD(sn, PC(AND(v, u)));
				sav = ADD(sav, PC(AND(a, u)));
				sbv = ADD(sbv, PC(AND(b, u)));
				sva = ADD(sva, PC(AND(c, v)));
				svb = ADD(svb, PC(AND(d, v)));
			}
			unpack3(pack3(sn, sav, sbv), &n, &av, &bv);
			unpack3(pack3(sva, svb, sxy), &va, &vb, &xy);
		}
		if (full) {
			o->n = (int32_t)n_bits;
			o->sx = tot_x[0] + tot_x[1], o->sxx = tot_x[0] + 3 * tot_x[1];
			o->sy = tot_y[2 * k] + tot_y[2 * k + 1], o->syy = tot_y[2 * k] + 3 * tot_y[2 * k + 1];
		} else {
			o->n = n;
			o->sx = av + bv, o->sxx = av + 3 * bv;
			o->sy = va + vb, o->syy = va + 3 * vb;
		}
		o->sxy = xy;
	}
}

static void fid_row(pg_op_t op, const uint64_t *q, const uint64_t *d, int nd, int nw, uint32_t *out)
{
	for (int k = 0; k < nd; ++k) {
		const uint64_t *p = d + (long)k * nw;
		__m512i s = _mm512_setzero_si512();
		for (int w = 0; w < nw; w += 8) {
			__m512i a = _mm512_loadu_si512(q + w), b = _mm512_loadu_si512(p + w);
			__m512i e = op == PG_XOR ? _mm512_xor_si512(a, b) : op == PG_ANDNOT ? _mm512_andnot_si512(a, b) : AND(a, b);
			s = ADD(s, PC(e));
		}
		out[k] = (uint32_t)_mm512_reduce_add_epi64(s);
	}
}

const pg_isa_t pg_isa_avx512 = {"cpu-avx512", ld_row, fid_row};
