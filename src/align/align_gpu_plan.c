/* SPDX-License-Identifier: MIT */
/* Planning of a GPU alignment batch (sort, blocks, chunks) and the packing of its blocks. */
#include <stdlib.h>
#include <string.h>

#include "../common/err.h"
#include "../common/threads.h"
#include "align_gpu_plan.h"

static int strips(int m) { return (m + AG_W - 1) / AG_W; }

/* The plan's sort: a thread's work is n * strips(m) rows of AG_W cells and a warp waits for its
 * longest thread, so pairs go by strips(m), then n, both descending (stable), and equal work sits
 * side by side. As one ascending key of 27 bits
 * (strips below 2^12, n below 2^15, complemented) above the pair's index in a 64-bit value, in
 * three stable counting passes of RADIX_BITS, each split over the threads (per-thread counts, then
 * each thread scatters its own range): this runs on the host before the batch's first kernel,
 * where a serial sort of half a million pairs was most of the time not hidden behind kernels.
 * The values travel with their keys, so no pass gathers from a key array. */
enum { RADIX_BITS = 9, RADIX_BINS = 1 << RADIX_BITS, RADIX_PASSES = 3, SORT_MAX_THREADS = 64 };
_Static_assert(GVK_ALIGN_MAX_LEN < 1 << 15 && (GVK_ALIGN_MAX_LEN + AG_W - 1) / AG_W < 1 << 12 && RADIX_BITS * RADIX_PASSES == 27,
               "the sort key holds n and strips(m)");
_Static_assert(RADIX_PASSES % 2 == 1, "the last pass writes the spare array, the indices go back to order");
_Static_assert(sizeof(size_t) == sizeof(uint64_t), "the order array holds the 64-bit values");

typedef struct {
	const al_job_t *jobs;
	uint64_t *a, *b; /* a pass reads a and writes b; they swap after it */
	size_t n;
	int nt, shift;
	size_t (*cnt)[RADIX_BINS]; /* per thread: counts, then write positions */
} radix_t;

static void key_worker(void *arg, int t)
{
	radix_t *r = arg;
	const size_t beg = gvk_part(r->n, t, r->nt), end = gvk_part(r->n, t + 1, r->nt);
	for (size_t i = beg; i < end; ++i) {
		const uint64_t k = (uint64_t)strips(r->jobs[i].m) << 15 | (uint64_t)r->jobs[i].n;
		r->a[i] = (((uint64_t)1 << 27) - 1 - k) << 32 | i;
	}
}

static void count_worker(void *arg, int t)
{
	radix_t *r = arg;
	const size_t beg = gvk_part(r->n, t, r->nt), end = gvk_part(r->n, t + 1, r->nt);
	size_t *c = r->cnt[t];
	memset(c, 0, sizeof r->cnt[t]);
	for (size_t i = beg; i < end; ++i) ++c[r->a[i] >> (32 + r->shift) & (RADIX_BINS - 1)];
}

static void scatter_worker(void *arg, int t)
{
	radix_t *r = arg;
	const size_t beg = gvk_part(r->n, t, r->nt), end = gvk_part(r->n, t + 1, r->nt);
	size_t *c = r->cnt[t];
	for (size_t i = beg; i < end; ++i) r->b[c[r->a[i] >> (32 + r->shift) & (RADIX_BINS - 1)]++] = r->a[i];
}

static void index_worker(void *arg, int t)
{
	radix_t *r = arg;
	const size_t beg = gvk_part(r->n, t, r->nt), end = gvk_part(r->n, t + 1, r->nt);
	for (size_t i = beg; i < end; ++i) r->b[i] = r->a[i] & 0xffffffffu;
}

/* Sorts into order; unsorted (still correct, only slower kernels) when out of memory or for more
 * than 2^32 pairs. */
