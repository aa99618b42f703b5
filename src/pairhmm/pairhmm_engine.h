/* SPDX-License-Identifier: MIT */
/* Internal interface between the Pair-HMM engine and its GPU back end (pairhmm_gpu.cu, or the
 * stub in pairhmm_nogpu.c when the build has no CUDA). */
#ifndef GVK_PAIRHMM_ENGINE_H
#define GVK_PAIRHMM_ENGINE_H

#include <stddef.h>
#include "gvk.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct phmm_gpu_s phmm_gpu_t;

/* Visible CUDA GPUs; 0 when there are none. */
int phmm_gpu_count(void);

/* NULL with err filled when there is no usable GPU (opt->gpu: all of them, or that one). */
phmm_gpu_t *phmm_gpu_open(const gvk_pairhmm_opts_t *opt, gvk_err_t *err);
void phmm_gpu_close(phmm_gpu_t *g);
const char *phmm_gpu_name(const phmm_gpu_t *g);

/* One precision pass over pairs[sel[k]] (sel NULL: pairs[k]), writing fsum or dsum at the pair's
 * own index; the same contract as the CPU kernels. */
int phmm_gpu_pass(phmm_gpu_t *g, const gvk_read_t *reads, const gvk_hap_t *haps, const gvk_pair_t *pairs,
                  const size_t *sel, size_t n, int dbl, float *fsum, double *dsum, gvk_err_t *err);

/* Seconds the GPU spent in kernels so far. */
double phmm_gpu_kernel_seconds(const phmm_gpu_t *g);

/* Final log10 values from raw sums (docs/pairhmm.md, Semantics 7), with the host C library as GKL does. */
double phmm_final_float(float s);
double phmm_final_double(double s);

#ifdef __cplusplus
}
#endif

#endif
