/* SPDX-License-Identifier: MIT */
/* Stripe planning and the threaded tile loop for LD. */
#include <math.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ld_engine.h"
#include "ld_em.h"
#include "../snp/snp_chrom.h"
#include "ld_gpu.h"
#include "../common/err.h"
#include "../common/log.h"
#include "../common/threads.h"

enum { ROWS_PER_TASK = 16, STRIPE_ROWS_MAX = 4096 };

void ld_opt_init(ld_opt_t *o)
{
	memset(o, 0, sizeof *o);
	o->shape = LD_TABLE;
	o->win_snps = 10;
	o->win_bp = 1000000;
	o->win_cm = -1.0;
	o->threads = 1;
}

/* PLINK widens window limits by 2^-44 so that decimal values land on the intended side. */
#define LD_SMALL_EPSILON 0.00000000000005684341886080801486968994140625

int64_t ld_window_bp(double kb)
{
	return kb > 2147483.646 ? 2147483646 : (int64_t)(int32_t)(kb * 1000 * (1 + LD_SMALL_EPSILON));
}

double ld_window_cm(double cm) { return cm * (1 + LD_SMALL_EPSILON); }

const char *ld_device_name(const ld_opt_t *o)
{
	const pg_isa_t *isa = pg_isa_select(o->isa);
	return isa ? isa->name : NULL;
}

/* Last SNP of A's window after it (inclusive), or i itself (docs/snp.md, Semantics 3). */
static int64_t window_fwd(const snp_data_t *d, const ld_opt_t *o, int64_t i)
{
	const snp_var_t *a = &d->var[i];
	int64_t j = i + 1;
	double max_cm = o->win_cm + a->cm;
	while (j < d->n_snp && j - i <= o->win_snps - 1 && strcmp(d->var[j].chr, a->chr) == 0 &&
	       d->var[j].bp <= a->bp + o->win_bp && (o->win_cm < 0 || d->var[j].cm <= max_cm))
		++j;
	return j - 1;
}

/* First SNP of A's window before it, for --ld-snp rows: as many SNPs, bp and cM back as forward. */
static int64_t window_back(const snp_data_t *d, const ld_opt_t *o, int64_t i)
{
	const snp_var_t *a = &d->var[i];
	int64_t j = i, min_bp = a->bp >= o->win_bp ? a->bp - o->win_bp : 0;
	double min_cm = a->cm - o->win_cm;
	while (j > 0 && i - (j - 1) <= o->win_snps - 1 && strcmp(d->var[j - 1].chr, a->chr) == 0 &&
	       d->var[j - 1].bp >= min_bp && (o->win_cm < 0 || d->var[j - 1].cm >= min_cm))
		--j;
	return j;
}

/* Input index PLINK gives SNP i. */
static int64_t in_row(const ld_opt_t *o, int64_t i) { return o->row ? o->row[i] : i; }

/* The first SNP k in [lo, hi] with in_row(k) >= r (hi when none); rows increase with k. */
static int64_t first_from_row(const ld_opt_t *o, int64_t lo, int64_t hi, int64_t r)
{
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (in_row(o, mid) < r) lo = mid + 1;
		else hi = mid;
	}
	return lo;
}

/* Whether input variant r (a multiple of 64) is past the window's exact limits. */
static int base_past(const snp_data_t *d, const ld_opt_t *o, int64_t r, int64_t max_bp, double max_cm)
{
	int64_t bp = o->base_bp ? o->base_bp[r / 64] : d->var[r].bp;
	double cm = o->base_cm ? o->base_cm[r / 64] : d->var[r].cm;
	return bp > max_bp || cm > max_cm;
}

/* PLINK 1.9's window_forward() with a cM limit, which ends the window of a chromosome's first
 * variant s (and of an index variant after a gap); last is the chromosome's last SNP. It walks the
 * input 64 variants at a time and compares each 64th variant, and the variant where the count
 * limit ends the window, with the limits exactly; if one is past them it searches the variants
 * since the last 64th one that was not, with the cM limit widened by its epsilon once more and
 * "<" in place of "<=". The variant that stopped the walk stays out either way. */
