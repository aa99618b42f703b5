/* SPDX-License-Identifier: MIT */
/* The GPU aligner's per-pair logic: one CUDA thread aligns one pair (fill, end cell, traceback).
 * Written once for the kernel (align_gpu.cu, AL_HD = __device__) and for its CPU emulation
 * (align_gpu_plan.c, AL_HD empty), so the exact arithmetic the GPU runs is also tested without a
 * GPU. Layout and planning: align_gpu_plan.h. Recurrences and tie order: docs/align.md, Semantics 4.1-6.3, as in
 * align_scalar.c and align_trace.c. */
#ifndef GVK_ALIGN_GPU_PAIR_H
#define GVK_ALIGN_GPU_PAIR_H

#include "align_gpu_plan.h"

#ifndef AL_HD
#define AL_HD static inline
#endif

/* Scores and penalties of a pair as the fill uses them. */
typedef struct {
	int32_t bo, be;       /* boundary: H[0][j] = bo + (j - 1) * be, likewise H[i][0] (4.1) */
	int32_t dlo, mat, mis, op, ex;
} ag_sc_t;

/* One strip (columns j0 + 1 .. j0 + AG_W) over all rows. H and F of the strip's columns stay in
 * registers; H and E of its last column go to `carry` for the next strip; 4 move bits per cell
 * make one 64-bit word per row. `last` (a constant where inlined) marks the strip holding column
 * m, which also runs the last-column scan of 5.1 (ties: the lowest row wins). */
AL_HD void ag_strip(const ag_sc_t *c, const uint8_t *ref, const uint8_t *alt, int n, int m, int j0, int first, int last,
                    uint64_t *mv, ag_int2_t *carry, int32_t *bottom, int32_t *lc_best, int *lc_row)
{
	const int lastw = m - 1 - j0;
	int32_t Hup[AG_W], F[AG_W];
	uint8_t a[AG_W];
	for (int w = 0; w < AG_W; ++w) {
		a[w] = j0 + w < m ? alt[j0 + w] : 0;
		Hup[w] = j0 + w < m ? c->bo + (j0 + w) * c->be : AL_LOW, F[w] = AL_LOW;
	}
	int32_t hcorner = j0 == 0 ? 0 : c->bo + (j0 - 1) * c->be; /* H[i - 1][j0] */
	int32_t best_lc = *lc_best;
	int best_row = *lc_row;
	/* The next row's inputs are loaded one row ahead, to hide their latency behind a row's work. */
	uint8_t r = ref[0];
	ag_int2_t cin = first ? ag_int2(c->bo, AL_LOW) : carry[0];
	for (int i = 1; i <= n; ++i) {
		const uint8_t rn = i < n ? ref[i] : 0;
		const ag_int2_t cn = first ? ag_int2(c->bo + i * c->be, AL_LOW) : carry[i < n ? (size_t)i * AG_B : 0];
		int32_t hleft = cin.x, E = cin.y, hdiag = hcorner;
		hcorner = hleft;
		uint64_t word = 0;
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__) /* device code */
#pragma unroll
#endif
		for (int w = 0; w < AG_W; ++w) {
			int code;
			const int32_t best =
			    al_cell(hdiag, Hup[w], hleft, r == a[w] ? c->mat : c->mis, c->op, c->ex, c->dlo, &E, &F[w], &code);
			hdiag = Hup[w];
			Hup[w] = hleft = best;
			word |= (uint64_t)code << (4 * w);
			if (last && w == lastw && best >= best_lc) best_lc = best, best_row = i;
		}
		carry[(size_t)(i - 1) * AG_B] = ag_int2(hleft, E);
		mv[(size_t)(i - 1) * AG_B] = word;
		r = rn, cin = cn;
	}
	for (int w = 0; w < AG_W && j0 + w < m; ++w) bottom[(size_t)(j0 + w) * AG_B] = Hup[w];
	*lc_best = best_lc, *lc_row = best_row;
}

/* Fills the pair's matrix strip by strip, writing its moves and bottom row; returns the last
 * column's best (5.1, first scan) in *lc_best / *lc_row. Pointers are already at thread t. */
AL_HD void ag_fill(const ag_job_t *jb, const ag_block_t *bk, const uint8_t *seq, uint64_t *moves, ag_int2_t *carry,
                   int32_t *bottom, int clamp_diag, int32_t *lc_best, int *lc_row)
{
	const int n = jb->n, m = jb->m;
	const uint8_t *ref = seq + jb->seq, *alt = ref + n;
	const int gapped = jb->ovh == GVK_OVERHANG_INDEL || jb->ovh == GVK_OVERHANG_LEADING_INDEL;
	ag_sc_t c;
	c.bo = gapped ? jb->open : 0, c.be = gapped ? jb->extend : 0;
	c.dlo = clamp_diag ? AL_CUTOFF : INT32_MIN, c.mat = jb->match, c.mis = jb->mismatch, c.op = jb->open, c.ex = jb->extend;
	*lc_best = INT32_MIN, *lc_row = 0;
	const int ns = (m + AG_W - 1) / AG_W;
	for (int s = 0; s < ns; ++s) {
		uint64_t *mv = moves + (size_t)s * (size_t)bk->N * AG_B;
		if (s == ns - 1)
			ag_strip(&c, ref, alt, n, m, s * AG_W, s == 0, 1, mv, carry, bottom, lc_best, lc_row);
		else
			ag_strip(&c, ref, alt, n, m, s * AG_W, s == 0, 0, mv, carry, bottom, lc_best, lc_row);
	}
}

