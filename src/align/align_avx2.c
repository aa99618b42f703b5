/* SPDX-License-Identifier: MIT */
/* AVX2 matrix fills (align_fill_body.h), for CPUs without AVX-512 (GKL's own minimum is AVX2):
 * fill8, 8 pairs in 32-bit lanes, and fill_diag8, one pair 8 cells of an anti-diagonal at a time.
 * AVX2 has no mask registers: comparisons give vector masks turned into bits with movemask, and
 * "less or equal" is kept as the "greater" mask it negates. Bases are widened to 32 bits to
 * compare in lanes. Compiled with -mavx2. */
#include <immintrin.h>
#include <string.h>

#include "align_kernel.h"

static inline unsigned bits(__m256i m) { return (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(m)); }

/* Move bytes of 8 lanes; ex and fx are the negated "less or equal" masks. */
static inline __m256i codes(__m256i ins, __m256i del, __m256i ngt_e, __m256i ngt_f)
{
	__m256i c = _mm256_or_si256(_mm256_and_si256(ins, _mm256_set1_epi32(AL_INS)), _mm256_and_si256(del, _mm256_set1_epi32(AL_DEL)));
	c = _mm256_or_si256(c, _mm256_andnot_si256(ngt_e, _mm256_set1_epi32(AL_EEXT)));
	return _mm256_or_si256(c, _mm256_andnot_si256(ngt_f, _mm256_set1_epi32(AL_FEXT)));
}

/* Byte 0 of each 32-bit lane into 8 consecutive bytes at p. */
static inline void store_codes(uint8_t *p, __m256i c)
{
	const __m256i pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1,
	                                      -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
	c = _mm256_shuffle_epi8(c, pick);
	const uint64_t b8 = (uint64_t)(uint32_t)_mm256_extract_epi32(c, 0) | (uint64_t)(uint32_t)_mm256_extract_epi32(c, 4) << 32;
	memcpy(p, &b8, 8);
}

#define LANES 8
#define EL int32_t
#define MW uint16_t
#define VEC __m256i
#define LOADA(p) _mm256_load_si256((const __m256i *)(p))
#define STOREA(p, v) _mm256_store_si256((__m256i *)(p), v)
#define LOADU(p) _mm256_loadu_si256((const __m256i *)(p))
#define STOREU(p, v) _mm256_storeu_si256((__m256i *)(p), v)
#define SET1 _mm256_set1_epi32
#define ZERO _mm256_setzero_si256
#define ADD _mm256_add_epi32
#define MAX _mm256_max_epi32
#define GTM __m256i
#define LEM __m256i
#define GT _mm256_cmpgt_epi32
#define LE _mm256_cmpgt_epi32
#define GT_BITS(m) bits(m)
#define LE_BITS(m) (~bits(m) & 0xFF)
#define BT int32_t
#define BV __m256i
#define BLOAD LOADU
#define SCORE(rv, av, mis, match) _mm256_blendv_epi8(mis, match, _mm256_cmpeq_epi32(rv, av))
#define CODE codes
#define STORE_CODES store_codes
#define LANE_FN fill8
#define DIAG_FN fill_diag8
#include "align_fill_body.h"

/* fill_diag8 (one pair, a diagonal at a time) is a little slower than fill8 with all lanes full, so
 * fill8 pays from 6 of its 8 lanes on; smaller groups go one by one. */
const al_isa_t al_isa_avx2 = {"avx2", 8, 6, fill8, fill_diag8, (size_t)1 << 22, 0, 0, NULL};