static int64_t fresh_fwd(const snp_data_t *d, const ld_opt_t *o, int64_t s, int64_t last)
{
	if (s == last) return s;
	int64_t max_bp = d->var[s].bp + o->win_bp, t = s + o->win_snps - 1, rs = in_row(o, s), rl = in_row(o, last);
	double max_cm = o->win_cm + d->var[s].cm;
	int64_t w = (rs + 1) / 64 * 64, from = rs, hi;
	for (;;) {
		if (t < d->n_snp && in_row(o, t) < w + 64) {
			hi = t < last ? t : last;
			if (!(d->var[hi].bp > max_bp || d->var[hi].cm > max_cm)) return hi;
			break;
		}
		w += 64;
		if (w >= rl) {
			if (!(d->var[last].bp > max_bp || d->var[last].cm > max_cm)) return last;
			hi = last;
			break;
		}
		if (base_past(d, o, w, max_bp, max_cm)) {
			hi = first_from_row(o, s + 1, last, w);
			break;
		}
		from = w;
	}
	double lim = max_cm * (1 + LD_SMALL_EPSILON);
	int64_t lo = from == rs ? s : first_from_row(o, s + 1, hi, from);
	for (int64_t k = hi - 1; k >= lo; --k)
		if (d->var[k].bp <= max_bp && lim > d->var[k].cm) return k;
	/* PLINK's window would end before s here (--ld-window-cm 0 at cM <= 0); gvk keeps it empty. */
	return lo > s ? lo - 1 : s;
}

/* The window ends PLINK 1.9 (v1.90b6.26) forms with --ld-window-cm, per first variant (inclusive).
 * A chromosome's first variant (and an index variant after a gap) gets fresh_fwd(); each next one
 * extends the previous window while the next variant is within its limits, so a window never ends
 * before the previous one. The D / D' tables (em) compare that variant's own cM position with the
 * window size rather than with cM(A) plus the size. */
static int64_t *cm_window_ends(const snp_data_t *d, const ld_opt_t *o)
{
	int64_t m = d->n_snp, fwd = -1, lead = 0, prev = -2, last = -1;
	int64_t *end = malloc(sizeof *end * (size_t)(m + 1));
	if (!end) return NULL;
	for (int64_t i = 0; i < m; ++i) {
		if (o->idx1 && !o->idx1[i]) continue;
		int fresh = prev < 0 || !snp_same_chr(d, i, prev) || i != prev + 1;
		if (i > last)
			for (last = i; last + 1 < m && snp_same_chr(d, last + 1, i);) ++last;
		if (fresh) {
			fwd = fresh_fwd(d, o, i, last);
			lead = fwd - i;
		} else {
			double max_cm = o->em ? o->win_cm : d->var[i].cm + o->win_cm;
			for (int64_t max_bp = d->var[i].bp + o->win_bp; fwd < last;) {
				if (d->var[fwd + 1].bp > max_bp || !(d->var[fwd + 1].cm <= max_cm)) break;
				++fwd, ++lead;
				if (fwd == last || lead > o->win_snps - 1) break;
			}
			--lead;
		}
		end[i] = i + lead;
		prev = i;
	}
	return end;
}

/* Columns of row i (docs/snp.md, Semantics 3: tables and matrices); empty (lo = hi) when row i has none.
 * cm_end (em mode with a cM window) gives the rows' window ends. */
static void row_range(const snp_data_t *d, const ld_opt_t *o, const int64_t *cm_end, int64_t i, int64_t *lo, int64_t *hi)
{
	int64_t m = d->n_snp;
	*lo = *hi = 0;
	switch (o->shape) {
	case LD_SQUARE: *lo = 0, *hi = m; break;
	case LD_SQUARE0:
	case LD_TRIANGLE: *lo = 0, *hi = i + 1; break;
	default: break;
	}
	if (o->shape != LD_TABLE) {
		/* a tile of the matrix (one MPI rank's share): its columns only */
		if (o->col1 > 0 && *hi > o->col1) *hi = o->col1;
		if (*lo < o->col0) *lo = o->col0;
		if (*hi < *lo) *hi = *lo;
		return;
	}
	int64_t fwd = o->inter_chr ? m - 1 : cm_end ? cm_end[i] : window_fwd(d, o, i);
	if (o->idx1) {
		if (!o->idx1[i]) *lo = *hi = i;
		else if (o->inter_chr) *lo = 0, *hi = m;
		else *lo = window_back(d, o, i), *hi = fwd + 1;
		return;
	}
	*lo = i + 1;
	*hi = fwd + 1;
}

