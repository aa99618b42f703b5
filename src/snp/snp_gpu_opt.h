/* SPDX-License-Identifier: MIT */
/* What the SNP engines' callers choose about the GPU back end (snp_gpu.h): which GPU, which count
 * kernel, and limits that tests and benchmarks lower to reach the streaming and blocking paths.
 * Carried in ld_opt_t and fid_job_t; zeroed means every default. */
#ifndef GVK_SNP_GPU_OPT_H
#define GVK_SNP_GPU_OPT_H

#include <stddef.h>
#include <stdint.h>
#include "gvk.h"

typedef struct {
	int gpu;          /* CUDA device index */
	int path;         /* gvk_snp_path_t: count kernel, AUTO = both timed on the first chunk */
	size_t mem;       /* plan with at most this much GPU memory (bytes); 0 = what the GPU has free */
	int64_t db_block; /* FastID: database profiles per device block; 0 = from memory */
	int64_t q_batch;  /* FastID: queries per batch; 0 = automatic */
	gvk_log_t log;    /* notes (a kernel that cannot be used); zeroed: dropped */
} snp_gpu_opt_t;

#endif
