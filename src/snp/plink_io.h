/* PLINK 1 binary filesets (.bed/.bim/.fam), validated as spec section 1 says, read into the bit
 * planes of snp_data_t. */
#ifndef GVK_SNP_PLINK_IO_H
#define GVK_SNP_PLINK_IO_H

#include "snp_data.h"

typedef struct {
	int keep_allele_order; /* keep the .bim A1; otherwise A1 becomes the founders' minor allele
	                          (strictly rarer A2 swaps), as PLINK 1.9 does on loading */
	int all_samples;       /* use non-founders too (PLINK --make-founders / --nonfounders) */
} snp_plink_opt_t;

/* Reads bed/bim/fam into d (which must be zeroed). Only founders become plane columns unless
 * all_samples. Errors name the file and line (or SNP record for the .bed). */
int snp_read_plink(const char *bed, const char *bim, const char *fam, const snp_plink_opt_t *opt, snp_data_t *d,
                   gvk_err_t *err);

/* Same with prefix.bed, prefix.bim, prefix.fam. */
int snp_read_bfile(const char *prefix, const snp_plink_opt_t *opt, snp_data_t *d, gvk_err_t *err);

#endif
