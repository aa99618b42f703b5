/* SPDX-License-Identifier: MIT */
/* Database chunks are the unit of work: a chunk stays in cache while every query is scored
 * against it, and each score goes straight into the thread's top-k lists and hit list. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fastid_engine.h"
#include "fastid_gpu.h"
#include "../common/err.h"
#include "../common/log.h"
#include "../common/threads.h"

typedef struct {
	fid_hit_t *top;   /* nq * k, per query sorted ascending; count in ntop */
	int *ntop;
	fid_hit_t *hits;
	size_t n_hits, cap_hits;
	uint32_t *scores;
	int oom;
} tstate_t;

typedef struct {
	const fid_job_t *job;
	const pg_isa_t *isa;
	int chunk, k;
	int64_t n_chunks;
	atomic_llong next;
	tstate_t *ts;
} job_t;

static int hit_less(const fid_hit_t *a, const fid_hit_t *b)
{
	return a->score < b->score || (a->score == b->score && a->db < b->db);
}

static int hit_cmp(const void *pa, const void *pb)
{
	const fid_hit_t *a = pa, *b = pb;
	if (a->q != b->q) return a->q < b->q ? -1 : 1;
	if (a->score != b->score) return a->score < b->score ? -1 : 1;
	return a->db < b->db ? -1 : a->db > b->db;
}

/* Insertion into a sorted list of at most k; the common case (not better than the worst) is
 * one comparison. */
static void top_insert(fid_hit_t *t, int *n, int k, fid_hit_t h)
{
	if (*n == k && !hit_less(&h, &t[k - 1])) return;
	int i = *n < k ? (*n)++ : k - 1;
	while (i > 0 && hit_less(&h, &t[i - 1])) t[i] = t[i - 1], --i;
	t[i] = h;
}

static void worker(void *arg, int tid)
{
	job_t *j = arg;
	const fid_job_t *b = j->job;
	tstate_t *s = &j->ts[tid];
	int stride = b->db->stride;
	for (;;) {
		int64_t c = atomic_fetch_add(&j->next, 1);
		if (c >= j->n_chunks) break;
		int64_t d0 = c * j->chunk;
		int nd = (int)(b->db->n - d0 < j->chunk ? b->db->n - d0 : j->chunk);
		const uint64_t *dp = b->db->w + (size_t)d0 * (size_t)stride;
		for (int64_t q = 0; q < b->q->n; ++q) {
			j->isa->fid_row(b->op, b->q->w + (size_t)q * (size_t)b->q->stride, dp, nd, stride, s->scores);
			if (j->k) {
				fid_hit_t *t = s->top + (size_t)q * (size_t)j->k;
				int *n = &s->ntop[q];
				uint32_t worst = *n == j->k ? t[j->k - 1].score : UINT32_MAX;
				for (int x = 0; x < nd; ++x)
					if (s->scores[x] <= worst) {
						top_insert(t, n, j->k, (fid_hit_t){b->db_offset + d0 + x, (uint32_t)q, s->scores[x]});
						if (*n == j->k) worst = t[j->k - 1].score;
					}
			}
			if (b->thresh >= 0)
				for (int x = 0; x < nd; ++x) {
					if (s->scores[x] > (uint64_t)b->thresh) continue;
					if (s->n_hits == s->cap_hits) {
						size_t nc = s->cap_hits ? s->cap_hits * 2 : 1024;
						fid_hit_t *nh = realloc(s->hits, nc * sizeof *nh);
						if (!nh) {
							s->oom = 1;
							continue;
						}
						s->hits = nh, s->cap_hits = nc;
					}
					s->hits[s->n_hits++] = (fid_hit_t){b->db_offset + d0 + x, (uint32_t)q, s->scores[x]};
				}
		}
	}
}

const char *fid_device_name(int isa)
{
	const pg_isa_t *k = pg_isa_select(isa);
	return k ? k->name : NULL;
}

void fid_result_free(fid_result_t *res)
{
	free(res->top);
	free(res->hits);
	memset(res, 0, sizeof *res);
}

