/* SPDX-License-Identifier: MIT */
/* Top-K and threshold tables of gvk fastid with sample IDs. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "fastid_write.h"
#include "../common/err.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

int fid_result_check(const gvk_fastid_result_t *r, const char *fn, const char *what, gvk_err_t *err)
{
	if (r->k < 0) return gvk_err_set(err, GVK_ERR_ARG, "%s: %s->k is %d", fn, what, r->k);
	if (r->k > 0 && r->n_queries && !r->top) return gvk_err_set(err, GVK_ERR_ARG, "%s: %s->top is NULL", fn, what);
	if (r->n_hits && !r->hits) return gvk_err_set(err, GVK_ERR_ARG, "%s: %s->hits is NULL", fn, what);
	return 0;
}

int fid_result_db_profiles(const gvk_fastid_result_t *r, int64_t **idx, size_t *n, gvk_err_t *err)
{
	size_t n_top = r->n_queries * (size_t)r->k, m = n_top + r->n_hits;
	int64_t *v = malloc((m ? m : 1) * sizeof *v);
	if (!v) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for the database profiles found");
	for (size_t i = 0; i < n_top; ++i) v[i] = r->top[i].db;
	for (size_t i = 0; i < r->n_hits; ++i) v[n_top + i] = r->hits[i].db;
	qsort(v, m, sizeof *v, cmp_i64);
	size_t k = 0;
	for (size_t i = 0; i < m; ++i)
		if (k == 0 || v[k - 1] != v[i]) v[k++] = v[i];
	*idx = v;
	*n = k;
	return 0;
}

/* The IDs of query q and database profile d, or an error when a set lacks one. */
static int names(const fid_ids_t *qs, int64_t q, const fid_ids_t *ds, int64_t d, const char **qn, const char **dn,
                 gvk_err_t *err)
{
	*qn = fid_ids_get(qs, q);
	*dn = fid_ids_get(ds, d);
	if (!*qn || !*dn)
		return gvk_err_set(err, GVK_ERR_ARG, "no sample ID held for query %lld or database profile %lld", (long long)q,
		                   (long long)d);
	return 0;
}

int fid_write_top(FILE *fp, const gvk_fastid_result_t *r, const fid_ids_t *q, const fid_ids_t *db, gvk_err_t *err)
{
	fprintf(fp, "%s\n", FID_TOP_HEADER);
	for (size_t i = 0; i < r->n_queries; ++i)
		for (int k = 0; k < r->k; ++k) {
			const gvk_fastid_hit_t *h = &r->top[i * (size_t)r->k + (size_t)k];
			const char *qn, *dn;
			int rc = names(q, h->query, db, h->db, &qn, &dn, err);
			if (rc < 0) return rc;
			fprintf(fp, "%s\t%u\t%d\t%s\t%lld\t%u\n", qn, h->query, k, dn, (long long)h->db, h->score);
		}
	return 0;
}

int fid_write_hits(FILE *fp, const gvk_fastid_result_t *r, const fid_ids_t *q, const fid_ids_t *db, gvk_err_t *err)
{
	fprintf(fp, "%s\n", FID_HITS_HEADER);
	for (size_t k = 0; k < r->n_hits; ++k) {
		const gvk_fastid_hit_t *h = &r->hits[k];
		const char *qn, *dn;
		int rc = names(q, h->query, db, h->db, &qn, &dn, err);
		if (rc < 0) return rc;
		fprintf(fp, "%s\t%u\t%s\t%lld\t%u\n", qn, h->query, dn, (long long)h->db, h->score);
	}
	return 0;
}
