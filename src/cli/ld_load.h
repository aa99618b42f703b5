/* SPDX-License-Identifier: MIT */
/* gvk ld's input in PLINK 1.9's order: samples (--keep, --remove, founders), variants (--chr,
 * --from/--to, --snps, --extract, --exclude), genotypes, then --geno and --maf, then the index
 * variants of --ld-snp / --ld-snps / --ld-snp-list. */
#ifndef GVK_CLI_LD_LOAD_H
#define GVK_CLI_LD_LOAD_H

#include "ld_args.h"
#include "ld_log.h"
#include "../snp/snp_data.h"

/* Fills d (zeroed) and, when an index option is given, *idx1 (per SNP of d); counts go to log. */
int ld_load(const ld_args_t *a, snp_data_t *d, uint8_t **idx1, ld_log_t *log, gvk_err_t *err);

#endif
