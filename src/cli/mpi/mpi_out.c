/* SPDX-License-Identifier: MIT */
/* Ordered output: the ranks' parts reach rank 0's file in rank order, piece by piece. A part is
 * sent only when rank 0 asks for it, so a rank holds one piece in memory, not the result. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include "mpi_world.h"
#include "../../common/err.h"
#include "../../ld/ld_gz.h"

enum { PIECE = 4 << 20, TAG_ASK = 71, TAG_DATA = 72 };

/* The plain bytes to out, or through the gzip compressor z (one for the whole file); fin ends it. */
static int put(FILE *out, void *z, const char *p, size_t n, int fin)
{
	if (z) return fin ? ld_gz_finish(z, out, NULL, NULL) : ld_gz_add(z, out, p, n, NULL, NULL);
	return n && fwrite(p, 1, n, out) != n ? -1 : 0;
}

/* Rank r > 0: its part, in pieces, once rank 0 asks; a piece of length -1 says it could not be
 * read. */
static int send_part(const gvk_mpi_world_t *w, FILE *part, char *buf)
{
	int ask, rc = 0;
	MPI_Recv(&ask, 1, MPI_INT, 0, TAG_ASK, w->comm, MPI_STATUS_IGNORE);
	if (fflush(part) != 0 || fseeko(part, 0, SEEK_SET) != 0) rc = -1;
	for (;;) {
		size_t n = rc == 0 ? fread(buf, 1, PIECE, part) : 0;
		if (rc == 0 && n == 0 && ferror(part)) rc = -1;
		long long len = rc < 0 ? -1 : (long long)n;
		MPI_Send(&len, 1, MPI_LONG_LONG, 0, TAG_DATA, w->comm);
		if (len <= 0) break;
		MPI_Send(buf, (int)n, MPI_BYTE, 0, TAG_DATA, w->comm);
	}
	return rc;
}

/* Rank 0: its own part, then every other rank's in order. */
static int receive_parts(const gvk_mpi_world_t *w, FILE *part, FILE *out, void *z, char *buf, gvk_err_t *err)
{
	int rc = out ? 0 : GVK_ERR_IO;
	if (fflush(part) != 0 || fseeko(part, 0, SEEK_SET) != 0) rc = gvk_err_set(err, GVK_ERR_IO, "cannot read back this rank's part");
	for (size_t n; rc == 0 && (n = fread(buf, 1, PIECE, part)) > 0;)
		if (put(out, z, buf, n, 0) < 0) rc = gvk_err_set(err, GVK_ERR_IO, "write error");
	for (int r = 1; r < w->size; ++r) {
		int ask = 1;
		MPI_Send(&ask, 1, MPI_INT, r, TAG_ASK, w->comm);
		for (;;) {
			long long len;
			MPI_Recv(&len, 1, MPI_LONG_LONG, r, TAG_DATA, w->comm, MPI_STATUS_IGNORE);
			if (len < 0 && rc == 0) rc = gvk_err_set(err, GVK_ERR_IO, "rank %d could not read back its part", r);
			if (len <= 0) break;
			MPI_Recv(buf, (int)len, MPI_BYTE, r, TAG_DATA, w->comm, MPI_STATUS_IGNORE);
			if (rc == 0 && put(out, z, buf, (size_t)len, 0) < 0) rc = gvk_err_set(err, GVK_ERR_IO, "write error");
		}
	}
	if (rc == 0 && z && put(out, z, "", 0, 1) < 0) rc = gvk_err_set(err, GVK_ERR_IO, "write error");
	if (rc == 0 && (fflush(out) != 0 || ferror(out))) rc = gvk_err_set(err, GVK_ERR_IO, "write error");
	return rc;
}

int gvk_mpi_gather_ordered(const gvk_mpi_world_t *w, FILE *part, FILE *out, int gz, gvk_err_t *err)
{
	char *buf = malloc(PIECE);
	void *z = NULL;
	int rc = buf ? 0 : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	/* the one-process writer's compressor, so that the bytes are the same */
	if (rc == 0 && gz && w->rank == 0) {
		if (!(z = ld_gz_new(1))) rc = gvk_err_set(err, GVK_ERR_NOMEM, "cannot start gzip compression (or built without zlib)");
		else if (out && ld_gz_start(z, out, err) < 0) rc = GVK_ERR_IO;
	}
	rc = gvk_mpi_agree(w, rc, err);
	if (rc == 0) {
		if (w->rank == 0) rc = receive_parts(w, part, out, z, buf, err);
		else if (send_part(w, part, buf) < 0) rc = gvk_err_set(err, GVK_ERR_IO, "cannot read back this rank's part");
	}
	ld_gz_free(z);
	free(buf);
	return gvk_mpi_agree(w, rc, err);
}
