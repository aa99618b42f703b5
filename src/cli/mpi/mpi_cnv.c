/* SPDX-License-Identifier: MIT */
/* gvk cnv over MPI ranks: the BAM/CRAM files are counted by the ranks, a contiguous run of files
 * each, and rank 0 joins the counts (a sample's column is contiguous, so the joined matrix is
 * the one-process matrix) and runs the model and the outputs. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "mpi_drivers.h"
#include "../../common/err.h"
#include "../../common/work_split.h"

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
	if (n == 0) return 0; /* a rank without files */
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

/* Fewer than two files a rank: every rank counts every file over its share of the regions
 * (through the index), and rank 0 receives each rank's rows of every sample. */
static int count_by_regions(const gvk_mpi_world_t *w, char **paths, int n_paths, const char *bed,
                            const gvk_cnv_bam_opts_t *o, gvk_cnv_counts_t *c, gvk_err_t *err)
{
	int row0 = 0, row1 = 0;
	int rc = gvk_cnv_count_bams_share((const char *const *)paths, n_paths, bed, o, w->rank, w->size, &row0, &row1, c,
	                                  err);
	rc = gvk_mpi_agree(w, rc, err);
	int *cnt = malloc(sizeof *cnt * (size_t)w->size), *at = malloc(sizeof *at * (size_t)w->size), ok = cnt && at;
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, w->comm);
	if (rc == 0 && !ok) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (rc == 0) {
		int mine[2] = {row1 - row0, row0}, *both = malloc(sizeof *both * 2 * (size_t)w->size);
		ok = both != NULL;
		MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, w->comm);
		if (!ok) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		if (ok) MPI_Allgather(mine, 2, MPI_INT, both, 2, MPI_INT, w->comm);
		for (int r = 0; ok && r < w->size; ++r) cnt[r] = both[2 * r], at[r] = both[2 * r + 1];
		for (int s = 0; ok && s < c->N; ++s) {
			double *col = c->x + (size_t)s * (size_t)c->m;
			MPI_Gatherv(w->rank ? col + row0 : MPI_IN_PLACE, mine[0], MPI_DOUBLE, col, cnt, at, MPI_DOUBLE, 0, w->comm);
		}
		free(both);
	}
	free(cnt), free(at);
	return gvk_mpi_agree(w, rc, err);
}

