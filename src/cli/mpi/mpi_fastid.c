/* SPDX-License-Identifier: MIT */
/* gvk fastid over MPI ranks: each rank searches a contiguous slice of the database (reading only
 * its profiles), and rank 0 folds the slices' top-k lists and hits in rank order, which is the
 * database order, so that the one-process tie rule (smaller database index) picks the same hits. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "mpi_drivers.h"
#include "../../common/err.h"
#include "../../fastid/fastid_engine.h"

enum { TAG_FID = 81, MAX_MSG = 1 << 30 };

/* Where the profiles start: after the header and, in version 2, the panel. */
static off_t profiles_at(const fidb_reader_t *r)
{
	return r->version == 1 ? FIDB_V1_HEADER : (off_t)FIDB_V2_HEADER + (off_t)r->panel_len;
}

int gvk_mpi_fastid_slice(fidb_reader_t *r, gvk_err_t *err)
{
	gvk_mpi_world_t w;
	gvk_mpi_world_get(&w);
	if (w.size <= 1) return 0;
	if (r->stream) return gvk_err_set(err, GVK_ERR_ARG, "%s: under MPI the database must be a file (each rank reads its slice)", r->path);
	int64_t lo, hi;
	gvk_mpi_split(r->n, w.size, w.rank, NULL, NULL, &lo, &hi);
	if (fseeko(r->fp, profiles_at(r) + (off_t)lo * (off_t)r->nw * 8, SEEK_SET) != 0)
		return gvk_err_set(err, GVK_ERR_IO, "%s: cannot seek to profile %lld", r->path, (long long)lo);
	r->done = lo;
	r->n = (uint32_t)hi;
	return 0;
}

static void send_bytes(const gvk_mpi_world_t *w, const void *p, size_t n)
{
	for (size_t o = 0; o < n; o += MAX_MSG)
		MPI_Send((const char *)p + o, (int)(n - o < MAX_MSG ? n - o : MAX_MSG), MPI_BYTE, 0, TAG_FID, w->comm);
}

static void recv_bytes(const gvk_mpi_world_t *w, int from, void *p, size_t n)
{
	for (size_t o = 0; o < n; o += MAX_MSG)
		MPI_Recv((char *)p + o, (int)(n - o < MAX_MSG ? n - o : MAX_MSG), MPI_BYTE, from, TAG_FID, w->comm, MPI_STATUS_IGNORE);
}

/* Rank from's result, received whole; its arrays are freed by the caller (fid_result_free). */
static int recv_result(const gvk_mpi_world_t *w, int from, int64_t n_q, fid_result_t *b, gvk_err_t *err)
{
	unsigned long long h[3];
	MPI_Recv(h, 3, MPI_UNSIGNED_LONG_LONG, from, TAG_FID, w->comm, MPI_STATUS_IGNORE);
	memset(b, 0, sizeof *b);
	b->k = (int)h[0], b->n_hits = (size_t)h[1], b->pairs = h[2];
	size_t nt = (size_t)n_q * (size_t)b->k;
	b->top = malloc(sizeof *b->top * (nt + 1));
	b->hits = malloc(sizeof *b->hits * (b->n_hits + 1));
	/* received even without memory, so that the sender is not left waiting */
	fid_hit_t *sink = !b->top || !b->hits ? malloc(MAX_MSG) : NULL;
	if (!sink && (!b->top || !b->hits)) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (sink) {
		for (size_t left = (nt + b->n_hits) * sizeof *sink; left; left -= left < MAX_MSG ? left : MAX_MSG)
			recv_bytes(w, from, sink, left < MAX_MSG ? left : MAX_MSG);
		free(sink);
		return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for rank %d's results", from);
	}
	recv_bytes(w, from, b->top, nt * sizeof *b->top);
	recv_bytes(w, from, b->hits, b->n_hits * sizeof *b->hits);
	return 0;
}

int gvk_mpi_fastid_reduce(fidb_reader_t *r, fid_result_t *res, int64_t n_q, int topk, int rc, int *writes, gvk_err_t *err)
{
	gvk_mpi_world_t w;
	gvk_mpi_world_get(&w);
	*writes = w.rank == 0;
	if (w.size <= 1) return rc;
	rc = gvk_mpi_agree(&w, rc, err);
	if (rc < 0) return rc;
	if (w.rank > 0) {
		unsigned long long h[3] = {(unsigned long long)res->k, res->n_hits, res->pairs};
		MPI_Send(h, 3, MPI_UNSIGNED_LONG_LONG, 0, TAG_FID, w.comm);
		send_bytes(&w, res->top, (size_t)n_q * (size_t)res->k * sizeof *res->top);
		send_bytes(&w, res->hits, res->n_hits * sizeof *res->hits);
	} else {
		for (int k = 1; k < w.size; ++k) {
			fid_result_t b;
			int e = recv_result(&w, k, n_q, &b, err);
			if (e == 0 && rc == 0) rc = fid_result_merge(res, &b, n_q, topk, err);
			else if (rc == 0) rc = e;
			fid_result_free(&b);
		}
		fid_result_sort_hits(res);
		/* The IDs follow the last profile: rank 0's reader goes there, as after a whole search. */
		uint32_t n = (uint32_t)r->n;
		MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_UNSIGNED, MPI_MAX, w.comm);
		r->n = n;
		r->done = n;
		if (rc == 0 && fseeko(r->fp, profiles_at(r) + (off_t)n * (off_t)r->nw * 8, SEEK_SET) != 0)
			rc = gvk_err_set(err, GVK_ERR_IO, "%s: cannot seek to the sample IDs", r->path);
	}
	if (w.rank > 0) {
		uint32_t n = (uint32_t)r->n;
		MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_UNSIGNED, MPI_MAX, w.comm);
		r->n = n;
	}
	return gvk_mpi_agree(&w, rc, err);
}
