/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

char *gvk_concat(const char *a, const char *b)
{
	const size_t n = strlen(a) + strlen(b) + 1;
	char *p = malloc(n);
	if (p) snprintf(p, n, "%s%s", a, b);
	return p;
}