AL_HD int ag_move(const uint64_t *moves, int N, int t, int i, int j)
{
	const int s = (j - 1) / AG_W, w = (j - 1) % AG_W;
	return (int)(moves[((size_t)s * (size_t)N + (size_t)(i - 1)) * AG_B + (size_t)t] >> (4 * w) & 15);
}

AL_HD int ag_dist(int i, int j) { return i > j ? i - j : j - i; }

/* Adds one base of op to the run being collected (right to left) in *run, flushing the previous
 * run to el[(*ne)++] when the op changes: the run stays in a register instead of a global
 * read-modify-write per traceback step. */
AL_HD void ag_push(uint32_t *el, int *ne, uint32_t *run, uint32_t op)
{
	if (*run != 0 && (*run & 3) == op) {
		*run += 4;
	} else {
		if (*run != 0) el[(*ne)++] = *run;
		*run = 4 | op;
	}
}

AL_HD void ag_reverse(uint32_t *el, int ne)
{
	for (int a = 0, b = ne - 1; a < b; ++a, --b) {
		uint32_t x = el[a];
		el[a] = el[b], el[b] = x;
	}
}

/* End cell (5.1), traceback (5.2) and CIGAR elements (6) into el (n + m + 2 room); element =
 * len << 2 | ag op code. */
AL_HD void ag_trace(const ag_job_t *jb, const ag_block_t *bk, int t, const uint64_t *moves, const int32_t *bottom,
                    int java, int32_t lc_best, int lc_row, uint32_t *el, ag_res_t *res)
{
	const int n = jb->n, m = jb->m, N = bk->N;
	int p1, p2;
	int32_t best;
	if (jb->ovh == GVK_OVERHANG_INDEL) {
		p1 = n, p2 = m, best = bottom[(size_t)(m - 1) * AG_B + (size_t)t]; /* H[n][m] */
	} else {
		best = lc_best, p1 = lc_row, p2 = m;
		if (jb->ovh != GVK_OVERHANG_LEADING_INDEL)
			for (int j = 1; j <= m; ++j) {
				const int32_t h = bottom[(size_t)(j - 1) * AG_B + (size_t)t];
				if (h > best || (h == best && ag_dist(n, j) < ag_dist(p1, p2))) best = h, p1 = n, p2 = j;
			}
	}
	const int end2 = p2;
	int ne = 0;
	uint32_t run = 0; /* len << 2 | op of the run being collected; 0 = none yet */
	do {
		const int c = ag_move(moves, N, t, p1, p2);
		if (c & AL_DEL) {
			int e;
			do {
				e = ag_move(moves, N, t, p1, p2) & AL_FEXT;
				ag_push(el, &ne, &run, AG_D);
				--p1;
			} while (e && p1 > 0);
		} else if (c & AL_INS) {
			int e;
			do {
				e = ag_move(moves, N, t, p1, p2) & AL_EEXT;
				ag_push(el, &ne, &run, AG_I);
				--p2;
			} while (e && p2 > 0);
		} else {
			ag_push(el, &ne, &run, AG_M);
			--p1, --p2;
		}
	} while (p1 > 0 && p2 > 0);
	el[ne++] = run;
	const int q1 = p1, q2 = p2;
	int32_t off;
	if (jb->ovh == GVK_OVERHANG_SOFTCLIP) {
		if (q2 > 0) el[ne++] = (uint32_t)q2 << 2 | AG_S;
		ag_reverse(el, ne);
		if (end2 < m) el[ne++] = (uint32_t)(m - end2) << 2 | AG_S;
		off = q1;
	} else if (jb->ovh == GVK_OVERHANG_INDEL || jb->ovh == GVK_OVERHANG_LEADING_INDEL) {
		if (q1 > 0)
			el[ne++] = (uint32_t)q1 << 2 | AG_D;
		else if (q2 > 0)
			el[ne++] = (uint32_t)q2 << 2 | AG_I;
		ag_reverse(el, ne);
		off = 0;
	} else { /* IGNORE */
		ag_reverse(el, ne);
		el[0] += (uint32_t)q2 << 2;
		if (end2 < m) {
			if (!java)
				el[ne++] = (uint32_t)(m - end2) << 2 | AG_S;
			else if ((el[ne - 1] & 3) == AG_M)
				el[ne - 1] += (uint32_t)(m - end2) << 2;
			else
				el[ne++] = (uint32_t)(m - end2) << 2 | AG_M;
		}
		off = q1 - q2;
	}
	res->ne = ne, res->offset = off, res->score = best;
}

/* Everything one thread does for pair k of the chunk (t = its slot in its block). */
AL_HD void ag_pair(const ag_chunk_dev_t *c, size_t k, int java)
{
	const ag_job_t *jb = &c->jobs[k];
	const ag_block_t *bk = &c->blocks[jb->block];
	const int t = jb->slot;
	int32_t lc_best;
	int lc_row;
	uint64_t *moves = c->moves + bk->moves;
	int32_t *bottom = c->bottom + bk->bottom;
	ag_fill(jb, bk, c->seq, moves + t, c->carry + bk->carry + t, bottom + t, !java, &lc_best, &lc_row);
	uint32_t *el = c->el + jb->el;
	ag_trace(jb, bk, t, moves, bottom, java, lc_best, lc_row, el, &c->res[k]);
	const int ne = c->res[k].ne < AG_CAP ? c->res[k].ne : AG_CAP;
	for (int q = 0; q < ne; ++q) c->out[k * AG_CAP + (size_t)q] = el[q];
}

#endif
