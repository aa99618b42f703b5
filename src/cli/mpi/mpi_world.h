/* SPDX-License-Identifier: MIT */
/* gvk under MPI (built with GVK_MPI): the world a command runs in, the per-command drivers and
 * the helpers they share. CLI code: it prints, reads the launcher's environment and may exit. */
#ifndef GVK_MPI_WORLD_H
#define GVK_MPI_WORLD_H

#include <stdint.h>
#include <stdio.h>
#include <mpi.h>
#include "gvk.h"

typedef struct {
	MPI_Comm comm;
	int rank, size;
	int local_rank, local_size; /* among the ranks of this node */
	int gpu;                    /* the GPU this rank took (node-local rank mod GPUs), -1 with none */
} gvk_mpi_world_t;

/* 1 when the process was started by mpirun, srun or another PMI launcher. */
int gvk_mpi_launched(void);
/* Initializes MPI (argc, argv as MPI_Init takes them) and picks the rank's GPU; 0, or -1 after a
 * message naming the command. */
int gvk_mpi_start(const char *name, int *argc, char ***argv, gvk_mpi_world_t *w);
/* After the command, with its exit status rc: a rank that failed aborts the whole job; else MPI
 * ends. Returns rc. */
int gvk_mpi_end(const gvk_mpi_world_t *w, int rc);
/* The threads a rank takes when -t is not given: its share of the node's ncpu processors among
 * the node's ranks (MPI_COMM_TYPE_SHARED), at least 1. */
int gvk_mpi_node_threads(int ncpu);
/* The world of a command running between gvk_mpi_start and gvk_mpi_end; size 1 otherwise. */
void gvk_mpi_world_get(gvk_mpi_world_t *w);

/* Every rank's status to every rank: 0 when all are 0, else the lowest failing code; a rank that
 * did not fail itself gets a message naming the rank that did (err may be NULL). */
int gvk_mpi_agree(const gvk_mpi_world_t *w, int rc, gvk_err_t *err);


/* Ordered output: every rank's part (a stream positioned anywhere; read from its start) goes to
 * put on rank 0 in rank order, in pieces of up to size bytes through buf, so that no rank ever
 * holds the whole result. This rank's status: 0, or a negative code with err set (a failing put
 * is a write error); the caller agrees on it. */
int gvk_mpi_ordered(const gvk_mpi_world_t *w, FILE *part, char *buf, size_t size,
                    int (*put)(void *arg, const void *p, size_t n), void *arg, gvk_err_t *err);
/* gvk_mpi_ordered to rank 0's out. Returns 0 on every rank, or a negative code (agreed by all)
 * with err set on the failing rank. */
int gvk_mpi_gather_ordered(const gvk_mpi_world_t *w, FILE *part, FILE *out, gvk_err_t *err);

#endif
