/* SPDX-License-Identifier: MIT */
/* What a program does with FastID results through gvk.h: fold the results of database slices
 * searched apart (gvk fastid's MPI ranks), and write gvk fastid's tables with the files' IDs. */
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "fastid_handles.h"
#include "fastid_write.h"
#include "../common/err.h"

static int hit_less(const gvk_fastid_hit_t *a, const gvk_fastid_hit_t *b)
{
	return a->score < b->score || (a->score == b->score && a->db < b->db);
}

/* The order of the hit lists: query, score, database index. */
static int hit_before(const gvk_fastid_hit_t *a, const gvk_fastid_hit_t *b)
{
	return a->query != b->query ? a->query < b->query : hit_less(a, b);
}

/* Each query's list of a and b merged, the k best kept (k > 0). */
static int merge_top(gvk_fastid_result_t *a, const gvk_fastid_result_t *b, int k, gvk_err_t *err)
{
	gvk_fastid_hit_t *top = malloc(sizeof *top * a->n_queries * (size_t)k);
	if (!top) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory merging top-k lists");
	for (size_t q = 0; q < a->n_queries; ++q) {
		const gvk_fastid_hit_t *x = a->k ? a->top + q * (size_t)a->k : NULL, *y = b->top + q * (size_t)b->k;
		gvk_fastid_hit_t *o = top + q * (size_t)k;
		for (int r = 0, i = 0, j = 0; r < k; ++r)
			o[r] = i < a->k && (j >= b->k || hit_less(&x[i], &y[j])) ? x[i++] : y[j++];
	}
	free(a->top);
	a->top = top;
	a->k = k;
	return 0;
}

/* The hits of a and b, both in list order, merged in that order. */
static int merge_hits(gvk_fastid_result_t *a, const gvk_fastid_result_t *b, gvk_err_t *err)
{
	const size_t n = a->n_hits + b->n_hits;
	gvk_fastid_hit_t *h = malloc(sizeof *h * (n + 1));
	if (!h) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for %zu threshold hits", n);
	for (size_t k = 0, i = 0, j = 0; k < n; ++k)
		h[k] = i < a->n_hits && (j >= b->n_hits || hit_before(&a->hits[i], &b->hits[j])) ? a->hits[i++] : b->hits[j++];
	free(a->hits);
	a->hits = h;
	a->n_hits = n;
	return 0;
}

int gvk_fastid_result_merge(const gvk_fastid_t *e, gvk_fastid_result_t *acc, const gvk_fastid_result_t *part,
                            gvk_err_t *err)
{
	if (!e) return gvk_err_null(err, __func__, "e");
	if (!acc) return gvk_err_null(err, __func__, "acc");
	if (!part) return gvk_err_null(err, __func__, "part");
	if (acc->n_queries != part->n_queries)
		return gvk_err_set(err, GVK_ERR_ARG, "%s: results of %zu and %zu queries", __func__, acc->n_queries,
		                   part->n_queries);
	int rc = fid_result_check(acc, __func__, "acc", err);
	if (rc == 0) rc = fid_result_check(part, __func__, "part", err);
	if (rc < 0) return rc;
	/* the lists grow while the parts are smaller than topk */
	const int k = acc->k + part->k < e->o.topk ? acc->k + part->k : e->o.topk;
	const int searched = acc->pairs > 0;
	rc = part->k > 0 && k > 0 && acc->n_queries ? merge_top(acc, part, k, err) : 0;
	if (rc == 0 && part->n_hits) rc = merge_hits(acc, part, err);
	if (rc < 0) return rc;
	acc->pairs += part->pairs;
	if (!searched && part->pairs && part->kernel[0]) memcpy(acc->kernel, part->kernel, sizeof acc->kernel);
	return 0;
}

/* The checks both tables share. */
static int check_write(const char *fn, FILE *fp, const gvk_fastid_result_t *r, const gvk_fastid_db_t *q,
                       const gvk_fastid_db_t *db, gvk_err_t *err)
{
	if (!fp) return gvk_err_null(err, fn, "fp");
	if (!r) return gvk_err_null(err, fn, "r");
	if (!q) return gvk_err_null(err, fn, "queries");
	if (!db) return gvk_err_null(err, fn, "db");
	return fid_result_check(r, fn, "r", err);
}

int gvk_fastid_write_top(FILE *fp, const gvk_fastid_result_t *r, const gvk_fastid_db_t *queries,
                         const gvk_fastid_db_t *db, gvk_err_t *err)
{
	int rc = check_write(__func__, fp, r, queries, db, err);
	return rc < 0 ? rc : fid_write_top(fp, r, &queries->f.ids, &db->f.ids, err);
}

int gvk_fastid_write_hits(FILE *fp, const gvk_fastid_result_t *r, const gvk_fastid_db_t *queries,
                          const gvk_fastid_db_t *db, gvk_err_t *err)
{
	int rc = check_write(__func__, fp, r, queries, db, err);
	return rc < 0 ? rc : fid_write_hits(fp, r, &queries->f.ids, &db->f.ids, err);
}
