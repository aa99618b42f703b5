/* SPDX-License-Identifier: MIT */
/* Chunk planning, packing and unpacking for the GPU aligner, and its CPU emulation. */
#include <stdlib.h>
#include <string.h>

#include "../common/err.h"
#include "align_gpu_pair.h"

static int strips(int m) { return (m + AG_W - 1) / AG_W; }

/* One stable counting pass of src into dst by key(i) in 0..nk-1, descending. */
static int count_pass(const al_job_t *jobs, const size_t *src, size_t *dst, size_t n, int nk, int by_strips)
{
	size_t *cnt = calloc((size_t)nk + 1, sizeof *cnt);
	if (!cnt) return -1;
	for (size_t i = 0; i < n; ++i) {
		const al_job_t *j = &jobs[src[i]];
		++cnt[nk - 1 - (by_strips ? strips(j->m) : j->n)];
	}
	size_t at = 0;
	for (int k = 0; k < nk; ++k) {
		size_t c = cnt[k];
		cnt[k] = at, at += c;
	}
	for (size_t i = 0; i < n; ++i) {
		const al_job_t *j = &jobs[src[i]];
		dst[cnt[nk - 1 - (by_strips ? strips(j->m) : j->n)]++] = src[i];
	}
	free(cnt);
	return 0;
}

/* A thread's work is n * strips(m) rows of AG_W cells, and a warp waits for its longest thread:
 * sorted by strips, then n, both descending, equal work sits side by side (two counting passes:
 * linear time, as this runs on the host for every batch). */
void ag_sort(const al_job_t *jobs, size_t n, size_t *order)
{
	size_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
	for (size_t i = 0; i < n; ++i) order[i] = i;
	if (!tmp) return; /* unsorted is still correct, only slower */
	if (count_pass(jobs, order, tmp, n, GVK_ALIGN_MAX_LEN + 1, 0) == 0)
		count_pass(jobs, tmp, order, n, strips(GVK_ALIGN_MAX_LEN) + 1, 1);
	free(tmp);
}

static size_t up8(size_t x) { return (x + 7) & ~(size_t)7; }

/* Walks the blocks of p->n pairs from order[p->beg], accumulating sizes into p; writes the job and
 * block descriptors and the sequences when `in` is set. Stops early (at a block boundary, after
 * at least one block) when the bytes would pass budget; returns the pairs taken. */
static size_t walk(const al_job_t *jobs, const size_t *order, size_t avail, size_t budget, ag_plan_t *p, uint8_t *in)
{
	ag_job_t *jo = in ? (ag_job_t *)(in + p->jobs_at) : NULL;
	ag_block_t *bo = in ? (ag_block_t *)(in + p->blocks_at) : NULL;
	uint8_t *sq = in ? in + p->seq_at : NULL;
	size_t k = 0, nb = 0, seq = 0, mv = 0, ca = 0, bt = 0, el = 0;
	while (k < avail) {
		size_t cnt = avail - k < AG_B ? avail - k : AG_B, bseq = 0, bel = 0;
		int N = 0, M = 0;
		for (size_t t = 0; t < cnt; ++t) {
			const al_job_t *j = &jobs[order[p->beg + k + t]];
			if (j->n > N) N = j->n;
			if (j->m > M) M = j->m;
			bseq += (size_t)j->n + (size_t)j->m, bel += (size_t)j->n + (size_t)j->m + 2;
		}
		const size_t bmv = (size_t)strips(M) * (size_t)N * AG_B, bca = (size_t)N * AG_B, bbt = (size_t)M * AG_B;
		const size_t np = k + cnt;
		const size_t bytes = up8(np * sizeof(ag_job_t)) + (nb + 1) * sizeof(ag_block_t) + up8(seq + bseq) +
		                     up8(np * sizeof(ag_res_t)) + np * AG_CAP * 4 + (el + bel) * 4 + (mv + bmv) * 8 +
		                     (ca + bca) * 8 + (bt + bbt) * 4;
		if (nb > 0 && bytes > budget) break;
		if (in) {
			bo[nb] = (ag_block_t){mv, ca, bt, N, M};
			for (size_t t = 0; t < cnt; ++t) {
				const al_job_t *j = &jobs[order[p->beg + k + t]];
				jo[k + t] = (ag_job_t){j->n, j->m, j->match, j->mismatch, j->open, j->extend, j->ovh,
				                       (int32_t)nb, (int32_t)t, 0, seq, el};
				memcpy(sq + seq, j->ref, (size_t)j->n);
				memcpy(sq + seq + j->n, j->alt, (size_t)j->m);
				seq += (size_t)j->n + (size_t)j->m, el += (size_t)j->n + (size_t)j->m + 2;
			}
		} else {
			seq += bseq, el += bel;
		}
		mv += bmv, ca += bca, bt += bbt, ++nb, k = np;
	}
	p->nb = nb, p->seq_bytes = seq, p->moves_words = mv, p->carry_n = ca, p->bottom_n = bt, p->el_n = el;
	return k;
}

