/* SPDX-License-Identifier: MIT */
/* --clump as PLINK 1.9 forms clumps. Index candidates are taken by p ascending (ties: fileset
 * order); one already in a clump is passed over. An index variant's window is its chromosome's
 * variants within bp_radius on either side that have an entry or a line above the load
 * threshold, less those already clumped (unless overlap is allowed). A window variant whose r^2
 * with the index (from the EM haplotype frequencies, ld_em.c) has |r^2| above the threshold
 * joins: all its lines count in the p histogram, those with p < p2 are listed, and it is marked
 * clumped. The index variant's other lines join with r^2 = 1.
 * The r^2 of an index against its window does not depend on which variants are clumped, so the
 * rows of a batch of index candidates are computed in parallel (or their tables in one GPU call,
 * the estimate on the host) and then applied in order; a candidate clumped by an earlier one of
 * its batch only costs its row. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ld_clump.h"
#include "ld_em.h"
#include "ld_gpu.h"
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

/* Genotype classes of word w of SNP i (two copies of A1, one, none) as PLINK counts them: an X
 * male's call (one copy, or none) is a homozygote. */
static inline __attribute__((always_inline)) void classes(const snp_data_t *d, int64_t i, int w, uint64_t mx,
                                                          uint64_t k[3])
{
	const uint64_t a = snp_plane(d, i, SNP_PA)[w], b = snp_plane(d, i, SNP_PB)[w], v = snp_plane(d, i, SNP_PV)[w];
	k[0] = b | (a & mx);
	k[1] = a & ~b & ~mx;
	k[2] = v & ~a;
}

/* The row of index i: its classes once (ki: 3 planes of nw words), then per SNP j the two-locus
 * table (ld_em_counts' layout, i first; c[9 ..] over the X males) and its r^2. Inlined into a
 * build per instruction set below. */
static inline __attribute__((always_inline)) void row_body(const snp_data_t *d, int64_t i, const int64_t *j, int64_t n,
                                                           double *r, const uint64_t *xmale, uint64_t *ki)
{
	int nw = d->nw;
	for (int w = 0; w < nw; ++w) {
		uint64_t k[3];
		classes(d, i, w, xmale ? xmale[w] : 0, k);
		ki[w] = k[0], ki[nw + w] = k[1], ki[2 * nw + w] = k[2];
	}
	for (int64_t q = 0; q < n; ++q) {
		const uint64_t *a = snp_plane(d, j[q], SNP_PA), *b = snp_plane(d, j[q], SNP_PB), *v = snp_plane(d, j[q], SNP_PV);
		const uint64_t *k0 = ki, *k1 = ki + nw, *k2 = ki + 2 * nw;
		uint32_t c[18] = {0};
		if (!xmale) { /* nine sums in one simple loop, which compilers vectorise */
			uint64_t s[9] = {0};
			for (int w = 0; w < nw; ++w) {
				uint64_t j0 = b[w], j1 = a[w] & ~b[w], j2 = v[w] & ~a[w];
				s[0] += (uint64_t)__builtin_popcountll(k0[w] & j0), s[1] += (uint64_t)__builtin_popcountll(k0[w] & j1);
				s[2] += (uint64_t)__builtin_popcountll(k0[w] & j2), s[3] += (uint64_t)__builtin_popcountll(k1[w] & j0);
				s[4] += (uint64_t)__builtin_popcountll(k1[w] & j1), s[5] += (uint64_t)__builtin_popcountll(k1[w] & j2);
				s[6] += (uint64_t)__builtin_popcountll(k2[w] & j0), s[7] += (uint64_t)__builtin_popcountll(k2[w] & j1);
				s[8] += (uint64_t)__builtin_popcountll(k2[w] & j2);
			}
			for (int x = 0; x < 9; ++x) c[x] = (uint32_t)s[x];
		} else {
			for (int w = 0; w < nw; ++w) {
				uint64_t mx = xmale[w];
				uint64_t kj[3] = {b[w] | (a[w] & mx), a[w] & ~b[w] & ~mx, v[w] & ~a[w]};
				for (int x = 0; x < 3; ++x) {
					uint64_t kx = ki[x * nw + w];
					for (int y = 0; y < 3; ++y) c[3 * x + y] += (uint32_t)__builtin_popcountll(kx & kj[y]);
				}
				for (int x = 0; x < 3; x += 2)
					for (int y = 0; y < 3; y += 2) c[9 + 3 * x + y] += (uint32_t)__builtin_popcountll(ki[x * nw + w] & mx & kj[y]);
			}
		}
		double dd, dp;
		ld_em_stats(c, xmale != NULL, xmale != NULL, 1, 0.0, &r[q], &dd, &dp);
	}
}

