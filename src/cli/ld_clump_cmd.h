/* SPDX-License-Identifier: MIT */
/* gvk ld --clump: PLINK 1.9's options, PREFIX.clumped and the log's lines. */
#ifndef GVK_CLI_LD_CLUMP_CMD_H
#define GVK_CLI_LD_CLUMP_CMD_H

#include "ld_args.h"
#include "ld_log.h"
#include "../common/outset.h"
#include "../snp/snp_data.h"

/* Sets PLINK's defaults. */
void ld_clump_args_init(ld_clump_args_t *c);

/* Parses argv[*i] when it is a --clump option (1), else returns 0; -1 with a message on stderr. */
int ld_clump_parse(int argc, char **argv, int *i, ld_args_t *a);

/* Clumps d by the reports, adds PREFIX.clumped to os (none when nothing is significant, as PLINK)
 * and the warnings to log and stderr; *n_clumps receives the count. */
int ld_clump_write(const ld_args_t *a, const snp_data_t *d, gvk_outset_t *os, ld_log_t *log, int64_t *n_clumps,
                   gvk_err_t *err);

#endif
