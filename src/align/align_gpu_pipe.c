/* SPDX-License-Identifier: MIT */
/* The GPU chunk pipeline: while the back end runs chunk k, the engine's threads pack chunk k + 1
 * into its slot's (pinned) input buffer and turn chunk k - 1's results into CIGAR text, so the
 * host work hides behind the kernels instead of adding to them. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/err.h"
#include "../common/threads.h"
#include "align_engine.h"

enum { PACK_BLOCKS = 8, FORMAT_PAIRS = 512 }; /* work units of the parallel region */
enum { SMALL_PAIRS = 4096 };                  /* pairs per thread, at least, of ag_run's stages */

/* A slot's chunk on the host: its buffers and the full elements of its long CIGARs. */
typedef struct {
	const ag_plan_t *p;
	uint8_t *in, *out;
	uint32_t *lel;   /* long CIGARs' elements, fetched after the wait */
	size_t nlel, caplel;
	size_t *lat;     /* per pair of the chunk: its offset in lel (only for long CIGARs) */
	size_t caplat;
} slot_t;

typedef struct {
	const al_job_t *jobs;
	const ag_batch_t *bt;
	ag_emit_fn emit;
	void *arg;
	const slot_t *pack, *fmt; /* chunk to pack, chunk to format (either may be NULL) */
	size_t npack, nfmt;       /* their work units */
	atomic_size_t next;
	atomic_int err;
} stage_t;

static int format_pairs(stage_t *g, int tid, size_t k0, size_t k1, al_elem_t **big, size_t *bigcap)
{
	const slot_t *s = g->fmt;
	const ag_plan_t *p = s->p;
	const ag_res_t *rs = (const ag_res_t *)(s->out + p->res_at);
	const uint32_t *ev = (const uint32_t *)(s->out + p->out_at);
	al_elem_t el[AG_CAP];
	for (size_t k = k0; k < k1; ++k) {
		const int ne = rs[k].ne;
		al_elem_t *d = el;
		if (ne > AG_CAP) {
			if ((size_t)ne > *bigcap) {
				al_elem_t *q = realloc(*big, (size_t)ne * sizeof *q);
				if (!q) return GVK_ERR_NOMEM;
				*big = q, *bigcap = (size_t)ne;
			}
			d = *big;
			ag_decode(s->lel + s->lat[k], ne, d);
		} else {
			ag_decode(ev + k * AG_CAP, ne, d);
		}
		int rc = g->emit(g->arg, tid, g->bt->order[p->beg + k], d, ne, rs[k].offset, rs[k].score);
		if (rc < 0) return rc;
	}
	return 0;
}

static void stage_worker(void *arg, int tid)
{
	stage_t *g = arg;
	al_elem_t *big = NULL;
	size_t bigcap = 0;
	for (;;) {
		const size_t u = atomic_fetch_add(&g->next, 1);
		if (u >= g->npack + g->nfmt || atomic_load(&g->err)) break;
		int rc = 0;
		if (u < g->npack) {
			const ag_plan_t *p = g->pack->p;
			const size_t b0 = p->b0 + u * PACK_BLOCKS, b1 = b0 + PACK_BLOCKS < p->b0 + p->nb ? b0 + PACK_BLOCKS : p->b0 + p->nb;
			for (size_t b = b0; b < b1; ++b) ag_pack_block(g->jobs, g->bt, p, b, g->pack->in);
		} else {
			const size_t k0 = (u - g->npack) * FORMAT_PAIRS, n = g->fmt->p->n;
			rc = format_pairs(g, tid, k0, k0 + FORMAT_PAIRS < n ? k0 + FORMAT_PAIRS : n, &big, &bigcap);
		}
		if (rc < 0) {
			atomic_store(&g->err, rc);
			break;
		}
	}
	free(big);
}

/* After its wait: the full elements of the chunk's CIGARs longer than the output's AG_CAP. */
static int fetch_long(const ag_backend_t *be, int si, slot_t *s, gvk_err_t *err)
{
	const ag_plan_t *p = s->p;
	const ag_res_t *rs = (const ag_res_t *)(s->out + p->res_at);
	const ag_job_t *jo = (const ag_job_t *)(s->in + p->jobs_at);
	s->nlel = 0;
	for (size_t k = 0; k < p->n; ++k) {
		const int c = rs[k].ne;
		if (c <= AG_CAP) continue;
		if (s->caplat < p->n) {
			size_t *q = realloc(s->lat, p->n * sizeof *q);
			if (!q) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for long CIGARs");
			s->lat = q, s->caplat = p->n;
		}
		if (s->nlel + (size_t)c > s->caplel) {
			size_t cap = (s->nlel + (size_t)c) * 2 + 4096;
			uint32_t *q = realloc(s->lel, cap * sizeof *q);
			if (!q) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for long CIGARs");
			s->lel = q, s->caplel = cap;
		}
		int rc = be->fetch(be->ctx, si, jo[k].el, c, s->lel + s->nlel, err);
		if (rc < 0) return rc;
		s->lat[k] = s->nlel;
		s->nlel += (size_t)c;
	}
	return 0;
}

