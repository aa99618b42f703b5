/* SPDX-License-Identifier: MIT */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "cli_env.h"
#include "snp_gpu_env.h"

/* A count >= 0 from variable name into *v; left as it is when unset or empty. */
static int env_count(const char *cmd, const char *name, int64_t *v)
{
	long x = (long)*v;
	if (cli_env_long(cmd, name, 0, LONG_MAX, &x) < 0) return -1;
	*v = x;
	return 0;
}

int snp_gpu_env(const char *cmd, snp_gpu_env_t *v)
{
	const char *s = getenv("GVK_SNP_GPU_PATH");
	if (s && *s) {
		if (!strcmp(s, "auto")) v->path = GVK_SNP_PATH_AUTO;
		else if (!strcmp(s, "popc")) v->path = GVK_SNP_PATH_POPC;
		else if (!strcmp(s, "mma")) v->path = GVK_SNP_PATH_MMA;
		else return fprintf(stderr, "gvk %s: GVK_SNP_GPU_PATH must be auto, popc or mma, not '%s'\n", cmd, s), -1;
	}
	int64_t mem = (int64_t)v->mem;
	if (env_count(cmd, "GVK_SNP_GPU_MEM", &mem) < 0 || env_count(cmd, "GVK_SNP_GPU_DB_BLOCK", &v->db_block) < 0 ||
	    env_count(cmd, "GVK_SNP_GPU_QBATCH", &v->q_batch) < 0)
		return -1;
	v->mem = (size_t)mem;
	return 0;
}
