/* SPDX-License-Identifier: MIT */
/* Growable scratch memory, 64-byte aligned, that kernels keep between calls; and strings made
 * whole from parts. */
#ifndef GVK_COMMON_BUF_H
#define GVK_COMMON_BUF_H

#include <stddef.h>

typedef struct {
	void *p;
	size_t cap;
} gvk_buf_t;

#ifdef __cplusplus
extern "C" {
#endif

/* At least `bytes` bytes (old contents not kept); NULL when out of memory. */
void *gvk_buf_reserve(gvk_buf_t *b, size_t bytes);
void gvk_buf_free(gvk_buf_t *b);

#ifdef __cplusplus
}
#endif

/* A new string, a followed by b (a path and its extension); the caller frees it; NULL when out of
 * memory. */
char *gvk_concat(const char *a, const char *b);

#endif
