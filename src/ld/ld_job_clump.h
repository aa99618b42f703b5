/* SPDX-License-Identifier: MIT */
/* --clump of a gvk ld job: PLINK 1.9's PREFIX.clumped and the log's lines. */
#ifndef GVK_LD_JOB_CLUMP_H
#define GVK_LD_JOB_CLUMP_H

#include "ld_job.h"
#include "../common/file_hooks.h"
#include "ld_job_log.h"
#include "../snp/snp_data.h"

/* Clumps d (from its planes, or when src is given, d having none, from the .bed rows the windows
 * need), writes PREFIX.clumped (when there is an index variant) through out and the lines to
 * log; warnings go to say; *n_clumps receives the clump count. */
int ld_job_clump(const ld_job_args_t *a, const snp_data_t *d, const snp_bed_src_t *src, file_hooks_t *out,
                 const gvk_log_t *say, ld_log_t *log, int64_t *n_clumps, gvk_err_t *err);

#endif
