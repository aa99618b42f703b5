/* SPDX-License-Identifier: MIT */
/* Segmentation of every (sequence, sample), individual calls, CNVs, CNV regions and integer copy
 * numbers (docs/cnv.md, Semantics 5-7). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/err.h"
#include "../common/log.h"
#include "../common/threads.h"
#include "cnv.h"
#include "cnv_em.h"

typedef struct {
	const gvk_cnv_counts_t *c;
	const gvk_cnv_opts_t *o;
	gvk_cnv_result_t *res;
	cnv_piece_t **pieces; /* per pair q * N + s */
	int *n_pieces;
	int *near;             /* per pair: a near tie met (see cnv_segment) */
	const uint8_t *only;   /* per sequence, or NULL for all: the sequences to segment */
	int nth, failed;
	int p0, p1;            /* the pairs of this process */
} seg_run_t;

static void seg_worker(void *arg, int tid)
{
	seg_run_t *run = arg;
	const gvk_cnv_counts_t *c = run->c;
	gvk_cnv_result_t *res = run->res;
	int N = c->N, m = c->m, pairs = c->n_seqs * N;
	cnv_seg_par_t par = {run->o->min_width, run->o->seg_delta, run->o->seg_max_int, run->o->seg_alpha,
	                     run->o->seg_cyber_weight};
	(void)pairs;
	for (int pi = run->p0 + tid; pi < run->p1; pi += run->nth) {
		int q = pi / N, s = pi % N, r0 = c->seq_off[q], len = c->seq_off[q + 1] - r0;
		if (run->only && !run->only[q]) continue;
		double diag[3];
		int ninit = 0;
		free(run->pieces[pi]), run->pieces[pi] = NULL;
		if (cnv_segment(res->sini + (size_t)s * m + r0, len, &par, res->seg_stat + (size_t)s * m + r0,
		                &run->pieces[pi], &run->n_pieces[pi], diag, &ninit, &run->near[pi]) < 0) {
			run->failed = 1;
			continue;
		}
		res->sp_eps[pi] = diag[0], res->sp_sd[pi] = diag[1], res->sp_q95[pi] = diag[2], res->sp_ninit[pi] = ninit;
		/* individual calls (docs/cnv.md, Semantics 6) here, in parallel: m x N values */
		for (int k = 0; k < run->n_pieces[pi]; ++k) {
			const cnv_piece_t *p = &run->pieces[pi][k];
			double v = run->o->use_median ? p->median : p->mean, *call = res->call + (size_t)s * m + r0;
			for (int r = p->start; r <= p->end; ++r) call[r] = v;
		}
	}
}

/* Copy number of one CNV segment: the EM (docs/cnv.md, Semantics 3) on the per-sample means of its inner regions
 * (Semantics 7), read at the segment's own sample. */
static int segment_cn(const gvk_cnv_result_t *res, const cnv_em_par_t *par, const gvk_cnv_seg_t *g, double *vec,
                      double *tmp, const double *ones)
{
	int m = res->m, N = res->N, a = g->first, b = g->last;
	if (b - a + 1 >= 3) ++a, --b;
	for (int s = 0; s < N; ++s) {
		for (int r = a; r <= b; ++r) tmp[r - a] = res->norm[(size_t)s * m + r];
		vec[s] = cnv_r_mean(tmp, (size_t)(b - a + 1));
	}
	double lam[GVK_CNV_MAX_CLASSES], alp[GVK_CNV_MAX_CLASSES], ini, *sini = tmp;
	uint8_t *cls = malloc((size_t)N);
	if (!cls) return -1;
	int cn = cnv_em_one(par, vec, ones, lam, alp, NULL, sini, &ini, cls) < 0 ? -1 : cls[g->sample];
	free(cls);
	return cn;
}

typedef struct {
	gvk_cnv_result_t *res;
	cnv_em_par_t par;
	const double *ones;
	int nth, failed;
} cn_run_t;

static void cn_worker(void *arg, int tid)
{
	cn_run_t *cr = arg;
	gvk_cnv_result_t *res = cr->res;
	size_t len = (size_t)(res->m > res->N ? res->m : res->N);
	double *vec = malloc((size_t)res->N * sizeof *vec), *tmp = malloc(len * sizeof *tmp);
	for (size_t k = (size_t)tid; k < res->n_cnvs; k += (size_t)cr->nth) {
		gvk_cnv_seg_t *g = &res->segs[res->cnvs[k]];
		int cn = vec && tmp ? segment_cn(res, &cr->par, g, vec, tmp, cr->ones) : -1;
		if (cn < 0) cr->failed = 1;
		else g->cn = cn;
	}
	free(vec), free(tmp);
}

