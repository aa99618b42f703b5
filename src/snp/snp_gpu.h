/* SPDX-License-Identifier: MIT */
/* The GPU context the SNP engines share (snp_gpu.cu, or the stub in snp_nogpu.c when the build has
 * no CUDA): opening a GPU, its name and kernel time, page-locked host memory, and the device choice
 * of the LD and FastID engines. Each engine's GPU work is its own (ld/ld_gpu.h,
 * fastid/fastid_gpu.h), with the same contracts as its CPU tile loops, so output code is shared. */
#ifndef GVK_SNP_GPU_H
#define GVK_SNP_GPU_H

#include "gvk.h"
#include "snp_data.h"
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
/* The options every SNP engine shares (gvk_ld_opts_t, gvk_fastid_opts_t): 0, or GVK_ERR_ARG with
 * a message naming the field. */
int snp_opts_check(int threads, int device, int isa, int gpu, int gpu_path, gvk_err_t *err);
/* A zeroed engine object of bytes for the device snp_choose_device picks (*chosen, name), or NULL
 * with err set; freed with free(). */
void *snp_engine_alloc(size_t bytes, const snp_gpu_opt_t *g, int device, const char *cpu, int *chosen, char *name,
                       size_t size, gvk_err_t *err);

#endif
