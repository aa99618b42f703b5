/* SPDX-License-Identifier: MIT */
/* gvk_cnv_counts_from_arrays: a count matrix from the caller's memory (a numpy array, say),
 * checked as strictly as the file reader checks a file, and copied. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/err.h"
#include "cnv.h"

/* Counts are held as doubles: above 2^53 neighbouring integers collapse (as in cnv_counts.c). */
#define COUNT_MAX ((int64_t)1 << 53)

static int check_shape(const gvk_cnv_count_arrays_t *a, gvk_err_t *err)
{
	if (!a) return gvk_err_set(err, GVK_ERR_ARG, "gvk_cnv_counts_from_arrays: a is NULL (no count arrays)");
	if (a->m < 1) return gvk_err_set(err, GVK_ERR_ARG, "the count matrix has no regions (m = %d)", a->m);
	if (a->N < 2) return gvk_err_set(err, GVK_ERR_ARG, "cn.mops needs at least two samples (N = %d)", a->N);
	if (!a->x == !a->x_int)
		return gvk_err_set(err, GVK_ERR_ARG, "give the counts as exactly one of x (double) and x_int (int64)");
	if (a->layout != GVK_CNV_REGION_MAJOR && a->layout != GVK_CNV_SAMPLE_MAJOR)
		return gvk_err_set(err, GVK_ERR_ARG, "unknown layout %d (GVK_CNV_REGION_MAJOR or GVK_CNV_SAMPLE_MAJOR)", a->layout);
	int given = (a->seq_names != NULL) + (a->start != NULL) + (a->end != NULL);
	if (given != 0 && given != 3)
		return gvk_err_set(err, GVK_ERR_ARG, "give seq_names, start and end together, or none of them");
	return 0;
}

/* Copies the counts into c->x (region-fastest), checking each one. */
static int copy_counts(const gvk_cnv_count_arrays_t *a, gvk_cnv_counts_t *c, gvk_err_t *err)
{
	size_t m = (size_t)a->m, N = (size_t)a->N;
	for (size_t s = 0; s < N; ++s)
		for (size_t r = 0; r < m; ++r) {
			size_t k = a->layout == GVK_CNV_REGION_MAJOR ? r * N + s : s * m + r;
			double v;
			if (a->x) {
				v = a->x[k];
				if (!(v >= 0) || !isfinite(v))
					return gvk_err_set(err, GVK_ERR_ARG, "count of region %zu, sample %zu is %g: counts must be finite and "
					                   "non-negative", r + 1, s + 1, v);
			} else {
				int64_t iv = a->x_int[k];
				if (iv < 0 || iv > COUNT_MAX)
					return gvk_err_set(err, GVK_ERR_ARG, "count of region %zu, sample %zu is %lld: counts must be in 0 .. "
					                   "2^53", r + 1, s + 1, (long long)iv);
				v = (double)iv;
			}
			c->x[s * m + r] = v;
		}
	return 0;
}

static int copy_samples(const gvk_cnv_count_arrays_t *a, gvk_cnv_counts_t *c, gvk_err_t *err)
{
	for (int s = 0; s < a->N; ++s) {
		if (a->samples && (!a->samples[s] || !*a->samples[s]))
			return gvk_err_set(err, GVK_ERR_ARG, "sample %d has no name", s + 1);
		char def[24];
		snprintf(def, sizeof def, "S%d", s + 1);
		if (!(c->samples[s] = strdup(a->samples ? a->samples[s] : def)))
			return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	}
	return 0;
}

/* Sequences from the per-region names: each new name starts a sequence; a name met again after
 * another one means the rows are not grouped. */
static int copy_layout(const gvk_cnv_count_arrays_t *a, gvk_cnv_counts_t *c, gvk_err_t *err)
{
	int m = a->m;
	if (!a->seq_names) {
		c->n_seqs = 1, c->is_matrix = 1;
		if (!(c->seq_names = malloc(sizeof *c->seq_names)) || !(c->seq_names[0] = strdup("undef")) ||
		    !(c->seq_off = malloc(2 * sizeof *c->seq_off)))
			return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		c->seq_off[0] = 0, c->seq_off[1] = m;
		for (int r = 0; r < m; ++r) c->start[r] = c->end[r] = r + 1;
		return 0;
	}
	int cap = 0;
	for (int r = 0; r < m; ++r) {
		const char *nm = a->seq_names[r];
		if (!nm || !*nm) return gvk_err_set(err, GVK_ERR_ARG, "region %d has no sequence name", r + 1);
		if (a->start[r] < 0 || a->end[r] < a->start[r])
			return gvk_err_set(err, GVK_ERR_ARG, "region %d: bad coordinates %lld %lld (need 0 <= start <= end)", r + 1,
			                   (long long)a->start[r], (long long)a->end[r]);
		c->start[r] = a->start[r], c->end[r] = a->end[r];
		if (c->n_seqs > 0 && !strcmp(c->seq_names[c->n_seqs - 1], nm)) continue;
		for (int q = 0; q < c->n_seqs; ++q)
			if (!strcmp(c->seq_names[q], nm))
				return gvk_err_set(err, GVK_ERR_ARG, "region %d: the regions of sequence %s are not consecutive; sort them "
				                   "by sequence", r + 1, nm);
		if (c->n_seqs == cap) {
			cap = cap ? 2 * cap : 16;
			char **nn = realloc(c->seq_names, (size_t)cap * sizeof *nn);
			int *no = realloc(c->seq_off, (size_t)(cap + 1) * sizeof *no);
			if (nn) c->seq_names = nn;
			if (no) c->seq_off = no;
			if (!nn || !no) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		}
		c->seq_off[c->n_seqs] = r;
		if (!(c->seq_names[c->n_seqs++] = strdup(nm))) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	}
	c->seq_off[c->n_seqs] = m;
	return 0;
}

int gvk_cnv_counts_from_arrays(const gvk_cnv_count_arrays_t *a, gvk_cnv_counts_t *c, gvk_err_t *err)
{
	if (!c) return gvk_err_null(err, __func__, "c");
	memset(c, 0, sizeof *c);
	int rc = check_shape(a, err);
	if (rc < 0) return rc;
	size_t m = (size_t)a->m, N = (size_t)a->N;
	c->m = a->m, c->N = a->N;
	c->x = malloc(m * N * sizeof *c->x);
	c->samples = calloc(N, sizeof *c->samples);
	c->start = malloc(m * sizeof *c->start), c->end = malloc(m * sizeof *c->end);
	if (!c->x || !c->samples || !c->start || !c->end) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (rc == 0) rc = copy_counts(a, c, err);
	if (rc == 0) rc = copy_samples(a, c, err);
	if (rc == 0) rc = copy_layout(a, c, err);
	if (rc < 0) gvk_cnv_counts_free(c);
	return rc;
}
