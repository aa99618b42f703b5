/* SPDX-License-Identifier: MIT */
/* The windows of --indep-pairwise, --indep-pairphase and --indep as PLINK 1.9 decides them. A window holds the live variants between its start
 * and end; within it, each variant u is compared with the later live variants from next[u] on
 * (the first it has not yet been compared with), and a pair above the threshold removes the
 * variant of lower MAF (the later one on a tie), after which u's scan stops and the pass starts
 * over until a pass removes nothing. Comparisons are never repeated, so the order in which pairs
 * are met (and hence which variants go) is PLINK's. Genotypes are centred as -1 / 0 / +1 with a
 * missing call 0, and r^2 is taken over the samples called at both, in PLINK's arithmetic.
 * --indep-pairphase meets pairs in the same order but takes r^2 from the maximum-likelihood
 * haplotype frequencies of the two-locus genotype table (ld_em.c; males count one X haplotype).
 * --indep runs the same passes with r in place of r^2, removing only pairs with r above 0.999999
 * (or no r at all), keeps each r, and then applies the VIF step (ld_prune_vif.c) to the window.
 * A worker holds only its window's SNPs, in rings of slots; given an snp_bed_src_t it reads and
 * decodes their .bed rows as they enter, so the fileset never sits in memory (and, when no first
 * pass counted them, sets their statistics then). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ld_prune_win.h"
#include "ld_em.h"
#include "../snp/snp_chrom.h"
#include "../snp/plink_io.h"
#include "../snp/snp_bed_bits.h"
#include "../common/cpu_features.h"
#include "../common/err.h"

/* PLINK's relative epsilon for its threshold and MAF comparisons (2^-44). */
#define PRUNE_EPS 0.00000000000005684341886080801486968994140625

/* Bytes of .bed rows a worker reads at once when streaming. */
#define PRUNE_READ_BYTES (1 << 20)

static prune_snp_t *snp_at(const prune_ctx_t *c, int64_t i) { return &c->s[i % c->n_slot]; }

/* SNP i's planes: d's, or its .bed row decoded into its ring slot; *f its A2 frequency. */
static const uint64_t *planes_of(prune_ctx_t *c, int64_t i, double *f)
{
	*f = c->d->a2f[i];
	if (!c->src) return snp_plane(c->d, i, 0);
	size_t words = (size_t)SNP_PLANES * (size_t)c->d->nw;
	uint64_t *p = c->ring + (size_t)(i % c->n_slot) * words;
	const uint8_t *row = snp_rows_get(&c->rows, c->src->row[i]);
	if (!row) {
		c->io_failed = 1; /* reported once the workers finish */
		return memset(p, 0, words * 8);
	}
	if (c->src->stats && (i < c->own_lo || i >= c->own_hi)) {
		snp_geno_row_apart(c->d, i, row, c->src->c, p, f);
	} else {
		snp_geno_row_to(c->d, i, row, c->src->c, p, c->src->stats);
		*f = c->d->a2f[i];
	}
	return p;
}

/* A slot's sums over n samples from the kernels' counts of the +1 calls, the -1 calls and the
 * calls. */
static void slot_sums(prune_snp_t *s, int64_t n, const int64_t cnt[3])
{
	s->miss = n - cnt[2], s->sum = cnt[0] - cnt[1], s->ssq = cnt[0] + cnt[1];
	int64_t var = s->ssq * (n - s->miss) - s->sum * s->sum;
	s->ok = var != 0;
	s->var_recip = s->miss == 0 && var ? 1.0 / (double)(s->ssq * n - s->sum * s->sum) : 0.0;
}

/* SNP i's slot from its decoded planes p. */
static void prepare_planes(prune_ctx_t *c, int64_t i, const uint64_t *p)
{
	const snp_data_t *d = c->d;
	prune_snp_t *s = snp_at(c, i);
	const uint64_t *a = p + (size_t)SNP_PA * d->nw, *b = p + (size_t)SNP_PB * d->nw, *v = p + (size_t)SNP_PV * d->nw;
	uint64_t *z = c->zn + (size_t)(i % c->n_slot) * 2 * (size_t)d->nw, *neg = z + d->nw;
	int64_t cnt[3];
	c->k->sums(a, b, v, d->nw, z, neg, cnt);
	s->pos = b, s->a = a, s->v = v, s->z = z, s->neg = neg;
	slot_sums(s, d->n_bits, cnt);
}

