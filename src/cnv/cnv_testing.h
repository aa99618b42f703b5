/* SPDX-License-Identifier: MIT */
/* The CNV engine's test-only settings, kept out of gvk.h: gvk cnv maps GVK_CNV_GPU_CHUNK and
 * GVK_CNV_FORCE_REDO to them, as gvk align maps GVK_ALIGN_GPU_EMULATE to its own. */
#ifndef GVK_CNV_TESTING_H
#define GVK_CNV_TESTING_H

#include <stddef.h>
#include "gvk.h"

/* GPU EM chunks of gpu_chunk_regions regions (0: sized to the free device memory; the streaming's
 * tests), and force_redo 1 to take the near-tie redo path after a CPU EM too (nothing may
 * change). */
void cnv_set_testing(gvk_cnv_t *e, size_t gpu_chunk_regions, int force_redo);

#endif