static void ag_sort(const al_job_t *jobs, size_t n, int nt, size_t *order)
{
	if (nt > SORT_MAX_THREADS) nt = SORT_MAX_THREADS;
	if ((size_t)nt > n / 4096 + 1) nt = (int)(n / 4096 + 1); /* small batches: one thread */
	uint64_t *spare = n <= UINT32_MAX ? malloc((n ? n : 1) * sizeof *spare) : NULL;
	radix_t r = {jobs, (uint64_t *)order, spare, n, nt, 0, malloc((size_t)nt * sizeof *r.cnt)};
	if (!spare || !r.cnt) {
		for (size_t i = 0; i < n; ++i) order[i] = i;
		free(spare), free(r.cnt);
		return;
	}
	gvk_parallel(nt, key_worker, &r);
	for (int p = 0; p < RADIX_PASSES; ++p) {
		r.shift = p * RADIX_BITS;
		gvk_parallel(nt, count_worker, &r);
		size_t at = 0; /* bin by bin, threads in order within a bin: stable */
		for (int k = 0; k < RADIX_BINS; ++k)
			for (int t = 0; t < nt; ++t) {
				const size_t c = r.cnt[t][k];
				r.cnt[t][k] = at, at += c;
			}
		gvk_parallel(nt, scatter_worker, &r);
		uint64_t *x = r.a;
		r.a = r.b, r.b = x;
	}
	r.b = (uint64_t *)order; /* an odd number of passes left the values in spare: their indices */
	gvk_parallel(nt, index_worker, &r);
	free(spare), free(r.cnt);
}

static size_t up8(size_t x) { return (x + 7) & ~(size_t)7; }

/* Shapes of the blocks, split over threads (a pass over every pair through the sorted order). */
typedef struct {
	const al_job_t *jobs;
	ag_batch_t *b;
	int nt;
} shape_t;

static void shape_worker(void *arg, int tid)
{
	shape_t *w = arg;
	ag_batch_t *b = w->b;
	const size_t beg = b->nblk * (size_t)tid / (size_t)w->nt, end = b->nblk * (size_t)(tid + 1) / (size_t)w->nt;
	for (size_t k = beg; k < end; ++k) {
		ag_hblock_t *h = &b->blk[k];
		h->first = k * AG_B;
		h->cnt = (int32_t)(b->n - h->first < AG_B ? b->n - h->first : AG_B);
		int N = 0, M = 0;
		size_t sq = 0;
		for (int t = 0; t < h->cnt; ++t) {
			const al_job_t *j = &w->jobs[b->order[h->first + (size_t)t]];
			if (j->n > N) N = j->n;
			if (j->m > M) M = j->m;
			sq += (size_t)j->n + (size_t)j->m;
		}
		h->dev.N = N, h->dev.M = M;
		h->seq_bytes = sq, h->el_n = sq + 2 * (size_t)h->cnt;
	}
}

/* Bytes of a chunk of np pairs in nb blocks with the given totals (input, output, scratch). */
static size_t chunk_bytes(size_t np, size_t nb, size_t seq, size_t el, size_t mv, size_t ca, size_t bt)
{
	return up8(np * sizeof(ag_job_t)) + nb * sizeof(ag_block_t) + up8(seq) + up8(np * sizeof(ag_res_t)) +
	       np * AG_CAP * 4 + el * 4 + mv * 8 + ca * 8 + bt * 4;
}

/* Cuts the blocks from b0 on into one chunk within budget; fills block offsets and the plan. */
static size_t cut_chunk(ag_batch_t *b, size_t b0, size_t budget, ag_plan_t *p)
{
	size_t k = b0, np = 0, seq = 0, el = 0, mv = 0, ca = 0, bt = 0;
	for (; k < b->nblk; ++k) {
		ag_hblock_t *h = &b->blk[k];
		const size_t N = (size_t)h->dev.N, M = (size_t)h->dev.M;
		const size_t bmv = (size_t)strips((int)M) * N * AG_B, bca = N * AG_B, bbt = M * AG_B;
		if (k > b0 &&
		    chunk_bytes(np + (size_t)h->cnt, k - b0 + 1, seq + h->seq_bytes, el + h->el_n, mv + bmv, ca + bca, bt + bbt) > budget)
			break;
		h->dev.moves = mv, h->dev.carry = ca, h->dev.bottom = bt;
		h->seq = seq, h->el = el;
		np += (size_t)h->cnt, seq += h->seq_bytes, el += h->el_n, mv += bmv, ca += bca, bt += bbt;
	}
	memset(p, 0, sizeof *p);
	p->beg = b->blk[b0].first, p->n = np, p->b0 = b0, p->nb = k - b0;
	p->jobs_at = 0;
	p->blocks_at = up8(np * sizeof(ag_job_t));
	p->seq_at = p->blocks_at + p->nb * sizeof(ag_block_t);
	p->in_bytes = up8(p->seq_at + seq);
	p->res_at = 0;
	p->out_at = up8(np * sizeof(ag_res_t));
	p->out_bytes = p->out_at + np * AG_CAP * 4;
	p->carry_at = mv * 8;
	p->bottom_at = p->carry_at + ca * 8;
	p->el_at = up8(p->bottom_at + bt * 4);
	p->scratch_bytes = p->el_at + el * 4;
	p->nw = 1;
	if (np <= AG_WIDE_PAIRS)
		for (size_t j = b0; j < k; ++j)
			if (ag_wwarps(b->blk[j].dev.M) > p->nw) p->nw = ag_wwarps(b->blk[j].dev.M);
	return k;
}

