/* SPDX-License-Identifier: MIT */
/* The environment variables gvk ld and gvk fastid document for their GPU back end, read into the
 * options the library takes (the library itself reads no environment). */
#ifndef GVK_CLI_SNP_GPU_ENV_H
#define GVK_CLI_SNP_GPU_ENV_H

#include "../snp/snp_gpu_opt.h"

/* GVK_SNP_GPU_PATH (auto, popc or mma: the count kernel), GVK_SNP_GPU_MEM (bytes of GPU memory to
 * plan with), GVK_SNP_GPU_DB_BLOCK and GVK_SNP_GPU_QBATCH (FastID profiles per device block and
 * queries per batch) into o, unset or empty ones left at o's values, and the process log default
 * into o->log. -1 with a message on stderr (prefixed "gvk CMD: ") for a value that is not one. */
int snp_gpu_env(const char *cmd, snp_gpu_opt_t *o);

#endif
