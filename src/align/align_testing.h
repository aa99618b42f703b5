/* SPDX-License-Identifier: MIT */
/* The align engine's test-only setting, kept out of gvk.h: gvk align maps GVK_ALIGN_GPU_EMULATE
 * to it, as gvk cnv maps its own through cnv_testing.h. */
#ifndef GVK_ALIGN_TESTING_H
#define GVK_ALIGN_TESTING_H

#include "gvk.h"

/* gvk_align_create, and with emulate 1 the GPU back end's per-pair code and chunk pipeline run on
 * the CPU ("gpu-emulated") where device gpu or auto finds no usable GPU. */
gvk_align_t *al_create(const gvk_align_opts_t *opt, int emulate, gvk_err_t *err);

#endif
