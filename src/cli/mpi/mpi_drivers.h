/* SPDX-License-Identifier: MIT */
/* The commands' MPI drivers (built with GVK_MPI). Each is called on every rank at the same point
 * of its command and is a no-op, or the one-process path, in a world of one. */
#ifndef GVK_MPI_DRIVERS_H
#define GVK_MPI_DRIVERS_H

#include <stdint.h>
#include "mpi_world.h"
#include "../../common/outset.h"
#include "../../ld/ld_engine.h"
#include "../../ld/ld_prune.h"
#include "../../ld/ld_write.h"
#include "../../ld/ld_job_split.h"
#include "../../snp/snp_data.h"
#include "../../snp/snp_geno.h"
#include "../../snp/snp_samples.h"

/* pairhmm and align: the input cut at record (group) boundaries into one byte range per rank,
 * each range run by the unchanged command in a child process, the outputs joined in input
 * order. */
int gvk_mpi_records(const gvk_mpi_world_t *w, const char *name, int argc, char **argv);

/* 1 in a job of several ranks. */
int gvk_mpi_several(void);

/* ld: what a rank reads of a PLINK fileset: the .bed rows src[i] of the set's SNPs i. */
typedef struct {
	const char *bed;
	const int64_t *src;
	int64_t n_rows, n_samples;
	const snp_geno_ctx_t *c;
} gvk_mpi_bed_t;

/* ld: a rank's tile (rows [r0, r1) x columns [c0, c1) of the set; (a, b) its place in the grid)
 * and the SNPs it computes on: the runs [lo[k], lo[k] + n[k]) of the set, decoded into d in that
 * order. */
typedef struct {
	int64_t r0, r1, c0, c1;
	int a, b, pr, pc;
	int64_t lo[2], n[2];
	snp_data_t d;
} gvk_mpi_ld_part_t;

/* The tile of this rank (w) for a matrix or table of m SNPs; shared: the output goes by MPI-IO
 * (2-D tiles allowed), else through rank 0 (row blocks). */
int gvk_mpi_ld_plan(const gvk_mpi_world_t *w, int shape, int64_t m, int shared, gvk_mpi_ld_part_t *p, gvk_err_t *err);
/* --mind: miss[s] = sample s's missing calls over all SNPs of d, each rank counting its share. */
int gvk_mpi_ld_mind_count(const char *bed, const int64_t *src, const snp_data_t *d, const snp_samples_t *ss,
                          int64_t *miss, gvk_err_t *err);
typedef struct {
	double geno, hwe, maf;
	int midp;
} gvk_mpi_ld_qc_t;
/* --geno, --hwe, --maf with each rank testing an equal share of d's SNPs: keep[i] (every rank),
 * the SNPs each filter removed n[3], and on rank 0 every SNP's genotyping rate (rates, d->n_snp
 * entries); the one-process message when a filter removes every SNP. */
int gvk_mpi_ld_qc(const gvk_mpi_bed_t *b, const snp_data_t *d, const gvk_mpi_ld_qc_t *q, uint8_t *keep, double *rates,
                  int64_t n[3], gvk_err_t *err);
/* What a rank of gvk_mpi_ld_read reads: its tile (rows, their windows after them, columns), the
 * windows on both sides of its rows too (--ld-snp), or its whole chromosomes (pruning). */
enum { GVK_MPI_LD_TILE, GVK_MPI_LD_BOTH_SIDES, GVK_MPI_LD_CHROMS };
/* Decodes this rank's part of d (variants only) for the run o, as mode says; path and gz as
 * gvk_mpi_ld gets them. d keeps every variant, with the part's alleles, frequencies and rates
 * merged in and no planes. rates (may be NULL): rank 0 receives every SNP's genotyping rate. */
int gvk_mpi_ld_read(const gvk_mpi_bed_t *b, snp_data_t *d, const ld_opt_t *o, int mode, const char *path, int gz,
                    gvk_mpi_ld_part_t **part, double *rates, gvk_err_t *err);
