/* SPDX-License-Identifier: MIT */
/* A VCF/BCF read as PLINK 1.9's --vcf imports it (needs htslib at build time): every record is a
 * variant whose A1 is its most common ALT allele (the first one on ties, '0' when ALT is '.'), A2
 * its REF; a genotype with any other allele is missing, a haploid call counts as homozygous, a
 * call of three or more alleles is missing, and a half-missing call such as 0/. is an error (PLINK
 * refuses it unless told otherwise). Records without GT have every call missing. */
#ifndef GVK_SNP_VCF_IMPORT_H
#define GVK_SNP_VCF_IMPORT_H

#include "snp_data.h"
#include "snp_samples.h"

typedef struct {
	int double_id;   /* --double-id: each sample ID is both FID and IID */
	int allow_extra; /* --allow-extra-chr: contig names that are not PLINK codes */
} snp_vcf_import_opt_t;

/* Fills ss (samples of the header), d->var (every record) and *rows: d->n_snp rows of
 * *row_bytes = ceil(samples / 4) bytes of .bed codes against var[i].a1 / a2. */
int snp_vcf_import(const char *path, const snp_vcf_import_opt_t *opt, snp_samples_t *ss, snp_data_t *d, uint8_t **rows,
                   int64_t *row_bytes, gvk_err_t *err);

#endif