static void band_to(prune_ctx_t *c, int64_t e);

/* The statistics of SNP i, which enters no window, when its row is read for nothing else. */
static void count_only(prune_ctx_t *c, int64_t i)
{
	if (c->gpu) band_to(c, i);
	else if (c->src && c->src->stats) planes_of(c, i, &(double){0});
}

/* --indep-pairwise on an autosome whose every sample is a column: SNP i's row to the planes of
 * its slot (low bits, high bits, then called) and its z and neg, without the decoder's planes;
 * its statistics from the same counts when no first pass set them. */
static void prepare_direct(prune_ctx_t *c, int64_t i)
{
	const snp_data_t *d = c->d;
	int nw = d->nw;
	uint64_t *p = c->ring + (size_t)(i % c->n_slot) * SNP_PLANES * (size_t)nw;
	uint64_t *z = c->zn + (size_t)(i % c->n_slot) * 2 * (size_t)nw, *neg = z + nw;
	const uint8_t *row = snp_rows_get(&c->rows, c->src->row[i]);
	if (!row) c->io_failed = 1; /* reported once the workers finish */
	if (row) c->bits(row, d->n_bits, nw, p, p + nw);
	else memset(p, 0, 2 * (size_t)nw * 8);
	int64_t cnt[3], n = d->n_bits;
	c->k->direct(p, p + nw, nw, n, p + 2 * nw, z, neg, cnt);
	prune_snp_t *s = snp_at(c, i);
	s->f = d->a2f[i];
	if (row && c->src->stats && (i < c->own_lo || i >= c->own_hi))
		s->f = snp_geno_plain_a2f(cnt[0], cnt[2] - cnt[0] - cnt[1], cnt[1], c->src->c);
	else if (row && c->src->stats)
		snp_geno_plain_counts(d, i, cnt[0], cnt[2] - cnt[0] - cnt[1], cnt[1], c->src->c), s->f = d->a2f[i];
	s->pos = s->a = NULL, s->v = p + 2 * nw, s->z = z, s->neg = neg;
	slot_sums(s, n, cnt);
}

/* A SNP's sums, as it enters a window. */
static void snp_prepare(prune_ctx_t *c, int64_t i)
{
	if (c->direct) {
		prepare_direct(c, i);
		return;
	}
	double f;
	prepare_planes(c, i, planes_of(c, i, &f));
	snp_at(c, i)->f = f;
}

/* --indep-pairphase's r^2 of SNPs x and y; NaN when the table gives no estimate. */
static double pair_phased(const prune_ctx_t *c, const prune_snp_t *x, const prune_snp_t *y)
{
	uint32_t t[18];
	c->k->table(x, y, c->d->nw, c->xmale, t);
	double r2;
	return ld_em_phased_r2(t, c->xmale != NULL, &r2) ? NAN : r2;
}

/* Counts SNP x's classes; whether its calls vary, as --indep-pairphase tests it: a heterozygote,
 * or both homozygotes. */
static int phased_varies(const prune_ctx_t *c, prune_snp_t *x)
{
	int64_t *n = x->cls;
	c->k->classes(x, c->d->nw, c->xmale, n);
	return n[1] || (n[0] && n[2]);
}

/* The value a pair of window slots u < k is judged by: r^2, or for --indep r (1 when undefined),
 * which is kept for the VIF step. */
static double pair_value(prune_ctx_t *c, const window_t *wd, int64_t u, int64_t k)
{
	const prune_snp_t *x = snp_at(c, wd->live[u]), *y = snp_at(c, wd->live[k]);
	++c->pairs;
	if (c->mode == LD_PRUNE_PAIRPHASE) return pair_phased(c, x, y);
	if (c->mode == LD_PRUNE_PAIRWISE) return c->k->r2(x, y, c->d->nw, c->d->n_bits, 0);
	double r = c->k->r2(x, y, c->d->nw, c->d->n_bits, 1);
	if (isnan(r)) r = 1.0;
	c->vb.r[u * c->vb.cap + k] = r;
	return r;
}

static double maf(double f) { return f < 0.5 ? f : 1.0 - f; }

/* Adds SNP e to the window; a SNP whose calls do not vary is removed as it enters. */
int prune_slot_fill(prune_ctx_t *c, int64_t e)
{
	if (c->gpu) band_to(c, e);
	else snp_prepare(c, e);
	return c->mode == LD_PRUNE_PAIRPHASE ? phased_varies(c, snp_at(c, e)) : snp_at(c, e)->ok;
}

