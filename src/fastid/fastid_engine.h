/* SPDX-License-Identifier: MIT */
/* FastID searches (docs/snp.md, Semantics 6): every query against every database profile, with the top-k and
 * threshold selection fused into the tile loop so that no score matrix is ever stored. */
#ifndef GVK_SNP_FASTID_ENGINE_H
#define GVK_SNP_FASTID_ENGINE_H

#include "fidb_io.h"
#include "../snp/popgemm.h"
#include "../snp/snp_gpu_opt.h"

typedef struct {
	const fid_prof_t *q, *db;  /* same n_snp */
	pg_op_t op;                /* PG_XOR identity, PG_ANDNOT mixture (query = mixture) */
	int topk;                  /* 0: no top-k lists */
	int64_t thresh;            /* < 0: no threshold hits */
	int threads, isa, device;
	int64_t db_offset;         /* added to every database index reported (blocks of a larger database) */
	snp_gpu_opt_t gpu;         /* the GPU and its knobs (device gpu or auto) */
} fid_job_t;

typedef struct {
	int64_t db;
	uint32_t q, score;
} fid_hit_t;

typedef struct {
	int k;            /* entries per query in top (min(topk, database size)) */
	fid_hit_t *top;   /* q * k + rank, ascending score, ties by smaller db index */
	fid_hit_t *hits;  /* every score <= thresh, ordered by query, score, db */
	size_t n_hits;
	uint64_t pairs;   /* scores computed */
	char kernel[320]; /* the kernel that computed them ("cpu-avx512", "gpu-NAME popc") */
	double kernel_s;  /* GPU: seconds in its kernels */
} fid_result_t;

/* Runs the search; res is owned by the caller and freed with fid_result_free. */
int fid_search(const fid_job_t *job, fid_result_t *res, gvk_err_t *err);
void fid_result_free(fid_result_t *res);

/* Folds the result of the next database block into acc (top-k lists merged to at most topk,
 * hits appended; acc starts zeroed). Call fid_result_sort_hits once after the last block. */
int fid_result_merge(fid_result_t *acc, const fid_result_t *blk, int64_t n_queries, int topk, gvk_err_t *err);
void fid_result_sort_hits(fid_result_t *res);

/* One database block of a blockwise search: fid_search of job, folded into acc with
 * fid_result_merge. search_s, when not NULL, gains the search's seconds (not the merge's). */
int fid_search_block(const fid_job_t *job, fid_result_t *acc, double *search_s, gvk_err_t *err);

/* A copy of res (n_q queries) as the public result, kernel included; search_s is left 0. *out is
 * malloc'ed (gvk_fastid_result_free). */
int fid_result_export(const fid_result_t *res, size_t n_q, gvk_fastid_result_t **out, gvk_err_t *err);

/* Name of the kernel set for isa, NULL when unavailable. */
const char *fid_device_name(int isa);

#endif