/* Packs chunk `pk` (into slot pk % AG_SLOTS) and formats chunk `fm` on nt threads; either may be
 * absent (SIZE_MAX). */
static int stage(const al_job_t *jobs, const ag_batch_t *bt, slot_t *slots, size_t pk, size_t fm, int nt,
                 ag_emit_fn emit, void *arg, gvk_err_t *err)
{
	stage_t g = {jobs, bt, emit, arg, NULL, NULL, 0, 0, 0, 0};
	if (pk != SIZE_MAX) {
		g.pack = &slots[pk % AG_SLOTS];
		g.npack = (g.pack->p->nb + PACK_BLOCKS - 1) / PACK_BLOCKS;
	}
	if (fm != SIZE_MAX) {
		g.fmt = &slots[fm % AG_SLOTS];
		g.nfmt = (g.fmt->p->n + FORMAT_PAIRS - 1) / FORMAT_PAIRS;
	}
	const size_t units = g.npack + g.nfmt;
	if (units == 0) return 0;
	gvk_parallel((size_t)nt < units ? nt : (int)units, stage_worker, &g);
	const int rc = atomic_load(&g.err);
	return rc < 0 ? gvk_err_set(err, rc, "out of memory for CIGAR text") : 0;
}

int ag_run(const ag_backend_t *be, const al_job_t *jobs, size_t n, int java, int nt, size_t budget, ag_emit_fn emit,
           void *arg, ag_idle_t idle, ag_times_t *tm, gvk_err_t *err)
{
	if (n == 0) return 0;
	if (nt < 1) nt = 1;
	/* A thread per few thousand pairs: each stage starts its threads anew, and on a busy host a
	 * new thread can wait a scheduler period for its first turn, far longer than packing and
	 * formatting a small batch takes on one. */
	if ((size_t)nt > 1 + n / SMALL_PAIRS) nt = (int)(1 + n / SMALL_PAIRS);
	ag_batch_t bt;
	double t0 = gvk_seconds(), t1;
	if (ag_batch_plan(jobs, n, budget, nt, &bt) < 0) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for %zu pairs", n);
	tm->plan += gvk_seconds() - t0;
	tm->chunks += bt.nchunk;
	slot_t slots[AG_SLOTS];
	memset(slots, 0, sizeof slots);
	const size_t nc = bt.nchunk;
	size_t waited = 0; /* chunks [0, waited) are back */
	size_t submitted = 0;
	int rc = 0;
	/* Step i: pack chunk i and format chunk i - 2 while chunk i - 1 runs; submit chunk i, wait for
	 * chunk i - 1. */
	for (size_t i = 0; i < nc + 2 && rc == 0; ++i) {
		if (i < nc) {
			slot_t *s = &slots[i % AG_SLOTS];
			s->p = &bt.chunk[i];
			rc = be->buffers(be->ctx, (int)(i % AG_SLOTS), s->p, &s->in, &s->out, err);
			if (rc < 0) break;
		}
		t0 = gvk_seconds();
		rc = stage(jobs, &bt, slots, i < nc ? i : SIZE_MAX, i >= 2 ? i - 2 : SIZE_MAX, nt, emit, arg, err);
		t1 = gvk_seconds();
		tm->host += t1 - t0;
		if (rc < 0) break;
		if (i < nc) {
			if ((rc = be->submit(be->ctx, (int)(i % AG_SLOTS), &bt.chunk[i], java, err)) < 0) break;
			submitted = i + 1;
			if (i + 1 == nc && idle.fn) idle.fn(idle.arg);
		}
		if (i >= 1 && i - 1 < nc) {
			const int si = (int)((i - 1) % AG_SLOTS);
			rc = be->wait(be->ctx, si, &tm->kernel, err);
			tm->wait += gvk_seconds() - t1;
			waited = i;
			if (rc == 0) rc = fetch_long(be, si, &slots[si], err);
		}
	}
	/* A failure: nothing may still be writing into the slots' buffers when they are reused. */
	for (size_t k = waited; k < submitted; ++k) be->wait(be->ctx, (int)(k % AG_SLOTS), &tm->kernel, NULL);
	for (int s = 0; s < AG_SLOTS; ++s) free(slots[s].lel), free(slots[s].lat);
	ag_batch_free(&bt);
	return rc;
}
