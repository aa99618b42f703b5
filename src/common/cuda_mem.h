/* SPDX-License-Identifier: MIT */
/* Growable device and pinned host buffers of the GPU back ends. */
#ifndef GVK_COMMON_CUDA_MEM_H
#define GVK_COMMON_CUDA_MEM_H

#include <stddef.h>
#include "err.h"
#include "gvk.h" /* gvk_gpu_wait_t */

#ifdef __cplusplus
extern "C" {
#endif

/* Where a buffer lives: GPU memory (cudaMalloc) or page-locked host memory (registered with
 * cudaHostRegister), which copies to and from the GPU need to run asynchronously. */
typedef enum { GVK_MEM_DEVICE = 0, GVK_MEM_PINNED = 1 } gvk_mem_t;

/* How a buffer grows past its capacity. Pinning host memory is slow, even on huge pages, so
 * buffers that grow often should not grow by the byte. */
typedef enum {
	GVK_GROW_EXACT = 0,   /* to the bytes asked for */
	GVK_GROW_QUARTER = 1, /* a quarter more than asked for */
	GVK_GROW_POW2 = 2     /* min, doubled until it holds the bytes asked for */
} gvk_grow_t;

/* Makes *p (capacity *cap, 0 for none yet) hold at least need bytes of `kind` memory; the old
 * contents are not kept. Returns 0, or GVK_ERR_NOMEM / GVK_ERR_GPU with err naming `what`; on
 * failure *p is NULL and *cap 0. The caller owns *p and frees it with gvk_cuda_free (never with
 * cudaFreeHost: pinned buffers are registered huge-page memory, not cudaMallocHost's). */
/* How a thread waiting for the GPU spends the wait (cudaSetDeviceFlags), for every visible GPU of
 * the process; before the first GPU use (the flags of a context already made stay). */
int gvk_cuda_set_wait(gvk_gpu_wait_t mode, gvk_err_t *err);

int gvk_cuda_reserve(void **p, size_t *cap, size_t need, gvk_mem_t kind, gvk_grow_t grow, size_t min,
                     const char *what, gvk_err_t *err);
void gvk_cuda_free(void **p, size_t *cap, gvk_mem_t kind);
/* The current device's address of pinned memory from gvk_cuda_reserve (registered mapped), for
 * kernels that write a few results straight to the host; NULL when there is none (then copy). */
void *gvk_cuda_device_view(void *host);

#ifdef __cplusplus
}
#endif

#endif
