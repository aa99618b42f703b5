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

/* The columns j0 + 1 .. j0 + W of a strip at row 0: their alt bases, H (4.1) and F. W is AG_W, or
 * narrower in the warp schedule (a constant where inlined). */
AL_HD void ag_strip_start_w(const ag_sc_t *c, const uint8_t *alt, int m, int j0, int W, int32_t *Hup, int32_t *F, uint8_t *a)
{
	for (int w = 0; w < W; ++w) {
		a[w] = j0 + w < m ? alt[j0 + w] : 0;
		Hup[w] = j0 + w < m ? c->bo + (j0 + w) * c->be : AL_LOW, F[w] = AL_LOW;
	}
}

AL_HD void ag_strip_start(const ag_sc_t *c, const uint8_t *alt, int m, int j0, int32_t *Hup, int32_t *F, uint8_t *a)
{
	ag_strip_start_w(c, alt, m, j0, AG_W, Hup, F, a);
}

/* H[i - 1][j0] before row 1 of the strip starting at column j0 + 1. */
AL_HD int32_t ag_corner0(const ag_sc_t *c, int j0) { return j0 == 0 ? 0 : c->bo + (j0 - 1) * c->be; }

/* Row i of a strip: its W (AG_W, or narrower in the warp schedule) cells from the left input (*hleft, *E: H and E of column j0), the
 * row above (Hup, F) and hdiag = H[i - 1][j0]; leaves H and E of the strip's last column in *hleft,
 * *E and returns the row's 4 move bits per cell as one word. `last` (a constant where inlined)
 * marks the strip holding column m, which also runs the last-column scan of 5.1. */
AL_HD uint64_t ag_row_w(const ag_sc_t *c, int32_t *Hup, int32_t *F, const uint8_t *a, uint8_t r, int32_t hdiag,
                        int32_t *hleft, int32_t *E, int i, int last, int lastw, int32_t *best_lc, int *best_row, int W)
{
	int32_t hl = *hleft, e = *E;
	uint64_t word = 0;
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__) /* device code */
#pragma unroll
#endif
	for (int w = 0; w < W; ++w) {
		int code;
		const int32_t best = al_cell(hdiag, Hup[w], hl, r == a[w] ? c->mat : c->mis, c->op, c->ex, c->dlo, &e, &F[w], &code);
		hdiag = Hup[w];
		Hup[w] = hl = best;
		word |= (uint64_t)code << (4 * w);
		if (last && w == lastw && best >= *best_lc) *best_lc = best, *best_row = i;
	}
	*hleft = hl, *E = e;
	return word;
}

AL_HD uint64_t ag_row(const ag_sc_t *c, int32_t *Hup, int32_t *F, const uint8_t *a, uint8_t r, int32_t hdiag,
                      int32_t *hleft, int32_t *E, int i, int last, int lastw, int32_t *best_lc, int *best_row)
{
	return ag_row_w(c, Hup, F, a, r, hdiag, hleft, E, i, last, lastw, best_lc, best_row, AG_W);
}

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
	ag_strip_start(c, alt, m, j0, Hup, F, a);
	int32_t hcorner = ag_corner0(c, j0); /* H[i - 1][j0] */
	int32_t best_lc = *lc_best;
	int best_row = *lc_row;
	/* The next row's inputs are loaded one row ahead, to hide their latency behind a row's work. */
	uint8_t r = ref[0];
	ag_int2_t cin = first ? ag_int2(c->bo, AL_LOW) : carry[0];
	for (int i = 1; i <= n; ++i) {
		const uint8_t rn = i < n ? ref[i] : 0;
		const ag_int2_t cn = first ? ag_int2(c->bo + i * c->be, AL_LOW) : carry[i < n ? (size_t)i * AG_B : 0];
		int32_t hleft = cin.x, E = cin.y;
		const int32_t hdiag = hcorner;
		hcorner = hleft;
		const uint64_t word = ag_row(c, Hup, F, a, r, hdiag, &hleft, &E, i, last, lastw, &best_lc, &best_row);
		carry[(size_t)(i - 1) * AG_B] = ag_int2(hleft, E);
		mv[(size_t)(i - 1) * AG_B] = word;
		r = rn, cin = cn;
	}
	for (int w = 0; w < AG_W && j0 + w < m; ++w) bottom[(size_t)(j0 + w) * AG_B] = Hup[w];
	*lc_best = best_lc, *lc_row = best_row;
}