typedef struct {
	const snp_data_t *d;
	const ld_opt_t *o;
	const pg_isa_t *isa;
	const int32_t *tot;
	ld_stripe_t *s;
	const ld_em_plan_t *plan; /* em mode */
	int cb;          /* columns per task */
	int64_t n_tasks, n_cblocks;
	atomic_llong next;
	pg_ldcnt_t *buf; /* threads x cb */
	pg_ldtab_t *em_tab; /* threads x cb, em mode */
} job_t;

/* Unphased D / D' (ld_em.h): the two-locus table of each pair, from the kernel's plane
 * intersections for runs of plain pairs, else counted here class by class. */
static void em_row(const job_t *j, int64_t i, int64_t jl, int n, pg_ldtab_t *tab)
{
	const snp_data_t *d = j->d;
	ld_stripe_t *s = j->s;
	size_t off = (size_t)(i - s->i0) * (size_t)s->width + (size_t)(jl - s->cbase);
	long stride = (long)SNP_PLANES * d->nw;
	for (int k = 0; k < n;) {
		uint32_t c[18];
		int xi, xj, run = 0;
		while (k + run < n && run < j->cb && ld_em_plain(j->plan, i, jl + k + run)) ++run;
		if (run) {
			j->isa->tab_row(snp_plane(d, i, 0), snp_plane(d, jl + k, 0), stride, run, d->nw, tab);
			for (int q = 0; q < run; ++q, ++k) {
				ld_em_table(&tab[q], c);
				ld_em_stats(c, 0, 0, j->o->r2, j->o->drop, &s->r[off + k], &s->d[off + k], &s->dp[off + k]);
			}
			continue;
		}
		ld_em_counts(d, j->plan, i, jl + k, &xi, &xj, c);
		ld_em_stats(c, xi, xj, j->o->r2, j->o->drop, &s->r[off + k], &s->d[off + k], &s->dp[off + k]);
		++k;
	}
}

static void epilogue(const job_t *j, int64_t i, int64_t jl, int n, const pg_ldcnt_t *c)
{
	ld_stripe_t *s = j->s;
	size_t off = (size_t)(i - s->i0) * (size_t)s->width + (size_t)(jl - s->cbase);
	if (j->o->haplotype) {
		for (int k = 0; k < n; ++k) {
			ld_haplotype(&c[k], &s->r[off + k], &s->d[off + k], &s->dp[off + k]);
			if (j->o->r2) s->r[off + k] *= fabs(s->r[off + k]);
		}
	} else {
		for (int k = 0; k < n; ++k) s->r[off + k] = ld_value_genotype(&c[k], j->o->r2, j->o->single);
	}
}

static void worker(void *arg, int tid)
{
	job_t *j = arg;
	const snp_data_t *d = j->d;
	ld_stripe_t *s = j->s;
	pg_ldcnt_t *buf = j->buf + (size_t)tid * (size_t)j->cb;
	pg_ldtab_t *tab = j->em_tab ? j->em_tab + (size_t)tid * (size_t)j->cb : NULL;
	long stride = (long)SNP_PLANES * d->nw;
	for (;;) {
		int64_t t = atomic_fetch_add(&j->next, 1);
		if (t >= j->n_tasks) break;
		int64_t r0 = s->i0 + (t / j->n_cblocks) * ROWS_PER_TASK;
		int64_t r1 = r0 + ROWS_PER_TASK < s->i1 ? r0 + ROWS_PER_TASK : s->i1;
		int64_t c0 = s->cbase + (t % j->n_cblocks) * j->cb, c1 = c0 + j->cb;
		for (int64_t i = r0; i < r1; ++i) {
			int64_t jl = s->jlo[i - s->i0], jh = s->jhi[i - s->i0];
			if (jl < c0) jl = c0;
			if (jh > c1) jh = c1;
			if (jl >= jh) continue;
			int n = (int)(jh - jl);
			if (j->o->em) {
				em_row(j, i, jl, n, tab);
				continue;
			}
			j->isa->ld_row(snp_plane(d, i, 0), snp_plane(d, jl, 0), stride, n, d->nw, d->n_bits, d->full[i],
			               &j->tot[2 * i], &d->full[jl], &j->tot[2 * jl], buf);
			epilogue(j, i, jl, n, buf);
		}
	}
}

