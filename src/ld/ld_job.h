/* SPDX-License-Identifier: MIT */
/* gvk_ld_job_*: the gvk ld command in the library. The public options become these internal
 * ones once (ld_job_opts.c); reading (ld_job_load.c), the table (ld_job.c), the lists
 * (ld_job_prune.c), the clumps (ld_job_clump.c) and the log's text (ld_job_log.c) take them. */
#ifndef GVK_LD_JOB_H
#define GVK_LD_JOB_H

#include "gvk.h"
#include "ld_engine.h"
#include "ld_prune.h"
#include "ld_clump.h"
#include "../common/err.h"

/* The options as the internal engines take them. */
typedef struct {
	const char *bfile, *bed, *bim, *fam, *vcf, *out_prefix, *out, *chr, *extract, *exclude;
	const char *keep, *remove, *from, *to, *ld_snp, *ld_snp_list;
	char **snps, **ld_snps;
	int n_snps, n_ld_snps;
	int stat_set, r2, gz, shape_set, bin, spaces, with_freqs, in_phase, dcol, dprime, yes_really, phased;
	int keep_allele_order, make_founders, nonfounders, allow_extra, double_id, verbose, win_set, r2_set, out_set;
	double geno, maf, mind, hwe;
	int hwe_midp;
	double r2_min;            /* --ld-window-r2 */
	ld_opt_t ld;
	int prune_set;
	ld_prune_opt_t prune;
	int clump_set;
	ld_clump_opt_t clump;
	char **clump_files;
	int n_clump_files;
	char **clump_field, **clump_snp_field;
	int n_clump_field, n_clump_snp_field, clump_verbose;
	int argc;
	char **argv;
} ld_job_args_t;

/* The internal options of o (normalised as PLINK does: bin alone means square). */
void ld_job_args_from(const gvk_ld_job_opts_t *o, ld_job_args_t *a);

/* 1 when unphased D / D' are asked for (d, dprime or dprime-signed without --phased). */
int ld_job_args_em(const ld_job_args_t *a);

/* With verbose, "WHAT N s" (the time since *t) at GVK_LOG_INFO; *t becomes now. */
void ld_job_phase(const gvk_log_t *log, int verbose, const char *what, double *t);

#endif
