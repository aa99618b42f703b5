/* SPDX-License-Identifier: MIT */
/* gvk ld's input in PLINK 1.9's order: samples (--keep, --remove, founders), variants (--chr,
 * --from/--to, --snps, --extract, --exclude), genotypes, then --geno and --maf, then the index
 * variants of --ld-snp / --ld-snps / --ld-snp-list. */
#ifndef GVK_LD_JOB_LOAD_H
#define GVK_LD_JOB_LOAD_H

#include "ld_job.h"
#include "ld_job_log.h"
#include "ld_job_split.h"
#include "../snp/plink_io.h"
#include "../snp/snp_data.h"

/* What ld_load gives besides the data. */
typedef struct {
	uint8_t *idx1;       /* per SNP of d when an index option is given, else NULL */
	int64_t *row;        /* per SNP of d: its variant index in the input (ld_opt_t.row) */
	snp_bim_order_t ord; /* the input's order (for a VCF, its records as PLINK imports them) */
	char *irem;          /* --mind: the removed samples, "FID<tab>IID" lines (PLINK's .irem); NULL without */
	int64_t n_mind_removed;
	int skip;            /* fewer than two founders: PLINK skips --r/--r2 with a warning */
	void *mpi_part;      /* split over processes (ld_split_read): the SNPs this rank decoded; d then has
	                        every variant but no planes. NULL: d holds everything */
	/* Pruning and clumping from a .bed: d keeps only per-SNP statistics, and --hwe, the pruner
	 * and the clumper decode the rows (row[]) themselves with geno; streamed is 0 otherwise. With
	 * stats_later no filter needed a first pass, and a SNP's statistics are set as its row is
	 * decoded. */
	int streamed, stats_later;
	uint32_t *hwe_counts; /* streamed with --hwe: each SNP's genotype counts from the first pass, at
	                         3 times its .bed row (snp_qc_hwe_counts) */
	char *bed;
	int64_t n_rows, n_samples;
	snp_geno_ctx_t geno;
} ld_input_t;

/* Fills d (zeroed) and in; counts go to log. Refuses a split chromosome, and for windowed tables
 * a chromosome out of position (or, with --ld-window-cm, cM) order, naming the .bim line. */
int ld_load(const ld_job_args_t *a, const gvk_ld_split_t *sp, snp_data_t *d, ld_input_t *in,
            ld_log_t *log, gvk_err_t *err);
/* sp: the run's hooks, which free the part (NULL in one process). */
void ld_input_free(ld_input_t *in, const gvk_ld_split_t *sp);

#endif
