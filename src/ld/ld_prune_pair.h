/* SPDX-License-Identifier: MIT */
/* What the pruning windows (ld_prune_win.c) know of a SNP, and PLINK's genotype r^2 from a pair's
 * integer counts: shared by the CPU's kernels (ld_prune_kern_*.c) and the GPU's band
 * (ld_prune_gpu.c), so that the two form the same double from the same integers. */
#ifndef GVK_LD_PRUNE_PAIR_H
#define GVK_LD_PRUNE_PAIR_H

#include <math.h>
#include <stdint.h>

/* Per SNP: its +1 bits (two copies of A1), its A and called planes (-1 = called & ~A), and
 * PLINK's sums. */
typedef struct {
	const uint64_t *pos, *a, *v;
	const uint64_t *z, *neg; /* the calls that are not 0 once centred, and those that are -1 */
	int64_t miss, sum, ssq;
	double f;         /* A2 frequency, which the passes compare by MAF */
	double var_recip; /* 1 / (n ssq - sum^2) when nothing is missing */
	int ok;           /* variance over the called samples is not zero */
	int64_t cls[3];   /* --indep-pairphase: founders with each genotype class (ld_prune_kern_body.h, classes()) */
} prune_snp_t;

/* The value from the counts of the pair without a missing call at either SNP. */
static inline __attribute__((always_inline)) double r2_full(const prune_snp_t *x, const prune_snp_t *y, int64_t nz,
                                                           int64_t diff, int64_t n_bits, int sign)
{
	double cov = (double)((nz - 2 * diff) * n_bits) - (double)x->sum * (double)y->sum;
	return sign ? cov * sqrt(x->var_recip * y->var_recip) : cov * cov * (x->var_recip * y->var_recip);
}

/* The value from the counts over the samples called at both. */
static inline __attribute__((always_inline)) double r2_called(int64_t nz, int64_t diff, int64_t nm, int64_t sxx,
                                                             int64_t nx, int64_t syy, int64_t ny, int sign)
{
	double n = (double)nm, dx = (double)(sxx - 2 * nx), dy = (double)(syy - 2 * ny);
	double cov = (double)(nz - 2 * diff) * n - dx * dy;
	double rec = 1.0 / (((double)sxx * n - dx * dx) * ((double)syy * n - dy * dy));
	return sign ? cov * sqrt(rec) : cov * cov * rec;
}

#endif
