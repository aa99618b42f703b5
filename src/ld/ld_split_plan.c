/* SPDX-License-Identifier: MIT */
/* Which part of an LD table or matrix each process of a split job computes (docs/mpi.md):
 * contiguous row blocks of equal pairs for tables and small jobs, else a grid of tiles of equal
 * pairs; pruning takes runs of whole chromosomes. The reader of a process's SNPs (ld_split_read.c)
 * and the writer of its tile (ld_split_table.c) both start from this plan. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ld_job_split.h"
#include "../common/err.h"
#include "../common/work_split.h"

typedef struct {
	int64_t r0, r1, m;
	int tri;
} colwork_t;

static double triangle(int64_t i, const void *arg)
{
	(void)arg;
	return (double)i * (double)(i + 1) / 2.0;
}

/* Pairs of the row block in columns [0, c). */
static double col_work(int64_t c, const void *arg)
{
	const colwork_t *k = arg;
	double s = 0.0;
	for (int64_t i = k->r0; i < k->r1; ++i) s += (double)(k->tri ? (c < i + 1 ? c : i + 1) : c);
	return s;
}

/* The grid: sp->tiles (RxC, R * C the processes) when given, else rows only up to 3 processes (a
 * row-major output then takes one write per process) and the squarest grid above. */
static int choose_grid(const gvk_ld_split_t *sp, ld_split_part_t *p, int matrix, gvk_err_t *err)
{
	int P = sp->size;
	p->pr = P, p->pc = 1;
	const char *v = sp->tiles;
	if (!matrix) return 0;
	if (v && *v) {
		int r = 0, c = 0;
		if (sscanf(v, "%dx%d", &r, &c) != 2 || r < 1 || c < 1 || r * c != P)
			return gvk_err_set(err, GVK_ERR_ARG, "GVK_MPI_TILES=%s: give ROWSxCOLUMNS with a product of %d (the ranks)",
			                   v, P);
		p->pr = r, p->pc = c;
		return 0;
	}
	for (int c = 1; c * c <= P; ++c)
		if (P % c == 0 && P >= 4) p->pc = c, p->pr = P / c;
	return 0;
}

int ld_split_plan(const gvk_ld_split_t *sp, int rank, int shape, int64_t m, int shared, ld_split_part_t *p,
                  gvk_err_t *err)
{
	int rc = choose_grid(sp, p, shared && shape != LD_TABLE, err);
	if (rc < 0) return rc;
	int tri = shape == LD_TRIANGLE || shape == LD_SQUARE0;
	p->a = rank / p->pc, p->b = rank % p->pc;
	gvk_work_split(m, p->pr, p->a, tri ? triangle : NULL, NULL, &p->r0, &p->r1);
	colwork_t k = {p->r0, p->r1, m, tri};
	p->c0 = 0, p->c1 = m;
	if (p->pc > 1) gvk_work_split(m, p->pc, p->b, col_work, &k, &p->c0, &p->c1);
	return 0;
}

typedef struct {
	const int64_t *start; /* first SNP of each chromosome run, and m after the last */
} runs_t;

static double snps_before(int64_t k, const void *arg)
{
	const runs_t *r = arg;
	return (double)r->start[k];
}

/* PLINK's pruning is greedy along a chromosome (whether a variant stays depends on every choice
 * before it in its windows), so a chromosome is never cut. */
int ld_split_prune_plan(const gvk_ld_split_t *sp, const snp_data_t *d, ld_split_part_t *p, gvk_err_t *err)
{
	int64_t m = d->n_snp, n = 0;
	int64_t *start = malloc(sizeof *start * (size_t)(m + 2));
	if (!start) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	for (int64_t i = 0; i < m; ++i)
		if (i == 0 || strcmp(d->var[i].chr, d->var[i - 1].chr)) start[n++] = i;
	start[n] = m;
	runs_t r = {start};
	int64_t k0, k1;
	gvk_work_split(n, sp->size, sp->rank, snps_before, &r, &k0, &k1);
	memset(p, 0, sizeof *p);
	p->pr = sp->size, p->pc = 1, p->a = sp->rank;
	p->r0 = p->c0 = start[k0], p->r1 = p->c1 = start[k1];
	free(start);
	return 0;
}

int64_t ld_split_local(const ld_split_part_t *p, int64_t g)
{
	return g >= p->lo[0] && g < p->lo[0] + p->n[0] ? g - p->lo[0] : p->n[0] + g - p->lo[1];
}

int ld_split_shared(const gvk_ld_split_t *sp, const char *path, int gz)
{
	int64_t mode = 0;
	if (sp->rank == 0) {
		struct stat sb;
		mode = !gz && path && strcmp(path, "-") && !(stat(path, &sb) == 0 && !S_ISREG(sb.st_mode));
	}
	sp->bcast(sp->ctx, &mode, sizeof mode);
	return (int)mode;
}

int ld_split_spans(const gvk_ld_split_t *sp, int64_t n, int64_t start, int64_t size, int64_t **cnt, int64_t **at,
                   gvk_err_t *err)
{
	int64_t *all = malloc(sizeof *all * 2 * (size_t)sp->size), *pair = malloc(sizeof *pair * 2 * (size_t)sp->size);
	*cnt = malloc(sizeof **cnt * (size_t)sp->size), *at = malloc(sizeof **at * (size_t)sp->size);
	int64_t ok = all && pair && *cnt && *at;
	sp->reduce(sp->ctx, &ok, 1, GVK_LD_SPLIT_MIN);
	if (ok) {
		for (int r = 0; r < sp->size; ++r) pair[r] = 2 * (int64_t)sizeof *all, all[2 * r] = 0, all[2 * r + 1] = 0;
		all[2 * sp->rank] = n, all[2 * sp->rank + 1] = start;
		int64_t *pat = *at;
		for (int r = 0; r < sp->size; ++r) pat[r] = 2 * r * (int64_t)sizeof *all;
		sp->gather(sp->ctx, all, pair, pat);
		for (int r = 0; r < sp->size; ++r) (*cnt)[r] = all[2 * r] * size, (*at)[r] = all[2 * r + 1] * size;
	}
	free(all), free(pair);
	if (ok) return 0;
	free(*cnt), free(*at);
	*cnt = *at = NULL;
	return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
}