static int build_cnvr(const gvk_cnv_counts_t *c, const gvk_cnv_opts_t *o, gvk_cnv_result_t *res)
{
	int N = c->N;
	/* at most one region per CNV: the copy numbers of all regions fit one block */
	res->cnvr = calloc(res->n_cnvs ? res->n_cnvs : 1, sizeof *res->cnvr);
	res->cnvr_cn = malloc((res->n_cnvs ? res->n_cnvs : 1) * (size_t)N * sizeof *res->cnvr_cn);
	if (!res->cnvr || !res->cnvr_cn) return -1;
	/* CNVs are ordered by sequence, so one sweep per sequence over sorted intervals suffices. */
	size_t i = 0;
	while (i < res->n_cnvs) {
		int q = res->segs[res->cnvs[i]].seq;
		size_t j = i;
		while (j < res->n_cnvs && res->segs[res->cnvs[j]].seq == q) ++j;
		size_t cnt = j - i, base = res->n_cnvr;
		int *fs = malloc(cnt * 2 * sizeof *fs);
		if (!fs) return -1;
		for (size_t k = 0; k < cnt; ++k) fs[2 * k] = res->segs[res->cnvs[i + k]].first, fs[2 * k + 1] = res->segs[res->cnvs[i + k]].last;
		/* insertion sort by start: few CNVs per sequence */
		for (size_t k = 1; k < cnt; ++k)
			for (size_t l = k; l > 0 && fs[2 * (l - 1)] > fs[2 * l]; --l) {
				int t0 = fs[2 * l], t1 = fs[2 * l + 1];
				fs[2 * l] = fs[2 * (l - 1)], fs[2 * l + 1] = fs[2 * (l - 1) + 1];
				fs[2 * (l - 1)] = t0, fs[2 * (l - 1) + 1] = t1;
			}
		for (size_t k = 0; k < cnt; ++k) {
			gvk_cnv_region_t *last = res->n_cnvr > base ? &res->cnvr[res->n_cnvr - 1] : NULL;
			if (last && last->last + 1 >= fs[2 * k]) {
				if (fs[2 * k + 1] > last->last) last->last = fs[2 * k + 1];
			} else {
				res->cnvr[res->n_cnvr++] = (gvk_cnv_region_t){q, fs[2 * k], fs[2 * k + 1], NULL};
			}
		}
		free(fs);
		for (size_t k = base; k < res->n_cnvr; ++k) {
			gvk_cnv_region_t *g = &res->cnvr[k];
			g->cn = res->cnvr_cn + k * (size_t)N;
			for (int s = 0; s < N; ++s) g->cn[s] = o->cn2;
		}
		/* The CNVs of a sequence come by sample, then start, and one sample's are disjoint; the
		 * regions are disjoint and sorted: one merge-like sweep per sample finds, for every
		 * region, that sample's leftmost overlapping CNV. */
		for (size_t l = i; l < j;) {
			int s = res->segs[res->cnvs[l]].sample;
			size_t e = l;
			while (e < j && res->segs[res->cnvs[e]].sample == s) ++e;
			for (size_t k = base, u = l; k < res->n_cnvr && u < e; ++k) {
				gvk_cnv_region_t *g = &res->cnvr[k];
				while (u < e && res->segs[res->cnvs[u]].last < g->first) ++u;
				if (u < e && res->segs[res->cnvs[u]].first <= g->last) g->cn[s] = res->segs[res->cnvs[u]].cn;
			}
			l = e;
		}
		i = j;
	}
	return 0;
}

/* Sequences whose segmentation met a near tie get their EM redone by redo and are segmented
 * again (see cnv_call). */
static int redo_near_ties(seg_run_t *run, cnv_redo_fn redo, void *redo_arg, const cnv_split_t *sp, gvk_err_t *err)
{
	const gvk_cnv_counts_t *c = run->c;
	uint8_t *again = calloc((size_t)c->n_seqs, 1);
	int n = 0, rc = again ? 0 : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory in segmentation");
	for (int pi = run->p0; pi < run->p1 && again; ++pi)
		if (run->near[pi]) again[pi / c->N] = 1;
	/* every process redoes the same sequences, so that their EM outputs stay the same everywhere */
	if (sp) rc = sp->near_join(sp->ctx, again, c->n_seqs, rc, err);
	if (rc < 0) return free(again), rc;
	for (int q = 0; q < c->n_seqs; ++q) n += again[q];
	for (int q = 0; q < c->n_seqs && rc == 0; ++q)
		if (again[q]) rc = redo(redo_arg, q, err);
	if (rc == 0 && n > 0) {
		gvk_logf(&run->o->log, GVK_LOG_INFO,
		         "%d sequence(s) met a near tie in the segmentation; their EM was recomputed on the CPU", n);
		run->only = again;
		gvk_parallel(run->nth, seg_worker, run);
		run->only = NULL;
	}
	free(again);
	return rc;
}

