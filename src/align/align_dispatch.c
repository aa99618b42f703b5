/* SPDX-License-Identifier: MIT */
/* Picks the alignment fill kernels at run time. */
#include "../common/cpu_features.h"
#include "align_kernel.h"

const al_isa_t *al_isa_select(int isa)
{
	switch (isa) {
	case GVK_ISA_SCALAR: return &al_isa_scalar;
#ifdef GVK_ALIGN_X86
	case GVK_ISA_AVX512: return gvk_cpu_has(GVK_CPU_AVX512_CORE) ? &al_isa_avx512 : NULL;
	case GVK_ISA_AVX2: return gvk_cpu_has(GVK_CPU_AVX2) ? &al_isa_avx2 : NULL;
	case GVK_ISA_AUTO:
		return gvk_cpu_has(GVK_CPU_AVX512_CORE) ? &al_isa_avx512 : gvk_cpu_has(GVK_CPU_AVX2) ? &al_isa_avx2 : &al_isa_scalar;
#else
	case GVK_ISA_AUTO: return &al_isa_scalar;
#endif
	default: return NULL;
	}
}
