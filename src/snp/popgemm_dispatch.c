/* SPDX-License-Identifier: MIT */
/* Picks the popcount-GEMM kernel set at run time (cpu_kernel_t: best first). SCALAR is the portable
 * build, whatever the CPU; the POPCNT build is AUTO's below AVX-512, the SVE one AUTO's above NEON
 * on CPUs with 256- or 512-bit SVE vectors. */
#include "gvk.h"
#include "popgemm.h"
#include "../common/cpu_dispatch.h"

static const cpu_kernel_t kernels[] = {
#if defined(GVK_HAVE_AVX512)
    {GVK_ISA_AVX512, CPUF_FAMILY_AVX512POP, &pg_isa_avx512, "cpu-avx512"},
    {-1, CPUF_POPCNT, &pg_isa_popcnt, "cpu-popcnt"},
#elif defined(GVK_HAVE_NEON)
#if defined(GVK_HAVE_SVE)
    /* the same set at either length (so that a 256-bit CPU passes nothing over); at 128 bits SVE
     * has NEON's width and NEON serves; no CPU has longer vectors yet */
    {-1, CPUF_SVE | CPUF_SVE512, &pg_isa_sve, "cpu-sve"},
    {-1, CPUF_SVE | CPUF_SVE256, &pg_isa_sve, "cpu-sve"},
#endif
    {GVK_ISA_NEON, CPUF_NEON, &pg_isa_neon, "cpu-neon"},
#endif
    {GVK_ISA_SCALAR, 0, &pg_isa_scalar, "cpu-scalar"}};

CPU_DISPATCH_CALLS(pg_isa, pg_isa_t, kernels)

const pg_isa_t *pg_isa_word(void)
{
#if defined(GVK_HAVE_AVX512)
	return cpu_has(CPUF_POPCNT) ? &pg_isa_popcnt : NULL;
#else
	return NULL;
#endif
}
