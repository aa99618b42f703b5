/* SPDX-License-Identifier: MIT */
#include "cpu_features.h"

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1 << 1)
#endif
#ifndef HWCAP_SVE
#define HWCAP_SVE (1 << 22)
#endif
#endif

unsigned gvk_cpu_features(void)
{
	unsigned f = 0;
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
	/* __builtin_cpu_supports counts a feature only when the OS saves its registers (XCR0). */
	__builtin_cpu_init();
	if (__builtin_cpu_supports("popcnt")) f |= GVK_CPU_POPCNT;
	if (__builtin_cpu_supports("bmi2")) f |= GVK_CPU_BMI2;
	if (__builtin_cpu_supports("avx")) f |= GVK_CPU_AVX;
	if (__builtin_cpu_supports("avx2")) f |= GVK_CPU_AVX2;
	if (__builtin_cpu_supports("avx512f")) f |= GVK_CPU_AVX512F;
	if (__builtin_cpu_supports("avx512bw")) f |= GVK_CPU_AVX512BW;
	if (__builtin_cpu_supports("avx512vl")) f |= GVK_CPU_AVX512VL;
	if (__builtin_cpu_supports("avx512dq")) f |= GVK_CPU_AVX512DQ;
	if (__builtin_cpu_supports("avx512vpopcntdq")) f |= GVK_CPU_AVX512VPOPCNTDQ;
#elif defined(__aarch64__) && defined(__linux__)
	const unsigned long hw = getauxval(AT_HWCAP);
	if (hw & HWCAP_ASIMD) f |= GVK_CPU_NEON;
	if (hw & HWCAP_SVE) f |= GVK_CPU_SVE;
#elif defined(__aarch64__)
	f |= GVK_CPU_NEON; /* part of every AArch64 CPU */
#endif
	return f;
}
