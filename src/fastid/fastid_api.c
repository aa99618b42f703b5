/* SPDX-License-Identifier: MIT */
/* The public FastID engine of gvk.h: options checked once; a search copies the caller's profiles
 * into the engine's padded layout, or reads a .fidb's, a database block at a time (so the copy
 * stays bounded) and folds the blocks' results. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "fastid_handles.h"
#include "fastid_engine.h"
#include "fastid_gpu.h"
#include "../common/err.h"
#include "../common/threads.h"

/* Database profiles copied and searched at a time (gvk fastid's default --block). */
enum { DB_BLOCK = 1 << 24 };

void gvk_fastid_opts_init(gvk_fastid_opts_t *o)
{
	if (!o) return;
	memset(o, 0, sizeof *o);
	o->topk = 10;
	o->threshold = -1;
	o->threads = 1;
	o->device = GVK_DEVICE_AUTO;
	o->isa = GVK_ISA_AUTO;
	o->gpu_path = GVK_SNP_PATH_AUTO;
	gvk_log_default(&o->log);
}

int gvk_fastid_opts_check(const gvk_fastid_opts_t *o, gvk_err_t *err)
{
	if (!o) return gvk_err_null(err, __func__, "o");
	if (o->mixture != 0 && o->mixture != 1)
		return gvk_err_set(err, GVK_ERR_ARG, "mixture must be 0 (identity) or 1 (mixture), not %d", o->mixture);
	if (o->topk < 0) return gvk_err_set(err, GVK_ERR_ARG, "topk must be >= 0, not %d", o->topk);
	if (o->topk == 0 && o->threshold < 0)
		return gvk_err_set(err, GVK_ERR_ARG, "topk 0 without a threshold asks for nothing");
	if (o->threshold > UINT32_MAX)
		return gvk_err_set(err, GVK_ERR_ARG, "threshold %lld is beyond any score", (long long)o->threshold);
	const int rc = snp_opts_check(o->threads, o->device, o->isa, o->gpu, o->gpu_path, err);
	if (rc < 0) return rc;
	if (o->gpu_db_block < 0 || o->gpu_q_batch < 0)
		return gvk_err_set(err, GVK_ERR_ARG, "gpu_db_block and gpu_q_batch must be >= 0 (0: automatic)");
	return 0;
}

static snp_gpu_opt_t gpu_opt(const gvk_fastid_opts_t *o)
{
	snp_gpu_opt_t g = {o->gpu < 0 ? 0 : o->gpu, o->gpu_path, o->gpu_mem, o->gpu_db_block, o->gpu_q_batch, o->log};
	return g;
}

gvk_fastid_t *gvk_fastid_create(const gvk_fastid_opts_t *o, gvk_err_t *err)
{
	if (gvk_fastid_opts_check(o, err) < 0) return NULL; /* o NULL too */
	const snp_gpu_opt_t g = gpu_opt(o);
	char name[sizeof((gvk_fastid_t){0}.name)];
	int device;
	gvk_fastid_t *e = snp_engine_alloc(sizeof *e, &g, o->device, fid_device_name(o->isa), &device, name, sizeof name, err);
	if (e) e->o = *o, e->device = device, memcpy(e->name, name, sizeof name);
	return e;
}

void gvk_fastid_destroy(gvk_fastid_t *e) { free(e); }

const char *gvk_fastid_device_name(const gvk_fastid_t *e) { return e ? e->name : "none"; }

void gvk_fastid_result_free(gvk_fastid_result_t *r)
{
	if (!r) return;
	free(r->top);
	free(r->hits);
	free(r);
}

/* Profiles n0 .. n0 + n of w (nw words each, unpadded) into p's padded rows; GVK_ERR_ARG when a
 * bit past n_snp is set, since it would count in every score. */
static int load(fid_prof_t *p, const uint64_t *w, size_t n0, size_t n, uint32_t n_snp, const char *what, gvk_err_t *err)
{
	int rc = fid_prof_alloc(p, (int64_t)n, n_snp, err);
	const uint64_t tail = n_snp % 64 ? ~(((uint64_t)1 << (n_snp % 64)) - 1) : 0;
	for (size_t i = 0; i < n && rc == 0; ++i) {
		const uint64_t *src = w + (n0 + i) * (size_t)p->nw;
		if (src[p->nw - 1] & tail)
			rc = gvk_err_set(err, GVK_ERR_ARG, "%s profile %zu has bits set past SNP %u", what, n0 + i, n_snp);
		else memcpy(p->w + i * (size_t)p->stride, src, sizeof *w * (size_t)p->nw);
	}
	if (rc < 0) fid_prof_free(p);
	return rc;
}

static int check_search(const gvk_fastid_t *e, const uint64_t *queries, size_t n_q, const uint64_t *db, size_t n_db,
                        uint32_t n_snp, gvk_err_t *err)
{
	if (!e) return gvk_err_set(err, GVK_ERR_ARG, "gvk_fastid_search: the engine is NULL");
	if (!queries || !db)
		return gvk_err_set(err, GVK_ERR_ARG, "gvk_fastid_search: %s is NULL", queries ? "db" : "queries");
	if (n_q == 0 || n_db == 0 || n_snp == 0)
		return gvk_err_set(err, GVK_ERR_ARG, "gvk_fastid_search: n_q, n_db and n_snp must be >= 1 (got %zu, %zu, %u)",
		                   n_q, n_db, n_snp);
	if (n_q > UINT32_MAX)
		return gvk_err_set(err, GVK_ERR_ARG, "gvk_fastid_search: %zu queries (at most 2^32 - 1)", n_q);
	if (n_db > INT64_MAX / 2) return gvk_err_set(err, GVK_ERR_ARG, "gvk_fastid_search: %zu database profiles", n_db);
	return 0;
}

