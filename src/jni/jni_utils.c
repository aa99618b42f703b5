/* SPDX-License-Identifier: MIT */
/* GKL's IntelGKLUtils natives, which GKL's loaders call before loading the kernels. */
#include <unistd.h>

#include <jni.h>

#include "../common/cpu_features.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define JNI_X86 1
#elif defined(__aarch64__)
#define JNI_FPCR_FZ (1ul << 24)
static unsigned long fpcr_get(void)
{
	unsigned long v;
	__asm__ volatile("mrs %0, fpcr" : "=r"(v));
	return v;
}
static void fpcr_set(unsigned long v)
{
	__asm__ volatile("msr fpcr, %0" : : "r"(v) : "memory");
}
#endif

JNIEXPORT jboolean JNICALL Java_com_intel_gkl_IntelGKLUtils_getFlushToZeroNative(JNIEnv *env, jobject self)
{
	(void)env, (void)self;
#if defined(JNI_X86)
	return _MM_GET_FLUSH_ZERO_MODE() == _MM_FLUSH_ZERO_ON;
#elif defined(JNI_FPCR_FZ)
	return (fpcr_get() & JNI_FPCR_FZ) != 0;
#else
	return JNI_FALSE;
#endif
}

/* Sets the calling thread's flag, as GKL does (on aarch64 FPCR.FZ, which also reads denormal
 * operands as 0); gvk's kernels do not depend on it. */
JNIEXPORT void JNICALL Java_com_intel_gkl_IntelGKLUtils_setFlushToZeroNative(JNIEnv *env, jobject self, jboolean on)
{
	(void)env, (void)self;
#if defined(JNI_X86)
	_MM_SET_FLUSH_ZERO_MODE(on ? _MM_FLUSH_ZERO_ON : _MM_FLUSH_ZERO_OFF);
#elif defined(JNI_FPCR_FZ)
	fpcr_set(on ? fpcr_get() | JNI_FPCR_FZ : fpcr_get() & ~JNI_FPCR_FZ);
#else
	(void)on;
#endif
}

/* GKL's Java loaders ask these before loading a kernel library: the Pair-HMM needs AVX, the
 * Smith-Waterman AVX and AVX2, and AVX-512 only changes a log line. On x86 the CPU's real flags
 * (a pre-AVX2 machine falls back to GATK's Java code, as with GKL). Elsewhere gvk's own kernels
 * run whatever the CPU, so AVX and AVX2 are reported present and AVX-512 absent: that is what
 * lets GATK on ARM load gvk instead of refusing (docs/gatk.md, ARM). */
static jboolean avx_level(int which)
{
#ifdef JNI_X86
	static const unsigned need[3] = {CPUF_AVX, CPUF_AVX2,
	                                 CPUF_AVX512F | CPUF_AVX512DQ | CPUF_AVX512BW | CPUF_AVX512VL};
	return cpu_has(need[which]) ? JNI_TRUE : JNI_FALSE;
#else
	return (jboolean)(which < 2);
#endif
}

JNIEXPORT jboolean JNICALL Java_com_intel_gkl_IntelGKLUtils_isAvxSupportedNative(JNIEnv *env, jobject self)
{
	(void)env, (void)self;
	return avx_level(0);
}

JNIEXPORT jboolean JNICALL Java_com_intel_gkl_IntelGKLUtils_isAvx2SupportedNative(JNIEnv *env, jobject self)
{
	(void)env, (void)self;
	return avx_level(1);
}

JNIEXPORT jboolean JNICALL Java_com_intel_gkl_IntelGKLUtils_isAvx512SupportedNative(JNIEnv *env, jobject self)
{
	(void)env, (void)self;
	return avx_level(2);
}

/* No OpenMP here: the processors this process may use, which is what omp_get_max_threads gives
 * by default. */
JNIEXPORT jint JNICALL Java_com_intel_gkl_IntelGKLUtils_getAvailableOmpThreadsNative(JNIEnv *env, jobject self)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	(void)env, (void)self;
	return n > 0 ? (jint)n : 1;
}
