/* SPDX-License-Identifier: MIT */
/* --clump as PLINK 1.9 forms clumps. Index candidates are taken by p ascending (ties: fileset
 * order); one already in a clump is passed over. An index variant's window is its chromosome's
 * variants within bp_radius on either side that have an entry or a line above the load
 * threshold, less those already clumped (unless overlap is allowed). A window variant whose r^2
 * with the index (from the EM haplotype frequencies, ld_em.c) has |r^2| above the threshold
 * joins: all its lines count in the p histogram, those with p < p2 are listed, and it is marked
 * clumped. The index variant's other lines join with r^2 = 1.
 * A clump changes nothing outside its index's window, so the candidates' windows, merged where
 * they overlap, split the fileset into components that are clumped one after another, each in
 * the candidates' order, and the clumps are put in that order at the end. Without planes in d
 * only a component's SNPs with report lines are read from the .bed, when it comes.
 * Many small components are shared out whole among the threads. Otherwise, as the r^2 of an
 * index against its window does not depend on which variants are clumped, the rows of a batch of
 * index candidates are computed in parallel (or their tables in one GPU call, the estimate on the
 * host) and then applied in order; a candidate clumped by an earlier one of its batch only costs
 * its row. A pair whose r^2 is bound to stay at or below the threshold
 * skips the estimate. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ld_clump.h"
#include "ld_em.h"
#include "ld_gpu.h"
#include "../snp/popgemm.h"
#include "../snp/snp_chrom.h"
#include "../common/err.h"
#include "../common/threads.h"

/* PLINK's relative epsilon (2^-44). */
#define CLUMP_EPS 0.00000000000005684341886080801486968994140625

void ld_clump_opt_init(ld_clump_opt_t *o)
{
	memset(o, 0, sizeof *o);
	o->p1 = 1e-4, o->p2 = 0.01, o->r2 = 0.5, o->bp_radius = ld_clump_kb_radius(250);
}

int64_t ld_clump_kb_radius(double kb)
{
	double bp = kb * 1000;
	return bp > 2147483647.0 ? 0x7ffffffe : (int64_t)(int32_t)(bp * (1 + CLUMP_EPS) - 1);
}

int ld_clump_opt_check(const ld_clump_opt_t *o, gvk_err_t *err)
{
	if (!(o->p1 > 0 && o->p1 <= 1)) return gvk_err_set(err, GVK_ERR_ARG, "p1: %g; give a value in (0, 1]", o->p1);
	if (!(o->p2 >= o->p1 && o->p2 <= 1))
		return gvk_err_set(err, GVK_ERR_ARG, "p2: %g; give a value in [p1, 1]", o->p2);
	if (!(o->r2 < 1)) return gvk_err_set(err, GVK_ERR_ARG, "r2: %g; give a value below 1", o->r2);
	if (o->bp_radius < 0) return gvk_err_set(err, GVK_ERR_ARG, "window: %lld bp; give at least 1 bp (0.001 kb)",
	                                         (long long)o->bp_radius);
	return 0;
}

/* Which histogram bin p falls in. */
static int bin(double p)
{
	return p < 0.001 ? (p < 0.0001 ? 4 : 3) : p < 0.01 ? 2 : p < 0.05 ? 1 : 0;
}

/* The state of the greedy pass, and the component it is in: SNPs [a, b) of the chromosome run
 * [run_a, run_b), whose planes are in w (slot[i - a] for SNP i, or SNP i's own with d's planes). */
typedef struct {
	const snp_data_t *d;
	const ld_clump_input_t *in;
	const ld_clump_opt_t *o;
	ld_clump_result_t *r;
	uint8_t *clumped;
	int64_t run_a, run_b, a, b;
	const uint64_t *w;
	const int64_t *slot; /* NULL: d's planes */
	int64_t n_w;         /* with slot: the planes in w, of the component's SNPs with lines */
	const uint64_t *xmale; /* the male columns when the component is on X, else NULL */
	double drop;           /* pairs bound to be below this skip the estimate */
	const double *lg;      /* per SNP i of the component with lines, at 2 (i - a): the range of the
	                          logit of its A1 frequency over its calls less any of the others'
	                          missing ones (NULL: no such bound) */
	double gap;            /* a pair whose ranges lie further apart than this cannot join */
} pass_t;

static int64_t slot_of(const pass_t *s, int64_t i) { return s->slot ? s->slot[i - s->a] : i; }

