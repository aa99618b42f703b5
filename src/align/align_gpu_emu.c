/* SPDX-License-Identifier: MIT */
/* The GPU back end emulated on the CPU, for tests without a GPU: the kernel's per-pair code
 * (align_gpu_pair.h) runs over a chunk's host buffers on the engine's threads when the chunk is
 * submitted, behind the same slot interface as the CUDA back end, so the chunk pipeline is the one
 * a GPU runs. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../common/err.h"
#include "../common/threads.h"
#include "align_engine.h"
#include "align_gpu_pair.h"

typedef struct {
	uint8_t *in, *out, *scr;
	size_t cin, cout, cscr;
	size_t el_at; /* where the submitted chunk's full elements start in scr */
	double sec;   /* time of the submitted chunk's emulated kernel */
} emu_slot_t;

struct al_emu_s {
	int nt;
	emu_slot_t slot[AG_SLOTS];
};

al_emu_t *al_emu_open(int nt)
{
	al_emu_t *m = calloc(1, sizeof *m);
	if (m) m->nt = nt < 1 ? 1 : nt;
	return m;
}

void al_emu_close(al_emu_t *m)
{
	if (!m) return;
	for (int s = 0; s < AG_SLOTS; ++s) free(m->slot[s].in), free(m->slot[s].out), free(m->slot[s].scr);
	free(m);
}

static int grow(uint8_t **p, size_t *cap, size_t need)
{
	if (need <= *cap && *p) return 0;
	uint8_t *q = realloc(*p, need ? need : 1);
	if (!q) return GVK_ERR_NOMEM;
	*p = q, *cap = need;
	return 0;
}

static int emu_buffers(void *ctx, int s, const ag_plan_t *p, uint8_t **in, uint8_t **out, gvk_err_t *err)
{
	emu_slot_t *q = &((al_emu_t *)ctx)->slot[s];
	if (grow(&q->in, &q->cin, p->in_bytes) < 0 || grow(&q->out, &q->cout, p->out_bytes) < 0)
		return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for an emulated GPU chunk");
	*in = q->in, *out = q->out;
	return 0;
}

typedef struct {
	ag_chunk_dev_t c;
	size_t nb, n;
	int java, nw;
	atomic_size_t next;
} run_t;

/* Blocks of the chunk, one after the other per worker; a block's pairs as its CUDA threads. */
static void emu_worker(void *arg, int tid)
{
	run_t *r = arg;
	(void)tid;
	for (size_t b; (b = atomic_fetch_add(&r->next, 1)) < r->nb;)
		for (size_t k = b * AG_B; k < (b + 1) * AG_B && k < r->n; ++k) ag_pair(&r->c, k, r->java);
}

/* The warp schedule of one pair on nw warps, its lanes run in turn within a step: from the last
 * lane down, so that lane t still reads lane t - 1's output of the step before, as the shuffle
 * hands it over; a warp's first lane reads the ring that the warp before it writes, AG_WLAG steps
 * later (ag_woff). The moves go to a buffer of the pair's own, as into the GPU's shared memory;
 * without one, to the block's scratch, as a larger launch does. */
static void emu_warp_pair(const ag_chunk_dev_t *c, size_t k, int java, int nw, uint64_t **buf, size_t *cap)
{
	const ag_job_t *jb = &c->jobs[k];
	const size_t need = ag_wmoves_bytes(jb->n, jb->m);
	if (need > *cap) {
		uint64_t *q = realloc(*buf, need);
		if (q) *buf = q, *cap = need;
	}
	ag_wpair_t p;
	ag_wpair_init(c, k, java, nw, need <= *cap ? *buf : NULL, NULL, &p);
	ag_lane_t L[AG_LANES * AG_WMAX_WARPS];
	ag_int2_t out[AG_LANES * AG_WMAX_WARPS], ring[(AG_WMAX_WARPS - 1) * AG_WRING];
	int32_t lc_best = INT32_MIN;
	int lc_row = 0;
	for (int g = 0; g * p.nl < p.nq; ++g) {
		for (int t = 0; t < p.nl; ++t) ag_wlane_start_w(&p, g, t, &L[t], p.W), out[t] = ag_int2(0, 0);
		const int steps = ag_wpass_steps(&p, g);
		for (int tau = 1; tau <= steps; ++tau)
			for (int t = p.nl - 1; t >= 0; --t) {
				const int i = ag_wlane_row(&L[t], tau), live = i >= 1 && i <= p.n, w = t / AG_LANES;
				ag_int2_t in = t % AG_LANES ? out[t - 1] : out[t];
				if (t % AG_LANES == 0 && w > 0 && live) in = ring[(w - 1) * AG_WRING + i % AG_WRING];
				out[t] = ag_wlane_step_w(&p, &L[t], tau, in, p.W);
				if (t % AG_LANES == AG_LANES - 1 && t < p.nl - 1 && live) ring[w * AG_WRING + i % AG_WRING] = out[t];
			}
		for (int t = 0; t < p.nl; ++t) {
			ag_wlane_end_w(&p, &L[t], p.W);
			if (L[t].s == p.nq - 1) lc_best = L[t].lc_best, lc_row = L[t].lc_row;
		}
	}
	ag_finish(c, k, &p.mv, java, lc_best, lc_row);
}

static void emu_warp_worker(void *arg, int tid)
{
	run_t *r = arg;
	(void)tid;
	uint64_t *buf = NULL;
	size_t cap = 0;
	for (size_t k; (k = atomic_fetch_add(&r->next, 1)) < r->n;) emu_warp_pair(&r->c, k, r->java, r->nw, &buf, &cap);
	free(buf);
}

static int emu_submit(void *ctx, int s, const ag_plan_t *p, int java, gvk_err_t *err)
{
	al_emu_t *m = ctx;
	emu_slot_t *q = &m->slot[s];
	if (grow(&q->scr, &q->cscr, p->scratch_bytes) < 0)
		return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for an emulated GPU chunk's scratch");
	run_t r = {ag_view(p, q->in, q->out, q->scr), p->nb, p->n, java, p->nw, 0};
	q->el_at = p->el_at;
	const double t0 = gvk_seconds();
	if (ag_use_warp(p))
		gvk_parallel((size_t)m->nt < p->n ? m->nt : (int)p->n, emu_warp_worker, &r);
	else
		gvk_parallel((size_t)m->nt < p->nb ? m->nt : (int)p->nb, emu_worker, &r);
	q->sec = gvk_seconds() - t0;
	return 0;
}

static int emu_wait(void *ctx, int s, double *kernel_s, gvk_err_t *err)
{
	(void)err;
	*kernel_s += ((al_emu_t *)ctx)->slot[s].sec;
	return 0;
}

static int emu_fetch(void *ctx, int s, uint64_t el, int count, uint32_t *dst, gvk_err_t *err)
{
	const emu_slot_t *q = &((al_emu_t *)ctx)->slot[s];
	(void)err;
	memcpy(dst, (const uint32_t *)(q->scr + q->el_at) + el, (size_t)count * sizeof *dst);
	return 0;
}

ag_backend_t al_emu_backend(al_emu_t *m)
{
	ag_backend_t be = {m, emu_buffers, emu_submit, emu_wait, emu_fetch};
	return be;
}
