/* SPDX-License-Identifier: MIT */
/* GKL's IntelGKLUtils natives, which GKL's loaders call before loading the kernels. */
#include <unistd.h>

#include <jni.h>

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

static jboolean cpu_has(int which)
{
#ifdef JNI_X86
	__builtin_cpu_init();
	if (which == 0) return __builtin_cpu_supports("avx") != 0;
	if (which == 1) return __builtin_cpu_supports("avx2") != 0;
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
	       __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
#else
	(void)which;
	return JNI_FALSE;
#endif
}

JNIEXPORT jboolean JNICALL Java_com_intel_gkl_IntelGKLUtils_isAvxSupportedNative(JNIEnv *env, jobject self)
{
	(void)env, (void)self;
	return cpu_has(0);
}

JNIEXPORT jboolean JNICALL Java_com_intel_gkl_IntelGKLUtils_isAvx2SupportedNative(JNIEnv *env, jobject self)
{
	(void)env, (void)self;
	return cpu_has(1);
}

JNIEXPORT jboolean JNICALL Java_com_intel_gkl_IntelGKLUtils_isAvx512SupportedNative(JNIEnv *env, jobject self)
{
	(void)env, (void)self;
	return cpu_has(2);
}

/* No OpenMP here: the processors this process may use, which is what omp_get_max_threads gives
 * by default. */
JNIEXPORT jint JNICALL Java_com_intel_gkl_IntelGKLUtils_getAvailableOmpThreadsNative(JNIEnv *env, jobject self)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	(void)env, (void)self;
	return n > 0 ? (jint)n : 1;
}
