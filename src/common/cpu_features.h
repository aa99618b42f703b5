/* SPDX-License-Identifier: MIT */
/* What this CPU and its operating system let gvk's kernels use, detected once per process. Every
 * engine's dispatch and gvk_features() ask here, so a kernel is never chosen on a guess that the
 * feature string contradicts. */
#ifndef GVK_CPU_FEATURES_H
#define GVK_CPU_FEATURES_H

#include <stddef.h>

enum {
	CPUF_POPCNT = 1u << 0,
	CPUF_AVX = 1u << 1,       /* with the OS saving the YMM state */
	CPUF_AVX2 = 1u << 2,
	CPUF_FMA = 1u << 3,
	CPUF_BMI2 = 1u << 4,
	CPUF_AVX512F = 1u << 5,   /* this and the next four: with the OS saving the ZMM and mask state */
	CPUF_AVX512BW = 1u << 6,
	CPUF_AVX512VL = 1u << 7,
	CPUF_AVX512DQ = 1u << 8,
	CPUF_AVX512VPOPCNTDQ = 1u << 9,
	CPUF_NEON = 1u << 16,     /* aarch64 Advanced SIMD (ASIMD) */
	CPUF_SVE = 1u << 17,
	CPUF_SVE256 = 1u << 18,   /* SVE vectors of exactly 256 bits (Neoverse V1, Graviton3) */
	CPUF_SVE512 = 1u << 19    /* exactly 512 bits (A64FX) */
};

/* What each kernel family of cmake/gvk_isa.cmake is compiled for, so what its dispatch checks. */
#define CPUF_FAMILY_AVX512 (CPUF_AVX512F | CPUF_AVX512VL | CPUF_AVX512BW | CPUF_AVX512DQ | CPUF_FMA)
#define CPUF_FAMILY_AVX512POP (CPUF_AVX512F | CPUF_AVX512VPOPCNTDQ | CPUF_POPCNT | CPUF_BMI2)

typedef struct {
	unsigned flags;   /* CPUF_* */
	int sve_bytes;    /* SVE vector length in bytes; 0 without SVE */
} cpu_features_t;

/* The features of this CPU; computed on the first call (thread-safe), the same afterwards. */
const cpu_features_t *cpu_features(void);

/* Nonzero when every flag of mask is present. */
static inline int cpu_has(unsigned mask) { return (cpu_features()->flags & mask) == mask; }

/* Names of the present features, space-separated, into buf (at most size bytes, NUL-terminated);
 * SVE with its vector length, as "sve(256-bit)", which stands for sve256 or sve512 too. */
void cpu_feature_names(char *buf, size_t size);
/* The same for the features of mask, present or not. */
void cpu_feature_list(unsigned mask, char *buf, size_t size);

#endif