int gvk_mpi_cnv_count(char **paths, int n_paths, const char *bed, const gvk_cnv_bam_opts_t *o, gvk_cnv_counts_t *c,
                      gvk_err_t *err)
{
	gvk_mpi_world_t w;
	gvk_mpi_world_get(&w);
	if (n_paths < 2 * w.size && n_paths >= 2) return count_by_regions(&w, paths, n_paths, bed, o, c, err);
	int64_t lo, hi;
	gvk_work_split(n_paths, w.size, w.rank, NULL, NULL, &lo, &hi);
	/* more ranks than files: the first ranks one each, so that rank 0 holds the regions */
	if (n_paths < w.size) lo = w.rank < n_paths ? w.rank : n_paths, hi = w.rank < n_paths ? w.rank + 1 : n_paths;
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

/* ---- the model over the ranks: EM by region blocks, segmentation by (sequence, sample) ---- */

/* Large arrays in pieces of at most MAX_MSG bytes (MPI counts are int). */
static void bcast_bytes(const gvk_mpi_world_t *w, void *p, size_t n)
{
	for (size_t o = 0; o < n; o += MAX_MSG)
		MPI_Bcast((char *)p + o, (int)(n - o < MAX_MSG ? n - o : MAX_MSG), MPI_BYTE, 0, w->comm);
}

/* The names as one buffer of NUL-terminated strings. */
static char *pack_names(char **names, int n, size_t *len)
{
	size_t l = 0;
	for (int k = 0; k < n; ++k) l += strlen(names[k]) + 1;
	char *b = malloc(l + 1), *p = b;
	for (int k = 0; b && k < n; ++k) p = stpcpy(p, names[k]) + 1;
	*len = l;
	return b;
}

static int unpack_names(const char *b, int n, char ***names)
{
	*names = calloc((size_t)n + 1, sizeof **names);
	for (int k = 0; *names && k < n; b += strlen(b) + 1, ++k)
		if (!((*names)[k] = strdup(b))) return -1;
	return *names ? 0 : -1;
}

int gvk_mpi_cnv_share(gvk_cnv_counts_t *c, gvk_err_t *err)
{
	gvk_mpi_world_t w;
	gvk_mpi_world_get(&w);
	if (w.size <= 1) return 0;
	long long h[6] = {c->m, c->N, c->n_seqs, c->is_matrix, c->seq_len != NULL, 0};
	size_t ls = 0, lq = 0;
	char *bs = NULL, *bq = NULL;
	if (w.rank == 0) {
		bs = pack_names(c->samples, c->N, &ls), bq = pack_names(c->seq_names, c->n_seqs, &lq);
		h[5] = bs && bq ? (long long)(ls + lq) : -1;
	}
	MPI_Bcast(h, 6, MPI_LONG_LONG, 0, w.comm);
	if (h[5] < 0) return free(bs), free(bq), gvk_err_set(err, GVK_ERR_NOMEM, "out of memory sharing the counts");
	size_t m = (size_t)h[0], N = (size_t)h[1], Q = (size_t)h[2];
	int rc = 0;
	char *names = malloc((size_t)h[5] + 1);
	if (w.rank > 0) {
		gvk_cnv_counts_free(c);
		c->m = (int)m, c->N = (int)N, c->n_seqs = (int)Q, c->is_matrix = (int)h[3];
		c->seq_off = malloc((Q + 1) * sizeof *c->seq_off);
		c->start = malloc((m + 1) * sizeof *c->start), c->end = malloc((m + 1) * sizeof *c->end);
		c->x = malloc((m * N + 1) * sizeof *c->x);
		c->seq_len = h[4] ? malloc((Q + 1) * sizeof *c->seq_len) : NULL;
	} else if (names) {
		memcpy(names, bs, ls), memcpy(names + ls, bq, lq);
	}
	int ok = names && c->seq_off && c->start && c->end && c->x && (!h[4] || c->seq_len);
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, w.comm);
	if (ok) {
		bcast_bytes(&w, names, (size_t)h[5]);
		bcast_bytes(&w, c->seq_off, (Q + 1) * sizeof *c->seq_off);
		bcast_bytes(&w, c->start, m * sizeof *c->start);
		bcast_bytes(&w, c->end, m * sizeof *c->end);
		bcast_bytes(&w, c->x, m * N * sizeof *c->x);
		if (h[4]) bcast_bytes(&w, c->seq_len, Q * sizeof *c->seq_len);
		if (w.rank > 0) {
			/* the sequence names follow the N sample names */
			const char *p = names;
			for (size_t k = 0; k < N; ++k) p += strlen(p) + 1;
			if (unpack_names(names, (int)N, &c->samples) < 0 || unpack_names(p, (int)Q, &c->seq_names) < 0)
				rc = GVK_ERR_NOMEM;
		}
	} else {
		rc = GVK_ERR_NOMEM;
	}
	free(bs), free(bq), free(names);
	if (rc < 0) gvk_err_set(err, rc, "out of memory sharing the counts");
	return gvk_mpi_agree(&w, rc, err);
}

typedef struct {
	gvk_mpi_world_t w;
	int *r_cnt, *r_off; /* every rank's regions of the EM */
	int *p_lo, *p_hi;   /* every rank's pairs of the segmentation */
} cnv_ctx_t;

/* Pairs q * N + s before pair pi, weighted by their regions: cum for gvk_work_split. */
static double pair_work(int64_t pi, const void *arg)
{
	const gvk_cnv_counts_t *c = arg;
	int64_t q = pi / c->N, s = pi % c->N;
	if (q >= c->n_seqs) return (double)c->N * c->m;
	return (double)c->N * c->seq_off[q] + (double)s * (c->seq_off[q + 1] - c->seq_off[q]);
}