/* The last SNP from i on, stepping by dir (+1 or -1) and short of `end` (the run's edge, outside it),
 * whose position lies in [from, to]: positions never go down along a chromosome (ld_load checks),
 * so it is found by galloping out from i and halving, instead of stepping over each SNP. */
static int64_t window_edge(const snp_var_t *v, int64_t i, int64_t end, int dir, int64_t from, int64_t to)
{
	int64_t in = i, out = end; /* v[in] inside, v[out] outside (or the run's edge) */
	for (int64_t step = 1; in + dir != end; step *= 2) {
		int64_t k = in + dir * step;
		if ((k - end) * dir >= 0) k = end - dir;
		if (v[k].bp < from || v[k].bp > to) {
			out = k;
			break;
		}
		in = k;
	}
	while ((out - in) * dir > 1) {
		int64_t mid = in + (out - in) / 2;
		if (v[mid].bp < from || v[mid].bp > to) out = mid;
		else in = mid;
	}
	return in;
}

/* The window [*lo, *hi) of SNP i: the SNPs of its run [run_a, run_b) within radius bp. */
static void window(const snp_data_t *d, int64_t radius, int64_t run_a, int64_t run_b, int64_t i, int64_t *lo,
                   int64_t *hi)
{
	const int64_t from = d->var[i].bp - radius, to = d->var[i].bp + radius;
	*lo = window_edge(d->var, i, run_a - 1, -1, from, to);
	*hi = window_edge(d->var, i, run_b, 1, from, to) + 1;
}

/* Whether SNP j has report lines (so can be in a window). */
static int has_lines(const ld_clump_input_t *in, int64_t j) { return in->head[j] >= 0 || in->nsig[j]; }

/* Whether SNP j of a window takes part (has lines, and is not clumped unless overlap is allowed). */
static int eligible(const pass_t *s, int64_t j)
{
	if (!s->o->allow_overlap && s->clumped[j]) return 0;
	return has_lines(s->in, j);
}

/* The array p (*cap items of size bytes) with room for item n, or NULL when out of memory (p is
 * then still the caller's). */
static void *room(void *p, int64_t *cap, int64_t n, size_t size)
{
	if (n < *cap) return p;
	int64_t c = *cap ? 2 * *cap : 256;
	void *q = realloc(p, size * (size_t)c);
	if (q) *cap = c;
	return q;
}

static int add_member(ld_clump_result_t *r, int64_t snp, int fidx, double r2, double p)
{
	ld_clump_member_t *m = room(r->m, &r->cap_m, r->n_m, sizeof *m);
	if (!m) return -1;
	r->m = m;
	r->m[r->n_m++] = (ld_clump_member_t){snp, fidx, r2, p};
	return 0;
}

/* The p PLINK prints beside a member: the variant's first entry from that file. */
static double file_p(const ld_clump_input_t *in, int64_t j, int fidx)
{
	int64_t e = in->head[j];
	while (in->e[e].fidx != fidx) e = in->e[e].next;
	return in->e[e].p;
}

/* Window SNP j with r^2 rr joins the clump when above the threshold. */
static int take(pass_t *s, ld_clump_t *c, int64_t j, double rr)
{
	if (isnan(rr) || !(fabs(rr) > s->o->r2)) return 0;
	const ld_clump_input_t *in = s->in;
	for (int64_t e = in->head[j]; e >= 0; e = in->e[e].next) {
		++c->histo[bin(in->e[e].p)];
		if (in->e[e].p < s->o->p2 && add_member(s->r, j, in->e[e].fidx, rr, file_p(in, j, in->e[e].fidx)) < 0)
			return -1;
	}
	c->histo[0] += in->nsig[j];
	s->clumped[j] = 1;
	return 0;
}

/* The index SNP's own lines other than the one that made it the index (p == its p). */
static int index_lines(pass_t *s, ld_clump_t *c, int64_t i)
{
	const ld_clump_input_t *in = s->in;
	int64_t e = in->head[i];
	int others = 0;
	for (; in->e[e].p != c->p; e = in->e[e].next) {
		others = 1;
		++c->histo[bin(in->e[e].p)];
		if (in->e[e].p < s->o->p2 && add_member(s->r, i, in->e[e].fidx, 1.0, file_p(in, i, in->e[e].fidx)) < 0) return -1;
	}
	c->fidx = in->e[e].fidx;
	for (e = in->e[e].next; e >= 0; e = in->e[e].next) {
		others = 1;
		++c->histo[bin(in->e[e].p)];
		if (in->e[e].p < s->o->p2 && add_member(s->r, i, in->e[e].fidx, 1.0, file_p(in, i, in->e[e].fidx)) < 0) return -1;
	}
	if ((others || in->nsig[i]) && (s->o->allow_overlap || !s->clumped[i])) {
		c->histo[0] += in->nsig[i];
		s->clumped[i] = 1;
	}
	return 0;
}

