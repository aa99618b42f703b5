/* SPDX-License-Identifier: MIT */
/* --indep-pairwise in a split job: the processes take contiguous runs of whole chromosomes
 * (ld_split_prune_plan), each reading only their rows, and every process receives the flags and
 * the per-chromosome counts in the set's order. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "ld_job_split.h"
#include "../common/err.h"

/* rep's chromosomes from every process's (n, pruned) pairs all[] in the set's order, with the names
 * of d's runs (chromosome 0 has none, as in one process). */
static void fill_report(const snp_data_t *d, const int64_t *all, int64_t tot, ld_prune_report_t *rep)
{
	int64_t k = 0;
	for (int64_t i = 0; i < d->n_snp && k < tot / 2; ++i) {
		if (i > 0 && !strcmp(d->var[i].chr, d->var[i - 1].chr)) continue;
		if (!strcmp(d->var[i].chr, "0")) continue;
		rep->chrom[k] = (ld_prune_chrom_t){d->var[i].chr, all[2 * k], all[2 * k + 1]};
		rep->pruned += all[2 * k + 1];
		++k;
	}
	rep->n_chrom = k;
}

/* The per-chromosome counts of every process, in rank order (= the set's order). */
static int gather_report(const gvk_ld_split_t *sp, const snp_data_t *d, const ld_prune_report_t *mine,
                         ld_prune_report_t *rep, gvk_err_t *err)
{
	int64_t n = mine->n_chrom, tot = 0, *cnt = NULL, *at = NULL;
	int64_t *v = malloc(sizeof *v * (size_t)(2 * n + 1)), *all = NULL;
	int rc = ld_split_spans(sp, 2 * n, 0, sizeof *v, &cnt, &at, err);
	int64_t ok = v != NULL;
	sp->reduce(sp->ctx, &ok, 1, GVK_LD_SPLIT_MIN);
	if (rc == 0 && !ok) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (rc == 0) {
		for (int r = 0; r < sp->size; ++r) at[r] = tot, tot += cnt[r];
		tot /= (int64_t)sizeof *v;
		for (int64_t k = 0; k < n; ++k) v[2 * k] = mine->chrom[k].n, v[2 * k + 1] = mine->chrom[k].pruned;
		all = malloc(sizeof *all * (size_t)(tot + 1));
		rep->chrom = calloc((size_t)tot / 2 + 1, sizeof *rep->chrom);
		ok = all && rep->chrom;
		sp->reduce(sp->ctx, &ok, 1, GVK_LD_SPLIT_MIN);
		if (!ok) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	}
	if (rc == 0) {
		if (n) memcpy((char *)all + at[sp->rank], v, sizeof *v * (size_t)(2 * n));
		sp->gather(sp->ctx, all, cnt, at);
		fill_report(d, all, tot, rep);
	}
	free(cnt), free(at), free(v), free(all);
	return rc;
}

int ld_split_prune(const gvk_ld_split_t *sp, const ld_split_part_t *p, const snp_data_t *d, const ld_prune_opt_t *o,
                   uint8_t *pruned, uint8_t *skip, ld_prune_report_t *rep, gvk_err_t *err)
{
	int64_t n = p->r1 - p->r0;
	ld_prune_report_t mine = {0};
	memset(rep, 0, sizeof *rep);
	int rc = n ? ld_prune_pairwise(&p->d, o, pruned + p->r0, skip + p->r0, &mine, err) : 0;
	rc = sp->agree(sp->ctx, rc, err);
	int64_t *cnt = NULL, *at = NULL;
	if (rc == 0) rc = ld_split_spans(sp, n, p->r0, 1, &cnt, &at, err);
	if (rc == 0) {
		sp->gather(sp->ctx, pruned, cnt, at);
		sp->gather(sp->ctx, skip, cnt, at);
		int64_t pairs = (int64_t)mine.pairs;
		sp->reduce(sp->ctx, &pairs, 1, GVK_LD_SPLIT_SUM);
		rc = gather_report(sp, d, &mine, rep, err);
		rep->pairs = pairs;
	}
	free(cnt), free(at);
	ld_prune_report_free(&mine);
	return rc;
}
