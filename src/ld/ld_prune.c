/* SPDX-License-Identifier: MIT */
/* --indep-pairwise, --indep-pairphase and --indep over a fileset: the chromosome runs shared out
 * among the workers, each pruning a chromosome at a time by PLINK 1.9's windows (ld_prune_win.c),
 * or, with more threads than a few per chromosome, the chromosomes split into pieces and joined
 * again into the same lists (ld_prune_split.c); the SNPs that never enter a window, alone on their
 * chromosome or on chromosome 0, counted on their own; PLINK's list order. */
#include <stdlib.h>
#include <string.h>

#include "ld_prune_win.h"
#include "../snp/snp_chrom.h"
#include "../snp/plink_io.h"
#include "../common/err.h"
#include "../common/threads.h"

static void worker(void *arg, int tid)
{
	prune_job_t *j = arg;
	(void)tid;
	prune_ctx_t c;
	window_t wd;
	int ok = prune_worker_open(&c, &wd, j) == 0;
	for (int64_t r; ok && !c.io_failed && !c.gpu_failed && (r = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED)) < j->n_run;) {
		wd.pruned = 0;
		prune_chrom(&c, j->o, &wd, j->pruned, j->lo[r], j->hi[r]);
		j->n_pruned[r] = wd.pruned;
	}
	prune_worker_close(&c, &wd, j, ok);
}

/* The most variants one window holds. */
static int64_t window_cap(const snp_data_t *d, const ld_prune_opt_t *o, const prune_job_t *j)
{
	if (!o->kb) return o->win < j->longest ? o->win : j->longest;
	int64_t cap = 1;
	for (int64_t r = 0; r < j->n_run; ++r)
		for (int64_t i = j->lo[r], e = i + 1; i < j->hi[r]; ++i) {
			e = prune_kb_end(d, i, e > i + 1 ? e : i + 1, j->hi[r], o->win * 1000);
			if (e - i > cap) cap = e - i;
		}
	return cap;
}

/* The statistics of the SNPs of chromosome 0, which no window reads, when no first pass counted
 * them. */
static int count_skipped(const snp_data_t *d, const ld_prune_opt_t *o, const uint8_t *skip, gvk_err_t *err)
{
	int64_t n = 0, *list = malloc(sizeof *list * (size_t)(d->n_snp + 1));
	if (!list) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	for (int64_t i = 0; i < d->n_snp; ++i)
		if (skip[i]) list[n++] = i;
	int rc = snp_bed_decode(o->src, d, list, n, NULL, o->threads, NULL, NULL, err);
	free(list);
	return rc;
}

int ld_prune_pairwise(const snp_data_t *d, const ld_prune_opt_t *o, uint8_t *pruned, uint8_t *skip,
                      ld_prune_report_t *rep, gvk_err_t *err)
{
	int64_t m = d->n_snp;
	memset(pruned, 0, (size_t)m);
	memset(skip, 0, (size_t)m);
	if (rep) memset(rep, 0, sizeof *rep);
	prune_job_t j = {.d = d, .o = o, .pruned = pruned};
	j.k = prune_kern_pick(o->isa);
	j.lo = malloc(sizeof *j.lo * (size_t)(m + 1));
	j.hi = malloc(sizeof *j.hi * (size_t)(m + 1));
	j.n_pruned = calloc((size_t)m + 1, sizeof *j.n_pruned);
	ld_prune_chrom_t *ch = rep ? calloc((size_t)m + 1, sizeof *ch) : NULL;
	int rc = 0;
	if (!j.lo || !j.hi || !j.n_pruned || (rep && !ch)) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	int64_t *runs = NULL, n_runs = 0;
	if (rc == 0 && snp_chr_runs(d, o->threads, &runs, &n_runs) < 0) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	for (int64_t k = 0; rc == 0 && k < n_runs; ++k) {
		int64_t lo = runs[k], hi = runs[k + 1];
		if (!strcmp(d->var[lo].chr, "0")) { /* PLINK prunes and lists no variant of chromosome 0 */
			memset(skip + lo, 1, (size_t)(hi - lo));
			continue;
		}
		j.lo[j.n_run] = lo, j.hi[j.n_run++] = hi;
		if (hi - lo > j.longest) j.longest = hi - lo;
	}
	free(runs);
	j.cap = window_cap(d, o, &j);
	if (rc == 0 && o->mode == LD_PRUNE_VIF && j.cap > 46340)
		rc = gvk_err_set(err, GVK_ERR_ARG, "--indep: a window holds up to %lld variants; PLINK 1.9 takes at most 46340",
		                 (long long)j.cap);
	prune_gpu_t pg = {.g = o->gpu};
	if (rc == 0 && o->gpu && o->mode != LD_PRUNE_VIF && j.n_run) {
		pthread_mutex_init(&pg.lock, NULL);
		j.gpu = &pg, j.band = o->gpu_band > 0 ? o->gpu_band : prune_gpu_rows(j.cap, o->mode == LD_PRUNE_PAIRPHASE, d->nw);
	}
	if (rc == 0 && j.n_run) {
		int nt = o->threads > 1 ? o->threads : 1;
		int64_t n_pc = prune_split_plan(&j, nt);
		if (n_pc < 0) {
			j.failed = 1;
		} else if (n_pc > 0) {
			gvk_parallel(nt < n_pc ? nt : (int)n_pc, prune_split_worker, &j);
			j.next = 0, j.joining = 1;
			if (!j.failed && !j.io_failed) gvk_parallel(nt < j.n_run ? nt : (int)j.n_run, prune_split_worker, &j);
		} else {
			gvk_parallel(nt < j.n_run ? nt : (int)j.n_run, worker, &j);
		}
		if (j.failed) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		else if (j.io_failed) rc = gvk_err_set(err, GVK_ERR_IO, "%s: cannot open or read it again", o->src->bed);
		else if (j.gpu_failed) rc = gvk_err_set(err, j.gpu_err.code, "%s", j.gpu_err.msg);
	}
	prune_split_free(&j);
	if (j.gpu) pthread_mutex_destroy(&pg.lock);
	if (rc == 0 && o->src && o->src->stats) rc = count_skipped(d, o, skip, err);
	for (int64_t r = 0; rc == 0 && rep && r < j.n_run; ++r) {
		ch[rep->n_chrom++] = (ld_prune_chrom_t){d->var[j.lo[r]].chr, j.hi[r] - j.lo[r], j.n_pruned[r]};
		rep->pruned += j.n_pruned[r];
	}
	if (rc == 0 && rep) rep->chrom = ch, rep->pairs = j.pairs, rep->pieces = j.n_pc, rep->resumed = j.resumed;
	else free(ch);
	free(j.lo), free(j.hi), free(j.n_pruned);
	return rc;
}

