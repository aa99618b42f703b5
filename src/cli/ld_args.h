/* SPDX-License-Identifier: MIT */
/* gvk ld's command line: PLINK 1.9's option names, values and consistency rules. */
#ifndef GVK_CLI_LD_ARGS_H
#define GVK_CLI_LD_ARGS_H

#include <stdio.h>
#include "../ld/ld_engine.h"
#include "../ld/ld_prune.h"
#include "../ld/ld_clump.h"

typedef struct {
	const char *bfile, *bed, *bim, *fam, *vcf, *out_prefix, *out, *chr, *extract, *exclude;
	const char *keep, *remove, *from, *to, *ld_snp, *ld_snp_list;
	char **snps, **ld_snps;   /* the arguments of --snps / --ld-snps (inside argv) */
	int n_snps, n_ld_snps;
	int stat_set, r2, gz, shape_set, bin, spaces, with_freqs, in_phase, dcol, dprime, yes_really, phased;
	int keep_allele_order, make_founders, nonfounders, allow_extra, double_id, quiet, verbose, win_set, r2_set, out_set;
	double geno;              /* --geno: highest missing-call rate kept; 1 = no filter */
	double maf;               /* --maf: lowest minor allele frequency kept; 0 = no filter */
	double mind;              /* --mind: highest sample missing-call rate kept; 1 = no filter */
	double hwe;               /* --hwe: lowest Hardy-Weinberg exact test p kept; 0 = no filter */
	int hwe_midp;             /* --hwe ... midp */
	double r2_min;            /* --ld-window-r2 */
	ld_opt_t ld;
	int prune_set;            /* --indep-pairwise given */
	ld_prune_opt_t prune;
	int clump_set;            /* --clump given */
	ld_clump_opt_t clump;
	char **clump_files;       /* --clump's arguments (inside argv; each may hold FILE,FILE...) */
	int n_clump_files;
	char **clump_field, **clump_snp_field; /* --clump-field / --clump-snp-field names (inside argv) */
	int n_clump_field, n_clump_snp_field, clump_verbose;
	int argc;
	char **argv;
} ld_args_t;

void ld_usage(FILE *fp);

/* Parses argv into a (messages on stderr); -1 on a bad option or value. -h prints the usage and
 * exits. */
int ld_args_parse(int argc, char **argv, ld_args_t *a);

/* PLINK's rules between modifiers and options, before anything is read; -1 with a message. */
int ld_args_check(ld_args_t *a);
/* 0 when an input is named (--bfile, --bed/--bim/--fam or --vcf); else -1 with "no input" on stderr. */
int ld_args_check_input(const ld_args_t *a);

/* The rule that needs the variant count: a matrix of more than 400,000 needs 'yes-really'. */
int ld_args_check_count(const ld_args_t *a, int64_t m);

/* 1 when unphased D / D' are asked for (d, dprime or dprime-signed without --phased). */
int ld_args_em(const ld_args_t *a);

#endif
