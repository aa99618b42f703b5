/* SPDX-License-Identifier: MIT */
/* Picks the alignment fill kernels at run time. */
#include "align_kernel.h"

#if defined(GVK_ALIGN_X86)
static int cpu_has_avx512(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
	       __builtin_cpu_supports("avx512bw");
}

static int cpu_has_avx2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
}
#endif

const al_isa_t *al_isa_select(int isa)
{
	switch (isa) {
	case GVK_ISA_SCALAR: return &al_isa_scalar;
#ifdef GVK_ALIGN_X86
	case GVK_ISA_AVX512: return cpu_has_avx512() ? &al_isa_avx512 : NULL;
	case GVK_ISA_AVX2: return cpu_has_avx2() ? &al_isa_avx2 : NULL;
	case GVK_ISA_AUTO: return cpu_has_avx512() ? &al_isa_avx512 : cpu_has_avx2() ? &al_isa_avx2 : &al_isa_scalar;
#else
	case GVK_ISA_AUTO: return &al_isa_scalar;
#endif
	default: return NULL;
	}
}
