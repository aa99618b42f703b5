/* SPDX-License-Identifier: MIT */
/* AVX-512 Pair-HMM kernels: 16 pairs per call in float, 8 in double, one pair per lane.
 * Compiled with -mavx512f -mavx512vl -mavx512bw -mavx512dq; the dispatcher calls it only on CPUs
 * that have those. */
#include <immintrin.h>
#include <stdint.h>

#include "pairhmm_kernel.h"
#include "pairhmm_tables.h"

#define T float
#define W 16
#define V __m512
#define MASK __mmask16
#define HB __m512i
#define INIT PHMM_INIT_F
#define ERR phmm_err_f
#define MM phmm_mm_f
#define V_ZERO() _mm512_setzero_ps()
#define V_LOAD(p) _mm512_load_ps(p)
#define V_STORE(p, v) _mm512_store_ps(p, v)
#define V_ADD _mm512_add_ps
#define V_MUL _mm512_mul_ps
#define V_FMA _mm512_fmadd_ps
#define V_PRIOR(rb, p, pm, px) _mm512_mask_blend_ps(_mm512_test_epi32_mask(rb, HB_LOAD(p)), px, pm)
#define V_MASK_ADD _mm512_mask_add_ps
#define HB_LOAD(p) _mm512_loadu_si512((const void *)(p))
#define HB_GE(v, j) _mm512_cmpge_epi32_mask(v, _mm512_set1_epi32(j))
#define ROW_FN row_f
#define PAR_FN par_f
#define KERN_FN kern_f
#include "pairhmm_body.h"

#define T double
#define W 8
#define V __m512d
#define MASK __mmask8
#define HB __m256i
#define INIT PHMM_INIT_D
#define ERR phmm_err_d
#define MM phmm_mm_d
#define V_ZERO() _mm512_setzero_pd()
#define V_LOAD(p) _mm512_load_pd(p)
#define V_STORE(p, v) _mm512_store_pd(p, v)
#define V_ADD _mm512_add_pd
#define V_MUL _mm512_mul_pd
#define V_FMA _mm512_fmadd_pd
#define V_PRIOR(rb, p, pm, px) _mm512_mask_blend_pd(_mm256_test_epi32_mask(rb, HB_LOAD(p)), px, pm)
#define V_MASK_ADD _mm512_mask_add_pd
#define HB_LOAD(p) _mm256_loadu_si256((const void *)(p))
#define HB_GE(v, j) _mm256_cmp_epi32_mask(v, _mm256_set1_epi32(j), _MM_CMPINT_NLT)
#define ROW_FN row_d
#define PAR_FN par_d
#define KERN_FN kern_d
#include "pairhmm_body.h"

const phmm_isa_t phmm_isa_avx512 = {"avx512", 16, 8, kern_f, kern_d};
