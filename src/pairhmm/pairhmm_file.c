/* SPDX-License-Identifier: MIT */
/* gvk_pairhmm_file: a whole Pair-HMM input file through one engine, for callers (the Python
 * package) that have a path rather than arrays. */
#include <stdlib.h>
#include <string.h>

#include "../common/err.h"
#include "pairhmm_io.h"

/* Pairs read and computed per step; bounds the chunk's memory, not the result's. */
#define FILE_CHUNK_PAIRS 65536

void gvk_pairhmm_file_result_free(gvk_pairhmm_file_result_t *r)
{
	if (!r) return;
	free(r->log10), free(r->used_double), free(r->group), free(r->read), free(r->hap);
	free(r);
}

static int result_grow(gvk_pairhmm_file_result_t *r, size_t *cap, size_t need)
{
	if (need <= *cap) return 0;
	size_t c = *cap ? *cap : FILE_CHUNK_PAIRS;
	while (c < need) c *= 2;
	void *p;
	if (!(p = realloc(r->log10, c * sizeof *r->log10))) return GVK_ERR_NOMEM;
	r->log10 = p;
	if (!(p = realloc(r->used_double, c * sizeof *r->used_double))) return GVK_ERR_NOMEM;
	r->used_double = p;
	if (!(p = realloc(r->group, c * sizeof *r->group))) return GVK_ERR_NOMEM;
	r->group = p;
	if (!(p = realloc(r->read, c * sizeof *r->read))) return GVK_ERR_NOMEM;
	r->read = p;
	if (!(p = realloc(r->hap, c * sizeof *r->hap))) return GVK_ERR_NOMEM;
	r->hap = p;
	*cap = c;
	return 0;
}

int gvk_pairhmm_file(gvk_pairhmm_t *e, const char *path, gvk_pairhmm_file_result_t **out, gvk_err_t *err)
{
	if (out) *out = NULL;
	const char *null = !e ? "e" : !path ? "path" : !out ? "out" : NULL;
	if (null) return gvk_err_null(err, __func__, null);
	gvk_pairhmm_file_result_t *r = calloc(1, sizeof *r);
	if (!r) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	phmm_reader_t *rd = phmm_reader_open(path, PHMM_FMT_AUTO, err);
	if (!rd) {
		free(r);
		return err ? err->code : GVK_ERR_IO;
	}
	phmm_chunk_t c;
	memset(&c, 0, sizeof c);
	size_t cap = 0;
	long n;
	int rc = 0;
	while ((n = phmm_reader_next(rd, &c, FILE_CHUNK_PAIRS, err)) > 0) {
		if ((rc = result_grow(r, &cap, r->n + c.n_pairs)) < 0) {
			gvk_err_set(err, rc, "out of memory");
			break;
		}
		gvk_pairhmm_out_t o = {r->log10 + r->n, r->used_double + r->n, NULL, NULL};
		if ((rc = gvk_pairhmm_pairs(e, c.reads, c.haps, c.pairs, c.n_pairs, &o, err)) < 0) break;
		memcpy(r->group + r->n, c.group, c.n_pairs * sizeof *c.group);
		memcpy(r->read + r->n, c.rin, c.n_pairs * sizeof *c.rin);
		memcpy(r->hap + r->n, c.hin, c.n_pairs * sizeof *c.hin);
		r->n += c.n_pairs;
		phmm_reader_release(rd, phmm_reader_consumed(rd));
	}
	if (n < 0) rc = (int)n;
	phmm_chunk_free(&c);
	phmm_reader_close(rd);
	if (rc < 0) {
		gvk_pairhmm_file_result_free(r);
		return rc;
	}
	*out = r;
	return 0;
}
