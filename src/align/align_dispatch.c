/* SPDX-License-Identifier: MIT */
/* Picks the alignment fill kernels at run time (cpu_kernel_t: best first). */
#include "align_kernel.h"
#include "../common/cpu_dispatch.h"

static const cpu_kernel_t kernels[] = {
#if defined(GVK_HAVE_AVX512)
    {GVK_ISA_AVX512, CPUF_FAMILY_AVX512, &al_isa_avx512, "avx512"},
    {GVK_ISA_AVX2, CPUF_AVX2, &al_isa_avx2, "avx2"},
#elif defined(GVK_HAVE_NEON)
    {GVK_ISA_NEON, CPUF_NEON, &al_isa_neon, "neon"},
#endif
    {GVK_ISA_SCALAR, 0, &al_isa_scalar, "scalar"}};

CPU_DISPATCH_CALLS(al_isa, al_isa_t, kernels)