/* Row k of an array of rows of m values, every rank's block into everyone's copy. */
static void allgather_rows(const cnv_ctx_t *x, void *base, size_t rows, size_t m, MPI_Datatype t, size_t el)
{
	for (size_t k = 0; k < rows; ++k)
		MPI_Allgatherv(MPI_IN_PLACE, 0, t, (char *)base + k * m * el, x->r_cnt, x->r_off, t, x->w.comm);
}

static int em_join(void *ctx, const gvk_cnv_counts_t *c, gvk_cnv_result_t *r, int rc, gvk_err_t *err)
{
	const cnv_ctx_t *x = ctx;
	rc = gvk_mpi_agree(&x->w, rc, err);
	if (rc < 0) return rc;
	size_t m = (size_t)c->m, N = (size_t)c->N, n = (size_t)r->n;
	allgather_rows(x, r->lambda, n, m, MPI_DOUBLE, 8);
	allgather_rows(x, r->alpha, n, m, MPI_DOUBLE, 8);
	if (r->post) allgather_rows(x, r->post, n * N, m, MPI_DOUBLE, 8);
	allgather_rows(x, r->sini, N, m, MPI_DOUBLE, 8);
	allgather_rows(x, r->ini, 1, m, MPI_DOUBLE, 8);
	allgather_rows(x, r->cls, N, m, MPI_UNSIGNED_CHAR, 1);
	return 0;
}

static int near_join(void *ctx, uint8_t *again, int n_seqs, int rc, gvk_err_t *err)
{
	const cnv_ctx_t *x = ctx;
	rc = gvk_mpi_agree(&x->w, rc, err);
	if (rc == 0) MPI_Allreduce(MPI_IN_PLACE, again, n_seqs, MPI_UNSIGNED_CHAR, MPI_MAX, x->w.comm);
	return rc;
}

/* One pair's segmentation as one message: scores, calls, diagnostics and the pieces' count,
 * then the pieces. */
static void send_pair(const cnv_ctx_t *x, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r, int pi,
                      const gvk_cnv_piece_t *pieces, int np, double *buf)
{
	int q = pi / c->N, s = pi % c->N, r0 = c->seq_off[q], len = c->seq_off[q + 1] - r0;
	size_t at = (size_t)s * (size_t)c->m + (size_t)r0;
	memcpy(buf, r->seg_stat + at, (size_t)len * sizeof *buf);
	memcpy(buf + len, r->call + at, (size_t)len * sizeof *buf);
	double *t = buf + 2 * (size_t)len;
	t[0] = r->sp_eps[pi], t[1] = r->sp_sd[pi], t[2] = r->sp_q95[pi], t[3] = r->sp_ninit[pi], t[4] = np;
	MPI_Send(buf, 2 * len + 5, MPI_DOUBLE, 0, TAG_CNV, x->w.comm);
	MPI_Send(pieces, (int)((size_t)np * sizeof *pieces), MPI_BYTE, 0, TAG_CNV, x->w.comm);
}

static int recv_pair(const cnv_ctx_t *x, int from, const gvk_cnv_counts_t *c, gvk_cnv_result_t *r, int pi,
                     gvk_cnv_piece_t **pieces, int *np, double *buf)
{
	int q = pi / c->N, s = pi % c->N, r0 = c->seq_off[q], len = c->seq_off[q + 1] - r0;
	size_t at = (size_t)s * (size_t)c->m + (size_t)r0;
	MPI_Recv(buf, 2 * len + 5, MPI_DOUBLE, from, TAG_CNV, x->w.comm, MPI_STATUS_IGNORE);
	memcpy(r->seg_stat + at, buf, (size_t)len * sizeof *buf);
	memcpy(r->call + at, buf + len, (size_t)len * sizeof *buf);
	const double *t = buf + 2 * (size_t)len;
	r->sp_eps[pi] = t[0], r->sp_sd[pi] = t[1], r->sp_q95[pi] = t[2], r->sp_ninit[pi] = (int)t[3], *np = (int)t[4];
	free(*pieces);
	*pieces = malloc(((size_t)*np + 1) * sizeof **pieces);
	if (!*pieces) {
		MPI_Recv(NULL, 0, MPI_BYTE, from, TAG_CNV, x->w.comm, MPI_STATUS_IGNORE);
		return *np = 0, GVK_ERR_NOMEM;
	}
	MPI_Recv(*pieces, (int)((size_t)*np * sizeof **pieces), MPI_BYTE, from, TAG_CNV, x->w.comm, MPI_STATUS_IGNORE);
	return 0;
}

