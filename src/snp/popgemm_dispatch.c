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
#elif defined(GVK_HAVE_NEON)
	case GVK_ISA_NEON: return cpu_has(CPUF_NEON) ? &pg_isa_neon : NULL;
	case GVK_ISA_AUTO: return cpu_has(CPUF_NEON) ? &pg_isa_neon : &pg_isa_scalar;
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

int pg_isa_note(const pg_isa_t *k, int isa, char *buf, size_t size)
{
	if (isa != GVK_ISA_AUTO) return cpu_kernel_note(buf, size, k->name, NULL, 0);
#if defined(GVK_HAVE_AVX512)
	if (k == &pg_isa_popcnt) return cpu_kernel_note(buf, size, k->name, "cpu-avx512", CPUF_FAMILY_AVX512POP);
	if (k == &pg_isa_scalar) return cpu_kernel_note(buf, size, k->name, "cpu-popcnt", CPUF_POPCNT);
#elif defined(GVK_HAVE_NEON)
	if (k == &pg_isa_scalar) return cpu_kernel_note(buf, size, k->name, "cpu-neon", CPUF_NEON);
#endif
	return cpu_kernel_note(buf, size, k->name, NULL, 0);
}
