/* SPDX-License-Identifier: MIT */
/* gvk ld --clump: PLINK 1.9's --clump options, PREFIX.clumped and the log's lines. */
#ifndef GVK_CLI_LD_CLUMP_CMD_H
#define GVK_CLI_LD_CLUMP_CMD_H

#include "ld_args.h"
#include "ld_log.h"
#include "../common/outset.h"
#include "../snp/snp_data.h"

/* Parses the --clump* option at argv[*i] and its values; -1 with a message on stderr. */
int ld_clump_parse(int argc, char **argv, int *i, ld_args_t *a);

/* The rules between the --clump options once all are read; -1 with a message on stderr. */
int ld_clump_check(const ld_args_t *a);

/* Clumps d (from its planes, or when src is given, d having none, from the .bed rows the windows
 * need), adds PREFIX.clumped (when there is an index variant) to os and the lines to log;
 * *n_clumps receives the clump count. */
int ld_clump_cmd_write(const ld_args_t *a, const snp_data_t *d, const snp_bed_src_t *src, gvk_outset_t *os,
                       ld_log_t *log, int64_t *n_clumps, gvk_err_t *err);

#endif
