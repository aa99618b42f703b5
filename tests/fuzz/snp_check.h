/* SPDX-License-Identifier: MIT */
/* Checks shared by the SNP targets: what every accepted dataset must satisfy, and gvk fastid
 * --make-fidb on an input, whose .fidb must read back as it was made. */
#ifndef GVK_FUZZ_SNP_CHECK_H
#define GVK_FUZZ_SNP_CHECK_H

#include "snp/snp_data.h"

/* Every variant complete (chromosome, ID and two alleles non-empty, position >= 0); genotype
 * planes nested (two copies imply one, one implies a call; haplotypes leave B empty); no bit past
 * the last column; the full flag as V says. */
void fz_check_snp_data(const snp_data_t *d);

/* The per-SNP statistics of the genotype decoder: frequencies and rates in [0, 1], and the male
 * masks inside the columns. */
void fz_check_snp_stats(const snp_data_t *d);

/* fid_make(in, minor) as gvk fastid --make-fidb runs it; errors must name one of the n names. A
 * success is written as gvk writes it, read back whole, and must come back unchanged. */
void fz_check_make_fidb(const char *in, int minor, const char *const *names, int n);

#endif
