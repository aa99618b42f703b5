/* SPDX-License-Identifier: MIT */
/* --clump as PLINK 1.9 decides it. Records with p <= p1 are taken in order of p (then variant,
 * file, line); one not yet claimed becomes an index. Every unclaimed record of a variant on its
 * chromosome closer than the kb window whose haplotype r^2 with the index (maximum-likelihood
 * frequencies of the two-locus genotype table, ld_em.c; males count one X haplotype) is at least
 * r2 counts towards the clump's totals and is not counted again; those with p <= p2 are listed
 * and can no longer be an index. With overlap allowed, records are counted and listed in every
 * clump they fall in, but a listed one is still no index. The index's own other records count
 * with r^2 = 1. The r^2 of an index against its
 * whole window is one batch; batches of many candidate indexes run in parallel, and the claims
 * then follow in order, so the result does not depend on the threads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ld_clump.h"
#include "ld_em.h"
#include "snp_chrom.h"
#include "../common/err.h"

/* Candidate indexes whose windows are computed together. */
#define CLUMP_BATCH 512

int clump_opt_check(const clump_opt_t *o, gvk_err_t *err)
{
	if (!(o->p1 > 0 && o->p1 <= 1)) return gvk_err_set(err, GVK_ERR_ARG, "--clump-p1 must be in (0, 1], not %g", o->p1);
	if (!(o->p2 >= o->p1 && o->p2 <= 1))
		return gvk_err_set(err, GVK_ERR_ARG, "--clump-p2 must be in [--clump-p1, 1], not %g", o->p2);
	if (!(o->r2 >= 0 && o->r2 < 1)) return gvk_err_set(err, GVK_ERR_ARG, "--clump-r2 must be in [0, 1), not %g", o->r2);
	if (!(o->kb > 0 && o->kb < 2147483.647)) return gvk_err_set(err, GVK_ERR_ARG, "--clump-kb must be positive, not %g", o->kb);
	return 0;
}

/* A record's sort keys, so that qsort needs no context. */
typedef struct {
	double p;
	int64_t var, line, r;
	int file;
} rec_key_t;

