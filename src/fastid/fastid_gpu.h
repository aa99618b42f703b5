/* SPDX-License-Identifier: MIT */
/* FastID's GPU back end (fastid_gpu.cu, or the stub in fastid_nogpu.c when the build has no CUDA),
 * on the SNP engines' GPU context (snp/snp_gpu.h). */
#ifndef GVK_FASTID_GPU_H
#define GVK_FASTID_GPU_H

#include "../snp/snp_gpu.h"
#include "fastid_engine.h"

/* A whole FastID search with the contract of fid_search (fastid_engine.h). */
int snp_gpu_fastid(snp_gpu_t *g, const fid_job_t *job, fid_result_t *res, gvk_err_t *err);

#endif
