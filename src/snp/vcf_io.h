/* SPDX-License-Identifier: MIT */
/* VCF/BCF input through htslib (optional at build time): GT genotypes or phased haplotypes into
 * snp_data_t (FastID profiles are made from it in fidb_make.c). */
#ifndef GVK_SNP_VCF_IO_H
#define GVK_SNP_VCF_IO_H

#include "snp_data.h"

typedef struct {
	int keep_allele_order; /* A1 = ALT; otherwise A1 = the minor allele (PLINK 1.9 --vcf) */
	int haplotypes;        /* columns are the 2N haplotypes; every heterozygous call must be phased */
} snp_vcf_opt_t;

/* 1 when this build reads VCF/BCF. */
int snp_vcf_available(void);

/* Bi-allelic records only; records without GT, with ploidy other than 2, or multi-allelic are
 * errors naming the record. */
int snp_read_vcf(const char *path, const snp_vcf_opt_t *opt, snp_data_t *d, gvk_err_t *err);

#endif