/* The search of database block d (its first profile being the database's off) against q. */
static fid_job_t block_job(const gvk_fastid_t *e, const fid_prof_t *q, const fid_prof_t *d, int64_t off)
{
	const gvk_fastid_opts_t *o = &e->o;
	fid_job_t job = {q, d, o->mixture ? PG_ANDNOT : PG_XOR, o->topk, o->threshold,
	                 o->threads > 0 ? o->threads : gvk_ncpu(), o->isa, e->device, off, gpu_opt(o)};
	return job;
}

/* The database a block at a time, each block's top-k lists and hits folded into acc. */
static int search_blocks(const gvk_fastid_t *e, const fid_prof_t *q, const uint64_t *db, size_t n_db, uint32_t n_snp,
                         fid_result_t *acc, double *search_s, gvk_err_t *err)
{
	int rc = 0;
	for (size_t d0 = 0; d0 < n_db && rc == 0; d0 += DB_BLOCK) {
		size_t nd = n_db - d0 < DB_BLOCK ? n_db - d0 : DB_BLOCK;
		fid_prof_t d;
		if ((rc = load(&d, db, d0, nd, n_snp, "database", err)) < 0) break;
		const fid_job_t job = block_job(e, q, &d, (int64_t)d0);
		rc = fid_search_block(&job, acc, search_s, err);
		fid_prof_free(&d);
	}
	if (rc == 0) fid_result_sort_hits(acc);
	return rc;
}

/* acc as the caller's result, with the seconds searched and, when no block was searched, the
 * engine's CPU kernel as the one that would have. */
static int finish(const gvk_fastid_t *e, const fid_result_t *acc, size_t n_q, double search_s,
                  gvk_fastid_result_t **out, gvk_err_t *err)
{
	int rc = fid_result_export(acc, n_q, out, err);
	if (rc < 0) return rc;
	(*out)->search_s = search_s;
	if (!(*out)->kernel[0]) snprintf((*out)->kernel, sizeof (*out)->kernel, "%s", fid_device_name(e->o.isa));
	return 0;
}

int gvk_fastid_search(gvk_fastid_t *e, const uint64_t *queries, size_t n_q, const uint64_t *db, size_t n_db,
                      uint32_t n_snp, gvk_fastid_result_t **out, gvk_err_t *err)
{
	if (!out) return gvk_err_set(err, GVK_ERR_ARG, "gvk_fastid_search: out is NULL");
	*out = NULL;
	int rc = check_search(e, queries, n_q, db, n_db, n_snp, err);
	if (rc < 0) return rc;
	fid_prof_t q;
	if ((rc = load(&q, queries, 0, n_q, n_snp, "query", err)) < 0) return rc;
	fid_result_t res = {0};
	double search_s = 0;
	rc = search_blocks(e, &q, db, n_db, n_snp, &res, &search_s, err);
	if (rc == 0) rc = finish(e, &res, n_q, search_s, out, err);
	fid_result_free(&res);
	fid_prof_free(&q);
	return rc;
}

/* db's range a block of at most block profiles at a time, each folded into acc. */
static int search_db_blocks(const gvk_fastid_t *e, const fid_prof_t *q, gvk_fastid_db_t *db, int64_t block,
                            fid_result_t *acc, double *search_s, gvk_err_t *err)
{
	int rc = 0;
	for (;;) {
		fid_prof_t d;
		int64_t off;
		int owned;
		if ((rc = fastid_db_next_block(db, block, &d, &off, &owned, err)) < 0 || d.n == 0) break;
		const fid_job_t job = block_job(e, q, &d, off);
		rc = fid_search_block(&job, acc, search_s, err);
		if (owned) fid_prof_free(&d);
		if (rc < 0) break;
	}
	if (rc == 0) fid_result_sort_hits(acc);
	return rc;
}

int gvk_fastid_search_db(gvk_fastid_t *e, const gvk_fastid_db_t *queries, gvk_fastid_db_t *db, size_t block,
                         gvk_fastid_result_t **out, gvk_err_t *err)
{
	if (!out) return gvk_err_null(err, __func__, "out");
	*out = NULL;
	if (!e) return gvk_err_null(err, __func__, "e");
	if (!queries) return gvk_err_null(err, __func__, "queries");
	if (!db) return gvk_err_null(err, __func__, "db");
	if (!queries->whole)
		return gvk_err_set(err, GVK_ERR_ARG, "%s: the queries (%s) must be whole (gvk_fastid_db_read or _make), not opened",
		                   __func__, queries->name);
	int rc = fastid_db_match(queries, db, err);
	if (rc < 0) return rc;
	/* No .fidb holds more than 2^32 - 1 profiles: a larger block is the whole range. */
	const int64_t max = block == 0 ? DB_BLOCK : block > UINT32_MAX ? (int64_t)UINT32_MAX : (int64_t)block;
	fid_result_t res = {0};
	double search_s = 0;
	rc = search_db_blocks(e, &queries->f.prof, db, max, &res, &search_s, err);
	if (rc == 0) rc = finish(e, &res, (size_t)queries->f.prof.n, search_s, out, err);
	fid_result_free(&res);
	return rc;
}
