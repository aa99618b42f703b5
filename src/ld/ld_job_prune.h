/* SPDX-License-Identifier: MIT */
/* --indep-pairwise, --indep-pairphase and --indep of a gvk ld job: PLINK 1.9's PREFIX.prune.in /
 * PREFIX.prune.out and the log's counts. */
#ifndef GVK_LD_JOB_PRUNE_H
#define GVK_LD_JOB_PRUNE_H

#include "ld_job.h"
#include "../common/file_hooks.h"
#include "ld_job_log.h"
#include "ld_job_split.h"

/* Prunes d (its genotypes from src when d holds no planes, else src is NULL), writes both lists
 * through files and the counts to log; *pruned receives how many were removed. sp and part (split
 * over processes; NULL otherwise): this process's chromosomes, d then without planes and src
 * NULL; *writes: 0 on the processes that write nothing (all but rank 0). say: the phases. */
int ld_job_prune(const ld_job_args_t *a, const snp_data_t *d, const snp_bed_src_t *src, const gvk_ld_split_t *sp,
                 const void *part, file_hooks_t *files, const gvk_log_t *say, ld_log_t *log, int64_t *pruned,
                 int *writes, gvk_err_t *err);

#endif
