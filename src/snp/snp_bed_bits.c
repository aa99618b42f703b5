/* SPDX-License-Identifier: MIT */
/* .bed rows to their low-bit and high-bit planes (snp_bed_bits.h). */
#include <string.h>

#include "snp_bed_bits.h"
#include "../common/cpu_features.h"

/* Bits from n on cleared, and the words after the samples zeroed. */
static void clear_tail(int64_t n, int nw, uint64_t *lo, uint64_t *hi)
{
	int64_t full = n / 64;
	if (n % 64) {
		uint64_t keep = ((uint64_t)1 << (n % 64)) - 1;
		lo[full] &= keep, hi[full] &= keep, ++full;
	}
	for (int64_t w = full; w < nw; ++w) lo[w] = hi[w] = 0;
}

/* A byte's four codes as one nibble of low bits and one of high bits. */
static uint8_t split_byte(uint8_t b)
{
	uint8_t out = 0;
	for (int s = 0; s < 4; ++s) out |= (uint8_t)(((b >> (2 * s)) & 1) << s | ((b >> (2 * s + 1)) & 1) << (4 + s));
	return out;
}

void snp_bed_bits_portable(const uint8_t *row, int64_t n, int nw, uint64_t *lo, uint64_t *hi)
{
	static uint8_t table[256];
	static int ready; /* filled with the same bytes by whichever thread gets here first */
	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
		for (int b = 0; b < 256; ++b) table[b] = split_byte((uint8_t)b);
		__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	}
	int64_t bytes = (n + 3) / 4;
	for (int64_t w = 0; w * 64 < n; ++w) {
		uint64_t l = 0, h = 0;
		for (int k = 0; k < 16 && w * 16 + k < bytes; ++k) {
			uint8_t t = table[row[w * 16 + k]];
			l |= (uint64_t)(t & 15) << (4 * k), h |= (uint64_t)(t >> 4) << (4 * k);
		}
		lo[w] = l, hi[w] = h;
	}
	clear_tail(n, nw, lo, hi);
}

#if defined(__x86_64__) && defined(__GNUC__) && (defined(__clang__) || __GNUC__ >= 9)
#define BITS_GFNI 1
#include <immintrin.h>

/* 64 bytes (256 samples) at a time: an affine transform over GF(2) moves each byte's bits
 * 0, 2, 4, 6 (low bits) to 0..3 and 1, 3, 5, 7 (high bits) to 4..7; two neighbouring bytes'
 * nibbles are then merged in each 16-bit lane and the lanes narrowed to bytes. */
__attribute__((target("avx512f,avx512bw,gfni"))) static void bits_gfni(const uint8_t *row, int64_t n, int nw,
                                                                        uint64_t *lo, uint64_t *hi)
{
	/* row i of the bit matrix (byte 7 - i) picks the input bit that output bit i takes */
	const __m512i regroup = _mm512_set1_epi64(0x0104104002082080LL), nib = _mm512_set1_epi16(0x000f);
	int64_t bytes = (n + 3) / 4;
	uint8_t *lb = (uint8_t *)lo, *hb = (uint8_t *)hi;
	for (int64_t at = 0; at < bytes; at += 64) {
		int64_t left = bytes - at;
		__mmask64 m = left >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << left) - 1);
		__m512i x = _mm512_gf2p8affine_epi64_epi8(_mm512_maskz_loadu_epi8(m, row + at), regroup, 0);
		__m512i s4 = _mm512_srli_epi16(x, 4), s8 = _mm512_srli_epi16(x, 8);
		/* 0xca: a ? b : c, per bit of the nibble mask */
		__m512i l = _mm512_ternarylogic_epi64(nib, x, s4, 0xca), h = _mm512_ternarylogic_epi64(nib, s4, s8, 0xca);
		_mm256_storeu_si256((__m256i *)(lb + at / 2), _mm512_cvtepi16_epi8(l));
		_mm256_storeu_si256((__m256i *)(hb + at / 2), _mm512_cvtepi16_epi8(h));
	}
	clear_tail(n, nw, lo, hi);
}
#endif

snp_bed_bits_fn snp_bed_bits_pick(void)
{
#ifdef BITS_GFNI
	if (cpu_has(CPUF_AVX512F | CPUF_AVX512BW) && __builtin_cpu_supports("gfni")) return bits_gfni;
#endif
	return snp_bed_bits_portable;
}