/* {pc(A), pc(B)} of each SNP; the kernels read them only for SNPs without a missing call. */
static int32_t *plane_totals(const snp_data_t *d, const pg_isa_t *isa)
{
	int32_t *t = calloc(2 * (size_t)(d->n_snp + 1), sizeof *t);
	if (!t) return NULL;
	for (int64_t i = 0; i < d->n_snp; ++i) {
		if (!d->full[i]) continue;
		t[2 * i] = (int32_t)isa->popcount(snp_plane(d, i, SNP_PA), d->nw);
		t[2 * i + 1] = (int32_t)isa->popcount(snp_plane(d, i, SNP_PB), d->nw);
	}
	return t;
}

/* The em plan for this job: where the first variant's window starts and the last one's ends. */
static int em_plan(const snp_data_t *d, const ld_opt_t *o, const int64_t *cm_end, ld_em_plan_t *p)
{
	int64_t m = d->n_snp, first = -1, last = -1;
	for (int64_t i = 0; o->idx1 && i < m; ++i)
		if (o->idx1[i]) last = i, first = first < 0 ? i : first;
	int64_t back0 = 0, end = m;
	if (o->idx1 && first >= 0 && !o->inter_chr) {
		int64_t lo, hi;
		row_range(d, o, cm_end, first, &back0, &hi);
		row_range(d, o, cm_end, last, &lo, &end);
	}
	return ld_em_plan(d, o->idx1, back0, end, p);
}

/* The windows PLINK forms with a cM limit (NULL in *cm_end without one), and the em plan. */
static int window_setup(const snp_data_t *d, const ld_opt_t *o, ld_em_plan_t *plan, int64_t **cm_end, gvk_err_t *err)
{
	if (o->shape == LD_TABLE && !o->inter_chr && o->win_cm >= 0 && !(*cm_end = cm_window_ends(d, o)))
		return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (o->em && em_plan(d, o, *cm_end, plan) < 0) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	return 0;
}

