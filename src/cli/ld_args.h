/* SPDX-License-Identifier: MIT */
/* gvk ld's command line: PLINK 1.9's option names and values into the public job options. */
#ifndef GVK_CLI_LD_ARGS_H
#define GVK_CLI_LD_ARGS_H

#include <stdio.h>
#include "gvk.h"

typedef struct {
	gvk_ld_job_opts_t o;
	int quiet;          /* -q: no progress, no warnings, no summary line */
} ld_args_t;

void ld_usage(FILE *fp);

/* Parses argv into a (messages on stderr); -1 on a bad option or value. -h prints the usage and
 * exits. a->o points into argv. */
int ld_args_parse(int argc, char **argv, ld_args_t *a);
/* 0 when an input is named (--bfile, --bed/--bim/--fam or --vcf); else -1 with "no input" on stderr. */
int ld_args_check_input(const ld_args_t *a);

/* --indep-pairwise, --indep-pairphase, --indep "W[kb] S R2" at argv[*i]; -1 with a message on stderr. */
int ld_prune_parse(int argc, char **argv, int *i, ld_args_t *a);
/* The --clump* option at argv[*i] and its values; -1 with a message on stderr. */
int ld_clump_parse(int argc, char **argv, int *i, ld_args_t *a);
/* --clump-* options without --clump are refused; -1 with a message on stderr. */
int ld_clump_check(const ld_args_t *a);

#endif
