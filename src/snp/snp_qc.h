/* SPDX-License-Identifier: MIT */
/* PLINK 1.9's --mind (sample missing-call rate, on the .bed before anything is decoded) and --hwe
 * (Hardy-Weinberg exact test on the decoded founders), as gvk ld runs them. */
#ifndef GVK_SNP_QC_H
#define GVK_SNP_QC_H

#include "snp_data.h"
#include "snp_samples.h"
#include "snp_geno.h"

/* --mind: over the .bed rows src[0 .. d->n_snp) (n_rows in the file, for its size check), each
 * kept sample whose missing calls exceed mind of the variants it is counted on (Y only for
 * males) stops being kept; removed[s] (ss->n entries) is set for it. *n_removed: how many. */
int snp_qc_mind(const char *bed, const int64_t *src, int64_t n_rows, const snp_data_t *d, snp_samples_t *ss,
                double mind, uint8_t *removed, int64_t *n_removed, gvk_err_t *err);
/* snp_qc_mind in two steps, so that the counting can be split (an MPI rank counts its rows and
 * the counts are summed): miss[s] (ss->n entries, zeroed here) = the missing calls of sample s
 * over the rows [i0, i1) of src; then the threshold over all of d's variants. */
int snp_qc_mind_count(const char *bed, const int64_t *src, int64_t i0, int64_t i1, const snp_data_t *d,
                      const snp_samples_t *ss, int64_t *miss, gvk_err_t *err);
void snp_qc_mind_apply(const snp_data_t *d, snp_samples_t *ss, double mind, const int64_t *miss, uint8_t *removed,
                       int64_t *n_removed);

/* The Hardy-Weinberg exact test p-value (Wigginton, Cutler and Abecasis 2005) for het
 * heterozygotes and hom1 / hom2 homozygotes; midp: the mid-p variant (half the observed
 * configuration's probability left out). */
double snp_hwe_p(int64_t het, int64_t hom1, int64_t hom2, int midp);

/* snp_hwe_p(het, hom1, hom2, midp) < thr, the same answer, mostly from the counts near the
 * observed one: the tails are summed only until the comparison is settled beyond rounding (PLINK
 * 1.9 tests its threshold the same way); the whole distribution only where it stays in doubt. */
int snp_hwe_fails(int64_t het, int64_t hom1, int64_t hom2, double thr, int midp);

/* --hwe: removes the SNPs of d whose founders fail the test at p (X: non-males only; Y and MT
 * not tested), keeping src (may be NULL) in step. *n_removed: how many. */
int snp_qc_hwe(snp_data_t *d, double p, int midp, int64_t *src, int64_t *n_removed, gvk_err_t *err);

/* The same for d without planes, from each SNP's genotype counts as the first pass over the .bed
 * gave them (snp_read_bed_stats): geno[3 src[i] ..] for SNP i, src kept in step. */
int snp_qc_hwe_counts(snp_data_t *d, const uint32_t *geno, double p, int midp, int64_t *src, int64_t *n_removed,
                      gvk_err_t *err);

#endif
