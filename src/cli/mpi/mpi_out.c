/* SPDX-License-Identifier: MIT */
/* Ordered output: the ranks' parts reach rank 0 in rank order, piece by piece. A part is sent only
 * when rank 0 asks for it, so a rank holds one piece in memory, not the result. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include "mpi_world.h"
#include "../../common/err.h"

enum { PIECE = 4 << 20, TAG_ASK = 71, TAG_DATA = 72 };

/* Rank r > 0: its part, in pieces, once rank 0 asks; a piece of length -1 says it could not be
 * read. */
static int send_part(const gvk_mpi_world_t *w, FILE *part, char *buf, size_t size)
{
	int ask, rc = 0;
	MPI_Recv(&ask, 1, MPI_INT, 0, TAG_ASK, w->comm, MPI_STATUS_IGNORE);
	if (fflush(part) != 0 || fseeko(part, 0, SEEK_SET) != 0) rc = -1;
	for (;;) {
		size_t n = rc == 0 ? fread(buf, 1, size, part) : 0;
		if (rc == 0 && n == 0 && ferror(part)) rc = -1;
		long long len = rc < 0 ? -1 : (long long)n;
		MPI_Send(&len, 1, MPI_LONG_LONG, 0, TAG_DATA, w->comm);
		if (len <= 0) break;
		MPI_Send(buf, (int)n, MPI_BYTE, 0, TAG_DATA, w->comm);
	}
	return rc;
}

/* Rank 0: its own part, then every other rank's in order. */
static int receive_parts(const gvk_mpi_world_t *w, FILE *part, char *buf, size_t size,
                         int (*put)(void *arg, const void *p, size_t n), void *arg, gvk_err_t *err)
{
	int rc = 0;
	if (fflush(part) != 0 || fseeko(part, 0, SEEK_SET) != 0)
		rc = gvk_err_set(err, GVK_ERR_IO, "cannot read back this rank's part");
	for (size_t n; rc == 0 && (n = fread(buf, 1, size, part)) > 0;)
		if (put(arg, buf, n) < 0) rc = gvk_err_set(err, GVK_ERR_IO, "write error");
	for (int r = 1; r < w->size; ++r) {
		int ask = 1;
		MPI_Send(&ask, 1, MPI_INT, r, TAG_ASK, w->comm);
		for (;;) {
			long long len;
			MPI_Recv(&len, 1, MPI_LONG_LONG, r, TAG_DATA, w->comm, MPI_STATUS_IGNORE);
			if (len < 0 && rc == 0) rc = gvk_err_set(err, GVK_ERR_IO, "rank %d could not read back its part", r);
			if (len <= 0) break;
			MPI_Recv(buf, (int)len, MPI_BYTE, r, TAG_DATA, w->comm, MPI_STATUS_IGNORE);
			if (rc == 0 && put(arg, buf, (size_t)len) < 0) rc = gvk_err_set(err, GVK_ERR_IO, "write error");
		}
	}
	return rc;
}

int gvk_mpi_ordered(const gvk_mpi_world_t *w, FILE *part, char *buf, size_t size,
                    int (*put)(void *arg, const void *p, size_t n), void *arg, gvk_err_t *err)
{
	if (w->rank == 0) return receive_parts(w, part, buf, size, put, arg, err);
	if (send_part(w, part, buf, size) < 0) return gvk_err_set(err, GVK_ERR_IO, "cannot read back this rank's part");
	return 0;
}

static int put_file(void *arg, const void *p, size_t n)
{
	if (!arg) return -1;
	return n && fwrite(p, 1, n, arg) != n ? -1 : 0;
}

int gvk_mpi_gather_ordered(const gvk_mpi_world_t *w, FILE *part, FILE *out, gvk_err_t *err)
{
	char *buf = malloc(PIECE);
	int rc = gvk_mpi_agree(w, buf ? 0 : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory"), err);
	if (rc == 0) rc = gvk_mpi_ordered(w, part, buf, PIECE, put_file, out, err);
	if (rc == 0 && w->rank == 0 && (fflush(out) != 0 || ferror(out))) rc = gvk_err_set(err, GVK_ERR_IO, "write error");
	free(buf);
	return gvk_mpi_agree(w, rc, err);
}