/* One index candidate's row: the window SNPs eligible when its batch started (j, and their
 * planes' slots js), and their r^2. */
typedef struct {
	int64_t i, n;
	int64_t *j, *js;
	double *r2;
} row_t;

typedef struct {
	pass_t *s;
	row_t *rows;
	int64_t n_rows;
	int64_t next; /* atomic */
	uint64_t pairs; /* atomic */
} batch_t;

static void row_worker(void *arg, int tid)
{
	batch_t *b = arg;
	const pass_t *s = b->s;
	(void)tid;
	uint64_t pairs = 0;
	for (int64_t k; (k = __atomic_fetch_add(&b->next, 1, __ATOMIC_RELAXED)) < b->n_rows;) {
		row_t *w = &b->rows[k];
		ld_clump_r2_row(s->w, s->d->nw, slot_of(s, w->i), w->js, w->n, s->xmale, s->drop, w->r2);
		pairs += (uint64_t)w->n;
	}
	__atomic_fetch_add(&b->pairs, pairs, __ATOMIC_RELAXED);
}

/* GPU buffers of a batch: its pairs, their X flags and tables. */
typedef struct {
	int64_t *pairs;
	uint8_t *x;
	uint32_t *c;
	int64_t cap;
} gpu_buf_t;

/* The rows of a batch through the GPU's tables and the host's estimate. */
static int gpu_rows(batch_t *b, gpu_buf_t *gb, gvk_err_t *err)
{
	const pass_t *s = b->s;
	int64_t n = 0;
	for (int64_t k = 0; k < b->n_rows; ++k) n += b->rows[k].n;
	if (n > gb->cap) {
		int64_t *pp = realloc(gb->pairs, sizeof *pp * 2 * (size_t)n);
		if (pp) gb->pairs = pp;
		uint8_t *xx = realloc(gb->x, (size_t)n);
		if (xx) gb->x = xx;
		uint32_t *cc = realloc(gb->c, sizeof *cc * 18 * (size_t)n);
		if (cc) gb->c = cc;
		if (!pp || !xx || !cc) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		gb->cap = n;
	}
	int64_t q = 0;
	uint8_t on_x = s->xmale != NULL;
	for (int64_t k = 0; k < b->n_rows; ++k) {
		const row_t *w = &b->rows[k];
		for (int64_t t = 0; t < w->n; ++t, ++q) gb->pairs[2 * q] = slot_of(s, w->i), gb->pairs[2 * q + 1] = w->js[t], gb->x[q] = on_x;
	}
	/* the component's planes as the GPU back end takes them: SNP k of the view is slot k */
	snp_data_t v = *s->d;
	v.w = (uint64_t *)s->w;
	if (s->slot) v.n_snp = s->n_w;
	int rc = snp_gpu_clump_counts(s->o->gpu, &v, gb->pairs, gb->x, n, gb->c, err);
	q = 0;
	for (int64_t k = 0; rc == 0 && k < b->n_rows; ++k)
		for (int64_t t = 0; t < b->rows[k].n; ++t, ++q) {
			double dd, dp;
			ld_em_stats(gb->c + 18 * q, gb->x[q], gb->x[q], 1, s->drop, &b->rows[k].r2[t], &dd, &dp);
		}
	b->pairs = (uint64_t)n;
	return rc;
}

/* Applies a computed row: the clump of index candidate w->i, unless it was clumped meanwhile. */
static int apply(pass_t *s, const row_t *w, double p)
{
	int64_t i = w->i;
	if (s->clumped[i]) return 0;
	ld_clump_result_t *r = s->r;
	ld_clump_t c = {.snp = i, .p = p, .first = r->n_m};
	int64_t k = 0;
	for (; k < w->n && w->j[k] < i; ++k)
		if (eligible(s, w->j[k]) && take(s, &c, w->j[k], w->r2[k]) < 0) return -1;
	if (index_lines(s, &c, i) < 0) return -1;
	for (; k < w->n; ++k)
		if (eligible(s, w->j[k]) && take(s, &c, w->j[k], w->r2[k]) < 0) return -1;
	c.n = r->n_m - c.first;
	ld_clump_t *cc = room(r->c, &r->cap_c, r->n, sizeof *cc);
	if (!cc) return -1;
	r->c = cc;
	r->c[r->n++] = c;
	return 0;
}