/* --indep-pairwise: this rank's contiguous run of whole chromosomes, about equal variants. */
int gvk_mpi_ld_prune_plan(const gvk_mpi_world_t *w, const snp_data_t *d, gvk_mpi_ld_part_t *p, gvk_err_t *err);
/* --indep-pairwise on every rank's chromosomes (part, from gvk_mpi_ld_read): pruned and skip
 * (d->n_snp entries) and rep as ld_prune_pairwise gives them for d, on every rank. */
int gvk_mpi_ld_prune(const gvk_mpi_ld_part_t *p, const snp_data_t *d, const ld_prune_opt_t *o, uint8_t *pruned,
                     uint8_t *skip, ld_prune_report_t *rep, gvk_err_t *err);
void gvk_mpi_ld_part_free(gvk_mpi_ld_part_t *p);
/* One line on stderr: what this rank decodes of the m SNPs and the rows it computes. */
void gvk_mpi_ld_say_part(const gvk_mpi_ld_part_t *p, int64_t m);
/* SNP g of the set (in one of the part's runs) as an index of part->d. */
int64_t gvk_mpi_ld_local(const gvk_mpi_ld_part_t *p, int64_t g);

/* ld: this rank's rows (contiguous, balanced by pairs), written through wr (its fields set, fp
 * not yet) into a part of its own; the parts go to path (made by files) on rank 0 in order.
 * Pairs and values written are summed into rep and wr on every rank. *writes: 1 on the rank that
 * writes the log and commits. part: the SNPs this rank decoded (gvk_mpi_ld_read), the engine
 * running on them; NULL: d holds every SNP. */
int gvk_mpi_ld(const gvk_ld_files_t *files, const char *path, ld_writer_t *wr, const snp_data_t *d, const gvk_mpi_ld_part_t *part,
               ld_opt_t *ldopt, ld_report_t *rep, int *writes, gvk_err_t *err);

/* fastid: narrows the database (just opened) to this rank's slice of its profiles; in a job of
 * several ranks a database that is not a regular file is refused. 0 or a negative code. */
int gvk_mpi_fastid_slice(gvk_fastid_db_t *db, gvk_err_t *err);
/* fastid, after e's search of the slice, with its status rc and result res: agrees on the status,
 * folds every rank's top-k lists and hits into rank 0's res (gvk_fastid_result_merge) in rank
 * order and sums the pairs. Returns the agreed status; *writes: 1 on the rank that writes. */
int gvk_mpi_fastid_reduce(const gvk_fastid_t *e, gvk_fastid_result_t *res, int rc, int *writes, gvk_err_t *err);

/* This process's rank (0 without MPI). */
int gvk_mpi_rank(void);

/* cnv: this rank counts its contiguous run of the BAM/CRAM files; rank 0 then holds the counts
 * of them all in file order (the one-process matrix), the others what they counted. Returns the
 * agreed status. */
int gvk_mpi_cnv_count(char **paths, int n_paths, const char *bed, const gvk_cnv_bam_opts_t *o, gvk_cnv_counts_t *c,
                      gvk_err_t *err);
/* cnv --counts: each rank parses an equal byte range of the matrix; every rank receives the
 * joined matrix (the one-process counts). A compressed file is parsed whole by every rank. */
int gvk_mpi_cnv_read(const char *path, int as_matrix, int threads, gvk_cnv_counts_t *c, gvk_err_t *err);
/* cnv: rank 0's counts (joined from the ranks' files) copied to every rank, for the model. */
int gvk_mpi_cnv_share(gvk_cnv_counts_t *c, gvk_err_t *err);
/* cnv: gvk_cnv_run with the EM by blocks of regions and the segmentation by (sequence, sample)
 * pairs spread over the ranks (every rank holds the counts); *out is complete on the rank that
 * writes (*writes = 1), rank 0. */
int gvk_mpi_cnv_run(gvk_cnv_t *e, const gvk_cnv_counts_t *c, gvk_cnv_result_t **out, int *writes, gvk_err_t *err);
#endif
