/* SPDX-License-Identifier: MIT */
/* The popcount peaks bench_snp relates its GPU rows to, measured on the GPU it benchmarks. */
#ifndef GVK_BENCH_SNP_PEAK_H
#define GVK_BENCH_SNP_PEAK_H

#include "gvk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* AND-popcount bit operations per second on GPU gpu: independent chains of 64-bit AND + __popcll
 * + add on the CUDA cores (popc), m16n8k256 AND-popc MMAs on the tensor cores (mma). 0 or a
 * negative code with err filled (GVK_ERR_UNSUPPORTED in a build without CUDA). */
int snp_peak(int gpu, double *popc, double *mma, gvk_err_t *err);

#ifdef __cplusplus
}
#endif

#endif
