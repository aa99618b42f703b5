/* SPDX-License-Identifier: MIT */
/* What the Pair-HMM GPU kernels (pairhmm_gpu_kernel.cuh) and their host side agree on: a pair's
 * record and the block size. Apart from the kernels so that the host files that pack and launch
 * (pairhmm_gpu_pack.cu, pairhmm_gpu_pass.cu) need not compile them: the kernels are compiled and
 * loaded in pairhmm_gpu.cu alone. */
#ifndef GVK_PAIRHMM_GPU_PAIR_H
#define GVK_PAIRHMM_GPU_PAIR_H

#include <stdint.h>

/* One pair as the kernel sees it: offsets into the read blob (bases then the 4 quality arrays,
 * R bytes each) and the haplotype blob (base classes 0..4, H bytes), and where its sum goes in
 * the output (the pair's place in the pass when the pass is one sub-batch, so that the host
 * needs no scatter). */
typedef struct {
	uint32_t roff, hoff;
	int32_t R, H;
	uint32_t out;
} phmm_gpu_pair_t;

#ifndef PHMM_GPU_BLOCK
#define PHMM_GPU_BLOCK 32
#endif

#endif
