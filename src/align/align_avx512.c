/* SPDX-License-Identifier: MIT */
/* AVX-512 matrix fills (align_fill_body.h): fill16, 16 pairs in 32-bit lanes; fill_diag, one pair
 * 16 cells of an anti-diagonal at a time; fill32, 32 pairs in 16-bit lanes. Comparisons give mask
 * registers, which are the move bits as they are. Compiled with -mavx512f -mavx512vl -mavx512bw. */
#include <immintrin.h>
#include <string.h>

#include "align_kernel.h"

static inline __m512i codes(__mmask16 ins, __mmask16 del, __mmask16 ex, __mmask16 fx)
{
	__m512i c = _mm512_maskz_mov_epi32(ins, _mm512_set1_epi32(AL_INS));
	c = _mm512_mask_or_epi32(c, del, c, _mm512_set1_epi32(AL_DEL));
	c = _mm512_mask_or_epi32(c, ex, c, _mm512_set1_epi32(AL_EEXT));
	return _mm512_mask_or_epi32(c, fx, c, _mm512_set1_epi32(AL_FEXT));
}

#define LANES 16
#define EL int32_t
#define MW uint16_t
#define VEC __m512i
#define LOADA(p) _mm512_load_si512(p)
#define STOREA(p, v) _mm512_store_si512(p, v)
#define LOADU(p) _mm512_loadu_si512(p)
#define STOREU(p, v) _mm512_storeu_si512(p, v)
#define SET1 _mm512_set1_epi32
#define ZERO _mm512_setzero_si512
#define ADD _mm512_add_epi32
#define MAX _mm512_max_epi32
#define GTM __mmask16
#define LEM __mmask16
#define GT _mm512_cmpgt_epi32_mask
#define LE _mm512_cmple_epi32_mask
#define GT_BITS(m) (m)
#define LE_BITS(m) (m)
#define BT uint8_t
#define BV __m128i
#define BLOAD(p) _mm_loadu_si128((const __m128i *)(p))
#define SCORE(rv, av, mis, match) _mm512_mask_blend_epi32(_mm_cmpeq_epi8_mask(rv, av), mis, match)
#define CODE codes
#define STORE_CODES(p, c) _mm_storeu_si128((__m128i *)(p), _mm512_cvtepi32_epi8(c))
#define LANE_FN fill16
#define DIAG_FN fill_diag
#include "align_fill_body.h"

#define NARROW 1
#define LANES 32
#define EL int16_t
#define MW uint32_t
#define VEC __m512i
#define LOADA(p) _mm512_load_si512(p)
#define STOREA(p, v) _mm512_store_si512(p, v)
#define LOADU(p) _mm512_loadu_si512(p)
#define SET1 _mm512_set1_epi16
#define ZERO _mm512_setzero_si512
#define ADD _mm512_adds_epi16
#define MAX _mm512_max_epi16
#define GT _mm512_cmpgt_epi16_mask
#define LE _mm512_cmple_epi16_mask
#define GT_BITS(m) (m)
#define LE_BITS(m) (m)
#define BT uint8_t
#define BV __m256i
#define BLOAD(p) _mm256_loadu_si256((const __m256i *)(p))
#define SCORE(rv, av, mis, match) _mm512_mask_blend_epi16(_mm256_cmpeq_epi8_mask(rv, av), mis, match)
#define LANE_FN fill32
#include "align_fill_body.h"

/* A group of k pairs costs fill16 about as much as 16; fill_diag runs one pair at a bit over half
 * of fill16's full-lane speed, so groups below 9 pairs go one by one. fill32 does 32 pairs for
 * the price of 16, so it pays from 17 pairs on. */
const al_isa_t al_isa_avx512 = {"avx512", 16, 9, fill16, fill_diag, (size_t)1 << 22, 32, 17, fill32};
