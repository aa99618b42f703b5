/* SPDX-License-Identifier: MIT */
/* GKL's IntelGKLUtils natives, which GKL's loaders call before loading the kernels. */
#include <unistd.h>

#include <jni.h>

#include "../common/cpu_features.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define JNI_X86 1
#endif

JNIEXPORT jboolean JNICALL Java_com_intel_gkl_IntelGKLUtils_getFlushToZeroNative(JNIEnv *env, jobject self)
{
	(void)env, (void)self;
#ifdef JNI_X86
	return _MM_GET_FLUSH_ZERO_MODE() == _MM_FLUSH_ZERO_ON;
#else
	return JNI_FALSE;
#endif
}

/* Sets the calling thread's flag, as GKL does; gvk's kernels do not depend on it. */
JNIEXPORT void JNICALL Java_com_intel_gkl_IntelGKLUtils_setFlushToZeroNative(JNIEnv *env, jobject self, jboolean on)
{
	(void)env, (void)self;
#ifdef JNI_X86
	_MM_SET_FLUSH_ZERO_MODE(on ? _MM_FLUSH_ZERO_ON : _MM_FLUSH_ZERO_OFF);
#else
	(void)on;
#endif
}

static jboolean avx_level(int which)
{
#ifdef JNI_X86
	static const unsigned need[3] = {CPUF_AVX, CPUF_AVX2,
	                                 CPUF_AVX512F | CPUF_AVX512DQ | CPUF_AVX512BW | CPUF_AVX512VL};
	return cpu_has(need[which]) ? JNI_TRUE : JNI_FALSE;
#else
	(void)which;
	return JNI_FALSE;
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
