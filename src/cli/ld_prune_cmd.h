/* SPDX-License-Identifier: MIT */
/* gvk ld --indep-pairwise: PLINK 1.9's PREFIX.prune.in / PREFIX.prune.out and the log's counts. */
#ifndef GVK_CLI_LD_PRUNE_CMD_H
#define GVK_CLI_LD_PRUNE_CMD_H

#include "ld_args.h"
#include "ld_log.h"
#include "../common/outset.h"
#include "../ld/ld_prune.h"
#include "../snp/snp_data.h"

/* Parses "W[kb] S R2" (or "W kb S R2") after argv[*i]; -1 with a message on stderr. */
int ld_prune_parse(int argc, char **argv, int *i, ld_args_t *a);

/* Prunes d (its genotypes from src when d holds no planes, else src is NULL), adds both lists to
 * os and the counts to log; *pruned receives how many were removed. mpi_part (under MPI,
 * ld_input_t.mpi_part; NULL otherwise): this rank's chromosomes, d then without planes and src
 * NULL; *writes: 0 on the ranks that write nothing (all but rank 0). */
int ld_prune_write(const ld_args_t *a, const snp_data_t *d, const snp_bed_src_t *src, const void *mpi_part,
                   gvk_outset_t *os, ld_log_t *log, int64_t *pruned, int *writes, gvk_err_t *err);

#endif
