/* SPDX-License-Identifier: MIT */
/* gvk cnv over MPI ranks: the BAM/CRAM files are counted by the ranks, a contiguous run of files
 * each, and rank 0 joins the counts (a sample's column is contiguous, so the joined matrix is
 * the one-process matrix) and runs the model and the outputs. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "mpi_drivers.h"
#include "../common/err.h"

enum { TAG_CNV = 91, MAX_MSG = 1 << 30 };

/* A fingerprint of the regions (sequences, starts and ends): every rank's must be rank 0's. */
static unsigned long long regions_hash(const gvk_cnv_counts_t *c)
{
	unsigned long long h = 1469598103934665603ULL;
#define MIX(v) (h = (h ^ (unsigned long long)(v)) * 1099511628211ULL)
	MIX(c->m), MIX(c->n_seqs);
	for (int q = 0; q < c->n_seqs; ++q) {
		for (const char *s = c->seq_names[q]; *s; ++s) MIX(*s);
		MIX(c->seq_off[q + 1]);
	}
	for (int i = 0; i < c->m; ++i) MIX(c->start[i]), MIX(c->end[i]);
#undef MIX
	return h;
}

static void send_counts(const gvk_mpi_world_t *w, const gvk_cnv_counts_t *c)
{
	unsigned long long h[3] = {(unsigned long long)c->N, (unsigned long long)c->m, c->N ? regions_hash(c) : 0};
	MPI_Send(h, 3, MPI_UNSIGNED_LONG_LONG, 0, TAG_CNV, w->comm);
	for (int s = 0; s < c->N; ++s) {
		MPI_Send(c->samples[s], (int)strlen(c->samples[s]) + 1, MPI_CHAR, 0, TAG_CNV, w->comm);
		for (size_t o = 0; o < (size_t)c->m; o += MAX_MSG / 8)
			MPI_Send(c->x + (size_t)s * (size_t)c->m + o, (int)((size_t)c->m - o < MAX_MSG / 8 ? (size_t)c->m - o : MAX_MSG / 8),
			         MPI_DOUBLE, 0, TAG_CNV, w->comm);
	}
}

/* Rank from's samples appended to c; a rank whose regions differ is an error (its columns are
 * still received, so that it is not left waiting). */
static int recv_counts(const gvk_mpi_world_t *w, int from, gvk_cnv_counts_t *c, unsigned long long want, gvk_err_t *err)
{
	unsigned long long h[3];
	MPI_Recv(h, 3, MPI_UNSIGNED_LONG_LONG, from, TAG_CNV, w->comm, MPI_STATUS_IGNORE);
	int n = (int)h[0], rc = 0;
	if (n > 0 && (h[1] != (unsigned long long)c->m || h[2] != want))
		rc = gvk_err_set(err, GVK_ERR_FORMAT, "the files counted by rank %d have other regions than those of the first file "
		                 "(under MPI every file needs the first one's sequence dictionary)", from);
	size_t m = (size_t)h[1];
	double *x = rc == 0 ? realloc(c->x, sizeof *x * m * (size_t)(c->N + n) + 1) : NULL;
	char **sm = rc == 0 ? realloc(c->samples, sizeof *sm * (size_t)(c->N + n) + 1) : NULL;
	if (x) c->x = x;
	if (sm) c->samples = sm;
	if (rc == 0 && (!x || !sm)) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory joining the counts");
	double *scratch = rc < 0 ? malloc(MAX_MSG) : NULL;
	for (int s = 0; s < n; ++s) {
		MPI_Status st;
		int len;
		MPI_Probe(from, TAG_CNV, w->comm, &st);
		MPI_Get_count(&st, MPI_CHAR, &len);
		char *name = malloc((size_t)len + 1);
		if (name) MPI_Recv(name, len, MPI_CHAR, from, TAG_CNV, w->comm, MPI_STATUS_IGNORE);
		else MPI_Recv(NULL, 0, MPI_CHAR, from, TAG_CNV, w->comm, MPI_STATUS_IGNORE), rc = rc ? rc : GVK_ERR_NOMEM;
		for (size_t o = 0; o < m; o += MAX_MSG / 8) {
			int k = (int)(m - o < MAX_MSG / 8 ? m - o : MAX_MSG / 8);
			MPI_Recv(rc == 0 ? c->x + (size_t)(c->N) * m + o : scratch, k, MPI_DOUBLE, from, TAG_CNV, w->comm, MPI_STATUS_IGNORE);
		}
		if (rc == 0) c->samples[c->N++] = name;
		else free(name);
	}
	free(scratch);
	return rc;
}

/* Two files of one sample, as one process rejects them within its own files. */
static int distinct_samples(const gvk_cnv_counts_t *c, gvk_err_t *err)
{
	for (int s = 1; s < c->N; ++s)
		for (int t = 0; t < s; ++t)
			if (!strcmp(c->samples[s], c->samples[t]))
				return gvk_err_set(err, GVK_ERR_ARG, "samples %d and %d are both named '%s'", t + 1, s + 1, c->samples[s]);
	return 0;
}

int gvk_mpi_cnv_count(char **paths, int n_paths, const char *bed, const gvk_cnv_bam_opts_t *o, gvk_cnv_counts_t *c,
                      gvk_err_t *err)
{
	gvk_mpi_world_t w;
	gvk_mpi_world_get(&w);
	int64_t lo, hi;
	gvk_mpi_split(n_paths, w.size, w.rank, NULL, NULL, &lo, &hi);
	/* The counting call takes two files at least: a rank of one file counts a neighbour too and
	 * drops its column. */
	int64_t a = lo, b = hi, extra = -1;
	if (hi - lo == 1 && n_paths >= 2) {
		if (hi < n_paths) b = hi + 1, extra = 1;
		else a = lo - 1, extra = 0;
	}
	int rc = b > a ? gvk_cnv_count_bams((const char *const *)paths + a, (int)(b - a), bed, o, c, err) : 0;
	if (rc == 0 && extra >= 0) {
		size_t m = (size_t)c->m;
		if (extra == 0) memmove(c->x, c->x + m, m * sizeof *c->x);
		free(c->samples[extra]);
		if (extra == 0) c->samples[0] = c->samples[1];
		c->N = 1;
	}
	rc = gvk_mpi_agree(&w, rc, err);
	if (rc < 0) return rc;
	if (w.rank > 0) {
		send_counts(&w, c);
	} else {
		unsigned long long want = regions_hash(c);
		for (int r = 1; r < w.size; ++r) {
			int e = recv_counts(&w, r, c, want, err);
			if (rc == 0) rc = e;
		}
		if (rc == 0) rc = distinct_samples(c, err);
	}
	return gvk_mpi_agree(&w, rc, err);
}

int gvk_mpi_rank(void)
{
	gvk_mpi_world_t w;
	gvk_mpi_world_get(&w);
	return w.rank;
}
