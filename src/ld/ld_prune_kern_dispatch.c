/* SPDX-License-Identifier: MIT */
/* Picks the pruning kernel set at run time (cpu_kernel_t: best first), as the LD engine's `isa`
 * asks: AVX-512 VPOPCNTDQ, POPCNT (AUTO's below it) or portable on x86-64; on aarch64 the portable
 * build, whose popcounts the compiler makes NEON's, under either name. */
#include "gvk.h"
#include "ld_prune_kern.h"
#include "../common/cpu_dispatch.h"

static const cpu_kernel_t kernels[] = {
#if defined(GVK_HAVE_AVX512)
    {GVK_ISA_AVX512, CPUF_FAMILY_AVX512POP, &prune_kern_avx512, "cpu-avx512"},
    {-1, CPUF_POPCNT, &prune_kern_popcnt, "cpu-popcnt"},
#elif defined(GVK_HAVE_NEON)
    {GVK_ISA_NEON, CPUF_NEON, &prune_kern_portable, "cpu-neon"},
#endif
    {GVK_ISA_SCALAR, 0, &prune_kern_portable, "cpu-scalar"}};
enum { N_KERNELS = sizeof kernels / sizeof kernels[0] };

const prune_kern_t *prune_kern_pick(int isa)
{
	const prune_kern_t *k = cpu_kernel_pick(kernels, N_KERNELS, isa);
	return k ? k : &prune_kern_portable; /* the engine refused such a request before */
}