static int by_var(const void *a, const void *b)
{
	const rec_key_t *x = a, *y = b;
	if (x->var != y->var) return x->var < y->var ? -1 : 1;
	if (x->file != y->file) return x->file < y->file ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

static int by_p(const void *a, const void *b)
{
	const rec_key_t *x = a, *y = b;
	if (x->p != y->p) return x->p < y->p ? -1 : 1;
	return by_var(a, b);
}

/* ix[0 .. n) (record indices) sorted by cmp; -1 when out of memory. */
static int sort_recs(const clump_rec_t *rec, int64_t *ix, int64_t n, int (*cmp)(const void *, const void *))
{
	rec_key_t *k = malloc(sizeof *k * (size_t)(n + 1));
	if (!k) return -1;
	for (int64_t q = 0; q < n; ++q) {
		const clump_rec_t *x = &rec[ix[q]];
		k[q] = (rec_key_t){x->p, x->var, x->line, ix[q], x->file};
	}
	qsort(k, (size_t)n, sizeof *k, cmp);
	for (int64_t q = 0; q < n; ++q) ix[q] = k[q].r;
	free(k);
	return 0;
}

static int64_t pop(uint64_t x) { return __builtin_popcountll(x); }

/* The genotype classes of SNP i in word w: two copies of A1, one, none; a male's X call is one
 * haplotype and counts as a homozygote. */
static void classes(const snp_data_t *d, int64_t i, int w, uint64_t mx, uint64_t k[3])
{
	const uint64_t a = snp_plane(d, i, SNP_PA)[w], b = snp_plane(d, i, SNP_PB)[w], v = snp_plane(d, i, SNP_PV)[w];
	k[0] = b | (a & mx), k[1] = a & ~b & ~mx, k[2] = v & ~a;
}

/* r^2 of SNP s with each of js[0 .. n) (NaN where the table gives no estimate): the batch a GPU
 * would take whole. xmale: the male columns when the chromosome is X, else NULL. */
static void r2_batch(const snp_data_t *d, int64_t s, const int64_t *js, int64_t n, const uint64_t *xmale, double *r2)
{
	for (int64_t q = 0; q < n; ++q) {
		uint32_t t[18] = {0};
		for (int w = 0; w < d->nw; ++w) {
			uint64_t mx = xmale ? xmale[w] : 0, kx[3], ky[3];
			classes(d, s, w, mx, kx);
			classes(d, js[q], w, mx, ky);
			for (int a = 0; a < 3; ++a)
				for (int b = 0; b < 3; ++b) {
					t[3 * a + b] += (uint32_t)pop(kx[a] & ky[b]);
					if (mx) t[9 + 3 * a + b] += (uint32_t)pop(kx[a] & mx & ky[b]);
				}
		}
		if (ld_em_phased_r2(t, xmale != NULL, &r2[q])) r2[q] = NAN;
	}
}

typedef struct {
	const snp_data_t *d;
	const int64_t *vstart;    /* records of variant v: byvar[vstart[v] .. vstart[v + 1]) */
	const int64_t *lo, *hi;   /* per SNP: its window [lo, hi) */
	int64_t *cand;            /* the batch's candidate variants (-1: skipped) */
	int64_t n_cand;
	int64_t *off;             /* per candidate: its slice of js / r2 */
	int64_t *js;
	double *r2;
	int nt;
} batch_t;

static void batch_worker(void *arg, int tid)
{
	batch_t *b = arg;
	for (int64_t k = (int64_t)gvk_part((size_t)b->n_cand, tid, b->nt); k < (int64_t)gvk_part((size_t)b->n_cand, tid + 1, b->nt); ++k) {
		int64_t s = b->cand[k];
		if (s < 0 || b->off[k + 1] == b->off[k]) continue;
		const uint64_t *xmale = snp_chr_class(b->d->var[s].chr) == SNP_CHR_X ? b->d->male : NULL;
		r2_batch(b->d, s, b->js + b->off[k], b->off[k + 1] - b->off[k], xmale, b->r2 + b->off[k]);
	}
}

/* Each SNP's window: the SNPs of its chromosome closer than kb, by position. */
static int windows(const snp_data_t *d, double kb, int64_t *lo, int64_t *hi, gvk_err_t *err)
{
	int64_t m = d->n_snp, wbp = (int64_t)floor(kb * 1000);
	for (int64_t c0 = 0, c1; c0 < m; c0 = c1) {
		for (c1 = c0 + 1; c1 < m && !strcmp(d->var[c1].chr, d->var[c0].chr); ++c1)
			if (d->var[c1].bp < d->var[c1 - 1].bp)
				return gvk_err_set(err, GVK_ERR_FORMAT, "variant %s is before the one above it on chromosome %s; "
				                   "clumping needs each chromosome sorted by position", d->var[c1].id, d->var[c1].chr);
		for (int64_t i = c0, a = c0, z = c0; i < c1; ++i) {
			while (d->var[i].bp - d->var[a].bp >= wbp) ++a;
			if (z < i + 1) z = i + 1;
			while (z < c1 && d->var[z].bp - d->var[i].bp < wbp) ++z;
			lo[i] = a, hi[i] = z;
		}
	}
	return 0;
}

/* A record's claims: counted in a clump (no longer counted), or listed or an index (no longer an
 * index). */
enum { USED_COUNT = 1, USED_INDEX = 2 };

typedef struct {
	const clump_rec_t *rec;
	const clump_opt_t *o;
	const int64_t *byvar, *vstart;
	uint8_t *used;
	clump_result_t *res;
	int64_t cap_c, cap_m;
} claim_t;

static int bin_of(double p)
{
	return p < 0.0001 ? 4 : p < 0.001 ? 3 : p < 0.01 ? 2 : p < 0.05 ? 1 : 0;
}

/* Counts (and claims) the unclaimed records of variant v in LD with the index. */
static int take(claim_t *c, clump_t *cl, int64_t v)
{
	for (int64_t q = c->vstart[v]; q < c->vstart[v + 1]; ++q) {
		int64_t r = c->byvar[q];
		if (c->used[r] & USED_COUNT) continue;
		++cl->total, ++cl->bins[bin_of(c->rec[r].p)];
		if (!c->o->allow_overlap) c->used[r] |= USED_COUNT;
		if (c->rec[r].p > c->o->p2) continue;
		c->used[r] |= USED_INDEX;
		if (c->res->n_member == c->cap_m) {
			int64_t cap = c->cap_m * 2 + 64, *m = realloc(c->res->member, sizeof *m * (size_t)cap);
			if (!m) return -1;
			c->res->member = m, c->cap_m = cap;
		}
		c->res->member[c->res->n_member++] = r;
	}
	return 0;
}

/* One index: its clump from the batch's r^2 (js / r2 over its window, SNP order). */
static int claim(claim_t *c, int64_t r, const int64_t *js, const double *r2, int64_t n)
{
	clump_result_t *res = c->res;
	if (res->n == c->cap_c) {
		int64_t cap = c->cap_c * 2 + 64;
		clump_t *x = realloc(res->c, sizeof *x * (size_t)cap);
		if (!x) return -1;
		res->c = x, c->cap_c = cap;
	}
	clump_t *cl = &res->c[res->n++];
	memset(cl, 0, sizeof *cl);
	cl->index = r, cl->m0 = res->n_member;
	c->used[r] = USED_COUNT | USED_INDEX;
	int64_t s = c->rec[r].var, q = 0;
	/* the window in SNP order, with s itself (r^2 = 1) in its place */
	for (; q < n && js[q] < s; ++q)
		if (r2[q] >= c->o->r2 && take(c, cl, js[q]) < 0) return -1;
	if (take(c, cl, s) < 0) return -1;
	for (; q < n; ++q)
		if (r2[q] >= c->o->r2 && take(c, cl, js[q]) < 0) return -1;
	cl->nm = res->n_member - cl->m0;
	return 0;
}

/* The candidates top[k0 .. k1): their windows' r^2 in parallel, then their claims in order. */
static int run_batch(const snp_data_t *d, claim_t *c, const int64_t *top, int64_t k0, int64_t k1, const int64_t *lo,
                     const int64_t *hi, batch_t *b, int64_t *cap)
{
	b->n_cand = k1 - k0;
	b->off[0] = 0;
	for (int64_t k = k0; k < k1; ++k) {
		int64_t r = top[k], s = c->rec[r].var, n = 0;
		b->cand[k - k0] = c->used[r] & USED_INDEX ? -1 : s;
		if (!(c->used[r] & USED_INDEX))
			for (int64_t j = lo[s]; j < hi[s]; ++j) n += j != s && c->vstart[j + 1] > c->vstart[j];
		b->off[k - k0 + 1] = b->off[k - k0] + n;
	}
	int64_t need = b->off[b->n_cand];
	if (need > *cap) {
		int64_t *js = realloc(b->js, sizeof *js * (size_t)need);
		if (js) b->js = js;
		double *r2 = realloc(b->r2, sizeof *r2 * (size_t)need);
		if (r2) b->r2 = r2;
		if (!js || !r2) return -1;
		*cap = need;
	}
	for (int64_t k = 0; k < b->n_cand; ++k) {
		int64_t s = b->cand[k], *js = b->js + b->off[k];
		if (s >= 0)
			for (int64_t j = lo[s]; j < hi[s]; ++j)
				if (j != s && c->vstart[j + 1] > c->vstart[j]) *js++ = j;
	}
	if (b->nt > 1 && need > 0) gvk_pool_run(c->o->pool, b->nt, batch_worker, b);
	else batch_worker(b, 0);
	for (int64_t k = k0; k < k1; ++k) {
		int64_t r = top[k], q = k - k0;
		/* claimed by an earlier candidate of this batch: its window was computed for nothing */
		if (c->used[r] & USED_INDEX) continue;
		if (claim(c, r, b->js + b->off[q], b->r2 + b->off[q], b->off[q + 1] - b->off[q]) < 0) return -1;
	}
	return 0;
}

/* The top records the fileset lacks, in PLINK's warning order. */
static int missing_tops(const clump_recs_t *recs, const clump_opt_t *o, clump_result_t *res)
{
	int64_t n = 0;
	for (int64_t r = 0; r < recs->n; ++r) n += recs->rec[r].var < 0 && recs->rec[r].p <= o->p1;
	if (!(res->missing = malloc(sizeof *res->missing * (size_t)(n + 1)))) return -1;
	for (int64_t r = 0; r < recs->n; ++r)
		if (recs->rec[r].var < 0 && recs->rec[r].p <= o->p1) res->missing[res->n_missing++] = r;
	return sort_recs(recs->rec, res->missing, n, by_p);
}

int clump_run(const snp_data_t *d, const clump_recs_t *recs, const clump_opt_t *o, clump_result_t *res, gvk_err_t *err)
{
	memset(res, 0, sizeof *res);
	int rc = clump_opt_check(o, err);
	if (rc < 0) return rc;
	int64_t m = d->n_snp, n = recs->n, n_in = 0;
	int64_t *vstart = calloc((size_t)m + 2, sizeof *vstart), *byvar = malloc(sizeof *byvar * (size_t)(n + 1));
	int64_t *top = malloc(sizeof *top * (size_t)(n + 1)), *lo = malloc(sizeof *lo * (size_t)(m + 1));
	int64_t *hi = malloc(sizeof *hi * (size_t)(m + 1));
	uint8_t *used = calloc((size_t)n + 1, 1);
	batch_t b = {d, vstart, lo, hi, NULL, 0, NULL, NULL, NULL, o->threads > 1 ? o->threads : 1};
	b.cand = malloc(sizeof *b.cand * CLUMP_BATCH), b.off = malloc(sizeof *b.off * (CLUMP_BATCH + 1));
	if (!vstart || !byvar || !top || !lo || !hi || !used || !b.cand || !b.off || missing_tops(recs, o, res) < 0)
		rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (rc == 0) rc = windows(d, o->kb, lo, hi, err);
	if (rc == 0) {
		for (int64_t r = 0; r < n; ++r)
			if (recs->rec[r].var >= 0) {
				byvar[n_in++] = r, ++vstart[recs->rec[r].var + 1];
				if (recs->rec[r].p <= o->p1) top[res->n_top++] = r;
			}
		for (int64_t v = 0; v < m; ++v) vstart[v + 1] += vstart[v];
		if (sort_recs(recs->rec, byvar, n_in, by_var) < 0 || sort_recs(recs->rec, top, res->n_top, by_p) < 0)
			rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	}
	claim_t c = {recs->rec, o, byvar, vstart, used, res, 0, 0};
	int64_t cap = 0;
	for (int64_t k = 0; rc == 0 && k < res->n_top; k += CLUMP_BATCH) {
		int64_t k1 = k + CLUMP_BATCH < res->n_top ? k + CLUMP_BATCH : res->n_top;
		if (run_batch(d, &c, top, k, k1, lo, hi, &b, &cap) < 0) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	}
	free(vstart), free(byvar), free(top), free(lo), free(hi), free(used);
	free(b.cand), free(b.off), free(b.js), free(b.r2);
	if (rc < 0) clump_result_free(res);
	return rc;
}

void clump_result_free(clump_result_t *r)
{
	if (!r) return;
	free(r->c), free(r->member), free(r->missing);
	memset(r, 0, sizeof *r);
}
