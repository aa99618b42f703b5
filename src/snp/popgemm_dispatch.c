/* SPDX-License-Identifier: MIT */
/* Picks the popcount-GEMM kernel set at run time. */
#include "gvk.h"
#include "../common/cpu_features.h"
#include "popgemm.h"

const pg_isa_t *pg_isa_select(int isa)
{
	switch (isa) {
	case GVK_ISA_SCALAR: return &pg_isa_scalar;
#if defined(GVK_HAVE_AVX512)
	case GVK_ISA_AVX512: return gvk_cpu_has(GVK_CPU_AVX512_POPCNT) ? &pg_isa_avx512 : NULL;
	case GVK_ISA_AUTO:
		return gvk_cpu_has(GVK_CPU_AVX512_POPCNT) ? &pg_isa_avx512 : gvk_cpu_has(GVK_CPU_POPCNT) ? &pg_isa_popcnt : &pg_isa_scalar;
#else
	case GVK_ISA_AUTO: return &pg_isa_scalar;
#endif
	default: return NULL;
	}
}
