/* SPDX-License-Identifier: MIT */
/* GKL's Phred tables, bit-exact, shared by the CPU and GPU Pair-HMM engines. */
#ifndef GVK_PAIRHMM_TABLES_H
#define GVK_PAIRHMM_TABLES_H

#include <stdint.h>

/* The bit pattern is the first member so that the generated initialisers stay exact. */
typedef union { uint32_t u; float f; } phmm_f32_t;
typedef union { uint64_t u; double f; } phmm_f64_t;

/* Phred q (0..127) -> error probability: powf(10, -q/10.f) and pow(10, -q/10.), GKL's values. */
extern const phmm_f32_t phmm_err_f[128];
extern const phmm_f64_t phmm_err_d[128];

/* matchToMatch for (ins GOP, del GOP), symmetric, stored as GKL does: hi*(hi+1)/2 + lo. */
extern const phmm_f32_t phmm_mm_f[128 * 129 / 2];
extern const phmm_f64_t phmm_mm_d[128 * 129 / 2];

static inline int phmm_mm_index(int qi, int qd)
{
	int hi = qi > qd ? qi : qd, lo = qi > qd ? qd : qi;
	return hi * (hi + 1) / 2 + lo;
}

/* Scale constants: the DP starts at 2^120 / H (float) or 2^1020 / H (double). */
#define PHMM_INIT_F 0x1p120f
#define PHMM_INIT_D 0x1p1020
/* log10 of the scale constants, as GKL holds them (float bits 0x42107e91). */
#define PHMM_LOG10_INIT_F 0x1.20fd22p+5f
#define PHMM_LOG10_INIT_D 0x1.330cf3d4eda85p+8
/* Float sums below this go to the double pass (bits 0x10fd87b6). */
#define PHMM_DOUBLE_THRESHOLD 1e-28f

/* Base classes as bits: A C T G one bit each, N every bit, so two bases match iff (a & b) != 0.
 * Every byte other than ACGTN counts as A, as in GKL. */
static inline uint8_t phmm_base_bits(unsigned char c)
{
	switch (c) {
	case 'C': return 2;
	case 'T': return 4;
	case 'G': return 8;
	case 'N': return 31;
	default: return 1;
	}
}

#endif