static void enter(prune_ctx_t *c, window_t *wd, uint8_t *out, int64_t e)
{
	wd->live[wd->size++] = e;
	if (!prune_slot_fill(c, e)) out[e] = 1, ++wd->pruned;
}

/* --indep-pairwise's pairs of u are taken this many at a time: their values do not depend on
 * the order, so a batch is computed at once and then met in order, those after a removal being
 * dropped (and met again in a later pass, when u's scan reaches them). */
enum { PAIR_BATCH = 4 };

/* From slot k on, the first window slot of u's scan whose pair is over thr (counted as met, as
 * each pair before it), or wd->size. */
static int64_t scan(prune_ctx_t *c, window_t *wd, const uint8_t *out, int64_t u, int64_t k, double thr)
{
	if (c->gpu) {
		int64_t iu = wd->live[u];
		const uint64_t *row = c->pair_bits + (size_t)(iu % c->n_slot) * (size_t)c->stride;
		for (; k < wd->size && !c->gpu_failed; ++k) {
			int64_t t = wd->live[k] - iu - 1;
			if (out[wd->live[k]]) continue;
			++c->pairs;
			if (row[t >> 6] >> (t & 63) & 1) return k;
		}
		return wd->size;
	}
	if (c->mode != LD_PRUNE_PAIRWISE) {
		for (; k < wd->size; ++k)
			if (!out[wd->live[k]] && pair_value(c, wd, u, k) > thr) return k;
		return k;
	}
	const prune_snp_t *x = snp_at(c, wd->live[u]);
	while (k < wd->size) {
		const prune_snp_t *ys[PAIR_BATCH];
		int64_t ks[PAIR_BATCH];
		int nb = 0;
		for (; k < wd->size && nb < PAIR_BATCH; ++k)
			if (!out[wd->live[k]]) ks[nb] = k, ys[nb++] = snp_at(c, wd->live[k]);
		double v[PAIR_BATCH];
		if (nb) c->k->r2s(x, ys, nb, c->d->nw, c->d->n_bits, v);
		for (int b = 0; b < nb; ++b) {
			++c->pairs;
			if (v[b] > thr) return ks[b];
		}
	}
	return k;
}

/* The first slot from lo on whose SNP is at least snp (the slots are in SNP order). */
static int64_t first_from(const window_t *wd, int64_t lo, int64_t snp)
{
	int64_t hi = wd->size;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (wd->live[mid] < snp) lo = mid + 1;
		else hi = mid;
	}
	return lo;
}

/* Passes over the window until one removes nothing. end: the SNP after the window. */
static void window_passes(prune_ctx_t *c, window_t *wd, uint8_t *out, int64_t end, double thr)
{
	int again = 1;
	while (again) {
		again = 0;
		for (int64_t u = 0; u + 1 < wd->size; ++u) {
			int64_t iu = wd->live[u];
			if (out[iu]) continue;
			int64_t k = first_from(wd, u + 1, wd->next[u]);
			k = scan(c, wd, out, u, k, thr);
			if (k < wd->size) {
				int64_t ik = wd->live[k];
				again = 1, ++wd->pruned;
				if (maf(snp_at(c, iu)->f) < (1 - PRUNE_EPS) * maf(snp_at(c, ik)->f)) {
					out[iu] = 1;
				} else {
					out[ik] = 1;
					for (++k; k < wd->size && out[wd->live[k]]; ++k) {}
					if (k < wd->size) wd->next[u] = wd->live[k];
				}
			}
			if (k == wd->size) wd->next[u] = end;
		}
	}
}

/* The end of a kb window starting at SNP s: the first SNP from e on beyond it (or hi). */
int64_t prune_kb_end(const snp_data_t *d, int64_t s, int64_t e, int64_t hi, int64_t bp)
{
	while (e < hi && d->var[e].bp <= d->var[s].bp + bp) ++e;
	return e;
}

/* With the GPU: the bits of every row up to SNP e, bands of rows at a time, the SNPs their
 * windows reach decoded (and their sums set) first. After a failure the rows are left clear and
 * the worker stops at the end of the chromosome. */
