/* SPDX-License-Identifier: MIT */
/* A gvk ld job spread over processes (gvk_ld_job_set_split): what each process computes of the
 * reading, filtering, pruning and writing steps, with the caller's hooks (gvk_ld_split_t) moving
 * the bytes between them. Called on every process at the same point. */
#ifndef GVK_LD_JOB_SPLIT_H
#define GVK_LD_JOB_SPLIT_H

#include "gvk.h"
#include "../common/file_hooks.h"
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

/* What a process of ld_split_read decodes: its tile, the windows on both sides of its rows too
 * (--ld-snp), or its whole chromosomes (pruning). */
enum { LD_SPLIT_TILE, LD_SPLIT_BOTH_SIDES, LD_SPLIT_CHROMS };

/* A process's tile (rows [r0, r1) x columns [c0, c1) of the set; (a, b) its place in the pr x pc
 * grid) and the SNPs it computes on: the runs [lo[k], lo[k] + n[k]) of the set, decoded into d in
 * that order. */
typedef struct {
	int64_t r0, r1, c0, c1;
	int a, b, pr, pc;
	int64_t lo[2], n[2];
	snp_data_t d;
} ld_split_part_t;

/* The tile of process rank for a matrix or table of m SNPs; shared: the output is written by name
 * (2-D tiles allowed), else through process 0 (row blocks). */
int ld_split_plan(const gvk_ld_split_t *sp, int rank, int shape, int64_t m, int shared, ld_split_part_t *p,
                  gvk_err_t *err);
/* --indep-pairwise: this process's contiguous run of whole chromosomes, about equal variants. */
int ld_split_prune_plan(const gvk_ld_split_t *sp, const snp_data_t *d, ld_split_part_t *p, gvk_err_t *err);
/* SNP g of the set (in one of the part's runs) as an index of part->d. */
int64_t ld_split_local(const ld_split_part_t *p, int64_t g);
/* Every process's span of n items from start (its own given), in bytes of size each, for gather. */
int ld_split_spans(const gvk_ld_split_t *sp, int64_t n, int64_t start, int64_t size, int64_t **cnt, int64_t **at,
                   gvk_err_t *err);
/* 1 when the output goes by name (path a regular file or new, no gzip), decided on process 0. */
int ld_split_shared(const gvk_ld_split_t *sp, const char *path, int gz);

/* --mind: miss[s], sample s's missing calls over all SNPs of d, each process counting its share. */
int ld_split_mind(const gvk_ld_split_t *sp, const char *bed, const int64_t *src, const snp_data_t *d,
                  const snp_samples_t *ss, int64_t *miss, gvk_err_t *err);
/* --geno, --hwe, --maf on equal shares: keep[i] everywhere, n[3] removed by each filter, every
 * SNP's genotyping rate in rates (d->n_snp entries); one process's message when a filter removes
 * every SNP. */
int ld_split_qc(const gvk_ld_split_t *sp, const ld_split_bed_t *b, const snp_data_t *d, const ld_split_qc_t *q,
                uint8_t *keep, double *rates, int64_t n[3], gvk_err_t *err);
/* Decodes this process's part of d as mode says (path and gz: the output, which decides the
 * tiles). d keeps every variant, with the part's alleles, frequencies and rates merged in and no
 * planes. rates (may be NULL): every SNP's genotyping rate on process 0. */
int ld_split_read(const gvk_ld_split_t *sp, const ld_split_bed_t *b, snp_data_t *d, const ld_opt_t *o, int mode,
                  const char *path, int gz, ld_split_part_t **part, double *rates, gvk_err_t *err);
/* The part's line for the user (sp->note): what it decodes of the m SNPs and its rows. */
void ld_split_say(const gvk_ld_split_t *sp, const ld_split_part_t *p, int64_t m);
void ld_split_part_free(ld_split_part_t *p);
/* --indep-pairwise on every process's chromosomes: pruned, skip and rep for d everywhere, as
 * ld_prune_pairwise gives them in one process. */
int ld_split_prune(const gvk_ld_split_t *sp, const ld_split_part_t *p, const snp_data_t *d, const ld_prune_opt_t *o,
                   uint8_t *pruned, uint8_t *skip, ld_prune_report_t *rep, gvk_err_t *err);
/* The table or matrix: this process's rows (part: the SNPs it decoded; NULL: d holds all) through
 * wr (its fields set, fp not yet) to path (made by files), joined on process 0. Pairs and values
 * are summed into rep and wr everywhere; *writes: 1 on the process that writes the log. */
int ld_split_table(const gvk_ld_split_t *sp, file_hooks_t *files, const char *path, ld_writer_t *wr,
                   const snp_data_t *d, const ld_split_part_t *part, ld_opt_t *o, ld_report_t *rep, int *writes,
                   gvk_err_t *err);
/* Every process's part (plain text) to out on process 0 in rank order, gzip'ed as one stream with
 * gz; 0 on every process, or the agreed negative code. */
int ld_split_funnel(const gvk_ld_split_t *sp, FILE *part, FILE *out, int gz, gvk_err_t *err);

#endif