/* The first top variant in [i, end), or end: top variants are few among many SNPs. */
static int64_t next_top(const ld_clump_input_t *in, int64_t i, int64_t end)
{
	const uint8_t *p = i < end ? memchr(in->top + i, 1, (size_t)(end - i)) : NULL;
	return p ? p - in->top : end;
}

/* Index candidates and their p (the smallest of their entries, or with index_first the first
 * entry's), sorted by p then fileset order. */
typedef struct {
	double p;
	int64_t i;
} cand_t;

static int cand_cmp(const void *x, const void *y)
{
	const cand_t *a = x, *b = y;
	if (a->p != b->p) return a->p < b->p ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* Clumps in the candidates' order: by p, then fileset order. */
static int clump_cmp(const void *x, const void *y)
{
	const ld_clump_t *a = x, *b = y;
	if (a->p != b->p) return a->p < b->p ? -1 : 1;
	return (a->snp > b->snp) - (a->snp < b->snp);
}

static cand_t *candidates(const ld_clump_input_t *in, const ld_clump_opt_t *o, int64_t *n)
{
	cand_t *c = malloc(sizeof *c * (size_t)(in->n_snp + 1));
	if (!c) return NULL;
	*n = 0;
	for (int64_t i = 0; (i = next_top(in, i, in->n_snp)) < in->n_snp; ++i) {
		int64_t e = in->head[i];
		double p = in->e[e].p;
		if (!o->index_first)
			for (e = in->e[e].next; e >= 0; e = in->e[e].next)
				if (in->e[e].p < p) p = in->e[e].p;
		c[(*n)++] = (cand_t){p, i};
	}
	qsort(c, (size_t)*n, sizeof *c, cand_cmp);
	return c;
}

/* Row buffers of a batch, grown as needed. */
typedef struct {
	row_t *rows;
	int64_t *j, *js;
	double *r;
	int64_t cap;
} rowbuf_t;

/* How far apart two ranges are (0 when they meet; infinite ends that meet give no gap). */
static double apart(double lo1, double hi1, double lo2, double hi2)
{
	double a = lo2 - hi1, b = lo1 - hi2;
	return a > b ? (a > 0 ? a : 0.0) : (b > 0 ? b : 0.0);
}

/* Whether SNPs i and j cannot join: with allele frequencies p and q over the samples called at
 * both, any haplotype frequencies give r^2 <= exp(-|logit p - logit q|) when D > 0 and
 * exp(-|logit p + logit q|) when D < 0 (D within its bounds from p and q, as the estimate's is), so
 * when both distances exceed -ln(r2) the pair's |r^2| is at most the threshold; it is left out of
 * the row as a pair that gives no value. */
static int too_far(const pass_t *s, int64_t i, int64_t j)
{
	if (!s->lg) return 0;
	const double *x = s->lg + 2 * (i - s->a), *y = s->lg + 2 * (j - s->a);
	return apart(x[0], x[1], y[0], y[1]) > s->gap && apart(x[0], x[1], -y[1], -y[0]) > s->gap;
}

/* Fills rows for candidates cand[0 .. n) not yet clumped; returns how many, or -1. */
static int64_t fill_rows(pass_t *s, const cand_t *cand, int64_t n_cand, rowbuf_t *rb)
{
	int64_t n = 0, need = 0;
	for (int64_t k = 0; k < n_cand; ++k) {
		int64_t i = cand[k].i, lo, hi;
		if (s->clumped[i]) continue;
		window(s->d, s->o->bp_radius, s->run_a, s->run_b, i, &lo, &hi);
		need += hi - lo;
	}
	if (need > rb->cap) {
		int64_t *j = realloc(rb->j, sizeof *j * (size_t)need), *js = realloc(rb->js, sizeof *js * (size_t)need);
		if (j) rb->j = j;
		if (js) rb->js = js;
		double *r = realloc(rb->r, sizeof *r * (size_t)need);
		if (r) rb->r = r;
		if (!j || !js || !r) return -1;
		rb->cap = need;
	}
	int64_t off = 0;
	for (int64_t k = 0; k < n_cand; ++k) {
		int64_t i = cand[k].i, lo, hi;
		if (s->clumped[i]) continue;
		row_t *w = &rb->rows[n++];
		window(s->d, s->o->bp_radius, s->run_a, s->run_b, i, &lo, &hi);
		w->i = i, w->j = rb->j + off, w->js = rb->js + off, w->r2 = rb->r + off, w->n = 0;
		for (int64_t j = lo; j < hi; ++j)
			if (j != i && eligible(s, j) && !too_far(s, i, j)) w->js[w->n] = slot_of(s, j), w->j[w->n++] = j;
		off += w->n;
	}
	return n;
}

/* A growing array of doubles. */
typedef struct {
	double *v;
	int64_t cap;
} dbuf_t;

/* A component: SNPs [a, b) of the chromosome run [run_a, run_b), and its candidates, in order,
 * at cand[c0 .. c1) of the candidates bucketed by component. */
typedef struct {
	int64_t a, b, run_a, run_b, c0, c1;
} comp_t;

typedef struct {
	comp_t *c;
	int64_t n, cap;
} comps_t;

static int comp_add(comps_t *cs, int64_t a, int64_t b, int64_t run_a, int64_t run_b)
{
	comp_t *c = room(cs->c, &cs->cap, cs->n, sizeof *c);
	if (!c) return -1;
	cs->c = c;
	cs->c[cs->n++] = (comp_t){a, b, run_a, run_b, 0, 0};
	return 0;
}

typedef struct {
	int64_t lo, hi;
} span_t;

static int span_cmp(const void *x, const void *y)
{
	const span_t *a = x, *b = y;
	return (a->lo > b->lo) - (a->lo < b->lo);
}

/* The components of one chromosome run [ra, rb): its candidates' windows, merged where they
 * overlap. sp: room for the run's candidates. */
static int run_comps(const snp_data_t *d, const ld_clump_input_t *in, int64_t radius, int64_t ra, int64_t rb, span_t *sp,
                     comps_t *cs)
{
	int64_t n = 0, sorted = 1;
	for (int64_t i = ra; (i = next_top(in, i, rb)) < rb; ++i) {
		window(d, radius, ra, rb, i, &sp[n].lo, &sp[n].hi);
		sorted &= n == 0 || sp[n].lo >= sp[n - 1].lo;
		++n;
	}
	if (!sorted) qsort(sp, (size_t)n, sizeof *sp, span_cmp);
	for (int64_t k = 0; k < n;) {
		int64_t a = sp[k].lo, b = sp[k].hi;
		for (++k; k < n && sp[k].lo < b; ++k)
			if (sp[k].hi > b) b = sp[k].hi;
		if (comp_add(cs, a, b, ra, rb) < 0) return -1;
	}
	return 0;
}

/* The components of d in fileset order, and the candidates (sorted) bucketed by component in
 * *bucket, each component's in the candidates' order. */
static int components(const snp_data_t *d, const ld_clump_input_t *in, const ld_clump_opt_t *o, const cand_t *cand,
                      int64_t n_cand, comps_t *cs, cand_t **bucket)
{
	span_t *sp = malloc(sizeof *sp * (size_t)(n_cand + 1));
	int64_t *cnt = NULL, *run = NULL, n_run = 0;
	*bucket = malloc(sizeof **bucket * (size_t)(n_cand + 1));
	int rc = sp && *bucket && snp_chr_runs(d, o->threads, &run, &n_run) == 0 ? 0 : -1;
	for (int64_t k = 0; rc == 0 && k < n_run; ++k) rc = run_comps(d, in, o->bp_radius, run[k], run[k + 1], sp, cs);
	free(run);
	if (rc == 0 && !(cnt = calloc((size_t)cs->n + 1, sizeof *cnt))) rc = -1;
	/* each candidate lies in its own window, so in the component holding it */
	int64_t *of = rc == 0 ? malloc(sizeof *of * (size_t)(n_cand + 1)) : NULL;
	if (rc == 0 && !of) rc = -1;
	for (int64_t k = 0; rc == 0 && k < n_cand; ++k) {
		int64_t lo = 0, hi = cs->n - 1, i = cand[k].i;
		while (lo < hi) {
			int64_t mid = (lo + hi + 1) / 2;
			if (cs->c[mid].a <= i) lo = mid;
			else hi = mid - 1;
		}
		of[k] = lo, ++cnt[lo];
	}
	for (int64_t c = 0, at = 0; rc == 0 && c < cs->n; ++c) cs->c[c].c0 = cs->c[c].c1 = at, at += cnt[c];
	for (int64_t k = 0; rc == 0 && k < n_cand; ++k) (*bucket)[cs->c[of[k]].c1++] = cand[k];
	free(sp), free(cnt), free(of);
	return rc;
}

/* Planes of a component's SNPs read from the .bed: the store and the slot map. */
typedef struct {
	uint64_t *w;
	int64_t *slot, *snp;
	int64_t cap_w, cap_slot;
} store_t;

static int store_fill(pass_t *s, const comp_t *c, store_t *st, int nt, gvk_pool_t *pool, gvk_err_t *err)
{
	const snp_data_t *d = s->d;
	int64_t len = c->b - c->a, n = 0;
	size_t per = (size_t)SNP_PLANES * (size_t)d->nw;
	if (len > st->cap_slot) {
		free(st->slot), free(st->snp);
		st->slot = malloc(sizeof *st->slot * (size_t)len);
		st->snp = malloc(sizeof *st->snp * (size_t)len);
		st->cap_slot = st->slot && st->snp ? len : 0;
		if (!st->cap_slot) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	}
	for (int64_t i = c->a; i < c->b; ++i) {
		st->slot[i - c->a] = has_lines(s->in, i) ? n : -1;
		if (has_lines(s->in, i)) st->snp[n++] = i;
	}
	if (n > st->cap_w) {
		free(st->w);
		st->w = aligned_alloc(64, per * 8 * (size_t)n);
		st->cap_w = st->w ? n : 0;
		if (!st->w) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for the planes of %lld SNPs", (long long)n);
	}
	s->w = st->w, s->slot = st->slot, s->n_w = n;
	int rc = snp_bed_decode(s->o->src, d, st->snp, n, st->w, nt, pool, NULL, err);
	if (rc == 0 && s->o->gpu) snp_gpu_planes_changed(s->o->gpu);
	return rc;
}

/* The ranges of pass_t.lg for the component [s->a, s->b) (into *buf, grown as needed), when the
 * threshold is in (0, 1) and the component is not on X (where males count one haplotype). A SNP's
 * A1 count A over its n calls can only lose, with the k <= m calls missing at the other SNP, up to
 * two copies each: its frequency over the pair's calls lies in [(A - 2m) / 2(n - m), A / 2(n - m)],
 * m the most missing calls of any SNP of the component. */
static int freq_bounds(pass_t *s, dbuf_t *buf)
{
	double r = s->o->r2;
	s->lg = NULL;
	if (!(r > 0 && r < 1) || s->xmale) return 0;
	int64_t len = s->b - s->a, m = 0, nb = s->d->n_bits, nw = s->d->nw;
	if (2 * len > buf->cap) {
		double *g = realloc(buf->v, sizeof *g * (size_t)(2 * len));
		if (!g) return -1;
		buf->v = g, buf->cap = 2 * len;
	}
	double *lg = buf->v;
	const pg_isa_t *isa = pg_isa_select(GVK_ISA_AUTO);
	for (int64_t i = s->a; i < s->b; ++i) { /* calls and A1 copies first, as (n, A) */
		if (!has_lines(s->in, i)) continue;
		const uint64_t *p = s->w + (size_t)slot_of(s, i) * SNP_PLANES * (size_t)nw;
		int64_t n = isa->popcount(p + 2 * nw, (long)nw), a = isa->popcount(p, (long)nw) + isa->popcount(p + nw, (long)nw);
		lg[2 * (i - s->a)] = (double)n, lg[2 * (i - s->a) + 1] = (double)a;
		if (nb - n > m) m = nb - n;
	}
	for (int64_t i = s->a; i < s->b; ++i) {
		if (!has_lines(s->in, i)) continue;
		double *x = lg + 2 * (i - s->a), n = x[0] - (double)m, a = x[1];
		double lo = n > 0 ? (a - 2.0 * (double)m) / (2 * n) : 0, hi = n > 0 ? a / (2 * n) : 1;
		x[0] = lo <= 0 ? -INFINITY : lo >= 1 ? INFINITY : log(lo / (1 - lo));
		x[1] = hi >= 1 ? INFINITY : hi <= 0 ? -INFINITY : log(hi / (1 - hi));
	}
	/* the margin covers the rounding of the logarithms and of the estimate */
	s->lg = lg, s->gap = -log(r) + 1e-6;
	return 0;
}

/* Clumps one component, its candidates' rows in batches (on nt threads of pool). */
static int clump_comp(pass_t *s, const comp_t *c, const cand_t *cand, rowbuf_t *rb, dbuf_t *lg, int64_t batch, int nt,
                      gvk_pool_t *pool, gpu_buf_t *gb, gvk_err_t *err)
{
	s->a = c->a, s->b = c->b, s->run_a = c->run_a, s->run_b = c->run_b;
	s->xmale = snp_chr_class(s->d->var[c->a].chr) == SNP_CHR_X ? s->d->male : NULL;
	if (freq_bounds(s, lg) < 0) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	for (int64_t k0 = c->c0; k0 < c->c1; k0 += batch) {
		int64_t k1 = k0 + batch < c->c1 ? k0 + batch : c->c1;
		int64_t n = fill_rows(s, cand + k0, k1 - k0, rb);
		if (n < 0) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		batch_t b = {.s = s, .rows = rb->rows, .n_rows = n};
		int rc = 0;
		if (s->o->gpu) rc = gpu_rows(&b, gb, err);
		else if (nt > 1 && n > 1) gvk_pool_run(pool, nt < n ? nt : (int)n, row_worker, &b);
		else row_worker(&b, 0);
		if (rc < 0) return rc;
		s->r->pairs += b.pairs;
		for (int64_t q = 0, k = k0; q < n; ++q) {
			while (cand[k].i != rb->rows[q].i) ++k;
			if (apply(s, &rb->rows[q], cand[k].p) < 0) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		}
	}
	return 0;
}

/* What one thread clumps with: its pass (its clumps and members in its own result), buffers and
 * error. */
typedef struct {
	pass_t s;
	ld_clump_result_t r;
	rowbuf_t rb;
	dbuf_t lg;
	store_t st;
	gpu_buf_t gb;
	gvk_err_t err;
	int rc;
} worker_t;

static int worker_init(worker_t *w, const pass_t *base, int64_t batch)
{
	memset(w, 0, sizeof *w);
	w->s = *base, w->s.r = &w->r;
	return (w->rb.rows = malloc(sizeof *w->rb.rows * (size_t)batch)) ? 0 : -1;
}

static void worker_free(worker_t *w)
{
	ld_clump_result_free(&w->r);
	free(w->rb.rows), free(w->rb.j), free(w->rb.js), free(w->rb.r), free(w->lg.v);
	free(w->st.w), free(w->st.slot), free(w->st.snp);
	free(w->gb.pairs), free(w->gb.x), free(w->gb.c);
}

/* A component read (when d has no planes) and clumped. */
static int run_comp(worker_t *w, const comp_t *c, const cand_t *bucket, int64_t batch, int nt, gvk_pool_t *pool)
{
	const pass_t *s = &w->s;
	if (!s->d->w && !s->o->src) return gvk_err_set(&w->err, GVK_ERR_ARG, "ld_clump_run: no planes, and no .bed to read them from");
	if (!s->d->w && store_fill(&w->s, c, &w->st, nt, pool, &w->err) < 0) return w->err.code;
	return clump_comp(&w->s, c, bucket, &w->rb, &w->lg, batch, nt, pool, &w->gb, &w->err);
}

/* Components clumped one per thread at a time, the largest first; each thread's clumps in its own
 * result. */
typedef struct {
	worker_t *w;
	const comps_t *cs;
	const int64_t *order;
	const cand_t *bucket;
	int64_t batch, next; /* next: atomic */
} comp_job_t;

static void comp_worker(void *arg, int tid)
{
	comp_job_t *j = arg;
	worker_t *w = &j->w[tid];
	for (int64_t k; w->rc == 0 && (k = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED)) < j->cs->n;)
		w->rc = run_comp(w, &j->cs->c[j->order[k]], j->bucket, j->batch, 1, NULL);
}

