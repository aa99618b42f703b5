/* SPDX-License-Identifier: MIT */
/* gvk ld over MPI ranks: every output is row-major (table rows by SNP A, matrix rows), so a
 * contiguous range of rows per rank, each written as one process writes it, joined in rank order
 * gives the one-process bytes. Ranges are balanced by pairs: equal rows for tables (windows of
 * about equal size) and square matrices, equal areas for triangles. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <unistd.h>

#include "mpi_drivers.h"
#include "../common/err.h"
#include "../common/outset.h"
#include "../snp/ld_write.h"

static double triangle(int64_t i, const void *arg)
{
	(void)arg;
	return (double)i * (double)(i + 1) / 2.0;
}

/* Leaves the part empty: the table's header belongs to rank 0's part alone. */
static int drop_header(FILE *fp, ld_writer_t *w)
{
	w->written = 0;
	return fflush(fp) == 0 && ftruncate(fileno(fp), 0) == 0 && fseeko(fp, 0, SEEK_SET) == 0 ? 0 : -1;
}

int gvk_mpi_ld(struct gvk_outset_s *os, const char *path, void *wrp, const void *dp, void *ldopt, void *repp,
               int *writes, gvk_err_t *err)
{
	ld_writer_t *wr = wrp;
	const snp_data_t *d = dp;
	ld_opt_t *o = ldopt;
	ld_report_t *rep = repp;
	gvk_mpi_world_t w;
	gvk_mpi_world_get(&w);
	*writes = w.rank == 0;
	int64_t lo, hi;
	int tri = o->shape == LD_TRIANGLE || o->shape == LD_SQUARE0;
	gvk_mpi_split(d->n_snp, w.size, w.rank, tri ? triangle : NULL, NULL, &lo, &hi);
	o->row0 = lo, o->row1 = hi;
	/* The parts are plain text; rank 0 compresses them as one stream. */
	int gz = wr->gz;
	wr->gz = 0;
	FILE *part = tmpfile();
	int rc = part ? 0 : gvk_err_set(err, GVK_ERR_IO, "cannot make a temporary file for this rank's part");
	wr->fp = part;
	if (rc == 0) rc = ld_writer_init(wr, err);
	if (rc == 0 && w.rank > 0 && drop_header(part, wr) < 0) rc = gvk_err_set(err, GVK_ERR_IO, "cannot reset this rank's part");
	if (rc == 0 && hi > lo) rc = ld_run(d, o, ld_writer_sink, wr, rep, err);
	if (rc == 0) rc = ld_writer_finish(wr, err);
	rc = gvk_mpi_agree(&w, rc, err);
	FILE *out = NULL;
	if (rc == 0 && w.rank == 0 && !(out = gvk_outset_open(os, path, err))) rc = GVK_ERR_IO;
	rc = gvk_mpi_agree(&w, rc, err);
	if (rc == 0) rc = gvk_mpi_gather_ordered(&w, part, out, gz, err);
	if (rc == 0) {
		unsigned long long v[2] = {rep->pairs, wr->written}, s[2];
		MPI_Allreduce(v, s, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, w.comm);
		rep->pairs = s[0], wr->written = s[1];
	}
	wr->gz = gz;
	wr->fp = out;
	if (part) fclose(part);
	return rc;
}
