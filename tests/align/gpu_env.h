/* SPDX-License-Identifier: MIT */
/* The align tests' GPU settings, mapped from the CLI's variables as `gvk align` maps them:
 * GVK_ALIGN_GPU_EMULATE (set: the emulation when there is no GPU) and GVK_ALIGN_GPU_CHUNK_MB. */
#ifndef GVK_TEST_GPU_ENV_H
#define GVK_TEST_GPU_ENV_H

#include <stdlib.h>

#include "gvk.h"
#include "align/align_engine.h"

/* An engine with the variables' settings (emulate: the emulation even without the variable; a
 * chunk size already in o stays). */
static gvk_align_t *gpu_env_create(gvk_align_opts_t *o, int emulate, gvk_err_t *err)
{
	const char *mb = getenv("GVK_ALIGN_GPU_CHUNK_MB");
	if (mb && o->gpu_chunk_mb == 0) o->gpu_chunk_mb = atoi(mb);
	gvk_align_t *e = al_create(o, emulate || getenv("GVK_ALIGN_GPU_EMULATE") != NULL, err);
	/* The GPU kernels' tests give the GPU every pair it takes; test_align_gpu's assist argument
	 * turns the CPU assist back on. */
	if (e) al_set_cpu_assist(e, 0);
	return e;
}

#endif
