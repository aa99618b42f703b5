/* SPDX-License-Identifier: MIT */
/* The binary tensor-core instruction the SNP GPU kernels build on: one m16n8k256 MMA with AND or
 * XOR + popc on 32-bit fragments. Device functions only (no kernel), so that bench/snp can time
 * the instruction without the library's kernels. */
#ifndef GVK_SNP_GPU_BMMA_CUH
#define GVK_SNP_GPU_BMMA_CUH

#include <stdint.h>

/* D += popc(A AND B) on the tensor cores for one m16n8k256 tile; fragments as the PTX ISA gives
 * them for .b1 (g = lane / 4, t = lane % 4): a0 = row g, 32-bit word t of the 256-bit k chunk;
 * a1 = row g + 8, word t; a2, a3 = the same rows, word t + 4; b0 = column g, word t; b1 = word
 * t + 4; d0, d1 = row g, columns 2t, 2t + 1; d2, d3 = row g + 8. tests/snp/gpu_kernel_emu.cpp
 * supplies a CPU version of this one function (GVK_SNP_EMU_MMA). */
#ifndef GVK_SNP_EMU_MMA
__device__ __forceinline__ void bmma_and(int32_t *d, const uint32_t *a, const uint32_t *b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
	             "{%0,%1,%2,%3};\n"
	             : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
	             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
	(void)d, (void)a, (void)b;
	__trap(); /* never launched below sm_80: the host picks the CUDA-core path there */
#endif
}

/* The same with XOR + popc (FastID identity scores). */
__device__ __forceinline__ void bmma_xor(int32_t *d, const uint32_t *a, const uint32_t *b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
	             "{%0,%1,%2,%3};\n"
	             : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
	             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
	(void)d, (void)a, (void)b;
	__trap();
#endif
}
#endif

#endif