static void row_portable(const snp_data_t *d, int64_t i, const int64_t *j, int64_t n, double *r, const uint64_t *xm,
                         uint64_t *ki)
{
	row_body(d, i, j, n, r, xm, ki);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("popcnt"))) static void row_popcnt(const snp_data_t *d, int64_t i, const int64_t *j, int64_t n,
                                                         double *r, const uint64_t *xm, uint64_t *ki)
{
	row_body(d, i, j, n, r, xm, ki);
}
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8
#define CLUMP_AVX512 1
__attribute__((target("avx512f,avx512bw,avx512vpopcntdq,popcnt"))) static void row_avx512(const snp_data_t *d, int64_t i,
                                                                                          const int64_t *j, int64_t n,
                                                                                          double *r, const uint64_t *xm,
                                                                                          uint64_t *ki)
{
	row_body(d, i, j, n, r, xm, ki);
}
#endif

void ld_clump_r2_row(const snp_data_t *d, int64_t i, const int64_t *j, int64_t n, double *r)
{
	const uint64_t *xmale = snp_chr_class(d->var[i].chr) == SNP_CHR_X ? d->male : NULL;
	uint64_t *ki = malloc(sizeof *ki * 3 * (size_t)d->nw + 1);
	if (!ki) { /* cannot happen for a row of a loaded fileset; NaN leaves every pair out */
		for (int64_t q = 0; q < n; ++q) r[q] = NAN;
		return;
	}
#ifdef CLUMP_AVX512
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq")) row_avx512(d, i, j, n, r, xmale, ki);
	else
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (__builtin_cpu_supports("popcnt")) row_popcnt(d, i, j, n, r, xmale, ki);
	else
#endif
		row_portable(d, i, j, n, r, xmale, ki);
	free(ki);
}

/* Which histogram bin p falls in. */
static int bin(double p)
{
	return p < 0.001 ? (p < 0.0001 ? 4 : 3) : p < 0.01 ? 2 : p < 0.05 ? 1 : 0;
}

/* The state of the greedy pass. */
typedef struct {
	const snp_data_t *d;
	const ld_clump_input_t *in;
	const ld_clump_opt_t *o;
	ld_clump_result_t *r;
	uint8_t *clumped;
	int64_t *run_lo, *run_hi; /* per SNP: its chromosome run */
} pass_t;

/* The window [*lo, *hi) of SNP i. */
static void window(const pass_t *s, int64_t i, int64_t *lo, int64_t *hi)
{
	const snp_var_t *v = s->d->var;
	int64_t bp = v[i].bp, a = s->run_lo[i], b = s->run_hi[i];
	int64_t l = i, h = i + 1;
	while (l > a && v[l - 1].bp >= bp - s->o->bp_radius) --l;
	while (h < b && v[h].bp <= bp + s->o->bp_radius) ++h;
	*lo = l, *hi = h;
}

/* Whether SNP j of a window takes part (has lines, and is not clumped unless overlap is allowed). */
static int eligible(const pass_t *s, int64_t j)
{
	if (!s->o->allow_overlap && s->clumped[j]) return 0;
	return s->in->head[j] >= 0 || s->in->nsig[j];
}

