/* SPDX-License-Identifier: MIT */
/* PLINK 1.9's variant selection for LD: --chr, --from/--to, --snps, --extract and --exclude before
 * genotypes are read; --geno and --maf on the decoded statistics; --ld-snp, --ld-snps and
 * --ld-snp-list for the first variant of each pair. */
#ifndef GVK_SNP_SELECT_H
#define GVK_SNP_SELECT_H

#include "snp_data.h"

/* A --snps / --ld-snps list: names, and ranges "a-b" of variants from a to b in file order. */
typedef struct {
	char **name;
	uint8_t *starts; /* name[k] is the first end of a range whose other end is name[k + 1] */
	int n;
} snp_ranges_t;

/* Parses the comma- and argument-separated items of flag's arguments. */
int snp_ranges_parse(char *const *args, int n_args, const char *flag, snp_ranges_t *r, gvk_err_t *err);
void snp_ranges_free(snp_ranges_t *r);

typedef struct {
	const char *chr, *from, *to, *extract, *exclude;
	const snp_ranges_t *snps; /* NULL when not given */
} snp_varsel_t;

/* keep[i] = 1 for the variants of d->var the options select (keep has d->n_snp entries). */
int snp_select_vars(const snp_data_t *d, const snp_varsel_t *o, uint8_t *keep, gvk_err_t *err);

/* Keeps the variants with keep[i] (no planes allocated yet), and their entries of src. */
void snp_vars_compact(snp_data_t *d, const uint8_t *keep, int64_t *src);

/* --geno (geno < 1) and --maf (maf > 0) on the decoded SNPs, in PLINK's order; *n_geno and *n_maf
 * receive how many each removed. src (may be NULL), one entry per SNP, is kept in step with d. */
int snp_select_qc(snp_data_t *d, double geno, double maf, int64_t *n_geno, int64_t *n_maf, int64_t *src,
                  gvk_err_t *err);

/* Marks idx[i] for the index variants of --ld-snp ID, --ld-snp-list FILE or --ld-snps; returns
 * how many. */
int64_t snp_select_index(const snp_data_t *d, const char *ld_snp, const char *list_file, const snp_ranges_t *ld_snps,
                         uint8_t *idx, gvk_err_t *err);

#endif