static void band_to(prune_ctx_t *c, int64_t e)
{
	const snp_data_t *d = c->d;
	int64_t bp = c->o->win * 1000;
	while (e >= c->rows_end && !c->gpu_failed) {
		int64_t r0 = c->rows_end, r1 = r0 + c->band < c->hi ? r0 + c->band : c->hi, k = r0 + 1;
		for (int64_t r = r0; r < r1; ++r) {
			if (c->o->kb) k = prune_kb_end(d, r, k > r + 1 ? k : r + 1, c->hi, bp);
			else k = r + c->o->win < c->hi ? r + c->o->win : c->hi;
			c->kend[r - r0] = k;
		}
		for (; c->dec_end < k; ++c->dec_end) snp_prepare(c, c->dec_end);
		prune_band_t bd = {c->src ? c->ring : d->w, c->src ? c->n_slot : 0, c->s, c->pair_bits, c->n_slot, c->stride, d->nw,
		                   d->n_bits, c->mode == LD_PRUNE_PAIRPHASE, c->mode == LD_PRUNE_PAIRPHASE ? c->xmale : NULL,
		                   c->thr, r0, r1, c->kend};
		if (prune_gpu_band(c->gpu, &c->gb, &bd, &c->gpu_err) < 0) c->gpu_failed = 1;
		c->rows_end = r1;
	}
}

/* Keeps the window's live SNPs from start on, in order, with their kept r (--indep); returns how
 * many. */
static int64_t window_compact(prune_ctx_t *c, window_t *wd, const uint8_t *out, int64_t start)
{
	int64_t m = 0, cap = c->vb.cap;
	double *r = c->vb.r;
	for (int64_t k = 0; k < wd->size; ++k) {
		int64_t e = wd->live[k];
		if (e < start || out[e]) continue;
		if (c->mode == LD_PRUNE_VIF) {
			for (int64_t q = 0; q < m; ++q) r[q * cap + m] = r[wd->was[q] * cap + k];
			wd->was[m] = k;
		}
		wd->live[m] = e, wd->next[m] = wd->next[k], ++m;
	}
	return wd->size = m;
}

void prune_chrom_begin(prune_ctx_t *c, const ld_prune_opt_t *o, int64_t lo, int64_t hi, int64_t own_lo,
                       int64_t own_hi)
{
	const snp_data_t *d = c->d;
	c->xmale = snp_chr_class(d->var[lo].chr) == SNP_CHR_X ? d->male : NULL;
	c->direct = c->mode == LD_PRUNE_PAIRWISE && c->src && c->src->c->plain && !c->src->c->raw &&
	            snp_chr_class(d->var[lo].chr) == SNP_CHR_AUTO && !c->gpu;
	c->rows_end = c->dec_end = lo, c->hi = hi, c->o = o, c->own_lo = own_lo, c->own_hi = own_hi;
	c->thr = c->mode == LD_PRUNE_VIF ? 0.999999 : o->r2 * (1 + PRUNE_EPS);
}

/* The window starting at `start` as if no window came before it. */
void prune_window_open(prune_ctx_t *c, window_t *wd, uint8_t *out, int64_t start, wpos_t *at)
{
	const ld_prune_opt_t *o = c->o;
	int64_t end = o->kb ? prune_kb_end(c->d, start, start + 1, c->hi, o->win * 1000) : start + o->win;
	if (end > c->hi) end = c->hi;
	wd->size = 0;
	if (end - start > 1)
		for (int64_t e = start; e < end; ++e) enter(c, wd, out, e);
	else
		wd->live[wd->size++] = start, count_only(c, start);
	for (int64_t k = 0; k < wd->size; ++k) wd->next[k] = k + 1 < wd->size ? wd->live[k + 1] : end;
	*at = (wpos_t){start, end, 0};
}

/* The passes over the window at at->start, then the move to the next window; 0 at the chromosome's
 * end. */
int prune_window_step(prune_ctx_t *c, window_t *wd, uint8_t *out, wpos_t *at)
{
	const ld_prune_opt_t *o = c->o;
	if (wd->size > 1) {
		window_passes(c, wd, out, at->end, c->thr);
		if (c->mode == LD_PRUNE_VIF) wd->pruned += vif_window(&c->vb, wd->live, wd->size, &at->old, out, o->r2);
	}
	at->start = at->start + o->step < c->hi ? at->start + o->step : c->hi;
	if (at->start == c->hi) return 0;
	if (at->end < at->start) at->end = at->start;
	int64_t prev = window_compact(c, wd, out, at->start);
	at->old = prev;
	int64_t add = o->kb ? prune_kb_end(c->d, at->start, at->end, c->hi, o->win * 1000) - at->end : o->step;
	for (int64_t k = 0; k < add && at->end < c->hi; ++k) {
		if (wd->size > prev) wd->next[wd->size - 1] = at->end;
		enter(c, wd, out, at->end++);
	}
	if (wd->size > prev) wd->next[wd->size - 1] = at->end;
	return 1;
}

