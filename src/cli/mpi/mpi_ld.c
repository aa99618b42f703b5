/* SPDX-License-Identifier: MIT */
/* gvk ld over MPI ranks: the job (gvk_ld_job_set_split) computes each rank's share and these hooks
 * move the bytes with MPI. The shared output is one temporary written with MPI-IO at each rank's
 * offsets; rank 0 renames it into place after every rank succeeded (cmd_ld.c). */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi_drivers.h"
#include "mpi_ld_job.h"
#include "../../common/err.h"

enum { MAX_IO = 1 << 30 };

typedef struct {
	gvk_ld_split_t sp;
	gvk_mpi_world_t w;
	MPI_File fh;
	int quiet;
} job_split_t;

static int hook_agree(void *ctx, int rc, gvk_err_t *err)
{
	const job_split_t *s = ctx;
	return gvk_mpi_agree(&s->w, rc, err);
}

static void hook_reduce(void *ctx, int64_t *v, int64_t n, int op)
{
	const job_split_t *s = ctx;
	MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_INT64_T, op == GVK_LD_SPLIT_MIN ? MPI_MIN : MPI_SUM, s->w.comm);
}

static void hook_gather(void *ctx, void *buf, const int64_t *cnt, const int64_t *at)
{
	const job_split_t *s = ctx;
	int *c = malloc(sizeof *c * (size_t)s->w.size), *a = malloc(sizeof *a * (size_t)s->w.size);
	int64_t ok = c && a;
	/* counts and displacements are ints in MPI: past 2 GiB each part goes out by broadcasts instead */
	for (int r = 0; ok && r < s->w.size; ++r)
		c[r] = (int)cnt[r], a[r] = (int)at[r], ok = at[r] <= INT_MAX && cnt[r] <= INT_MAX;
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT64_T, MPI_MIN, s->w.comm);
	if (ok) {
		MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, c, a, MPI_BYTE, s->w.comm);
	} else {
		for (int r = 0; r < s->w.size; ++r)
			for (int64_t o = 0; o < cnt[r]; o += INT_MAX) {
				int64_t k = cnt[r] - o < INT_MAX ? cnt[r] - o : INT_MAX;
				MPI_Bcast((char *)buf + at[r] + o, (int)k, MPI_BYTE, r, s->w.comm);
			}
	}
	free(c), free(a);
}

static void hook_bcast(void *ctx, void *buf, int64_t n)
{
	const job_split_t *s = ctx;
	MPI_Bcast(buf, (int)n, MPI_BYTE, 0, s->w.comm);
}

static int hook_open(void *ctx, const char *name, gvk_err_t *err)
{
	job_split_t *s = ctx;
	int e = MPI_File_open(s->w.comm, name, MPI_MODE_WRONLY, MPI_INFO_NULL, &s->fh);
	if (e == MPI_SUCCESS) return 0;
	char msg[MPI_MAX_ERROR_STRING];
	int n = 0;
	MPI_Error_string(e, msg, &n);
	s->fh = MPI_FILE_NULL;
	return gvk_err_set(err, GVK_ERR_IO, "cannot open with MPI-IO: %s", msg), -1;
}

static int hook_write_at(void *ctx, int64_t off, const void *p, int64_t n)
{
	const job_split_t *s = ctx;
	for (int64_t o = 0; o < n; o += MAX_IO) {
		int k = (int)(n - o < MAX_IO ? n - o : MAX_IO);
		if (MPI_File_write_at(s->fh, (MPI_Offset)(off + o), (const char *)p + o, k, MPI_BYTE, MPI_STATUS_IGNORE) !=
		    MPI_SUCCESS)
			return -1;
	}
	return 0;
}

static int hook_close(void *ctx)
{
	job_split_t *s = ctx;
	return MPI_File_close(&s->fh) == MPI_SUCCESS ? 0 : -1;
}

static int hook_ordered(void *ctx, FILE *part, char *buf, size_t size, int (*put)(void *arg, const void *p, size_t n),
                        void *arg, gvk_err_t *err)
{
	const job_split_t *s = ctx;
	return gvk_mpi_ordered(&s->w, part, buf, size, put, arg, err);
}

static void hook_note(void *ctx, const char *line)
{
	const job_split_t *s = ctx;
	if (!s->quiet) fprintf(stderr, "%s\n", line);
}

int gvk_mpi_ld_job_split(gvk_ld_job_t *j, int quiet, void **split, gvk_err_t *err)
{
	*split = NULL;
	gvk_mpi_world_t w;
	gvk_mpi_world_get(&w);
	if (w.size <= 1) return 0;
	job_split_t *s = calloc(1, sizeof *s);
	/* a rank that went on alone would leave the others waiting in the job's first collective */
	int rc = gvk_mpi_agree(&w, s ? 0 : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for the MPI hooks of gvk ld"), err);
	if (rc < 0) return free(s), rc;
	s->w = w, s->quiet = quiet, s->fh = MPI_FILE_NULL;
	/* the grid of a matrix's tiles, a test and tuning switch read here, in the CLI */
	s->sp = (gvk_ld_split_t){w.rank, w.size, s, getenv("GVK_MPI_TILES"), hook_agree, hook_reduce, hook_gather,
	                         hook_bcast, hook_open, hook_write_at, hook_close, hook_ordered, hook_note};
	rc = gvk_ld_job_set_split(j, &s->sp, err);
	if (rc < 0) return free(s), rc;
	*split = s;
	return 0;
}