void ag_plan(const al_job_t *jobs, const size_t *order, size_t beg, size_t n, size_t budget, ag_plan_t *p)
{
	memset(p, 0, sizeof *p);
	p->beg = beg;
	p->n = walk(jobs, order, n - beg, budget, p, NULL);
	p->jobs_at = 0;
	p->blocks_at = up8(p->n * sizeof(ag_job_t));
	p->seq_at = p->blocks_at + p->nb * sizeof(ag_block_t);
	p->in_bytes = up8(p->seq_at + p->seq_bytes);
	p->res_at = 0;
	p->out_at = up8(p->n * sizeof(ag_res_t));
	p->out_bytes = p->out_at + p->n * AG_CAP * 4;
	p->carry_at = p->moves_words * 8;
	p->bottom_at = p->carry_at + p->carry_n * 8;
	p->el_at = up8(p->bottom_at + p->bottom_n * 4);
	p->scratch_bytes = p->el_at + p->el_n * 4;
}

void ag_pack(const al_job_t *jobs, const size_t *order, const ag_plan_t *p, uint8_t *in)
{
	ag_plan_t q = *p;
	walk(jobs, order, p->n, SIZE_MAX, &q, in);
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

al_elem_t *al_elems_room(al_elems_t *el, size_t count)
{
	if (el->n + count > el->cap) {
		size_t cap = (el->n + count) * 2 + 4096;
		al_elem_t *p = realloc(el->p, cap * sizeof *p);
		if (!p) return NULL;
		el->p = p, el->cap = cap;
	}
	return el->p + el->n;
}

long ag_unpack(const size_t *order, const ag_plan_t *p, const uint8_t *out, al_elems_t *el, size_t *el_at, int *ne,
               int32_t *offset, int32_t *score)
{
	const ag_res_t *rs = (const ag_res_t *)(out + p->res_at);
	const uint32_t *ev = (const uint32_t *)(out + p->out_at);
	long over = 0;
	for (size_t k = 0; k < p->n; ++k) {
		const size_t i = order[p->beg + k];
		const int c = rs[k].ne;
		al_elem_t *d = al_elems_room(el, (size_t)c);
		if (!d) return GVK_ERR_NOMEM;
		ne[i] = c, offset[i] = rs[k].offset, score[i] = rs[k].score, el_at[i] = el->n;
		el->n += (size_t)c;
		if (c > AG_CAP)
			++over;
		else
			ag_decode(ev + k * AG_CAP, c, d);
	}
	return over;
}

int al_gpu_emulate(const al_job_t *jobs, size_t n, int java, al_elems_t *el, size_t *el_at, int *ne, int32_t *offset,
                   int32_t *score, gvk_err_t *err)
{
	size_t *order = malloc((n ? n : 1) * sizeof *order);
	if (!order) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	ag_sort(jobs, n, order);
	const char *env = getenv("GVK_ALIGN_GPU_CHUNK_MB"); /* as the GPU back end: chunk size for tests */
	const size_t budget = env && atol(env) > 0 ? (size_t)atol(env) << 20 : (size_t)256 << 20;
	int rc = 0;
	for (size_t beg = 0; beg < n && rc == 0;) {
		ag_plan_t p;
		ag_plan(jobs, order, beg, n, budget, &p);
		uint8_t *in = malloc(p.in_bytes), *out = malloc(p.out_bytes), *scr = malloc(p.scratch_bytes);
		if (!in || !out || !scr) {
			rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		} else {
			ag_pack(jobs, order, &p, in);
			ag_chunk_dev_t c = ag_view(&p, in, out, scr);
			for (size_t k = 0; k < p.n; ++k) ag_pair(&c, k, java);
			long over = ag_unpack(order, &p, out, el, el_at, ne, offset, score);
			if (over < 0) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
			for (size_t k = 0; k < p.n && over > 0; ++k)
				if (c.res[k].ne > AG_CAP) ag_decode(c.el + c.jobs[k].el, c.res[k].ne, el->p + el_at[order[beg + k]]);
		}
		free(in), free(out), free(scr);
		beg += p.n;
	}
	free(order);
	return rc;
}
