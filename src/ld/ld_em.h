/* SPDX-License-Identifier: MIT */
/* Unphased D and D' as PLINK 1.9's --r/--r2 d / dprime / dprime-signed computes them: the 3 x 3
 * two-locus genotype table of the founders called at both variants, haplotype frequencies by
 * maximum likelihood (the real roots of a cubic for the double heterozygotes' share, after Gaunt,
 * Rodriguez and Day 2007), and r or r^2 from those frequencies. Males on X count one haplotype. */
#ifndef GVK_SNP_LD_EM_H
#define GVK_SNP_LD_EM_H

#include <stdint.h>
#include "../snp/snp_data.h"
#include "../snp/popgemm.h"

/* How PLINK 1.9 (v1.90b6.26) loads and labels the two variants of a pair in this mode; its
 * shortcuts are kept so that the output is the same, including on data with X and males:
 * - the first variant gets its own chromosome's haploid rules, but a second variant before the end
 *   of the last first variant's chromosome gets that chromosome's rules (its loader reuses the
 *   state of the first variants' loader);
 * - a pair gets the male X tables only when its variants fall in X ranges computed from
 *   block-relative positions (exact when X is the first chromosome);
 * - those tables take as males the columns whose index is a male's index in the input.
 * d's planes must be raw (snp_geno_ctx_t.raw): every call diploid. One block of each loader is
 * assumed, which PLINK uses unless its memory is short of about 600 bytes a variant (more with
 * inter-chr). */
typedef struct {
	int last_cls;          /* SNP_CHR_* of the last first variant */
	int64_t stale_end;     /* second variants before this one load with last_cls */
	int64_t x1_lo, x1_hi;  /* first variants with rank among the first variants in [x1_lo, x1_hi) */
	int64_t x2_lo, x2_hi;  /* second variants with index in [x2_lo, x2_hi) */
	int64_t *rank;         /* rank of each first variant among them (NULL: the index itself) */
	/* per SNP, bit 0: as a first variant, bit 1: as a second variant, its calls are the planes'
	 * (no haploid rule) and it needs no male table; a pair with both is plain: its table comes
	 * from pg_ldtab_t (ld_em_table) */
	uint8_t *plain;
} ld_em_plan_t;

/* first[i]: SNP i is a first variant (NULL: all); back0 the first column of the first one's
 * window and end the end of the last one's (as ld_engine.c forms them). */
int ld_em_plan(const snp_data_t *d, const uint8_t *first, int64_t back0, int64_t end, ld_em_plan_t *p);
void ld_em_plan_free(ld_em_plan_t *p);

/* c[3 a + b]: founders with genotype class a at SNP i and b at SNP j (0 = two A1, 1 = het, 2 = two
 * A2); c[9 ..] the same with i's calls limited to the plan's males, filled when the pair gets the X
 * tables (*xi, *xj receive whether it does). */
void ld_em_counts(const snp_data_t *d, const ld_em_plan_t *p, int64_t i, int64_t j, int *xi, int *xj, uint32_t c[18]);

/* Whether the pair (i, j) is plain (ld_em_plan_t.plain). */
static inline int ld_em_plain(const ld_em_plan_t *p, int64_t i, int64_t j) { return (p->plain[i] & 1) && (p->plain[j] & 2); }

/* The table of a plain pair from its plane intersections (c[9 ..] zero). */
void ld_em_table(const pg_ldtab_t *t, uint32_t c[18]);

/* r (signed r^2 when r2), D, and signed D' from the table; r = D = D' = 0 when |D| < 2^-44, and
 * all NaN when a variant is constant among the pair's calls. With drop > 0, a pair whose |r|
 * (|r^2| when r2) is bound to come out below drop may be left all NaN without its estimate. */
void ld_em_stats(const uint32_t c[18], int xi, int xj, int r2, double drop, double *r, double *dd, double *dprime);

/* Off X: the known haplotype counts k[0 .. 3] of a table (haplotypes 11, 12, 21, 22, from its
 * homozygous cells), which with its double heterozygotes c[4] decide ld_em_below_many. */
void ld_em_knowns_plain(const uint32_t c[9], uint32_t k[4]);

/* For n tables off X given as their known counts k[0 .. 3][q] and double heterozygotes ctr[q]:
 * skip[q] = 1 when ld_em_stats(r2 = 1, drop) of table q gives NaN without its estimate (no
 * estimate, or |r^2| bound to be below drop), else 0. The same arithmetic, over arrays, so that
 * many tables are decided at once. */
void ld_em_below_many(const uint32_t *const k[4], const uint32_t *ctr, int64_t n, double drop, uint8_t *skip);

/* PLINK 1.9's --indep-pairphase r^2 from the table (x: both variants on X, c[9 ..] filled as for
 * ld_em_counts): 0 and *r2, or 1 when the table gives no estimate. Unlike ld_em_stats, a tiny D is
 * not taken as 0. */
int ld_em_phased_r2(const uint32_t c[18], int x, double *r2);

#endif
