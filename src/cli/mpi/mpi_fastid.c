/* SPDX-License-Identifier: MIT */
/* gvk fastid over MPI ranks: each rank searches a contiguous slice of the database (reading only
 * its profiles), and rank 0 folds the slices' top-k lists and hits in rank order, which is the
 * database order, so that the one-process tie rule (smaller database index) picks the same hits. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "mpi_drivers.h"
#include "../../common/err.h"
#include "../../common/work_split.h"

enum { TAG_FID = 81, MAX_MSG = 1 << 30 };

int gvk_mpi_fastid_slice(gvk_fastid_db_t *db, gvk_err_t *err)
{
	gvk_mpi_world_t w;
	gvk_mpi_world_get(&w);
	if (w.size <= 1) return 0;
	gvk_fastid_db_info_t in;
	gvk_fastid_db_info(db, &in);
	if (!in.seekable)
		return gvk_err_set(err, GVK_ERR_ARG, "%s: under MPI the database must be a file (each rank reads its slice)",
		                   in.name);
	int64_t lo, hi;
	gvk_work_split(in.n, w.size, w.rank, NULL, NULL, &lo, &hi);
	return gvk_fastid_db_range(db, lo, hi, err);
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

static void send_result(const gvk_mpi_world_t *w, const gvk_fastid_result_t *res)
{
	unsigned long long h[3] = {(unsigned long long)res->k, res->n_hits, res->pairs};
	MPI_Send(h, 3, MPI_UNSIGNED_LONG_LONG, 0, TAG_FID, w->comm);
	send_bytes(w, res->top, res->n_queries * (size_t)res->k * sizeof *res->top);
	send_bytes(w, res->hits, res->n_hits * sizeof *res->hits);
}

/* Rank from's result for n_q queries, received whole; its arrays are the caller's to free. */
static int recv_result(const gvk_mpi_world_t *w, int from, size_t n_q, gvk_fastid_result_t *b, gvk_err_t *err)
{
	unsigned long long h[3];
	MPI_Recv(h, 3, MPI_UNSIGNED_LONG_LONG, from, TAG_FID, w->comm, MPI_STATUS_IGNORE);
	memset(b, 0, sizeof *b);
	b->n_queries = n_q, b->k = (int)h[0], b->n_hits = (size_t)h[1], b->pairs = h[2];
	size_t nt = n_q * (size_t)b->k;
	b->top = malloc(sizeof *b->top * (nt + 1));
	b->hits = malloc(sizeof *b->hits * (b->n_hits + 1));
	/* received even without memory, so that the sender is not left waiting */
	gvk_fastid_hit_t *sink = !b->top || !b->hits ? malloc(MAX_MSG) : NULL;
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

int gvk_mpi_fastid_reduce(const gvk_fastid_t *e, gvk_fastid_result_t *res, int rc, int *writes, gvk_err_t *err)
{
	gvk_mpi_world_t w;
	gvk_mpi_world_get(&w);
	*writes = w.rank == 0;
	if (w.size <= 1) return rc;
	rc = gvk_mpi_agree(&w, rc, err);
	if (rc < 0) return rc;
	if (w.rank > 0) {
		send_result(&w, res);
	} else {
		for (int k = 1; k < w.size; ++k) {
			gvk_fastid_result_t b;
			int r = recv_result(&w, k, res->n_queries, &b, err);
			if (r == 0 && rc == 0) rc = gvk_fastid_result_merge(e, res, &b, err);
			else if (rc == 0) rc = r;
			free(b.top);
			free(b.hits);
		}
	}
	return gvk_mpi_agree(&w, rc, err);
}
