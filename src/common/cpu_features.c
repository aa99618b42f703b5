/* SPDX-License-Identifier: MIT */
/* CPU feature detection: cpuid and xgetbv on x86, the kernel's hardware capabilities on aarch64. An
 * instruction set counts only when the OS also saves its registers on a context switch (XCR0), as
 * a CPU can report AVX-512 under a kernel or hypervisor that does not enable it. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cpu_features.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* XCR0: which register states the OS saves (bit 1 SSE, 2 AVX, 5-7 the AVX-512 opmask and ZMM). */
static unsigned long long xcr0(void)
{
	unsigned lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (unsigned long long)hi << 32 | lo;
}

static void detect(cpu_features_t *f)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d)) return;
	if (c & bit_POPCNT) f->flags |= CPUF_POPCNT;
	unsigned long long os = (c & bit_OSXSAVE) ? xcr0() : 0;
	int ymm = (os & 0x6) == 0x6, zmm = ymm && (os & 0xe0) == 0xe0;
	if (ymm && (c & bit_AVX)) f->flags |= CPUF_AVX;
	if (ymm && (c & bit_FMA)) f->flags |= CPUF_FMA;
	if (__get_cpuid_max(0, 0) < 7) return;
	__cpuid_count(7, 0, a, b, c, d);
	if (b & bit_BMI2) f->flags |= CPUF_BMI2;
	if (ymm && (b & bit_AVX2)) f->flags |= CPUF_AVX2;
	if (!zmm || !(b & bit_AVX512F)) return;
	f->flags |= CPUF_AVX512F;
	if (b & bit_AVX512BW) f->flags |= CPUF_AVX512BW;
	if (b & bit_AVX512VL) f->flags |= CPUF_AVX512VL;
	if (b & bit_AVX512DQ) f->flags |= CPUF_AVX512DQ;
	if (c & bit_AVX512VPOPCNTDQ) f->flags |= CPUF_AVX512VPOPCNTDQ;
}

#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#include <sys/prctl.h>
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1 << 1)
#endif
#ifndef HWCAP_SVE
#define HWCAP_SVE (1 << 22)
#endif
#ifndef PR_SVE_GET_VL
#define PR_SVE_GET_VL 51
#endif
#ifndef PR_SVE_VL_LEN_MASK
#define PR_SVE_VL_LEN_MASK 0xffff
#endif

static void detect(cpu_features_t *f)
{
	/* ASIMD is part of the aarch64 base; the capability bit is checked anyway, for kernels that
	 * hide it. */
	unsigned long hw = getauxval(AT_HWCAP);
	if (hw & HWCAP_ASIMD) f->flags |= CPUF_NEON;
	if (hw & HWCAP_SVE) {
		int vl = prctl(PR_SVE_GET_VL);
		f->flags |= CPUF_SVE;
		f->sve_bytes = vl > 0 ? (vl & PR_SVE_VL_LEN_MASK) : 0;
		if (f->sve_bytes == 32) f->flags |= CPUF_SVE256;
		if (f->sve_bytes == 64) f->flags |= CPUF_SVE512;
	}
}

#else
static void detect(cpu_features_t *f) { (void)f; }
#endif

static cpu_features_t features;
static pthread_once_t features_once = PTHREAD_ONCE_INIT;

static void features_init(void) { detect(&features); }

const cpu_features_t *cpu_features(void)
{
	pthread_once(&features_once, features_init);
	return &features;
}

static const struct {
	unsigned flag;
	const char *name;
} feature_names[] = {{CPUF_AVX512F, "avx512f"},   {CPUF_AVX512BW, "avx512bw"}, {CPUF_AVX512VL, "avx512vl"},
                     {CPUF_AVX512DQ, "avx512dq"}, {CPUF_AVX512VPOPCNTDQ, "avx512vpopcntdq"},
                     {CPUF_AVX2, "avx2"},         {CPUF_FMA, "fma"},           {CPUF_AVX, "avx"},
                     {CPUF_BMI2, "bmi2"},         {CPUF_POPCNT, "popcnt"},     {CPUF_NEON, "neon"},
                     {CPUF_SVE, "sve"},           {CPUF_SVE256, "sve256"},     {CPUF_SVE512, "sve512"}};

/* Appends the names of the flags in mask to buf, which holds n characters; returns the new length. */
static size_t append_names(char *buf, size_t size, size_t n, unsigned mask)
{
	for (size_t k = 0; k < sizeof feature_names / sizeof feature_names[0]; ++k) {
		if (!(mask & feature_names[k].flag)) continue;
		int w = snprintf(buf + n, size > n ? size - n : 0, "%s%s", n ? " " : "", feature_names[k].name);
		if (w > 0) n += (size_t)w;
	}
	return n;
}

void cpu_feature_list(unsigned mask, char *buf, size_t size)
{
	if (size) buf[0] = 0;
	append_names(buf, size, 0, mask);
}

void cpu_feature_names(char *buf, size_t size)
{
	const cpu_features_t *f = cpu_features();
	if (size) buf[0] = 0;
	size_t n = append_names(buf, size, 0, f->flags & ~(CPUF_SVE256 | CPUF_SVE512));
	if ((f->flags & CPUF_SVE) && f->sve_bytes) snprintf(buf + n, size > n ? size - n : 0, "(%d-bit)", f->sve_bytes * 8);
}
