/* SPDX-License-Identifier: MIT */
/* gvk fastid's tables (tab-separated, one header line): the top-K lists and the threshold hits,
 * each row naming the query and the database profile by sample ID and by 0-based index. */
#ifndef GVK_SNP_FASTID_WRITE_H
#define GVK_SNP_FASTID_WRITE_H

#include <stdio.h>
#include "gvk.h"
#include "fid_ids.h"

#define FID_TOP_HEADER "query_id\tquery\trank\tdb_id\tdb\tscore"
#define FID_HITS_HEADER "query_id\tquery\tdb_id\tdb\tscore"

/* GVK_ERR_ARG naming fn and the result (what) when r's counts promise arrays it lacks. */
int fid_result_check(const gvk_fastid_result_t *r, const char *fn, const char *what, gvk_err_t *err);

/* The database profiles that r names (its top-K lists and hits), ascending, each once; *idx is
 * malloc'ed. */
int fid_result_db_profiles(const gvk_fastid_result_t *r, int64_t **idx, size_t *n, gvk_err_t *err);

/* Rows of 'query_id query rank db_id db score', by query then rank. */
int fid_write_top(FILE *fp, const gvk_fastid_result_t *r, const fid_ids_t *q, const fid_ids_t *db, gvk_err_t *err);

/* Rows of 'query_id query db_id db score', ordered by query, score, db. */
int fid_write_hits(FILE *fp, const gvk_fastid_result_t *r, const fid_ids_t *q, const fid_ids_t *db, gvk_err_t *err);

#endif