void prune_chrom(prune_ctx_t *c, const ld_prune_opt_t *o, window_t *wd, uint8_t *out, int64_t lo, int64_t hi)
{
	prune_chrom_begin(c, o, lo, hi, lo, hi);
	wpos_t at;
	prune_window_open(c, wd, out, lo, &at);
	while (prune_window_step(c, wd, out, &at)) {}
}

/* A worker's rings and, streaming, its row buffer; 0 or -1 when out of memory. */
static int ctx_alloc(prune_ctx_t *c, const prune_job_t *j)
{
	/* with the GPU the rings hold a band and the windows that reach into it besides the window */
	c->n_slot = j->gpu ? j->band + 2 * j->cap + 1 : j->cap + 1;
	c->s = calloc((size_t)c->n_slot, sizeof *c->s);
	c->zn = aligned_alloc(64, (size_t)c->n_slot * 2 * (size_t)c->d->nw * 8);
	if (!c->s || !c->zn) return -1;
	if (j->gpu) {
		c->gpu = j->gpu, c->band = j->band, c->stride = j->cap > 1 ? (j->cap + 62) / 64 : 1;
		c->pair_bits = malloc(sizeof *c->pair_bits * (size_t)c->n_slot * (size_t)c->stride);
		c->kend = malloc(sizeof *c->kend * (size_t)c->band);
		if (!c->pair_bits || !c->kend) return -1;
	}
	if (!c->src) return 0;
	c->ring = aligned_alloc(64, (size_t)c->n_slot * SNP_PLANES * (size_t)c->d->nw * 8);
	if (!c->ring) return -1;
	/* the .bed opened and read at the first pass: a failure now is the file's */
	if (snp_rows_open(&c->rows, c->src->bed, c->src->n_rows, c->src->n_samples, PRUNE_READ_BYTES, NULL) < 0)
		c->io_failed = 1;
	return 0;
}

/* A worker's window lists (and --indep's matrices); -1 when out of memory. */
static int window_alloc(window_t *wd, prune_ctx_t *c, const prune_job_t *j)
{
	wd->live = malloc(sizeof *wd->live * (size_t)(j->longest + 1));
	wd->next = malloc(sizeof *wd->next * (size_t)(j->longest + 1));
	wd->was = malloc(sizeof *wd->was * (size_t)(j->longest + 1));
	return wd->live && wd->next && wd->was && (c->mode != LD_PRUNE_VIF || vif_buf_init(&c->vb, j->cap) == 0) ? 0 : -1;
}

int prune_worker_open(prune_ctx_t *c, window_t *wd, const prune_job_t *j)
{
	*c = (prune_ctx_t){.d = j->d, .src = j->o->src, .k = j->k, .mode = j->o->mode, .bits = snp_bed_bits_pick()};
	memset(wd, 0, sizeof *wd);
	return window_alloc(wd, c, j) == 0 && ctx_alloc(c, j) == 0 ? 0 : -1;
}

void prune_worker_close(prune_ctx_t *c, window_t *wd, prune_job_t *j, int ok)
{
	if (!ok) __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
	if (c->io_failed) __atomic_store_n(&j->io_failed, 1, __ATOMIC_RELAXED);
	if (c->gpu_failed) {
		pthread_mutex_lock(&j->gpu->lock);
		if (!j->gpu_failed) j->gpu_failed = 1, j->gpu_err = c->gpu_err;
		pthread_mutex_unlock(&j->gpu->lock);
	}
	__atomic_fetch_add(&j->pairs, c->pairs, __ATOMIC_RELAXED);
	free(wd->live), free(wd->next), free(wd->was);
	free(c->s), free(c->zn), free(c->ring), free(c->pair_bits), free(c->kend);
	if (c->src) snp_rows_close(&c->rows);
	vif_buf_free(&c->vb);
	prune_gpu_buf_free(&c->gb);
}