static int add_member(ld_clump_result_t *r, int64_t snp, int fidx, double r2, double p)
{
	if (r->n_m == r->cap_m) {
		int64_t cap = r->cap_m ? 2 * r->cap_m : 1024;
		ld_clump_member_t *m = realloc(r->m, sizeof *m * (size_t)cap);
		if (!m) return -1;
		r->m = m, r->cap_m = cap;
	}
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

/* One index candidate's row: the window SNPs eligible when its batch started, and their r^2. */
typedef struct {
	int64_t i, lo, hi, n;
	int64_t *j;
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
	(void)tid;
	uint64_t pairs = 0;
	for (int64_t k; (k = __atomic_fetch_add(&b->next, 1, __ATOMIC_RELAXED)) < b->n_rows;) {
		row_t *w = &b->rows[k];
		ld_clump_r2_row(b->s->d, w->i, w->j, w->n, w->r2);
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
	const snp_data_t *d = b->s->d;
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
	for (int64_t k = 0; k < b->n_rows; ++k) {
		const row_t *w = &b->rows[k];
		uint8_t on_x = d->male && snp_chr_class(d->var[w->i].chr) == SNP_CHR_X; /* as ld_clump_r2_row */
		for (int64_t t = 0; t < w->n; ++t, ++q) gb->pairs[2 * q] = w->i, gb->pairs[2 * q + 1] = w->j[t], gb->x[q] = on_x;
	}
	int rc = snp_gpu_clump_counts(b->s->o->gpu, d, gb->pairs, gb->x, n, gb->c, err);
	q = 0;
	for (int64_t k = 0; rc == 0 && k < b->n_rows; ++k)
		for (int64_t t = 0; t < b->rows[k].n; ++t, ++q) {
			double dd, dp;
			ld_em_stats(gb->c + 18 * q, gb->x[q], gb->x[q], 1, 0.0, &b->rows[k].r2[t], &dd, &dp);
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
	ld_clump_t *grown = realloc(r->c, sizeof *grown * (size_t)(r->n + 1));
	if (!grown) return -1;
	r->c = grown;
	r->c[r->n++] = c;
	return 0;
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

static cand_t *candidates(const ld_clump_input_t *in, const ld_clump_opt_t *o, int64_t *n)
{
	cand_t *c = malloc(sizeof *c * (size_t)(in->n_snp + 1));
	if (!c) return NULL;
	*n = 0;
	for (int64_t i = 0; i < in->n_snp; ++i) {
		if (!in->top[i]) continue;
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

/* Fills rows for candidates [k0, k1) not yet clumped; returns how many, or -1. */
static int64_t fill_rows(pass_t *s, const cand_t *cand, int64_t k0, int64_t k1, row_t *rows, int64_t **jbuf,
                         double **rbuf, int64_t *cap)
{
	int64_t n = 0, need = 0;
	for (int64_t k = k0; k < k1; ++k) {
		int64_t i = cand[k].i;
		if (s->clumped[i]) continue;
		row_t *w = &rows[n++];
		w->i = i;
		window(s, i, &w->lo, &w->hi);
		need += w->hi - w->lo;
	}
	if (need > *cap) {
		int64_t *j = realloc(*jbuf, sizeof *j * (size_t)need);
		if (j) *jbuf = j;
		double *r = realloc(*rbuf, sizeof *r * (size_t)need);
		if (r) *rbuf = r;
		if (!j || !r) return -1;
		*cap = need;
	}
	int64_t off = 0;
	for (int64_t q = 0; q < n; ++q) {
		row_t *w = &rows[q];
		w->j = *jbuf + off, w->r2 = *rbuf + off, w->n = 0;
		for (int64_t j = w->lo; j < w->hi; ++j)
			if (j != w->i && eligible(s, j)) w->j[w->n++] = j;
		off += w->n;
	}
	return n;
}

/* Each SNP's chromosome run. */
static void runs(const snp_data_t *d, int64_t *lo, int64_t *hi)
{
	for (int64_t a = 0, b; a < d->n_snp; a = b) {
		for (b = a + 1; b < d->n_snp && !strcmp(d->var[b].chr, d->var[a].chr); ++b) {}
		for (int64_t i = a; i < b; ++i) lo[i] = a, hi[i] = b;
	}
}

int ld_clump_run(const snp_data_t *d, const ld_clump_input_t *in, const ld_clump_opt_t *o, ld_clump_result_t *r,
                 gvk_err_t *err)
{
	memset(r, 0, sizeof *r);
	int64_t m = d->n_snp, n_cand = 0;
	int nt = o->threads > 1 ? o->threads : 1;
	int64_t batch = o->gpu ? 256 : 16 * (int64_t)nt;
	gpu_buf_t gb = {0};
	int gpu_rc = 0;
	pass_t s = {.d = d, .in = in, .o = o, .r = r};
	s.clumped = calloc((size_t)m + 1, 1);
	s.run_lo = malloc(sizeof *s.run_lo * (size_t)(m + 1));
	s.run_hi = malloc(sizeof *s.run_hi * (size_t)(m + 1));
	row_t *rows = malloc(sizeof *rows * (size_t)batch);
	cand_t *cand = candidates(in, o, &n_cand);
	int64_t *jbuf = NULL, cap = 0;
	double *rbuf = NULL;
	int rc = s.clumped && s.run_lo && s.run_hi && rows && cand ? 0 : -1;
	if (rc == 0) runs(d, s.run_lo, s.run_hi), r->n_top = n_cand;
	gvk_pool_t *pool = nt > 1 ? gvk_pool_create(nt) : NULL;
	for (int64_t k0 = 0; rc == 0 && k0 < n_cand; k0 += batch) {
		int64_t k1 = k0 + batch < n_cand ? k0 + batch : n_cand;
		int64_t n = fill_rows(&s, cand, k0, k1, rows, &jbuf, &rbuf, &cap);
		if (n < 0) {
			rc = -1;
			break;
		}
		batch_t b = {.s = &s, .rows = rows, .n_rows = n};
		if (o->gpu) {
			if ((gpu_rc = gpu_rows(&b, &gb, err)) < 0) {
				rc = -1;
				break;
			}
		} else if (nt > 1 && n > 1) {
			gvk_pool_run(pool, nt < n ? nt : (int)n, row_worker, &b);
		} else {
			row_worker(&b, 0);
		}
		r->pairs += b.pairs;
		for (int64_t q = 0, k = k0; rc == 0 && q < n; ++q) {
			while (cand[k].i != rows[q].i) ++k;
			rc = apply(&s, &rows[q], cand[k].p);
		}
	}
	gvk_pool_destroy(pool);
	free(s.clumped), free(s.run_lo), free(s.run_hi), free(rows), free(cand), free(jbuf), free(rbuf);
	free(gb.pairs), free(gb.x), free(gb.c);
	if (rc < 0) {
		ld_clump_result_free(r);
		return gpu_rc < 0 ? gpu_rc : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	}
	return 0;
}

void ld_clump_result_free(ld_clump_result_t *r)
{
	if (!r) return;
	free(r->c), free(r->m);
	memset(r, 0, sizeof *r);
}
