/* SPDX-License-Identifier: MIT */
/* The align tests' GPU settings, mapped from the CLI's variables as `gvk align` maps them:
 * GVK_ALIGN_GPU_EMULATE (set: the emulation when there is no GPU) and GVK_ALIGN_GPU_CHUNK_MB. */
#ifndef GVK_TEST_GPU_ENV_H
#define GVK_TEST_GPU_ENV_H

#include <stdlib.h>

#include "gvk.h"

static void gpu_env(gvk_align_opts_t *o, int emulate)
{
	const char *mb = getenv("GVK_ALIGN_GPU_CHUNK_MB");
	o->gpu_emulate = emulate || getenv("GVK_ALIGN_GPU_EMULATE") != NULL;
	if (mb) o->gpu_chunk_mb = atoi(mb);
}

#endif