static int64_t comp_size(const comp_t *c) { return c->c1 - c->c0; }

/* Components by candidates, most first. */
typedef struct {
	int64_t size, k;
} by_size_t;

static int size_desc(const void *x, const void *y)
{
	const by_size_t *a = x, *b = y;
	if (a->size != b->size) return (a->size < b->size) - (a->size > b->size);
	return (a->k > b->k) - (a->k < b->k);
}

/* Whether the components are many and even enough to give each thread whole ones. */
static int comps_parallel(const comps_t *cs, int64_t n_cand, int nt)
{
	if (nt < 2 || cs->n < 4 * (int64_t)nt) return 0;
	for (int64_t k = 0; k < cs->n; ++k)
		if (comp_size(&cs->c[k]) * 2 * nt > n_cand) return 0;
	return 1;
}

/* The workers' clumps and members joined into r (members renumbered). */
static int join(worker_t *w, int nw, ld_clump_result_t *r)
{
	int64_t nc = 0, nm = 0;
	for (int t = 0; t < nw; ++t) nc += w[t].r.n, nm += w[t].r.n_m, r->pairs += w[t].r.pairs;
	r->c = malloc(sizeof *r->c * (size_t)(nc + 1)), r->m = malloc(sizeof *r->m * (size_t)(nm + 1));
	if (!r->c || !r->m) return -1;
	r->cap_c = nc, r->cap_m = nm;
	for (int t = 0; t < nw; ++t) {
		for (int64_t k = 0; k < w[t].r.n; ++k) r->c[r->n] = w[t].r.c[k], r->c[r->n++].first += r->n_m;
		if (w[t].r.n_m) memcpy(r->m + r->n_m, w[t].r.m, sizeof *r->m * (size_t)w[t].r.n_m);
		r->n_m += w[t].r.n_m;
	}
	return 0;
}

