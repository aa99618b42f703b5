/* SPDX-License-Identifier: MIT */
/* Internal interface between the alignment engine and its GPU back end (a later align_gpu.cu, or
 * the stub in align_nogpu.c). A back end takes a whole validated batch and returns, per pair, the
 * end cell, its score and the CIGAR elements; CIGAR text and the substring shortcut stay on the
 * host, shared with the CPU path. */
#ifndef GVK_ALIGN_ENGINE_H
#define GVK_ALIGN_ENGINE_H

#include <stddef.h>
#include "align_kernel.h"

typedef struct al_gpu_s al_gpu_t;

/* CIGAR elements of a batch, appended pair by pair (the back end knows counts only when a chunk
 * is back). */
typedef struct {
	al_elem_t *p;
	size_t n, cap;
} al_elems_t;

/* Room for `count` more elements at el->p + el->n (not yet counted in el->n); NULL if out of memory. */
al_elem_t *al_elems_room(al_elems_t *el, size_t count);

/* NULL with err filled when there is no usable GPU. */
al_gpu_t *al_gpu_open(const gvk_align_opts_t *opt, gvk_err_t *err);
void al_gpu_close(al_gpu_t *g);
const char *al_gpu_name(const al_gpu_t *g);
/* Kernel time of the last al_gpu_align call (seconds). */
double al_gpu_kernel_seconds(const al_gpu_t *g);

/* Aligns jobs[k] for k < n: elements of pair k appended to el at el_at[k], their count in ne[k],
 * offset and score. */
int al_gpu_align(al_gpu_t *g, const al_job_t *jobs, size_t n, int java, al_elems_t *el, size_t *el_at, int *ne,
                 int32_t *offset, int32_t *score, gvk_err_t *err);

#endif
