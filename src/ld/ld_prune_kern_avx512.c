/* SPDX-License-Identifier: MIT */
/* The pruning kernels for x86-64 with AVX-512 VPOPCNTDQ (compiled with -mavx512f -mavx512vpopcntdq
 * -mpopcnt -mbmi2): the body's sums, tables and row planes compiled for it, and pair kernels
 * written with its intrinsics, eight words at a time (the planes are 64-byte aligned, nw a multiple
 * of 8). */
#include <immintrin.h>

#define PRUNE_KERN_OWN_PAIRS 1
#include "ld_prune_kern_body.h"

#define POP_ADD(acc, v) acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(v))
/* The body's pair counts eight words at a time; a ternary-logic step forms zz & (neg_x ^ neg_y)
 * at once (0x60: a & (b ^ c)). */
static double pair_r2_avx512(const prune_snp_t *x, const prune_snp_t *y, int nw, int64_t n_bits, int sign)
{
	__m512i a_nz = _mm512_setzero_si512(), a_diff = a_nz;
	if (!x->miss && !y->miss) {
		for (int w = 0; w < nw; w += 8) {
			__m512i zz = _mm512_and_si512(_mm512_load_si512(x->z + w), _mm512_load_si512(y->z + w));
			POP_ADD(a_nz, zz);
			POP_ADD(a_diff, _mm512_ternarylogic_epi64(zz, _mm512_load_si512(x->neg + w), _mm512_load_si512(y->neg + w), 0x60));
		}
		return r2_full(x, y, _mm512_reduce_add_epi64(a_nz), _mm512_reduce_add_epi64(a_diff), n_bits, sign);
	}
	__m512i a_nm = a_nz, a_sxx = a_nz, a_nx = a_nz, a_syy = a_nz, a_ny = a_nz;
	for (int w = 0; w < nw; w += 8) {
		__m512i zx = _mm512_load_si512(x->z + w), zy = _mm512_load_si512(y->z + w);
		__m512i gx = _mm512_load_si512(x->neg + w), gy = _mm512_load_si512(y->neg + w);
		__m512i vx = _mm512_load_si512(x->v + w), vy = _mm512_load_si512(y->v + w);
		__m512i zz = _mm512_and_si512(zx, zy);
		POP_ADD(a_nz, zz);
		POP_ADD(a_diff, _mm512_ternarylogic_epi64(zz, gx, gy, 0x60));
		POP_ADD(a_nm, _mm512_and_si512(vx, vy));
		POP_ADD(a_sxx, _mm512_and_si512(zx, vy));
		POP_ADD(a_nx, _mm512_and_si512(gx, vy));
		POP_ADD(a_syy, _mm512_and_si512(zy, vx));
		POP_ADD(a_ny, _mm512_and_si512(gy, vx));
	}
	return r2_called(_mm512_reduce_add_epi64(a_nz), _mm512_reduce_add_epi64(a_diff), _mm512_reduce_add_epi64(a_nm),
	                 _mm512_reduce_add_epi64(a_sxx), _mm512_reduce_add_epi64(a_nx), _mm512_reduce_add_epi64(a_syy),
	                 _mm512_reduce_add_epi64(a_ny), sign);
}

/* Two pairs with missing calls, x against y and w, at once: x's words are loaded once and the
 * two sets of sums are independent. */
static void pair2_avx512(const prune_snp_t *x, const prune_snp_t *y, const prune_snp_t *w2, int nw, double r2[2])
{
	const prune_snp_t *ys[2] = {y, w2};
	__m512i a[2][7];
	for (int t = 0; t < 2; ++t)
		for (int q = 0; q < 7; ++q) a[t][q] = _mm512_setzero_si512();
	for (int w = 0; w < nw; w += 8) {
		__m512i zx = _mm512_load_si512(x->z + w), gx = _mm512_load_si512(x->neg + w), vx = _mm512_load_si512(x->v + w);
		for (int t = 0; t < 2; ++t) {
			__m512i zy = _mm512_load_si512(ys[t]->z + w), gy = _mm512_load_si512(ys[t]->neg + w);
			__m512i vy = _mm512_load_si512(ys[t]->v + w), zz = _mm512_and_si512(zx, zy);
			POP_ADD(a[t][0], zz);
			POP_ADD(a[t][1], _mm512_ternarylogic_epi64(zz, gx, gy, 0x60));
			POP_ADD(a[t][2], _mm512_and_si512(vx, vy));
			POP_ADD(a[t][3], _mm512_and_si512(zx, vy));
			POP_ADD(a[t][4], _mm512_and_si512(gx, vy));
			POP_ADD(a[t][5], _mm512_and_si512(zy, vx));
			POP_ADD(a[t][6], _mm512_and_si512(gy, vx));
		}
	}
	for (int t = 0; t < 2; ++t) {
		int64_t c[7];
		for (int q = 0; q < 7; ++q) c[q] = _mm512_reduce_add_epi64(a[t][q]);
		r2[t] = r2_called(c[0], c[1], c[2], c[3], c[4], c[5], c[6], 0);
	}
}

static void pairs_avx512(const prune_snp_t *x, const prune_snp_t *const *ys, int n, int nw, int64_t n_bits,
                         double *r2)
{
	for (int q = 0; q < n;) {
		if (q + 1 < n && x->miss && ys[q]->miss && ys[q + 1]->miss) {
			pair2_avx512(x, ys[q], ys[q + 1], nw, r2 + q);
			q += 2;
		} else {
			r2[q] = pair_r2_avx512(x, ys[q], nw, n_bits, 0);
			++q;
		}
	}
}
#undef POP_ADD

const prune_kern_t prune_kern_avx512 = {pair_r2_avx512, pairs_avx512, kern_table, kern_sums, kern_direct, kern_classes};