static int merge(const fid_job_t *b, job_t *j, int nt, fid_result_t *res, gvk_err_t *err)
{
	int64_t nq = b->q->n;
	int k = j->k;
	res->k = k;
	if (k) {
		res->top = malloc(sizeof *res->top * (size_t)(nq * k + 1));
		fid_hit_t *all = malloc(sizeof *all * (size_t)(nt * k + 1));
		if (!res->top || !all) {
			free(all);
			return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory merging top-%d lists", k);
		}
		for (int64_t q = 0; q < nq; ++q) {
			int n = 0;
			for (int t = 0; t < nt; ++t)
				for (int x = 0; x < j->ts[t].ntop[q]; ++x) all[n++] = j->ts[t].top[(size_t)q * (size_t)k + (size_t)x];
			qsort(all, (size_t)n, sizeof *all, hit_cmp);
			memcpy(res->top + (size_t)q * (size_t)k, all, sizeof *all * (size_t)k);
		}
		free(all);
	}
	if (b->thresh >= 0) {
		size_t n = 0;
		for (int t = 0; t < nt; ++t) n += j->ts[t].n_hits;
		res->hits = malloc(sizeof *res->hits * (n + 1));
		if (!res->hits) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for %zu threshold hits", n);
		n = 0;
		for (int t = 0; t < nt; ++t) {
			if (j->ts[t].n_hits) memcpy(res->hits + n, j->ts[t].hits, sizeof *res->hits * j->ts[t].n_hits);
			n += j->ts[t].n_hits;
		}
		qsort(res->hits, n, sizeof *res->hits, hit_cmp);
		res->n_hits = n;
	}
	return 0;
}

int fid_search(const fid_job_t *b, fid_result_t *res, gvk_err_t *err)
{
	memset(res, 0, sizeof *res);
	if (b->q->n_snp != b->db->n_snp)
		return gvk_err_set(err, GVK_ERR_FORMAT, "queries have %u SNPs but the database profiles have %u",
		                   b->q->n_snp, b->db->n_snp);
	if (b->q->stride != b->db->stride) return gvk_err_set(err, GVK_ERR_ARG, "profile strides differ");
	if (b->device != GVK_DEVICE_CPU) {
		/* auto: the GPU when one is usable, else the CPU without a message */
		snp_gpu_t *g = snp_gpu_open(&b->gpu, err);
		if (g) {
			int rc = snp_gpu_fastid(g, b, res, err);
			if (rc == 0) {
				snprintf(res->kernel, sizeof res->kernel, "%s", snp_gpu_kernel(g));
				res->kernel_s = snp_gpu_kernel_seconds(g);
			}
			snp_gpu_close(g);
			return rc;
		}
		if (b->device == GVK_DEVICE_GPU) return err ? err->code : GVK_ERR_GPU;
		if (err) err->code = 0, err->msg[0] = 0;
	}
	const pg_isa_t *isa = pg_isa_select(b->isa);
	if (!isa) return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "the requested CPU kernel is not available on this CPU or build");
	char note[256];
	int passed = pg_isa_note(isa, b->isa, note, sizeof note);
	if (passed) gvk_logf(&b->gpu.log, GVK_LOG_INFO, "fastid: CPU kernel %s", note);
	int nt = b->threads > 0 ? b->threads : 1;
	job_t j = {.job = b, .isa = isa};
	j.k = (int)(b->topk < b->db->n ? b->topk : b->db->n);
	if (j.k < 0) j.k = 0;
	/* A chunk of about 128 KB of profiles stays in L2 while all queries pass over it. */
	int chunk = (int)(131072 / ((size_t)b->db->stride * 8));
	j.chunk = chunk < 64 ? 64 : chunk;
	j.n_chunks = (b->db->n + j.chunk - 1) / j.chunk;
	if (nt > j.n_chunks) nt = j.n_chunks > 0 ? (int)j.n_chunks : 1;
	j.ts = calloc((size_t)nt, sizeof *j.ts);
	int rc = j.ts ? 0 : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	for (int t = 0; t < nt && rc == 0; ++t) {
		tstate_t *s = &j.ts[t];
		s->scores = malloc(sizeof *s->scores * (size_t)j.chunk);
		s->ntop = calloc((size_t)b->q->n + 1, sizeof *s->ntop);
		s->top = malloc(sizeof *s->top * (size_t)(b->q->n * j.k + 1));
		if (!s->scores || !s->ntop || !s->top) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	}
	if (rc == 0) {
		atomic_store(&j.next, 0);
		gvk_parallel(nt, worker, &j);
		for (int t = 0; t < nt && rc == 0; ++t)
			if (j.ts[t].oom) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for threshold hits");
	}
	if (rc == 0) rc = merge(b, &j, nt, res, err);
	if (rc == 0) {
		res->pairs = (uint64_t)b->q->n * (uint64_t)b->db->n;
		snprintf(res->kernel, sizeof res->kernel, "%s", isa->name);
	}
	for (int t = 0; j.ts && t < nt; ++t) {
		free(j.ts[t].scores);
		free(j.ts[t].ntop);
		free(j.ts[t].top);
		free(j.ts[t].hits);
	}
	free(j.ts);
	if (rc < 0) fid_result_free(res);
	return rc;
}

