/* SPDX-License-Identifier: MIT */
/* A gvk ld job spread over processes: the hooks gvk's MPI drivers (src/cli/mpi) give the job,
 * called on every process at the same point. The library links no MPI; a job without hooks runs
 * in one process. */
#ifndef GVK_LD_JOB_SPLIT_H
#define GVK_LD_JOB_SPLIT_H

#include "gvk.h"
#include "ld_engine.h"
#include "ld_prune.h"
#include "ld_write.h"
#include "../snp/snp_data.h"
#include "../snp/snp_geno.h"
#include "../snp/snp_samples.h"

/* What a process reads of a PLINK fileset: the .bed rows src[i] of the set's SNPs i. */
typedef struct {
	const char *bed;
	const int64_t *src;
	int64_t n_rows, n_samples;
	const snp_geno_ctx_t *c;
} ld_split_bed_t;

typedef struct {
	double geno, hwe, maf;
	int midp;
} ld_split_qc_t;

/* What a process of read decodes: its tile, the windows on both sides of its rows too (--ld-snp),
 * or its whole chromosomes (pruning). */
enum { LD_SPLIT_TILE, LD_SPLIT_BOTH_SIDES, LD_SPLIT_CHROMS };

typedef struct {
	int rank;
	void *ctx;
	/* --mind: miss[s], sample s's missing calls over all SNPs of d, each process counting its share */
	int (*mind_count)(void *ctx, const char *bed, const int64_t *src, const snp_data_t *d, const snp_samples_t *ss,
	                  int64_t *miss, gvk_err_t *err);
	/* --geno, --hwe, --maf on equal shares: keep[i] everywhere, n[3] removed by each, rates on rank 0 */
	int (*qc)(void *ctx, const ld_split_bed_t *b, const snp_data_t *d, const ld_split_qc_t *q, uint8_t *keep,
	          double *rates, int64_t n[3], gvk_err_t *err);
	/* decodes this process's part of d as mode says; *part is freed by part_free */
	int (*read)(void *ctx, const ld_split_bed_t *b, snp_data_t *d, const ld_opt_t *o, int mode, const char *path,
	            int gz, void **part, double *rates, gvk_err_t *err);
	/* the part's news for the user (the hook decides whether it shows it) */
	void (*say_part)(void *ctx, const void *part, int64_t m);
	void (*part_free)(void *part);
	/* --indep* on every process's chromosomes: pruned, skip and rep for d everywhere */
	int (*prune)(void *ctx, const void *part, const snp_data_t *d, const ld_prune_opt_t *o, uint8_t *pruned,
	             uint8_t *skip, ld_prune_report_t *rep, gvk_err_t *err);
	/* the table or matrix: this process's rows through wr to path (by files), joined on rank 0 */
	int (*table)(void *ctx, const gvk_ld_files_t *files, const char *path, ld_writer_t *wr, const snp_data_t *d,
	             const void *part, ld_opt_t *o, ld_report_t *rep, int *writes, gvk_err_t *err);
} ld_job_split_t;

/* Spreads j over the processes sp describes (the caller's, kept until the job is destroyed);
 * before gvk_ld_job_run. Internal: gvk's MPI drivers link the static library, so libgvk.so
 * exports none of this. */
void ld_job_split(gvk_ld_job_t *j, const ld_job_split_t *sp);

#endif
