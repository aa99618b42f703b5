/* SPDX-License-Identifier: MIT */
/* The pruning windows' kernels of one CPU instruction set: one file per set (ld_prune_kern_*.c),
 * the portable and POPCNT ones the same body compiled for each (ld_prune_kern_body.h), AVX-512
 * with VPOPCNTDQ with pair kernels of its own; ld_prune_kern_dispatch.c picks one at run time. */
#ifndef GVK_LD_PRUNE_KERN_H
#define GVK_LD_PRUNE_KERN_H

#include <stdint.h>

#include "ld_prune_pair.h"

/* r^2 of two SNPs, or r when sign is set. */
typedef double (*pair_fn)(const prune_snp_t *, const prune_snp_t *, int, int64_t, int sign);
/* r^2 of SNP x with each of ys[0 .. n) into r2[]. */
typedef void (*batch_fn)(const prune_snp_t *, const prune_snp_t *const *, int, int, int64_t, double *);
/* --indep-pairphase's two-locus table of two SNPs (X's male columns, or NULL). */
typedef void (*table_fn)(const prune_snp_t *, const prune_snp_t *, int, const uint64_t *, uint32_t *);

typedef struct {
	pair_fn r2;
	batch_fn r2s;   /* --indep-pairwise */
	table_fn table; /* --indep-pairphase */
	/* A SNP's z and neg planes (prune_snp_t) from its decoded planes a, b and v, with the counts of
	 * b, neg and v. */
	void (*sums)(const uint64_t *a, const uint64_t *b, const uint64_t *v, int nw, uint64_t *z, uint64_t *neg, int64_t cnt[3]);
	/* The same straight from a .bed row's low and high code bits (prepare_direct, ld_prune_win.c):
	 * v, z and neg, and the counts of the two homozygotes and the calls. */
	void (*direct)(const uint64_t *l, const uint64_t *h, int nw, int64_t n, uint64_t *v, uint64_t *z, uint64_t *neg,
	               int64_t cnt[3]);
	/* --indep-pairphase: a SNP's founders in each genotype class (two copies of A1, one, none; X's
	 * males by xmale, or NULL). */
	void (*classes)(const prune_snp_t *x, int nw, const uint64_t *xmale, int64_t n[3]);
} prune_kern_t;

extern const prune_kern_t prune_kern_portable;
#ifdef GVK_HAVE_AVX512
extern const prune_kern_t prune_kern_popcnt, prune_kern_avx512;
#endif

/* The set for a gvk_isa_t request (ld_prune_kern_dispatch.c): AUTO, the best this CPU runs. */
const prune_kern_t *prune_kern_pick(int isa);

#endif
