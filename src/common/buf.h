/* Growable scratch memory, 64-byte aligned, that kernels keep between calls. */
#ifndef GVK_COMMON_BUF_H
#define GVK_COMMON_BUF_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
	void *p;
	size_t cap;
} gvk_buf_t;

/* At least `bytes` bytes (old contents not kept); NULL when out of memory. */
void *gvk_buf_reserve(gvk_buf_t *b, size_t bytes);
void gvk_buf_free(gvk_buf_t *b);

/* realloc for arrays that grow to megabytes: from 4 MiB on, the new block is 2 MiB-aligned and
 * asks for transparent huge pages before it is touched, so that filling it takes few page faults
 * and the process's exit frees few pages. old_bytes of p are kept; free() releases the result. */
void *gvk_realloc_big(void *p, size_t old_bytes, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