int ld_clump_run(const snp_data_t *d, const ld_clump_input_t *in, const ld_clump_opt_t *o, ld_clump_result_t *r,
                 gvk_err_t *err)
{
	memset(r, 0, sizeof *r);
	int64_t n_cand = 0;
	int nt = o->threads > 1 ? o->threads : 1;
	pass_t base = {.d = d, .in = in, .o = o, .w = d->w, .drop = o->r2 > 0 ? o->r2 : 0.0};
	base.clumped = calloc((size_t)d->n_snp + 1, 1);
	cand_t *cand = candidates(in, o, &n_cand), *bucket = NULL;
	comps_t cs = {0};
	int rc = base.clumped && cand ? 0 : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (rc == 0 && components(d, in, o, cand, n_cand, &cs, &bucket) < 0) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	/* many small components: whole ones per thread, nothing to wait for; else one after another,
	 * each with its rows in batches over all threads (and the GPU's tables in one host thread) */
	int spread = rc == 0 && !o->gpu && comps_parallel(&cs, n_cand, nt), nw = spread ? nt : 1;
	int64_t batch = o->gpu ? 256 : spread ? 16 : 16 * (int64_t)nt;
	worker_t *w = calloc((size_t)nw, sizeof *w);
	int64_t *order = malloc(sizeof *order * (size_t)(cs.n + 1));
	if (rc == 0 && (!w || !order)) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	for (int t = 0; rc == 0 && t < nw; ++t)
		if (worker_init(&w[t], &base, batch) < 0) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (rc == 0 && spread) {
		by_size_t *bs = malloc(sizeof *bs * (size_t)(cs.n + 1));
		if (!bs) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		for (int64_t k = 0; bs && k < cs.n; ++k) bs[k] = (by_size_t){comp_size(&cs.c[k]), k};
		if (bs) qsort(bs, (size_t)cs.n, sizeof *bs, size_desc);
		for (int64_t k = 0; bs && k < cs.n; ++k) order[k] = bs[k].k;
		free(bs);
	}
	if (rc == 0 && spread) {
		comp_job_t j = {w, &cs, order, bucket, batch, 0};
		gvk_parallel(nw, comp_worker, &j);
		for (int t = 0; t < nw && rc == 0; ++t)
			if (w[t].rc < 0) rc = w[t].rc, *err = w[t].err;
	} else if (rc == 0) {
		gvk_pool_t *pool = nt > 1 ? gvk_pool_create(nt) : NULL;
		for (int64_t k = 0; rc == 0 && k < cs.n; ++k)
			if ((rc = run_comp(&w[0], &cs.c[k], bucket, batch, nt, pool)) < 0) *err = w[0].err;
		gvk_pool_destroy(pool);
	}
	if (rc == 0 && join(w, nw, r) < 0) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	r->n_top = n_cand;
	if (rc == 0) qsort(r->c, (size_t)r->n, sizeof *r->c, clump_cmp);
	for (int t = 0; w && t < nw; ++t) worker_free(&w[t]);
	free(w), free(order), free(base.clumped), free(cand), free(bucket), free(cs.c);
	if (rc < 0) ld_clump_result_free(r);
	return rc;
}

void ld_clump_result_free(ld_clump_result_t *r)
{
	if (!r) return;
	free(r->c), free(r->m);
	memset(r, 0, sizeof *r);
}