int fid_result_merge(fid_result_t *acc, const fid_result_t *blk, int64_t nq, int topk, gvk_err_t *err)
{
	if (blk->k > 0) {
		int k = acc->k + blk->k < topk ? acc->k + blk->k : topk; /* grows while blocks are small */
		fid_hit_t *top = malloc(sizeof *top * (size_t)(nq * k + 1));
		if (!top) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory merging top-k lists");
		for (int64_t q = 0; q < nq; ++q) {
			const fid_hit_t *a = acc->top ? acc->top + q * acc->k : NULL, *b = blk->top + q * blk->k;
			int na = acc->top ? acc->k : 0, ia = 0, ib = 0;
			fid_hit_t *o = top + q * k;
			for (int r = 0; r < k; ++r) {
				int take_a = ia < na && (ib >= blk->k || hit_less(&a[ia], &b[ib]));
				o[r] = take_a ? a[ia++] : b[ib++];
			}
		}
		free(acc->top);
		acc->top = top;
		acc->k = k;
	}
	if (blk->n_hits) {
		fid_hit_t *h = realloc(acc->hits, sizeof *h * (acc->n_hits + blk->n_hits));
		if (!h) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for threshold hits");
		memcpy(h + acc->n_hits, blk->hits, sizeof *h * blk->n_hits);
		acc->hits = h;
		acc->n_hits += blk->n_hits;
	}
	acc->pairs += blk->pairs;
	acc->kernel_s += blk->kernel_s;
	if (!acc->kernel[0]) memcpy(acc->kernel, blk->kernel, sizeof acc->kernel);
	return 0;
}

void fid_result_sort_hits(fid_result_t *res)
{
	if (res->n_hits) qsort(res->hits, res->n_hits, sizeof *res->hits, hit_cmp);
}

int fid_search_block(const fid_job_t *job, fid_result_t *acc, double *search_s, gvk_err_t *err)
{
	fid_result_t blk;
	const double t0 = gvk_seconds();
	int rc = fid_search(job, &blk, err);
	if (search_s) *search_s += gvk_seconds() - t0;
	if (rc < 0) return rc;
	rc = fid_result_merge(acc, &blk, job->q->n, job->topk, err);
	fid_result_free(&blk);
	return rc;
}

_Static_assert(sizeof(((gvk_fastid_result_t *)0)->kernel) == sizeof(((fid_result_t *)0)->kernel),
               "the public result's kernel name holds the engine's");

int fid_result_export(const fid_result_t *res, size_t n_q, gvk_fastid_result_t **out, gvk_err_t *err)
{
	gvk_fastid_result_t *r = calloc(1, sizeof *r);
	size_t nt = (size_t)res->k * n_q;
	if (r && nt && !(r->top = malloc(sizeof *r->top * nt))) free(r), r = NULL;
	if (r && res->n_hits && !(r->hits = malloc(sizeof *r->hits * res->n_hits))) free(r->top), free(r), r = NULL;
	if (!r) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for the search results");
	for (size_t k = 0; k < nt; ++k) r->top[k] = (gvk_fastid_hit_t){res->top[k].db, res->top[k].q, res->top[k].score};
	for (size_t k = 0; k < res->n_hits; ++k)
		r->hits[k] = (gvk_fastid_hit_t){res->hits[k].db, res->hits[k].q, res->hits[k].score};
	r->n_queries = n_q, r->k = res->k, r->n_hits = res->n_hits, r->pairs = res->pairs;
	memcpy(r->kernel, res->kernel, sizeof r->kernel);
	*out = r;
	return 0;
}
