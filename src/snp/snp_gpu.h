/* SPDX-License-Identifier: MIT */
/* Internal interface between the SNP engines and their GPU back end (snp_gpu.cu, or the
 * stub in snp_nogpu.c when the build has no CUDA). A back end computes whole stripes / database
 * sweeps with the same contracts as the CPU tile loops, so output code is shared. */
#ifndef GVK_SNP_GPU_H
#define GVK_SNP_GPU_H

#include "gvk.h"
#include "snp_data.h"
#include "ld_engine.h"
#include "fastid_engine.h"
#include "snp_gpu_opt.h"

typedef struct snp_gpu_s snp_gpu_t;

/* GPU o->gpu with the choices of o (NULL: every default); NULL with err filled when there is no
 * usable GPU (GVK_ERR_GPU), the index is not a GPU's, or the build has no CUDA
 * (GVK_ERR_UNSUPPORTED). */
snp_gpu_t *snp_gpu_open(const snp_gpu_opt_t *o, gvk_err_t *err);
void snp_gpu_close(snp_gpu_t *g);
const char *snp_gpu_name(const snp_gpu_t *g);
/* "gpu-NAME popc" or "gpu-NAME bmma": the GPU and the count kernel used last. */
const char *snp_gpu_kernel(const snp_gpu_t *g);
/* Seconds spent in kernels since the GPU was opened (CUDA events). */
double snp_gpu_kernel_seconds(const snp_gpu_t *g);
/* Host memory, page-locked where possible (copies from the GPU then run at full speed and overlap
 * kernels); NULL when out of memory. */
void *snp_gpu_host_alloc(snp_gpu_t *g, size_t bytes);
void snp_gpu_host_free(snp_gpu_t *g, void *p);
/* Opens and closes GPU o->gpu: 0 when it is usable, else the code and message of snp_gpu_open.
 * name (size bytes, may be NULL) receives "gpu-NAME". */
int snp_gpu_probe(const snp_gpu_opt_t *o, char *name, size_t size, gvk_err_t *err);

/* The device an LD or FastID engine computes on: the CPU for device cpu, the GPU when one answers
 * the probe, otherwise an error for device gpu and the CPU, silently, for auto. name receives the
 * device's name (cpu: the CPU kernel's; NULL: that kernel is not available). Returns GVK_DEVICE_CPU / _GPU or a negative code. */
int snp_choose_device(const snp_gpu_opt_t *g, int device, const char *cpu, char *name, size_t size, gvk_err_t *err);

/* Fills s->r (and s->d, s->dp when o->haplotype) for the rows and column ranges already set in s,
 * exactly as the CPU epilogue does from the same integer counts: ld_value_genotype(c, o->r2,
 * o->single) or ld_haplotype (correctly rounded sqrt and division give identical values). */
int snp_gpu_ld_stripe(snp_gpu_t *g, const snp_data_t *d, const ld_opt_t *o, ld_stripe_t *s, gvk_err_t *err);

/* --clump: c[18 k ..] receives the two-locus table of pairs[2 k] (the index) and pairs[2 k + 1] in
 * ld_em_counts' layout, over the male columns too where x[k] (X), exactly as ld_clump_r2_row counts
 * it; d's planes are made resident (once per data set). */
int snp_gpu_clump_counts(snp_gpu_t *g, const snp_data_t *d, const int64_t *pairs, const uint8_t *x, int64_t n,
                         uint32_t *c, gvk_err_t *err);
/* Forgets the planes snp_gpu_clump_counts made resident, for a caller that has rewritten them in
 * place (--clump reads one component's SNPs after another into the same buffer). */
void snp_gpu_planes_changed(snp_gpu_t *g);
/* A whole FastID search with the contract of fid_search (fastid_engine.h). */
int snp_gpu_fastid(snp_gpu_t *g, const fid_job_t *job, fid_result_t *res, gvk_err_t *err);

#endif