/* redo_near_ties after a failure too where processes join (the failure is then only agreed). */
static int redo_near_ties_rc(seg_run_t *run, cnv_redo_fn redo, void *redo_arg, const cnv_split_t *sp, int rc,
                             gvk_err_t *err)
{
	if (rc == 0) return redo_near_ties(run, redo, redo_arg, sp, err);
	uint8_t none = 0;
	return sp->near_join(sp->ctx, &none, 0, rc, err);
}

int cnv_call(const gvk_cnv_counts_t *c, const gvk_cnv_opts_t *o, gvk_cnv_result_t *res, cnv_redo_fn redo,
             void *redo_arg, gvk_err_t *err)
{
	return cnv_call_split(c, o, res, redo, redo_arg, NULL, err);
}

int cnv_call_split(const gvk_cnv_counts_t *c, const gvk_cnv_opts_t *o, gvk_cnv_result_t *res, cnv_redo_fn redo,
                   void *redo_arg, const cnv_split_t *sp, gvk_err_t *err)
{
	int N = c->N, m = c->m, pairs = c->n_seqs * N, rc = 0;
	if (m <= 5) { /* the package segments only more than five regions */
		memcpy(res->call, res->sini, (size_t)m * N * sizeof *res->call);
		return 0;
	}
	seg_run_t run = {c, o, res, calloc((size_t)pairs, sizeof(cnv_piece_t *)), calloc((size_t)pairs, sizeof(int)),
	                 calloc((size_t)pairs, sizeof(int)), NULL, o->threads < 1 ? 1 : o->threads, 0,
	                 sp ? sp->p0 : 0, sp ? sp->p1 : pairs};
	double *ones = malloc((size_t)N * sizeof *ones);
	if (!run.pieces || !run.n_pieces || !run.near || !ones)
		rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory in segmentation");
	if (rc == 0) gvk_parallel(run.nth, seg_worker, &run);
	if (rc == 0 && run.failed) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory in segmentation");
	/* a process that failed still joins, so that the others are not left waiting */
	if (redo && (rc == 0 || sp) && (rc = redo_near_ties_rc(&run, redo, redo_arg, sp, rc, err)) < 0) goto out;
	if (rc == 0 && run.failed) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory in segmentation");
	if (sp) {
		int calls = 0;
		rc = sp->seg_join(sp->ctx, c, res, run.pieces, run.n_pieces, rc, &calls, err);
		if (rc < 0 || !calls) goto out;
	}
	if (rc < 0) goto out;
	size_t total = 0;
	for (int pi = 0; pi < pairs; ++pi) total += (size_t)run.n_pieces[pi];
	res->segs = malloc((total ? total : 1) * sizeof *res->segs);
	res->cnvs = malloc((total ? total : 1) * sizeof *res->cnvs);
	if (!res->segs || !res->cnvs) {
		rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory in calling");
		goto out;
	}
	for (int pi = 0; pi < pairs; ++pi) {
		int q = pi / N, s = pi % N, r0 = c->seq_off[q];
		for (int k = 0; k < run.n_pieces[pi]; ++k) {
			const cnv_piece_t *p = &run.pieces[pi][k];
			double v = o->use_median ? p->median : p->mean;
			gvk_cnv_seg_t g = {q, s, r0 + p->start, r0 + p->end, p->mean, p->median, o->cn2, 0};
			g.is_cnv = (v >= o->upper || v <= o->lower) && p->end - p->start + 1 >= o->min_width;
			if (g.is_cnv) res->cnvs[res->n_cnvs++] = res->n_segs;
			res->segs[res->n_segs++] = g;
		}
	}
	/* Integer copy numbers (docs/cnv.md, Semantics 7): fitted for CNVs, threshold-promoted for the rest. */
	cn_run_t cr = {res, {0}, ones, run.nth, 0};
	for (int s = 0; s < N; ++s) ones[s] = 1.0;
	cnv_em_par_init(&cr.par, o, N, ones);
	gvk_parallel(cr.nth, cn_worker, &cr);
	if (cr.failed) {
		rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory in calling");
		goto out;
	}
	for (size_t k = 0; k < res->n_segs; ++k) {
		gvk_cnv_seg_t *g = &res->segs[k];
		double v = o->use_median ? g->median : g->mean;
		if (g->cn == o->cn2 && v > o->upper && o->cn2 + 1 < o->n_classes) g->cn = o->cn2 + 1;
		else if (g->cn == o->cn2 && v < o->lower && o->cn2 > 0) g->cn = o->cn2 - 1;
	}
	if (build_cnvr(c, o, res) < 0) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory in calling");
out:
	if (run.pieces)
		for (int pi = 0; pi < pairs; ++pi) free(run.pieces[pi]);
	free(run.pieces), free(run.n_pieces), free(run.near), free(ones);
	return rc;
}