int ld_run(const snp_data_t *d, const ld_opt_t *o, ld_sink_fn sink, void *ctx, ld_report_t *rep, gvk_err_t *err)
{
	const pg_isa_t *isa = pg_isa_select(o->isa);
	if (!isa) return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "the requested CPU kernel is not available on this CPU or build");
	char note[256];
	int passed = pg_isa_note(isa, o->isa, note, sizeof note);
	if (passed) gvk_logf(&o->gpu.log, GVK_LOG_INFO, "ld: CPU kernel %s", note);
	snp_gpu_t *gpu = NULL;
	/* auto: the GPU when one is usable, else the CPU without a message */
	/* the unphased D / D' estimator runs on the CPU only */
	if (o->device != GVK_DEVICE_CPU && !o->em && !(gpu = snp_gpu_open(&o->gpu, err))) {
		if (o->device == GVK_DEVICE_GPU) return err ? err->code : GVK_ERR_GPU;
		if (err) err->code = 0, err->msg[0] = 0;
	}
	int threads = o->threads > 0 ? o->threads : 1;
	/* A windowed table fills a band of its stripe's rectangle, a page or so a row: smaller stripes
	 * reuse a few pages instead of touching a new one a row. */
	size_t budget = o->stripe_cells ? o->stripe_cells : o->shape == LD_TABLE && !o->inter_chr ? (size_t)1 << 18 : (size_t)1 << 22;
	int64_t m = d->n_snp;
	int cb = (int)(262144 / ((size_t)SNP_PLANES * (size_t)d->nw * 8));
	cb = cb < 8 ? 8 : cb > 1024 ? 1024 : cb;
	job_t j = {.d = d, .o = o, .isa = isa, .cb = cb};
	ld_stripe_t s = {0};
	int rc = 0;
	uint64_t pairs = 0;
	int32_t *tot = plane_totals(d, isa);
	ld_em_plan_t plan = {0};
	int64_t *cm_end = NULL;
	/* one set of threads for every stripe, rather than new threads per stripe */
	gvk_pool_t *own = !gpu && threads > 1 && !o->pool ? gvk_pool_create(threads) : NULL, *pool = o->pool ? o->pool : own;
	rc = window_setup(d, o, &plan, &cm_end, err);
	j.tot = tot;
	j.plan = &plan;
	j.buf = malloc(sizeof *j.buf * (size_t)cb * (size_t)threads);
	if (o->em) j.em_tab = malloc(sizeof *j.em_tab * (size_t)cb * (size_t)threads);
	s.jlo = malloc(sizeof *s.jlo * STRIPE_ROWS_MAX);
	s.jhi = malloc(sizeof *s.jhi * STRIPE_ROWS_MAX);
	size_t vcap = 0;
	if (!tot || !j.buf || (o->em && !j.em_tab) || !s.jlo || !s.jhi) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	int64_t end = o->row1 > 0 && o->row1 < m ? o->row1 : m;
	for (int64_t i0 = o->row0 > 0 ? o->row0 : 0; i0 < end && rc == 0;) {
		/* Grow the stripe row by row while its rectangle stays within the budget. */
		int64_t i1 = i0, cmin = INT64_MAX, cmax = 0;
		uint64_t sp = 0;
		while (i1 < end && i1 - i0 < STRIPE_ROWS_MAX) {
			int64_t lo, hi;
			row_range(d, o, cm_end, i1, &lo, &hi);
			int64_t nmin = hi > lo && lo < cmin ? lo : cmin, nmax = hi > lo && hi > cmax ? hi : cmax;
			if (i1 > i0 && nmax > nmin && (size_t)(i1 - i0 + 1) * (size_t)(nmax - nmin) > budget) break;
			s.jlo[i1 - i0] = lo, s.jhi[i1 - i0] = hi;
			if (hi > lo) sp += (uint64_t)(hi - lo);
			cmin = nmin, cmax = nmax;
			++i1;
		}
		if (cmax <= cmin) cmin = cmax = 0; /* no pair in the stripe */
		s.i0 = i0, s.i1 = i1, s.cbase = cmin, s.width = cmax - cmin, s.pairs = sp;
		size_t cells = (size_t)(i1 - i0) * (size_t)s.width;
		if (cells > vcap) {
			size_t nc = cells + cells / 4 + 16;
			int three = o->haplotype || o->em, nd = three ? 3 : 1;
			/* page-locked for a GPU, so that its copies overlap the next chunk's kernels */
			double *nr = gpu ? snp_gpu_host_alloc(gpu, nc * nd * sizeof *nr) : realloc(s.r, nc * nd * sizeof *nr);
			if (gpu && nr) snp_gpu_host_free(gpu, s.r);
			if (!nr) {
				rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for a stripe of %zu pairs", cells);
				break;
			}
			s.r = nr;
			s.d = three ? nr + nc : NULL;
			s.dp = three ? nr + 2 * nc : NULL;
			vcap = nc;
		}
		if (gpu && s.width > 0) {
			rc = snp_gpu_ld_stripe(gpu, d, o, &s, err);
		} else if (!gpu && s.width > 0) {
			j.s = &s;
			j.n_cblocks = (s.width + cb - 1) / cb;
			j.n_tasks = ((i1 - i0 + ROWS_PER_TASK - 1) / ROWS_PER_TASK) * j.n_cblocks;
			atomic_store(&j.next, 0);
			int nt = (int64_t)threads > j.n_tasks ? (int)j.n_tasks : threads;
			gvk_pool_run(pool, nt < 1 ? 1 : nt, worker, &j);
		}
		if (rc == 0) rc = sink(ctx, &s, err);
		pairs += sp;
		i0 = i1;
	}
	if (rep) {
		rep->pairs = pairs;
		snprintf(rep->kernel, sizeof rep->kernel, "%s", gpu ? snp_gpu_kernel(gpu) : o->em ? "cpu-em" : isa->name);
		rep->kernel_s = gpu ? snp_gpu_kernel_seconds(gpu) : 0.0;
	}
	if (gpu) snp_gpu_host_free(gpu, s.r), s.r = NULL;
	snp_gpu_close(gpu);
	gvk_pool_destroy(own);
	ld_em_plan_free(&plan);
	free(cm_end);
	free(tot);
	free(j.buf);
	free(j.em_tab);
	free(s.jlo);
	free(s.jhi);
	free(s.r);
	return rc;
}

int ld_counts_pairs(const snp_data_t *d, const pg_isa_t *isa, const int64_t *ii, const int64_t *jj, size_t n,
                    pg_ldcnt_t *out)
{
	int32_t *tot = plane_totals(d, isa);
	if (!tot) return GVK_ERR_NOMEM;
	long stride = (long)SNP_PLANES * d->nw;
	for (size_t k = 0; k < n; ++k)
		isa->ld_row(snp_plane(d, ii[k], 0), snp_plane(d, jj[k], 0), stride, 1, d->nw, d->n_bits, d->full[ii[k]],
		            &tot[2 * ii[k]], &d->full[jj[k]], &tot[2 * jj[k]], &out[k]);
	free(tot);
	return 0;
}