void ag_batch_free(ag_batch_t *b)
{
	free(b->order), free(b->blk), free(b->chunk);
	memset(b, 0, sizeof *b);
}

int ag_batch_plan(const al_job_t *jobs, size_t n, size_t budget, int nt, ag_batch_t *b)
{
	memset(b, 0, sizeof *b);
	b->n = n;
	b->nblk = (n + AG_B - 1) / AG_B;
	b->order = malloc((n ? n : 1) * sizeof *b->order);
	b->blk = malloc((b->nblk ? b->nblk : 1) * sizeof *b->blk);
	if (!b->order || !b->blk) return ag_batch_free(b), GVK_ERR_NOMEM;
	if (nt < 1) nt = 1;
	ag_sort(jobs, n, nt, b->order);
	if ((size_t)nt > b->nblk) nt = b->nblk ? (int)b->nblk : 1;
	shape_t w = {jobs, b, nt};
	gvk_parallel(nt, shape_worker, &w);
	size_t cap = 0;
	for (size_t k = 0; k < b->nblk;) {
		if (b->nchunk == cap) {
			cap = cap * 2 + 8;
			ag_plan_t *c = realloc(b->chunk, cap * sizeof *c);
			if (!c) return ag_batch_free(b), GVK_ERR_NOMEM;
			b->chunk = c;
		}
		k = cut_chunk(b, k, budget, &b->chunk[b->nchunk++]);
	}
	return 0;
}

void ag_pack_block(const al_job_t *jobs, const ag_batch_t *bt, const ag_plan_t *p, size_t b, uint8_t *in)
{
	const ag_hblock_t *h = &bt->blk[b];
	const size_t bi = b - p->b0, k0 = h->first - p->beg;
	ag_job_t *jo = (ag_job_t *)(in + p->jobs_at) + k0;
	uint8_t *sq = in + p->seq_at;
	((ag_block_t *)(in + p->blocks_at))[bi] = h->dev;
	uint64_t seq = h->seq, el = h->el;
	for (int t = 0; t < h->cnt; ++t) {
		const al_job_t *j = &jobs[bt->order[h->first + (size_t)t]];
		jo[t] = (ag_job_t){j->n, j->m, j->match, j->mismatch, j->open, j->extend, j->ovh, (int32_t)bi, (int32_t)t, 0, seq, el};
		memcpy(sq + seq, j->ref, (size_t)j->n);
		memcpy(sq + seq + j->n, j->alt, (size_t)j->m);
		seq += (uint64_t)j->n + (uint64_t)j->m, el += (uint64_t)j->n + (uint64_t)j->m + 2;
	}
}

ag_chunk_dev_t ag_view(const ag_plan_t *p, uint8_t *in, uint8_t *out, uint8_t *scr)
{
	ag_chunk_dev_t c = {(const ag_job_t *)(in + p->jobs_at), (const ag_block_t *)(in + p->blocks_at), in + p->seq_at,
	                    (uint64_t *)scr, (ag_int2_t *)(scr + p->carry_at), (int32_t *)(scr + p->bottom_at),
	                    (uint32_t *)(scr + p->el_at), (uint32_t *)(out + p->out_at), (ag_res_t *)(out + p->res_at)};
	return c;
}

void ag_decode(const uint32_t *ev, int count, al_elem_t *el)
{
	static const char ops[4] = {'M', 'I', 'D', 'S'};
	for (int q = 0; q < count; ++q) el[q] = (al_elem_t){(int32_t)(ev[q] >> 2), ops[ev[q] & 3]};
}
