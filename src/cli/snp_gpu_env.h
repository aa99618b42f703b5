/* SPDX-License-Identifier: MIT */
/* The environment variables gvk ld and gvk fastid document for their GPU back end, read into the
 * values the public options take (the library itself reads no environment). */
#ifndef GVK_CLI_SNP_GPU_ENV_H
#define GVK_CLI_SNP_GPU_ENV_H

#include <stddef.h>
#include <stdint.h>

/* The gpu_* fields of gvk_fastid_opts_t (gpu_path, gpu_mem, gpu_db_block, gpu_q_batch); gvk ld
 * takes path and mem. */
typedef struct {
	int path;         /* gvk_snp_path_t */
	size_t mem;       /* bytes of GPU memory to plan with; 0: what is free */
	int64_t db_block; /* FastID profiles per device block; 0: from memory */
	int64_t q_batch;  /* FastID queries per batch; 0: automatic */
} snp_gpu_env_t;

/* GVK_SNP_GPU_PATH (auto, popc or mma: the count kernel), GVK_SNP_GPU_MEM (bytes of GPU memory to
 * plan with), GVK_SNP_GPU_DB_BLOCK and GVK_SNP_GPU_QBATCH (FastID profiles per device block and
 * queries per batch) into v, unset or empty ones left at v's values. -1 with a message on stderr
 * (prefixed "gvk CMD: ") for a value that is not one. */
int snp_gpu_env(const char *cmd, snp_gpu_env_t *v);

#endif
