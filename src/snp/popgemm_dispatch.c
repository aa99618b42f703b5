/* SPDX-License-Identifier: MIT */
/* Picks the popcount-GEMM kernel set at run time. */
#include "gvk.h"
#include "popgemm.h"

#if defined(GVK_HAVE_AVX512)
static int cpu_has(int avx512)
{
	__builtin_cpu_init();
	if (avx512)
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq") &&
		       __builtin_cpu_supports("bmi2");
	return __builtin_cpu_supports("popcnt");
}
#endif

const pg_isa_t *pg_isa_select(int isa)
{
	switch (isa) {
	case GVK_ISA_SCALAR:
#if defined(GVK_HAVE_AVX512)
		return cpu_has(0) ? &pg_isa_popcnt : &pg_isa_scalar;
	case GVK_ISA_AVX512: return cpu_has(1) ? &pg_isa_avx512 : NULL;
	case GVK_ISA_AUTO: return cpu_has(1) ? &pg_isa_avx512 : cpu_has(0) ? &pg_isa_popcnt : &pg_isa_scalar;
#else
	case GVK_ISA_AUTO: return &pg_isa_scalar;
#endif
	default: return NULL;
	}
}
