/* SPDX-License-Identifier: MIT */
/* The commands' MPI drivers (built with GVK_MPI). Each is called on every rank at the same point
 * of its command and is a no-op, or the one-process path, in a world of one. */
#ifndef GVK_MPI_DRIVERS_H
#define GVK_MPI_DRIVERS_H

#include <stdint.h>
#include "mpi_world.h"
#include "../../common/outset.h"

/* pairhmm and align: the input cut at record (group) boundaries into one byte range per rank,
 * each range run by the unchanged command in a child process, the outputs joined in input
 * order. */
int gvk_mpi_records(const gvk_mpi_world_t *w, const char *name, int argc, char **argv);

/* 1 in a job of several ranks. */
int gvk_mpi_several(void);

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
