/* SPDX-License-Identifier: MIT */
/* gvk ld --indep-pairwise over MPI ranks. PLINK's pruning is greedy along a chromosome (whether a
 * variant stays depends on every choice before it in its windows), so a chromosome cannot be cut
 * without changing the lists; the ranks take contiguous runs of whole chromosomes instead, of
 * about equal variants, each reading only their rows, and every rank receives the flags and the
 * per-chromosome counts in the set's order. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "mpi_drivers.h"
#include "../../common/err.h"

typedef struct {
	const snp_data_t *d;
	const int64_t *start; /* first SNP of each chromosome run, and m after the last */
} runs_t;

static double snps_before(int64_t k, const void *arg)
{
	const runs_t *r = arg;
	return (double)r->start[k];
}

int gvk_mpi_ld_prune_plan(const gvk_mpi_world_t *w, const snp_data_t *d, gvk_mpi_ld_part_t *p, gvk_err_t *err)
{
	int64_t m = d->n_snp, n = 0;
	int64_t *start = malloc(sizeof *start * (size_t)(m + 2));
	if (!start) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	for (int64_t i = 0; i < m; ++i)
		if (i == 0 || strcmp(d->var[i].chr, d->var[i - 1].chr)) start[n++] = i;
	start[n] = m;
	runs_t r = {d, start};
	int64_t k0, k1;
	gvk_mpi_split(n, w->size, w->rank, snps_before, &r, &k0, &k1);
	memset(p, 0, sizeof *p);
	p->pr = w->size, p->pc = 1, p->a = w->rank;
	p->r0 = p->c0 = start[k0], p->r1 = p->c1 = start[k1];
	free(start);
	return 0;
}

/* Each rank's (count, start) of its rows, for the v-collectives. */
static int row_counts(const gvk_mpi_world_t *w, const gvk_mpi_ld_part_t *p, int **cnt, int **at)
{
	int mine[2] = {(int)(p->r1 - p->r0), (int)p->r0};
	int *all = malloc(sizeof *all * 2 * (size_t)w->size);
	*cnt = malloc(sizeof **cnt * (size_t)w->size), *at = malloc(sizeof **at * (size_t)w->size);
	int ok = all && *cnt && *at;
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, w->comm);
	if (ok) MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, w->comm);
	for (int r = 0; ok && r < w->size; ++r) (*cnt)[r] = all[2 * r], (*at)[r] = all[2 * r + 1];
	free(all);
	return ok ? 0 : -1;
}

/* The per-chromosome counts of every rank, in rank order (= the set's order), with the names of
 * d's runs (chromosome 0 has none, as in one process). */
static int gather_report(const gvk_mpi_world_t *w, const snp_data_t *d, const ld_prune_report_t *mine,
                         ld_prune_report_t *rep, gvk_err_t *err)
{
	int n = (int)mine->n_chrom, tot = 0;
	int *cnt = malloc(sizeof *cnt * (size_t)w->size), *at = malloc(sizeof *at * (size_t)w->size);
	int64_t *v = malloc(sizeof *v * (size_t)(2 * n + 1));
	int ok = cnt && at && v;
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, w->comm);
	int rc = ok ? 0 : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	int64_t *all = NULL;
	if (rc == 0) {
		int two = 2 * n;
		MPI_Allgather(&two, 1, MPI_INT, cnt, 1, MPI_INT, w->comm);
		for (int r = 0; r < w->size; ++r) at[r] = tot, tot += cnt[r];
		for (int k = 0; k < n; ++k) v[2 * k] = mine->chrom[k].n, v[2 * k + 1] = mine->chrom[k].pruned;
		all = malloc(sizeof *all * (size_t)(tot + 1));
		rep->chrom = calloc((size_t)tot / 2 + 1, sizeof *rep->chrom);
		ok = all && rep->chrom;
		MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, w->comm);
		if (!ok) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	}
	if (rc == 0) {
		MPI_Allgatherv(v, 2 * n, MPI_INT64_T, all, cnt, at, MPI_INT64_T, w->comm);
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
	free(cnt), free(at), free(v), free(all);
	return rc;
}

int gvk_mpi_ld_prune(const gvk_mpi_ld_part_t *p, const snp_data_t *d, const ld_prune_opt_t *o, uint8_t *pruned,
                     uint8_t *skip, ld_prune_report_t *rep, gvk_err_t *err)
{
	gvk_mpi_world_t w;
	gvk_mpi_world_get(&w);
	int64_t n = p->r1 - p->r0;
	ld_prune_report_t mine = {0};
	memset(rep, 0, sizeof *rep);
	int rc = n ? ld_prune_pairwise(&p->d, o, pruned + p->r0, skip + p->r0, &mine, err) : 0;
	rc = gvk_mpi_agree(&w, rc, err);
	int *cnt = NULL, *at = NULL;
	if (rc == 0 && row_counts(&w, p, &cnt, &at) < 0) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (rc == 0) {
		MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, pruned, cnt, at, MPI_UINT8_T, w.comm);
		MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, skip, cnt, at, MPI_UINT8_T, w.comm);
		unsigned long long pairs = mine.pairs;
		MPI_Allreduce(MPI_IN_PLACE, &pairs, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, w.comm);
		rc = gather_report(&w, d, &mine, rep, err);
		rep->pairs = (int64_t)pairs;
	}
	free(cnt), free(at);
	ld_prune_report_free(&mine);
	return rc;
}