/* A pair's scores and penalties as the fill uses them (clamp_diag: GKL's lower bound on the
 * diagonal, off in the Java flavour). */
AL_HD ag_sc_t ag_scores(const ag_job_t *jb, int clamp_diag)
{
	const int gapped = jb->ovh == GVK_OVERHANG_INDEL || jb->ovh == GVK_OVERHANG_LEADING_INDEL;
	ag_sc_t c;
	c.bo = gapped ? jb->open : 0, c.be = gapped ? jb->extend : 0;
	c.dlo = clamp_diag ? AL_CUTOFF : INT32_MIN, c.mat = jb->match, c.mis = jb->mismatch, c.op = jb->open, c.ex = jb->extend;
	return c;
}

/* Fills the pair's matrix strip by strip, writing its moves and bottom row; returns the last
 * column's best (5.1, first scan) in *lc_best / *lc_row. Pointers are already at thread t. */
AL_HD void ag_fill(const ag_job_t *jb, const ag_block_t *bk, const uint8_t *seq, uint64_t *moves, ag_int2_t *carry,
                   int32_t *bottom, int clamp_diag, int32_t *lc_best, int *lc_row)
{
	const int n = jb->n, m = jb->m;
	const uint8_t *ref = seq + jb->seq, *alt = ref + n;
	const ag_sc_t c = ag_scores(jb, clamp_diag);
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

/* Where a pair's move words are: word (strip s, row i) at w[(s * N + i - 1) * B]; in a block's
 * scratch N is the block's largest n and B = AG_B (w at the pair's slot), in the warp schedule's
 * shared memory N = n and B = 1. */
typedef struct {
	uint64_t *w;
	int N, B;
} ag_mv_t;

AL_HD size_t ag_mv_at(const ag_mv_t *mv, int s, int i) { return ((size_t)s * (size_t)mv->N + (size_t)(i - 1)) * (size_t)mv->B; }

AL_HD int ag_move(const ag_mv_t *mv, int i, int j)
{
	const int s = (j - 1) / AG_W, w = (j - 1) % AG_W;
	return (int)(mv->w[ag_mv_at(mv, s, i)] >> (4 * w) & 15);
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
AL_HD void ag_trace(const ag_job_t *jb, const ag_mv_t *mv, const int32_t *bottom, int java, int32_t lc_best, int lc_row,
                    uint32_t *el, ag_res_t *res)
{
	const int n = jb->n, m = jb->m;
	int p1, p2;
	int32_t best;
	if (jb->ovh == GVK_OVERHANG_INDEL) {
		p1 = n, p2 = m, best = bottom[(size_t)(m - 1) * AG_B]; /* H[n][m] */
	} else {
		best = lc_best, p1 = lc_row, p2 = m;
		if (jb->ovh != GVK_OVERHANG_LEADING_INDEL)
			for (int j = 1; j <= m; ++j) {
				const int32_t h = bottom[(size_t)(j - 1) * AG_B];
				if (h > best || (h == best && ag_dist(n, j) < ag_dist(p1, p2))) best = h, p1 = n, p2 = j;
			}
	}
	const int end2 = p2;
	int ne = 0;
	uint32_t run = 0; /* len << 2 | op of the run being collected; 0 = none yet */
	do {
		const int c = ag_move(mv, p1, p2);
		if (c & AL_DEL) {
			int e;
			do {
				e = ag_move(mv, p1, p2) & AL_FEXT;
				ag_push(el, &ne, &run, AG_D);
				--p1;
			} while (e && p1 > 0);
		} else if (c & AL_INS) {
			int e;
			do {
				e = ag_move(mv, p1, p2) & AL_EEXT;
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

/* End cell, traceback and the copied-back elements of pair k once its fill is done. */
AL_HD void ag_finish(const ag_chunk_dev_t *c, size_t k, const ag_mv_t *mv, int java, int32_t lc_best, int lc_row)
{
	const ag_job_t *jb = &c->jobs[k];
	const ag_block_t *bk = &c->blocks[jb->block];
	uint32_t *el = c->el + jb->el;
	ag_trace(jb, mv, c->bottom + bk->bottom + jb->slot, java, lc_best, lc_row, el, &c->res[k]);
	const int ne = c->res[k].ne < AG_CAP ? c->res[k].ne : AG_CAP;
	for (int q = 0; q < ne; ++q) c->out[k * AG_CAP + (size_t)q] = el[q];
}

/* Everything one thread does for pair k of the chunk (t = its slot in its block). */
AL_HD void ag_pair(const ag_chunk_dev_t *c, size_t k, int java)
{
	const ag_job_t *jb = &c->jobs[k];
	const ag_block_t *bk = &c->blocks[jb->block];
	const int t = jb->slot;
	int32_t lc_best;
	int lc_row;
	ag_mv_t mv;
	mv.w = c->moves + bk->moves + t, mv.N = bk->N, mv.B = AG_B;
	ag_fill(jb, bk, c->seq, mv.w, c->carry + bk->carry + t, c->bottom + bk->bottom + t, !java, &lc_best, &lc_row);
	ag_finish(c, k, &mv, java, lc_best, lc_row);
}

/* The warp schedule, for chunks too small to fill the GPU with one thread per pair (ag_use_warp):
 * a block of nw warps per pair (the chunk's ag_plan_t.nw), lane t of pass g sweeping strip
 * nl g + t (nl = 32 nw lanes) one row behind lane t - 1, which hands it H and E of its last column:
 * a shuffle within a warp; across a warp boundary, a ring of rows in shared memory read AG_WLAG
 * steps later than a shuffle would be, so that the warps meet at a barrier only every AG_WLAG steps
 * (ag_woff). A pass lasts its rows plus the lanes' lag, each step a chain of W dependent cells, so
 * strips are as narrow as the warps allow (ag_wwidth: 4 columns on several warps; on one warp 4,
 * 8 or 16, the narrowest whose 32 strips hold the alt). Every cell sees the same inputs as in
 * ag_strip, so the moves (each lane writing its W cells' part of a 16-column word), bottom row and
 * last-column scan are the same; they go to the same scratch layout, and ag_finish runs on lane
 * 0. The last lane passes its column to the next pass through `carry`. Written per lane and per
 * step so that the CPU emulation runs the same schedule. */

typedef struct {
	ag_sc_t c;
	const uint8_t *ref, *alt; /* ref may be a copy in shared memory */
	int n, m, ns; /* ns: strips of AG_W columns (the moves' words) */
	int W, nq;    /* the lanes' strip width (ag_wwidth) and strips of it */
	int nl;       /* lanes: 32 per warp */
	ag_mv_t mv;       /* the block's scratch at the pair's slot, or shared memory */
	ag_int2_t *carry; /* at the pair's slot */
	int32_t *bottom;
} ag_wpair_t;

typedef struct {
	int32_t Hup[AG_W], F[AG_W];
	uint8_t a[AG_W];
	int32_t hcorner, lc_best;
	int lc_row, s, j0;
	int off, first, last; /* its lag (ag_woff); whether it is the pass's first or last lane */
	ag_int2_t cnext;      /* lane 0: the carry of its next row, loaded a step ahead */
} ag_lane_t;

/* nw: warps; smoves: room for the pair's moves in shared memory (N = n, B = 1), or NULL for the
 * block's scratch; sref: a copy of its ref, or NULL. */
AL_HD void ag_wpair_init(const ag_chunk_dev_t *c, size_t k, int java, int nw, uint64_t *smoves, const uint8_t *sref,
                         ag_wpair_t *p)
{
	const ag_job_t *jb = &c->jobs[k];
	const ag_block_t *bk = &c->blocks[jb->block];
	p->c = ag_scores(jb, !java);
	p->n = jb->n, p->m = jb->m, p->ns = (jb->m + AG_W - 1) / AG_W;
	p->W = ag_wwidth(jb->m, nw), p->nq = (jb->m + p->W - 1) / p->W, p->nl = AG_LANES * nw;
	p->alt = c->seq + jb->seq + jb->n;
	p->ref = sref ? sref : c->seq + jb->seq;
	if (smoves)
		p->mv.w = smoves, p->mv.N = jb->n, p->mv.B = 1;
	else
		p->mv.w = c->moves + bk->moves + jb->slot, p->mv.N = bk->N, p->mv.B = AG_B;
	p->carry = c->carry + bk->carry + jb->slot;
	p->bottom = c->bottom + bk->bottom + jb->slot;
}


/* Steps of pass g: the rows plus the lag of its last active lane. */
AL_HD int ag_wpass_steps(const ag_wpair_t *p, int g) { return ag_wsteps(p->n, p->nq, p->nl, g); }

/* A lane's W cells of row i into their part of the row's 16-column move word: lanes write
 * disjoint bytes of a word, at different steps. */
AL_HD void ag_wput(const ag_mv_t *mv, int j0, int i, uint64_t word, int W)
{
	uint64_t *at = &mv->w[ag_mv_at(mv, j0 / AG_W, i)];
	if (W == AG_W)
		*at = word;
	else if (W == 8)
		((uint32_t *)at)[(j0 % AG_W) / 8] = (uint32_t)word;
	else
		((uint16_t *)at)[(j0 % AG_W) / 4] = (uint16_t)word;
}

/* Lane t of pass g. */
AL_HD void ag_wlane_start_w(const ag_wpair_t *p, int g, int t, ag_lane_t *L, int W)
{
	L->s = p->nl * g + t, L->j0 = L->s * W;
	L->off = ag_woff(t), L->first = t == 0, L->last = t == p->nl - 1;
	L->lc_best = INT32_MIN, L->lc_row = 0;
	if (L->s >= p->nq) return;
	if (L->first && L->s > 0) L->cnext = p->carry[0];
	ag_strip_start_w(&p->c, p->alt, p->m, L->j0, W, L->Hup, L->F, L->a);
	L->hcorner = ag_corner0(&p->c, L->j0);
}

/* The row a lane works on at step tau (from 1). */
AL_HD int ag_wlane_row(const ag_lane_t *L, int tau) { return tau - L->off; }

/* Step tau of a lane: row ag_wlane_row of its strip, from the left input `in` (lane t - 1's output
 * for that row); returns this row's output for lane t + 1. W is p->W, a constant where inlined in
 * the kernel. */
AL_HD ag_int2_t ag_wlane_step_w(const ag_wpair_t *p, ag_lane_t *L, int tau, ag_int2_t in, int W)
{
	const int i = ag_wlane_row(L, tau);
	if (L->s >= p->nq || i < 1 || i > p->n) return in;
	if (L->first && L->s == 0) {
		in = ag_int2(p->c.bo + (i - 1) * p->c.be, AL_LOW);
	} else if (L->first) { /* the carry written by the last pass's last lane, one row ahead */
		in = L->cnext;
		if (i < p->n) L->cnext = p->carry[(size_t)i * AG_B];
	}
	const int32_t hdiag = L->hcorner;
	int32_t hleft = in.x, E = in.y;
	L->hcorner = hleft;
	const uint8_t r = p->ref[i - 1];
	/* One code path for every lane, the last column's scan a comparison in each: two (one per value
	 * of `last`) would run one after the other on every step of the warp holding the last strip,
	 * and hold the other warps back at their next barrier. */
	const int lastw = L->s == p->nq - 1 ? p->m - 1 - L->j0 : -1;
	const uint64_t word = ag_row_w(&p->c, L->Hup, L->F, L->a, r, hdiag, &hleft, &E, i, 1, lastw, &L->lc_best, &L->lc_row, W);
	ag_wput(&p->mv, L->j0, i, word, W);
	const ag_int2_t out = ag_int2(hleft, E);
	if (L->last && L->s + 1 < p->nq) p->carry[(size_t)(i - 1) * AG_B] = out;
	return out;
}

/* After a pass: the lane's columns of the bottom row. */
AL_HD void ag_wlane_end_w(const ag_wpair_t *p, const ag_lane_t *L, int W)
{
	if (L->s >= p->nq) return;
	for (int w = 0; w < W && L->j0 + w < p->m; ++w) p->bottom[(size_t)(L->j0 + w) * AG_B] = L->Hup[w];
}

#endif
