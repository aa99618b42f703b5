/* SPDX-License-Identifier: MIT */
/* Picks the Pair-HMM kernel set at run time (cpu_kernel_t: best first), and the CPU state every
 * kernel runs under. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define PHMM_X86 1
#endif
#if defined(__aarch64__)
#define PHMM_FPCR_FZ (1u << 24)
#endif

#include "pairhmm_kernel.h"
#include "../common/cpu_dispatch.h"

static const cpu_kernel_t kernels[] = {
#if defined(GVK_HAVE_AVX512)
    {GVK_ISA_AVX512, CPUF_FAMILY_AVX512, &phmm_isa_avx512, "avx512"},
#elif defined(GVK_HAVE_NEON)
#if defined(GVK_HAVE_SVE)
    {-1, CPUF_SVE | CPUF_SVE512, &phmm_isa_sve512, "sve512"},
    {-1, CPUF_SVE | CPUF_SVE256, &phmm_isa_sve256, "sve256"},
#endif
    {GVK_ISA_NEON, CPUF_NEON, &phmm_isa_neon, "neon"},
#endif
    {GVK_ISA_SCALAR, 0, &phmm_isa_scalar, "scalar"}};

CPU_DISPATCH_CALLS(phmm_isa, phmm_isa_t, kernels)

/* GKL sets the x86 FTZ bit (not DAZ); results below the smallest normal become 0. The bit is per
 * thread, so each worker sets it around its kernel calls and restores the caller's state. ARM's
 * FPCR.FZ also reads denormal operands as 0 (FTZ and DAZ together); the kernels' operands are
 * table values and earlier results, which are normal or already 0 under FZ, so the bits match. */
unsigned phmm_ftz_enter(void)
{
#if defined(PHMM_X86)
	unsigned saved = _mm_getcsr();
	_mm_setcsr(saved | _MM_FLUSH_ZERO_ON);
	return saved;
#elif defined(PHMM_FPCR_FZ)
	unsigned long saved;
	__asm__ volatile("mrs %0, fpcr" : "=r"(saved));
	__asm__ volatile("msr fpcr, %0" : : "r"(saved | PHMM_FPCR_FZ) : "memory");
	return (unsigned)saved;
#else
	return 0;
#endif
}

void phmm_ftz_leave(unsigned saved)
{
#if defined(PHMM_X86)
	_mm_setcsr(saved);
#elif defined(PHMM_FPCR_FZ)
	unsigned long v = saved;
	__asm__ volatile("msr fpcr, %0" : : "r"(v) : "memory");
#else
	(void)saved;
#endif
}
