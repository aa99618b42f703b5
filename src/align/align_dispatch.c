/* SPDX-License-Identifier: MIT */
/* Picks the alignment fill kernels at run time. */
#include "align_kernel.h"
#include "../common/cpu_features.h"

const al_isa_t *al_isa_select(int isa)
{
	switch (isa) {
	case GVK_ISA_SCALAR: return &al_isa_scalar;
#ifdef GVK_HAVE_AVX512
	case GVK_ISA_AVX512: return cpu_has(CPUF_FAMILY_AVX512) ? &al_isa_avx512 : NULL;
	case GVK_ISA_AVX2: return cpu_has(CPUF_AVX2) ? &al_isa_avx2 : NULL;
	case GVK_ISA_AUTO: return cpu_has(CPUF_FAMILY_AVX512) ? &al_isa_avx512 : cpu_has(CPUF_AVX2) ? &al_isa_avx2 : &al_isa_scalar;
#else
	case GVK_ISA_AUTO: return &al_isa_scalar;
#endif
	default: return NULL;
	}
}