void ld_prune_report_free(ld_prune_report_t *r)
{
	if (!r) return;
	free(r->chrom);
	memset(r, 0, sizeof *r);
}

/* A chromosome's place in PLINK's list order: its code, or after every code for another name. */
static int64_t code_of(const char *chr)
{
	char *end;
	long v = strtol(chr, &end, 10);
	return *end || end == chr ? 1000 : v;
}

void ld_prune_order(const snp_data_t *d, int64_t *order)
{
	int64_t m = d->n_snp, n_run = 0, k = 0;
	int64_t *lo = order; /* run starts first, then expanded from the back */
	for (int64_t i = 0; i < m; ++i)
		if (i == 0 || strcmp(d->var[i].chr, d->var[i - 1].chr)) lo[n_run++] = i;
	for (int64_t r = 1; r < n_run; ++r) /* stable: equal codes keep their order */
		for (int64_t q = r; q > 0 && code_of(d->var[lo[q]].chr) < code_of(d->var[lo[q - 1]].chr); --q) {
			int64_t t = lo[q];
			lo[q] = lo[q - 1], lo[q - 1] = t;
		}
	int64_t *runs = malloc(sizeof *runs * (size_t)(n_run + 1));
	if (!runs) { /* cannot happen for the sizes used; fall back to file order */
		for (int64_t i = 0; i < m; ++i) order[i] = i;
		return;
	}
	memcpy(runs, lo, sizeof *runs * (size_t)n_run);
	for (int64_t r = 0; r < n_run; ++r)
		for (int64_t i = runs[r]; i < m && (i == runs[r] || !strcmp(d->var[i].chr, d->var[i - 1].chr)); ++i)
			order[k++] = i;
	free(runs);
}

const char *ld_prune_mode_name(int mode)
{
	return mode == LD_PRUNE_VIF ? "--indep" : mode == LD_PRUNE_PAIRPHASE ? "--indep-pairphase" : "--indep-pairwise";
}

int ld_prune_opt_check(const ld_prune_opt_t *o, gvk_err_t *err)
{
	if (o->mode < LD_PRUNE_PAIRWISE || o->mode > LD_PRUNE_VIF)
		return gvk_err_set(err, GVK_ERR_ARG, "mode: %d; give pairwise, pairphase or VIF", o->mode);
	if (o->win < (o->kb ? 1 : 2) || o->win > 2147483647)
		return gvk_err_set(err, GVK_ERR_ARG, "window: %lld; give at least 2 variants or 1 kb", (long long)o->win);
	if (o->step < 1 || (!o->kb && o->step > o->win))
		return gvk_err_set(err, GVK_ERR_ARG, "step: %lld; give 1 to the window size (in variants)", (long long)o->step);
	if (o->mode == LD_PRUNE_VIF && !(o->r2 >= 1))
		return gvk_err_set(err, GVK_ERR_ARG, "VIF threshold: %g; give a value of at least 1", o->r2);
	if (o->mode != LD_PRUNE_VIF && !(o->r2 >= 0 && o->r2 < 1))
		return gvk_err_set(err, GVK_ERR_ARG, "r2: %g; give a value in [0, 1)", o->r2);
	return 0;
}
