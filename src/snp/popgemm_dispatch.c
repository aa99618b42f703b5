/* SPDX-License-Identifier: MIT */
/* Picks the popcount-GEMM kernel set at run time. SCALAR is the portable build, whatever the CPU. */
#include "gvk.h"
#include "popgemm.h"
#include "../common/cpu_features.h"

const pg_isa_t *pg_isa_select(int isa)
{
	switch (isa) {
	case GVK_ISA_SCALAR: return &pg_isa_scalar;
#if defined(GVK_HAVE_AVX512)
	case GVK_ISA_AVX512: return cpu_has(CPUF_FAMILY_AVX512POP) ? &pg_isa_avx512 : NULL;
	case GVK_ISA_AUTO: return cpu_has(CPUF_FAMILY_AVX512POP) ? &pg_isa_avx512 : cpu_has(CPUF_POPCNT) ? &pg_isa_popcnt : &pg_isa_scalar;
#else
	case GVK_ISA_AUTO: return &pg_isa_scalar;
#endif
	default: return NULL;
	}
}

const pg_isa_t *pg_isa_word(void)
{
#if defined(GVK_HAVE_AVX512)
	return cpu_has(CPUF_POPCNT) ? &pg_isa_popcnt : NULL;
#else
	return NULL;
#endif
}
