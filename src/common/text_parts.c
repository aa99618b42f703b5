/* SPDX-License-Identifier: MIT */
#include <stdlib.h>

#include "text_parts.h"
#include "err.h"
#include "threads.h"

enum { MAX_OUT = 2 };

typedef struct {
	int n_out, nt;
	int64_t n;
	gvk_text_item_fn fn;
	void *arg;
	char **text; /* nt x n_out: each part's text per output */
	size_t *len;
	int failed;  /* (atomic) */
} parts_t;

static void part_worker(void *arg, int tid)
{
	parts_t *p = arg;
	FILE *fp[MAX_OUT] = {NULL};
	int ok = 1;
	for (int q = 0; q < p->n_out; ++q) {
		size_t at = (size_t)tid * (size_t)p->n_out + (size_t)q;
		if (!(fp[q] = open_memstream(&p->text[at], &p->len[at]))) ok = 0;
	}
	for (int64_t k = p->n * tid / p->nt, e = p->n * (tid + 1) / p->nt; ok && k < e; ++k) p->fn(p->arg, k, fp);
	for (int q = 0; q < p->n_out; ++q) {
		if (fp[q] && ferror(fp[q])) ok = 0;
		if (fp[q] && fclose(fp[q]) != 0) ok = 0;
	}
	if (!ok) __atomic_store_n(&p->failed, 1, __ATOMIC_RELAXED);
}

int gvk_text_parts(FILE **out, int n_out, int64_t n, int nt, int64_t min_part, gvk_text_item_fn fn, void *arg)
{
	if (n_out < 1 || n_out > MAX_OUT) return GVK_ERR_ARG;
	if (nt < 1) nt = 1;
	if (min_part > 0 && nt > 1 + n / min_part) nt = (int)(1 + n / min_part);
	size_t m = (size_t)nt * (size_t)n_out;
	parts_t p = {n_out, nt, n, fn, arg, calloc(m, sizeof(char *)), calloc(m, sizeof(size_t)), 0};
	int rc = p.text && p.len ? 0 : GVK_ERR_NOMEM;
	if (rc == 0) gvk_parallel(nt, part_worker, &p);
	if (rc == 0 && p.failed) rc = GVK_ERR_NOMEM; /* a stream in memory refuses only for want of it */
	for (int t = 0; rc == 0 && t < nt; ++t)
		for (int q = 0; q < n_out; ++q) {
			size_t at = (size_t)t * (size_t)n_out + (size_t)q;
			if (p.len[at] && fwrite(p.text[at], 1, p.len[at], out[q]) != p.len[at]) rc = GVK_ERR_IO;
		}
	for (size_t k = 0; p.text && k < m; ++k) free(p.text[k]);
	free(p.text), free(p.len);
	return rc;
}
