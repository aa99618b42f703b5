/* SPDX-License-Identifier: MIT */
/* Which part of an LD table or matrix each MPI rank computes (docs/mpi.md): contiguous row blocks of
 * equal pairs for tables and small jobs, else a grid of tiles of equal pairs; both the reader of a
 * rank's SNPs (mpi_ld_read.c) and the writer of its tile (mpi_ld.c) start from this plan. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "mpi_drivers.h"
#include "../../common/err.h"

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

/* The grid: GVK_MPI_TILES=RxC when given (R * C must be the ranks), else rows only up to 3
 * ranks (a row-major output then takes one write per rank) and the squarest grid above. */
static int choose_grid(gvk_mpi_ld_part_t *p, int P, int matrix, gvk_err_t *err)
{
	p->pr = P, p->pc = 1;
	const char *v = getenv("GVK_MPI_TILES");
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

int gvk_mpi_ld_plan(const gvk_mpi_world_t *w, int shape, int64_t m, int shared, gvk_mpi_ld_part_t *p, gvk_err_t *err)
{
	int rc = choose_grid(p, w->size, shared && shape != LD_TABLE, err);
	if (rc < 0) return rc;
	int tri = shape == LD_TRIANGLE || shape == LD_SQUARE0;
	p->a = w->rank / p->pc, p->b = w->rank % p->pc;
	gvk_mpi_split(m, p->pr, p->a, tri ? triangle : NULL, NULL, &p->r0, &p->r1);
	colwork_t k = {p->r0, p->r1, m, tri};
	p->c0 = 0, p->c1 = m;
	if (p->pc > 1) gvk_mpi_split(m, p->pc, p->b, col_work, &k, &p->c0, &p->c1);
	return 0;
}
