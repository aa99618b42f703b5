/* SPDX-License-Identifier: MIT */
/* Picks the Pair-HMM kernel set at run time, and the CPU state every kernel runs under. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define PHMM_X86 1
#endif

#include "pairhmm_kernel.h"
#include "../common/cpu_features.h"

const phmm_isa_t *phmm_isa_select(int isa)
{
	switch (isa) {
	case GVK_ISA_SCALAR: return &phmm_isa_scalar;
#ifdef GVK_HAVE_AVX512
	case GVK_ISA_AVX512: return cpu_has(CPUF_FAMILY_AVX512) ? &phmm_isa_avx512 : NULL;
	case GVK_ISA_AUTO: return cpu_has(CPUF_FAMILY_AVX512) ? &phmm_isa_avx512 : &phmm_isa_scalar;
#else
	case GVK_ISA_AUTO: return &phmm_isa_scalar;
#endif
	default: return NULL;
	}
}

/* GKL sets the x86 FTZ bit (not DAZ); results below the smallest normal become 0. The bit is per
 * thread, so each worker sets it around its kernel calls and restores the caller's state. */
unsigned phmm_ftz_enter(void)
{
#ifdef PHMM_X86
	unsigned saved = _mm_getcsr();
	_mm_setcsr(saved | _MM_FLUSH_ZERO_ON);
	return saved;
#elif defined(__aarch64__)
	/* FPCR.FZ (bit 24) flushes denormal results, and denormal inputs too; the kernel's inputs are
	 * normal numbers and, with FZ, so is everything it computes, so only the results' flush shows,
	 * as with x86's FTZ. */
	uint64_t saved;
	__asm__ volatile("mrs %0, fpcr" : "=r"(saved));
	__asm__ volatile("msr fpcr, %0" : : "r"(saved | (UINT64_C(1) << 24)));
	return (unsigned)saved;
#else
	return 0;
#endif
}

void phmm_ftz_leave(unsigned saved)
{
#ifdef PHMM_X86
	_mm_setcsr(saved);
#elif defined(__aarch64__)
	__asm__ volatile("msr fpcr, %0" : : "r"((uint64_t)saved));
#else
	(void)saved;
#endif
}
