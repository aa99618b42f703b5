/* SPDX-License-Identifier: MIT */
/* gvk_pairhmm_reader_*: the Pair-HMM input reader (pairhmm_io.c) through the public API, as gvk
 * pairhmm itself reads its input. The public reader and chunk are the reader's own structs. */
#include <stdlib.h>
#include <string.h>

#include "../common/err.h"
#include "pairhmm_io.h"

const char *gvk_pairhmm_format_name(int format) { return phmm_format_name((phmm_format_t)format); }

int gvk_pairhmm_format_parse(const char *name) { return name ? phmm_format_parse(name) : -1; }

gvk_pairhmm_reader_t *gvk_pairhmm_reader_open(const char *path, int format, gvk_err_t *err)
{
	if (!path) {
		gvk_err_null(err, __func__, "path");
		return NULL;
	}
	if (format < PHMM_FMT_AUTO || format > PHMM_FMT_HEX) {
		gvk_err_set(err, GVK_ERR_ARG, "%s: unknown input format %d", __func__, format);
		return NULL;
	}
	return phmm_reader_open(path, (phmm_format_t)format, err);
}

int gvk_pairhmm_reader_format(const gvk_pairhmm_reader_t *r) { return r ? (int)phmm_reader_format(r) : -1; }

void gvk_pairhmm_reader_close(gvk_pairhmm_reader_t *r) { phmm_reader_close(r); }

gvk_pairhmm_chunk_t *gvk_pairhmm_chunk_new(void) { return calloc(1, sizeof(gvk_pairhmm_chunk_t)); }

void gvk_pairhmm_chunk_free(gvk_pairhmm_chunk_t *c)
{
	if (!c) return;
	phmm_chunk_free(c);
	free(c);
}

long gvk_pairhmm_reader_next(gvk_pairhmm_reader_t *r, gvk_pairhmm_chunk_t *c, size_t max_pairs, int threads,
                             gvk_err_t *err)
{
	if (!r) return gvk_err_null(err, __func__, "r");
	if (!c) return gvk_err_null(err, __func__, "c");
	return phmm_reader_next_mt(r, c, max_pairs ? max_pairs : 1, threads, err);
}

void gvk_pairhmm_chunk_view(const gvk_pairhmm_chunk_t *c, gvk_pairhmm_view_t *v)
{
	if (!v) return;
	memset(v, 0, sizeof *v);
	if (!c) return;
	v->reads = c->reads, v->haps = c->haps, v->pairs = c->pairs;
	v->group = c->group, v->rin = c->rin, v->hin = c->hin;
	v->n_reads = c->n_reads, v->n_haps = c->n_haps, v->n_pairs = c->n_pairs, v->cells = c->cells;
}

size_t gvk_pairhmm_reader_consumed(const gvk_pairhmm_reader_t *r) { return r ? phmm_reader_consumed(r) : 0; }

void gvk_pairhmm_reader_release(gvk_pairhmm_reader_t *r, size_t to)
{
	if (r) phmm_reader_release(r, to);
}

void gvk_pairhmm_reader_times(const gvk_pairhmm_reader_t *r, double t[4])
{
	if (!t) return;
	if (r) phmm_reader_times(r, t);
	else t[0] = t[1] = t[2] = t[3] = 0;
}
