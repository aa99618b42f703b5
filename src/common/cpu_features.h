/* SPDX-License-Identifier: MIT */
/* What the CPU offers the engines' kernels, found in one place: each engine's dispatch file asks
 * for the set its kernels need (x86: the AVX-512 subsets, AVX2, POPCNT; aarch64: NEON, SVE). */
#ifndef GVK_CPU_FEATURES_H
#define GVK_CPU_FEATURES_H

enum {
	GVK_CPU_POPCNT = 1 << 0,
	GVK_CPU_BMI2 = 1 << 1,
	GVK_CPU_AVX = 1 << 2,
	GVK_CPU_AVX2 = 1 << 3,
	GVK_CPU_AVX512F = 1 << 4,
	GVK_CPU_AVX512BW = 1 << 5,
	GVK_CPU_AVX512VL = 1 << 6,
	GVK_CPU_AVX512DQ = 1 << 7,
	GVK_CPU_AVX512VPOPCNTDQ = 1 << 8,
	GVK_CPU_NEON = 1 << 9,
	GVK_CPU_SVE = 1 << 10
};

/* The sets the kernels use: align's and Pair-HMM's AVX-512 kernels (Pair-HMM also needs DQ),
 * the popcount products' AVX-512 kernel. */
#define GVK_CPU_AVX512_CORE (GVK_CPU_AVX512F | GVK_CPU_AVX512BW | GVK_CPU_AVX512VL)
#define GVK_CPU_AVX512_POPCNT (GVK_CPU_AVX512F | GVK_CPU_AVX512VPOPCNTDQ | GVK_CPU_BMI2)

/* The GVK_CPU_* flags of this CPU (those the operating system enables). A pure function: it asks
 * the compiler's CPU model (x86) or the kernel's hardware capabilities (aarch64) each time. */
unsigned gvk_cpu_features(void);

/* Whether the CPU has every flag of `need`. */
static inline int gvk_cpu_has(unsigned need) { return (gvk_cpu_features() & need) == need; }

#endif