/* Every rank's pairs to rank 0, which makes the calls; the pieces are small, the scores and
 * calls of a pair one sequence long. */
static int seg_join(void *ctx, const gvk_cnv_counts_t *c, gvk_cnv_result_t *r, gvk_cnv_piece_t **pieces, int *n_pieces,
                    int rc, int *calls, gvk_err_t *err)
{
	const cnv_ctx_t *x = ctx;
	*calls = x->w.rank == 0;
	rc = gvk_mpi_agree(&x->w, rc, err);
	if (rc < 0) return rc;
	int longest = 1;
	for (int q = 0; q < c->n_seqs; ++q)
		if (c->seq_off[q + 1] - c->seq_off[q] > longest) longest = c->seq_off[q + 1] - c->seq_off[q];
	double *buf = malloc((2 * (size_t)longest + 5) * sizeof *buf);
	int ok = buf != NULL;
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, x->w.comm);
	if (!ok) return free(buf), gvk_err_set(err, GVK_ERR_NOMEM, "out of memory joining the segmentation");
	if (x->w.rank > 0) {
		for (int pi = x->p_lo[x->w.rank]; pi < x->p_hi[x->w.rank]; ++pi)
			send_pair(x, c, r, pi, pieces[pi], n_pieces[pi], buf);
	} else {
		for (int from = 1; from < x->w.size; ++from)
			for (int pi = x->p_lo[from]; pi < x->p_hi[from]; ++pi)
				if (recv_pair(x, from, c, r, pi, &pieces[pi], &n_pieces[pi], buf) < 0 && rc == 0)
					rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory joining the segmentation");
	}
	free(buf);
	return rc;
}

int gvk_mpi_cnv_run(gvk_cnv_t *e, const gvk_cnv_counts_t *c, gvk_cnv_result_t **out, int *writes, gvk_err_t *err)
{
	cnv_ctx_t x = {0};
	gvk_mpi_world_get(&x.w);
	*writes = x.w.rank == 0;
	int P = x.w.size, rc = 0;
	x.r_cnt = malloc(sizeof *x.r_cnt * (size_t)P), x.r_off = malloc(sizeof *x.r_off * (size_t)P);
	x.p_lo = malloc(sizeof *x.p_lo * (size_t)P), x.p_hi = malloc(sizeof *x.p_hi * (size_t)P);
	if (!x.r_cnt || !x.r_off || !x.p_lo || !x.p_hi) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	rc = gvk_mpi_agree(&x.w, rc, err);
	gvk_cnv_split_t sp = {.ctx = &x, .em_join = em_join, .near_join = near_join, .seg_join = seg_join};
	for (int k = 0; rc == 0 && k < P; ++k) {
		int64_t lo, hi;
		gvk_work_split(c->m, P, k, NULL, NULL, &lo, &hi);
		x.r_off[k] = (int)lo, x.r_cnt[k] = (int)(hi - lo);
		gvk_work_split((int64_t)c->n_seqs * c->N, P, k, pair_work, c, &lo, &hi);
		x.p_lo[k] = (int)lo, x.p_hi[k] = (int)hi;
	}
	if (rc == 0) {
		sp.r0 = x.r_off[x.w.rank], sp.r1 = sp.r0 + x.r_cnt[x.w.rank];
		sp.p0 = x.p_lo[x.w.rank], sp.p1 = x.p_hi[x.w.rank];
		rc = gvk_cnv_run_split(e, c, &sp, out, err);
	}
	free(x.r_cnt), free(x.r_off), free(x.p_lo), free(x.p_hi);
	return rc;
}
