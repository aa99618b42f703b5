/* SPDX-License-Identifier: MIT */
/* The GPU's band for --indep-pairwise and --indep-pairphase (ld_prune_gpu.h): the band's planes go
 * up and its pairs' integer counts come back under the lock; the r^2 of each pair is then formed
 * here with ld_prune_pair.h's formulas or ld_em's estimate, the CPU path's code, so the bits the
 * greedy passes read are the comparisons the CPU would make. */
#include <stdlib.h>
#include <string.h>

#include "ld_prune_gpu.h"
#include "ld_gpu.h"
#include "ld_em.h"
#include "../common/err.h"

/* Counts a worker holds at once, in bytes, and the planes of a band. */
#define PRUNE_GPU_COUNT_BYTES ((int64_t)16 << 20)
#define PRUNE_GPU_PLANE_BYTES ((int64_t)64 << 20)

static int64_t per_pair(int phased) { return phased ? 18 : 7; }

int64_t prune_gpu_rows(int64_t cap, int phased, int nw)
{
	int64_t w = cap > 1 ? cap - 1 : 1, per = (int64_t)SNP_PLANES * nw * 8;
	int64_t by_count = PRUNE_GPU_COUNT_BYTES / (w * per_pair(phased) * 4), by_planes = PRUNE_GPU_PLANE_BYTES / per;
	int64_t n = by_count < by_planes ? by_count : by_planes;
	return n > 1 ? n : 1;
}

void prune_gpu_buf_free(prune_gpu_buf_t *b)
{
	free(b->off), free(b->cnt);
	memset(b, 0, sizeof *b);
}

/* Room for n_rows offsets and n pairs' counts. */
static int reserve(prune_gpu_buf_t *b, int64_t n_rows, int64_t n, int phased, gvk_err_t *err)
{
	if (n_rows + 1 > b->off_cap) {
		free(b->off);
		b->off = malloc(sizeof *b->off * (size_t)(n_rows + 1));
		b->off_cap = b->off ? n_rows + 1 : 0;
	}
	if (n * per_pair(phased) > b->cnt_cap) {
		free(b->cnt);
		b->cnt = malloc(sizeof *b->cnt * (size_t)(n * per_pair(phased)));
		b->cnt_cap = b->cnt ? n * per_pair(phased) : 0;
	}
	return b->off && b->cnt ? 0 : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for a pruning band of %lld pairs", (long long)n);
}

/* The planes of SNPs [a, e) in at most two pieces of the ring. */
static int upload(snp_gpu_t *g, const prune_band_t *bd, int64_t a, int64_t e, gvk_err_t *err)
{
	size_t per = (size_t)SNP_PLANES * (size_t)bd->nw;
	if (!bd->ring_slots) return snp_gpu_prune_planes(g, bd->nw, bd->ring + (size_t)a * per, e - a, NULL, 0, err);
	int64_t s = a % bd->ring_slots, n0 = e - a < bd->ring_slots - s ? e - a : bd->ring_slots - s;
	return snp_gpu_prune_planes(g, bd->nw, bd->ring + (size_t)s * per, n0, bd->ring, e - a - n0, err);
}

/* r^2 of the pair (i, j) from its counts c, as ld_prune_win.c's pair_value takes it (NaN: no estimate). */
static double pair_r2(const prune_band_t *bd, int64_t i, int64_t j, const uint32_t *c)
{
	if (bd->phased) {
		double r2;
		return ld_em_phased_r2(c, bd->xmale != NULL, &r2) ? NAN : r2;
	}
	const prune_snp_t *x = &bd->s[i % bd->n_slot], *y = &bd->s[j % bd->n_slot];
	if (!x->miss && !y->miss) return r2_full(x, y, c[0], c[1], bd->n_bits, 0);
	return r2_called(c[0], c[1], c[2], c[3], c[4], c[5], c[6], 0);
}

int prune_gpu_band(prune_gpu_t *pg, prune_gpu_buf_t *b, const prune_band_t *bd, gvk_err_t *err)
{
	int64_t nr = bd->r1 - bd->r0, per = per_pair(bd->phased);
	if (nr <= 0) return 0;
	int64_t n = 0;
	for (int64_t r = 0; r < nr; ++r) n += bd->kend[r] - (bd->r0 + r) - 1;
	for (int64_t i = bd->r0; i < bd->r1; ++i) memset(bd->bits + (size_t)(i % bd->n_slot) * (size_t)bd->stride, 0, sizeof *bd->bits * (size_t)bd->stride);
	if (!n) return 0;
	int rc = reserve(b, nr, n, bd->phased, err);
	if (rc < 0) return rc;
	b->off[0] = 0;
	for (int64_t r = 0; r < nr; ++r) b->off[r + 1] = b->off[r] + bd->kend[r] - (bd->r0 + r) - 1;
	pthread_mutex_lock(&pg->lock);
	rc = upload(pg->g, bd, bd->r0, bd->kend[nr - 1], err);
	if (rc == 0) rc = snp_gpu_prune_counts(pg->g, bd->nw, b->off, nr, bd->phased, bd->xmale, b->cnt, err);
	pthread_mutex_unlock(&pg->lock);
	if (rc < 0) return rc;
	for (int64_t r = 0; r < nr; ++r) {
		int64_t i = bd->r0 + r;
		uint64_t *row = bd->bits + (size_t)(i % bd->n_slot) * (size_t)bd->stride;
		for (int64_t t = 0, q = b->off[r]; q < b->off[r + 1]; ++t, ++q)
			if (pair_r2(bd, i, i + 1 + t, b->cnt + (size_t)(q * per)) > bd->thr) row[t >> 6] |= (uint64_t)1 << (t & 63);
	}
	return 0;
}
