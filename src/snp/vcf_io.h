/* SPDX-License-Identifier: MIT */
/* VCF/BCF input through htslib (optional at build time): GT genotypes or phased haplotypes into
 * snp_data_t (FastID profiles are made from it in fidb_make.c). */
#ifndef GVK_SNP_VCF_IO_H
#define GVK_SNP_VCF_IO_H

#include "snp_data.h"

typedef struct {
	int keep_allele_order; /* A1 = ALT; otherwise A1 = the minor allele (PLINK 1.9 --vcf) */
	int haplotypes;        /* columns are the 2N haplotypes; every heterozygous call must be phased */
	int threads;           /* records parsed and decoded at once (< 1: 1); the result is the same for any number */
} snp_vcf_opt_t;

/* 1 when this build reads VCF/BCF. */
int snp_vcf_available(void);

/* Bi-allelic records only; records without GT, with ploidy above 2, or multi-allelic are errors
 * naming the record. A haploid call counts as homozygous (PLINK 1.9's import); with haplotypes,
 * one is an error. */
int snp_read_vcf(const char *path, const snp_vcf_opt_t *opt, snp_data_t *d, gvk_err_t *err);

/* htslib builds: path opened for reading as VCF or BCF; NULL with err naming the file and what it
 * is not (a file of another format, or one htslib cannot open and why). */
struct htsFile *snp_vcf_hts_open(const char *path, gvk_err_t *err);

#endif
