/* SPDX-License-Identifier: MIT */
/* gvk ld under MPI: the hooks that spread a gvk_ld_job_t over the ranks (mpi_ld*.c). */
#ifndef GVK_MPI_LD_JOB_H
#define GVK_MPI_LD_JOB_H

#include "gvk.h"

/* In a job of several ranks, gives j the ranks' hooks and sets *split to them (malloc'ed, for the
 * caller to free after gvk_ld_job_destroy); *split NULL in a world of one. quiet: no line on what a
 * rank reads. 0, or a negative code agreed by every rank with err set. */
int gvk_mpi_ld_job_split(gvk_ld_job_t *j, int quiet, void **split, gvk_err_t *err);

#endif
