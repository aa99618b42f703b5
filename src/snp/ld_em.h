/* Unphased D and D' as PLINK 1.9's --r/--r2 d / dprime / dprime-signed computes them: the 3 x 3
 * two-locus genotype table of the founders called at both variants, haplotype frequencies by
 * maximum likelihood (the real roots of a cubic for the double heterozygotes' share, after Gaunt,
 * Rodriguez and Day 2007), and r or r^2 from those frequencies. Males on X count one haplotype. */
#ifndef GVK_SNP_LD_EM_H
#define GVK_SNP_LD_EM_H

#include <stdint.h>
#include "snp_data.h"

/* c[3 a + b]: founders with genotype class a at SNP i and b at SNP j (0 = two A1, 1 = het, 2 = two
 * A2); c[9 ..] the same over males only, filled when xi or xj (the SNP is on X). */
void ld_em_counts(const snp_data_t *d, int64_t i, int64_t j, int xi, int xj, uint32_t c[18]);

/* r (signed r^2 when r2), D, and signed D' from the table; r = D = D' = 0 when |D| < 2^-44, and
 * all NaN when a variant is constant among the pair's calls. */
void ld_em_stats(const uint32_t c[18], int xi, int xj, int r2, double *r, double *dd, double *dprime);

#endif
