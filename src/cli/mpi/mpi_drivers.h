/* SPDX-License-Identifier: MIT */
/* The commands' MPI drivers (built with GVK_MPI). Each is called on every rank at the same point
 * of its command and is a no-op, or the one-process path, in a world of one. */
#ifndef GVK_MPI_DRIVERS_H
#define GVK_MPI_DRIVERS_H

#include <stdint.h>
#include "mpi_world.h"
#include "../../common/outset.h"
#include "../../snp/fastid_engine.h"
#include "../../snp/ld_engine.h"
#include "../../snp/ld_write.h"
#include "../../snp/snp_data.h"

/* pairhmm and align: the input cut at record (group) boundaries into one byte range per rank,
 * each range run by the unchanged command in a child process, the outputs joined in input
 * order. */
int gvk_mpi_records(const gvk_mpi_world_t *w, const char *name, int argc, char **argv);

/* 1 in a job of several ranks. */
int gvk_mpi_several(void);

/* ld: this rank's rows (contiguous, balanced by pairs), written through wr (its fields set, fp
 * not yet) into a part of its own; the parts go to path (an output of os) on rank 0 in order.
 * Pairs and values written are summed into rep and wr on every rank. *writes: 1 on the rank that
 * writes the log and commits. */
int gvk_mpi_ld(gvk_outset_t *os, const char *path, ld_writer_t *wr, const snp_data_t *d, ld_opt_t *ldopt, ld_report_t *rep,
               int *writes, gvk_err_t *err);

/* fastid: moves the database reader (just opened) to this rank's slice of the profiles; 0 or a
 * negative code. */
int gvk_mpi_fastid_slice(fidb_reader_t *rd, gvk_err_t *err);
/* fastid, after the slice's search, with its status rc: agrees on the status, folds every rank's
 * top-k lists and hits into rank 0's in rank order (the database order, so the
 * one-process tie rule holds), sums the pairs, and puts rank 0's reader after the last profile
 * for the IDs. Returns the agreed status; *writes: 1 on the rank that writes. */
int gvk_mpi_fastid_reduce(fidb_reader_t *rd, fid_result_t *res, int64_t n_q, int topk, int rc, int *writes, gvk_err_t *err);

/* This process's rank (0 without MPI). */
int gvk_mpi_rank(void);

/* cnv: this rank counts its contiguous run of the BAM/CRAM files; rank 0 then holds the counts
 * of them all in file order (the one-process matrix), the others what they counted. Returns the
 * agreed status. */
int gvk_mpi_cnv_count(char **paths, int n_paths, const char *bed, const gvk_cnv_bam_opts_t *o, gvk_cnv_counts_t *c,
                      gvk_err_t *err);
/* cnv: rank 0's counts (joined from the ranks' files) copied to every rank, for the model. */
int gvk_mpi_cnv_share(gvk_cnv_counts_t *c, gvk_err_t *err);
/* cnv: gvk_cnv_run with the EM by blocks of regions and the segmentation by (sequence, sample)
 * pairs spread over the ranks (every rank holds the counts); *out is complete on the rank that
 * writes (*writes = 1), rank 0. */
int gvk_mpi_cnv_run(gvk_cnv_t *e, const gvk_cnv_counts_t *c, gvk_cnv_result_t **out, int *writes, gvk_err_t *err);
#endif
