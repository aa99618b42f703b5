#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "buf.h"

void *gvk_buf_reserve(gvk_buf_t *b, size_t bytes)
{
	if (bytes <= b->cap) return b->p;
	/* Head-room so that a run of slowly growing requests reallocates rarely. */
	size_t cap = bytes + bytes / 2 + 4096;
	cap = (cap + 63) & ~(size_t)63;
	void *p = aligned_alloc(64, cap);
	if (!p) return NULL;
	free(b->p);
	b->p = p;
	b->cap = cap;
	return p;
}

void gvk_buf_free(gvk_buf_t *b)
{
	free(b->p);
	b->p = NULL;
	b->cap = 0;
}

void *gvk_realloc_big(void *p, size_t old_bytes, size_t bytes)
{
	const size_t huge = (size_t)2 << 20;
	if (bytes < 2 * huge || getenv("GVK_XNOTHP")) return realloc(p, bytes);
	size_t cap = (bytes + huge - 1) & ~(huge - 1);
	void *np = aligned_alloc(huge, cap);
	if (!np) return NULL;
#ifdef MADV_HUGEPAGE
	madvise(np, cap, MADV_HUGEPAGE);
#endif
	if (p) memcpy(np, p, old_bytes < bytes ? old_bytes : bytes);
	free(p);
	return np;
}
