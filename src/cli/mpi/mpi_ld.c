/* SPDX-License-Identifier: MIT */
/* gvk ld over MPI ranks. Tables are cut into contiguous SNP rows (the window runs into the next
 * rank's rows), matrices into a grid of tiles (row blocks x column blocks) of equal pairs: equal
 * rows and columns for square, equal areas for triangle and square0. Each rank writes its bytes at
 * their offsets of one shared temporary with MPI-IO: binary matrices directly (offsets follow
 * from the shape), text from a local part once the byte counts are known (MPI_Exscan); rank 0
 * renames the temporary into place after every rank succeeded. gzip output (one deflate stream)
 * and outputs that are not regular files go through rank 0 in order instead. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpi_drivers.h"
#include "../../common/err.h"
#include "mpi_ld_job.h"
#include "../../ld/ld_write.h"

enum { CHUNK = 4 << 20, MAX_IO = 1 << 30 };

typedef struct {
	gvk_mpi_world_t w;
	int pr, pc, a, b;       /* the grid and this rank's tile in it (rank = a * pc + b) */
	int64_t r0, r1, c0, c1; /* the tile's rows and columns */
	int64_t m;
	ld_writer_t *wr;
	MPI_File fh;
	int shared;             /* MPI-IO into one temporary (else through rank 0) */
	int io_bad;             /* an MPI-IO write failed */
	FILE *part;             /* text: this rank's bytes in order */
	int64_t *seg;           /* text tiles of a row block shared by several ranks: bytes per row */
	char *buf;              /* binary: one contiguous run of the file */
	size_t len, cap;
	long long run_off;
	const ld_opt_t *o;
	const gvk_mpi_ld_part_t *sub; /* the SNPs this rank decoded; NULL: d holds all */
	int64_t off_r, off_c;   /* the set's index of a part's row or column: the part's + these */
	int64_t *jlo, *jhi;     /* a stripe's column ranges in the set's indices */
	int64_t jcap;
} tile_t;

/* This rank's tile, the same as the one its part was read for. */
static int plan_tile(tile_t *t, int shape, int64_t m, gvk_err_t *err)
{
	gvk_mpi_ld_part_t p = {0};
	int rc = gvk_mpi_ld_plan(&t->w, shape, m, t->shared, &p, err);
	if (rc < 0) return rc;
	t->pr = p.pr, t->pc = p.pc, t->a = p.a, t->b = p.b;
	t->r0 = p.r0, t->r1 = p.r1, t->c0 = p.c0, t->c1 = p.c1;
	t->m = m;
	const gvk_mpi_ld_part_t *q = t->sub;
	if (q && (q->r0 != p.r0 || q->r1 != p.r1 || q->c0 != p.c0 || q->c1 != p.c1))
		return gvk_err_set(err, GVK_ERR_IO, "the output changed kind (file, device or standard output) after the input was read");
	return 0;
}

static int io_write(tile_t *t, long long off, const char *p, size_t n)
{
	for (size_t o = 0; o < n && !t->io_bad; o += MAX_IO) {
		int k = (int)(n - o < MAX_IO ? n - o : MAX_IO);
		MPI_Offset at = (MPI_Offset)(off + (long long)o);
		if (MPI_File_write_at(t->fh, at, p + o, k, MPI_BYTE, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			t->io_bad = 1;
	}
	return t->io_bad ? -1 : 0;
}

static int bin_flush(tile_t *t, gvk_err_t *err)
{
	if (t->len && io_write(t, t->run_off, t->buf, t->len) < 0)
		return gvk_err_set(err, GVK_ERR_IO, "MPI-IO write error");
	t->run_off += (long long)t->len;
	t->len = 0;
	return 0;
}

static int reserve(tile_t *t, size_t more, gvk_err_t *err)
{
	if (t->len + more <= t->cap) return 0;
	size_t cap = (t->len + more) * 2;
	char *b = realloc(t->buf, cap);
	if (!b) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	t->buf = b, t->cap = cap;
	return 0;
}

/* Row i's columns of this tile, as write_matrix (ld_write.c) formats them. */
static int64_t row_cols(const tile_t *t, int64_t i, int64_t *ncol)
{
	*ncol = t->wr->shape == LD_TRIANGLE ? i + 1 : t->m;
	int64_t e = t->c1 < *ncol ? t->c1 : *ncol;
	return e > t->c0 ? e - t->c0 : 0;
}

static double value(const tile_t *t, const ld_stripe_t *s, int64_t i, int64_t j)
{
	if (t->wr->shape == LD_SQUARE0 && j > i) return 0.0;
	double v = s->r[(size_t)(i - s->i0) * (size_t)s->width + (size_t)(j - s->cbase)];
	return t->wr->r2 && !isnan(v) ? fabs(v) : v;
}

/* Binary tile rows straight to their offsets; rows that follow each other in the file are
 * written as one run. */
static int sink_bin(tile_t *t, const ld_stripe_t *s, gvk_err_t *err)
{
	int bs = t->wr->bin;
	for (int64_t i = s->i0; i < s->i1; ++i) {
		int64_t ncol, n = row_cols(t, i, &ncol);
		t->wr->written += (uint64_t)n;
		if (n == 0) continue;
		long long start = t->wr->shape == LD_TRIANGLE ? (long long)i * (i + 1) / 2 : (long long)i * t->m;
		long long off = (start + t->c0) * bs;
		if (off != t->run_off + (long long)t->len && bin_flush(t, err) < 0) return GVK_ERR_IO;
		if (t->len == 0) t->run_off = off;
		if (reserve(t, (size_t)n * 8, err) < 0) return GVK_ERR_NOMEM;
		for (int64_t j = t->c0; j < t->c0 + n; ++j) {
			double v = value(t, s, i, j);
			if (bs == 8) {
				memcpy(t->buf + t->len, &v, 8);
			} else {
				float f = (float)v;
				memcpy(t->buf + t->len, &f, 4);
			}
			t->len += (size_t)bs;
		}
		if (t->len >= CHUNK && bin_flush(t, err) < 0) return GVK_ERR_IO;
	}
	return 0;
}

/* Text tile rows (a row block of several column blocks) to the part, with each row's bytes. */
static int sink_text_tile(tile_t *t, const ld_stripe_t *s, gvk_err_t *err)
{
	char sep = t->wr->spaces ? ' ' : '\t';
	for (int64_t i = s->i0; i < s->i1; ++i) {
		int64_t ncol, n = row_cols(t, i, &ncol);
		t->wr->written += (uint64_t)n;
		if (n == 0) continue;
		t->len = 0;
		if (reserve(t, (size_t)n * 16 + 2, err) < 0) return GVK_ERR_NOMEM;
		for (int64_t j = t->c0; j < t->c0 + n; ++j) {
			t->len += (size_t)ld_fmt_g(t->buf + t->len, value(t, s, i, j));
			if (t->wr->spaces || j + 1 < ncol) t->buf[t->len++] = sep;
		}
		if (t->c0 + n == ncol) t->buf[t->len++] = '\n';
		if (fwrite(t->buf, 1, t->len, t->part) != t->len)
			return gvk_err_set(err, GVK_ERR_IO, "cannot write this rank's part");
		t->seg[i - t->r0] = (int64_t)t->len;
	}
	t->len = 0;
	return 0;
}

/* A stripe of the part in the set's indices, for the writers (which index d, the whole set). */
static int to_set(tile_t *t, const ld_stripe_t *s, ld_stripe_t *g, gvk_err_t *err)
{
	int64_t nr = s->i1 - s->i0;
	if (nr > t->jcap) {
		int64_t *a = realloc(t->jlo, sizeof *a * (size_t)nr), *b = a ? realloc(t->jhi, sizeof *b * (size_t)nr) : NULL;
		if (a) t->jlo = a;
		if (b) t->jhi = b;
		if (!a || !b) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		t->jcap = nr;
	}
	*g = *s;
	g->i0 += t->off_r, g->i1 += t->off_r, g->cbase += t->off_c;
	for (int64_t k = 0; k < nr; ++k) t->jlo[k] = s->jlo[k] + t->off_c, t->jhi[k] = s->jhi[k] + t->off_c;
	g->jlo = t->jlo, g->jhi = t->jhi;
	return 0;
}

static int sink(void *ctx, const ld_stripe_t *s0, gvk_err_t *err)
{
	tile_t *t = ctx;
	ld_stripe_t g;
	const ld_stripe_t *s = s0;
	if (t->sub) {
		if (to_set(t, s0, &g, err) < 0) return GVK_ERR_NOMEM;
		s = &g;
	}
	if (!t->shared) return ld_writer_sink(t->wr, s, err);
	if (t->wr->bin) return sink_bin(t, s, err);
	if (t->seg) return sink_text_tile(t, s, err);
	return ld_writer_sink(t->wr, s, err);
}

/* Copies n bytes of the part, from its start, to the file at off. */
static int copy_part(tile_t *t, long long off, gvk_err_t *err)
{
	if (fflush(t->part) != 0 || fseeko(t->part, 0, SEEK_SET) != 0)
		return gvk_err_set(err, GVK_ERR_IO, "cannot read back this rank's part");
	if (reserve(t, CHUNK, err) < 0) return GVK_ERR_NOMEM;
	for (size_t n; (n = fread(t->buf, 1, CHUNK, t->part)) > 0; off += (long long)n)
		if (io_write(t, off, t->buf, n) < 0) return gvk_err_set(err, GVK_ERR_IO, "MPI-IO write error");
	return ferror(t->part) ? gvk_err_set(err, GVK_ERR_IO, "cannot read back this rank's part") : 0;
}

/* A contiguous text part (one column block): its offset is the bytes of the ranks before. */
static int place_part(tile_t *t, int rc, gvk_err_t *err)
{
	long long mine = rc == 0 ? (long long)ftello(t->part) : 0, off = 0;
	MPI_Exscan(&mine, &off, 1, MPI_LONG_LONG, MPI_SUM, t->w.comm);
	if (t->w.rank == 0) off = 0;
	return rc == 0 ? copy_part(t, off, err) : rc;
}

/* Text tiles of a row block shared by pc ranks: a row's pieces follow each other in column
 * order (MPI_Exscan in the row block), the rows in row order, the row blocks in rank order. */
static int place_tiles(tile_t *t, int rc, gvk_err_t *err)
{
	int64_t nr = t->r1 - t->r0;
	MPI_Comm row;
	MPI_Comm_split(t->w.comm, t->a, t->b, &row);
	long long *len = calloc((size_t)nr + 1, sizeof *len), *before = calloc((size_t)nr + 1, sizeof *before);
	if (!len || !before) rc = rc ? rc : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	for (int64_t k = 0; k < nr && len; ++k) len[k] = t->seg[k];
	/* every rank takes part in the collectives, also after a failure, so that none waits */
	long long *tot = calloc((size_t)nr + 1, sizeof *tot), *l = len ? len : tot, *bf = before ? before : tot;
	if (!tot) rc = rc ? rc : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	int ok = len && before && tot;
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, t->w.comm);
	if (!ok && rc == 0) rc = gvk_err_set(err, GVK_ERR_NOMEM, "stopped: a rank ran out of memory");
	if (ok) {
		MPI_Exscan(l, bf, (int)nr, MPI_LONG_LONG, MPI_SUM, row);
		if (t->b == 0) memset(bf, 0, sizeof *bf * (size_t)nr);
		MPI_Allreduce(l, tot, (int)nr, MPI_LONG_LONG, MPI_SUM, row);
	}
	long long block = 0, start = 0;
	for (int64_t k = 0; ok && k < nr; ++k) block += tot[k];
	long long mine = t->b == t->pc - 1 ? block : 0; /* counted once per row block, after its ranks */
	MPI_Exscan(&mine, &start, 1, MPI_LONG_LONG, MPI_SUM, t->w.comm);
	if (t->w.rank == 0) start = 0;
	MPI_Comm_free(&row);
	if (rc == 0 && (fflush(t->part) != 0 || fseeko(t->part, 0, SEEK_SET) != 0))
		rc = gvk_err_set(err, GVK_ERR_IO, "cannot read back this rank's part");
	long long off = start;
	for (int64_t k = 0; rc == 0 && k < nr; off += tot[k], ++k) {
		size_t n = (size_t)len[k];
		if (n == 0) continue;
		t->len = 0;
		if (reserve(t, n, err) < 0) rc = GVK_ERR_NOMEM;
		else if (fread(t->buf, 1, n, t->part) != n)
			rc = gvk_err_set(err, GVK_ERR_IO, "cannot read back this rank's part");
		else if (io_write(t, off + before[k], t->buf, n) < 0) rc = gvk_err_set(err, GVK_ERR_IO, "MPI-IO write error");
	}
	t->len = 0;
	free(len), free(before), free(tot);
	return rc;
}

/* Where the output goes: 1 for MPI-IO into a temporary, 0 through rank 0 (gzip, standard
 * output, a device or fifo). Decided on rank 0, the temporary's name sent to all. */
static int open_shared(tile_t *t, const gvk_ld_files_t *files, const char *path, int gz, char *tmp, size_t tmp_len, int *rc,
                       gvk_err_t *err)
{
	int mode = 0;
	if (t->w.rank == 0) {
		struct stat sb;
		mode = !gz && path && strcmp(path, "-") && !(stat(path, &sb) == 0 && !S_ISREG(sb.st_mode));
		const char *name = mode && *rc == 0 ? files->name(files->arg, path, err) : NULL;
		if (mode && *rc == 0 && !name) *rc = GVK_ERR_IO;
		snprintf(tmp, tmp_len, "%s", name ? name : "");
	}
	MPI_Bcast(&mode, 1, MPI_INT, 0, t->w.comm);
	MPI_Bcast(tmp, (int)tmp_len, MPI_CHAR, 0, t->w.comm);
	*rc = gvk_mpi_agree(&t->w, *rc, err);
	if (!mode || *rc < 0) return mode;
	int e = MPI_File_open(t->w.comm, tmp, MPI_MODE_WRONLY, MPI_INFO_NULL, &t->fh);
	if (e != MPI_SUCCESS) {
		char msg[MPI_MAX_ERROR_STRING];
		int n = 0;
		MPI_Error_string(e, msg, &n);
		*rc = gvk_err_set(err, GVK_ERR_IO, "%s: cannot open with MPI-IO: %s", path, msg);
		t->fh = MPI_FILE_NULL;
	}
	*rc = gvk_mpi_agree(&t->w, *rc, err);
	return mode;
}

/* The engine on this rank's tile: on d, or on the part it decoded, its rows and columns taken to
 * the part's indices (the sink takes the stripes back to the set's). */
static int run_engine(tile_t *t, const snp_data_t *d, const ld_opt_t *o, ld_report_t *rep, gvk_err_t *err)
{
	const gvk_mpi_ld_part_t *p = t->sub;
	if (!p) return ld_run(d, o, sink, t, rep, err);
	ld_opt_t q = *o;
	int64_t r = gvk_mpi_ld_local(p, t->r0);
	t->off_r = t->r0 - r;
	q.row0 = r, q.row1 = r + (t->r1 - t->r0);
	if (o->shape == LD_TABLE) {
		/* one run from lo[0]: the input's per-SNP arrays shift with it */
		t->off_c = t->off_r;
		q.idx1 = o->idx1 ? o->idx1 + p->lo[0] : NULL;
		q.row = o->row ? o->row + p->lo[0] : NULL;
		return ld_run(&p->d, &q, sink, t, rep, err);
	}
	int64_t c1 = (o->shape == LD_TRIANGLE || o->shape == LD_SQUARE0) && t->c1 > t->r1 ? t->r1 : t->c1;
	if (c1 > t->c0) {
		int64_t c = gvk_mpi_ld_local(p, t->c0);
		t->off_c = t->c0 - c;
		q.col0 = c, q.col1 = c + (c1 - t->c0);
	} else {
		/* no column at or below the diagonal: the rows' stripes come empty */
		t->off_c = 0;
		q.col0 = q.col1 = q.row1;
	}
	return ld_run(&p->d, &q, sink, t, rep, err);
}

/* The run through rank 0 (gzip, standard output, devices): the rows of this rank to a part,
 * the parts joined on rank 0. */
static int run_funnel(tile_t *t, const gvk_ld_files_t *files, const char *path, const snp_data_t *d, const ld_opt_t *o,
                      ld_report_t *rep, int gz, gvk_err_t *err)
{
	int rc = 0;
	if (t->r1 > t->r0) rc = run_engine(t, d, o, rep, err);
	if (rc == 0) rc = ld_writer_finish(t->wr, err);
	rc = gvk_mpi_agree(&t->w, rc, err);
	FILE *out = NULL;
	if (rc == 0 && t->w.rank == 0 && !(out = files->open(files->arg, path, err))) rc = GVK_ERR_IO;
	rc = gvk_mpi_agree(&t->w, rc, err);
	if (rc == 0) rc = gvk_mpi_gather_ordered(&t->w, t->part, out, gz, err);
	t->wr->fp = out;
	return rc;
}

static int run_shared(tile_t *t, const snp_data_t *d, const ld_opt_t *o, ld_report_t *rep, gvk_err_t *err)
{
	int rc = 0;
	if (t->r1 > t->r0 && t->c1 > t->c0) rc = run_engine(t, d, o, rep, err);
	if (rc == 0 && t->wr->bin) rc = bin_flush(t, err);
	else if (rc == 0 && !t->seg) rc = ld_writer_finish(t->wr, err);
	if (!t->wr->bin) rc = t->seg ? place_tiles(t, rc, err) : place_part(t, rc, err);
	if (MPI_File_close(&t->fh) != MPI_SUCCESS && rc == 0)
		rc = gvk_err_set(err, GVK_ERR_IO, "MPI-IO: cannot close the output");
	return gvk_mpi_agree(&t->w, rc, err);
}

/* Leaves the part empty: the table's header belongs to rank 0's part alone. */
static int drop_header(FILE *fp, ld_writer_t *w)
{
	w->written = 0;
	return fflush(fp) == 0 && ftruncate(fileno(fp), 0) == 0 && fseeko(fp, 0, SEEK_SET) == 0 ? 0 : -1;
}

int gvk_mpi_ld(const gvk_ld_files_t *files, const char *path, ld_writer_t *wr, const snp_data_t *d, const gvk_mpi_ld_part_t *part,
               ld_opt_t *o, ld_report_t *rep, int *writes, gvk_err_t *err)
{
	tile_t t = {.wr = wr, .o = o, .fh = MPI_FILE_NULL, .sub = part};
	gvk_mpi_world_get(&t.w);
	*writes = t.w.rank == 0;
	int gz = wr->gz, rc = 0;
	char tmp[4096] = "";
	int shared = open_shared(&t, files, path, gz, tmp, sizeof tmp, &rc, err);
	if (rc < 0) {
		if (t.fh != MPI_FILE_NULL) MPI_File_close(&t.fh);
		return rc;
	}
	t.shared = shared;
	rc = gvk_mpi_agree(&t.w, plan_tile(&t, o->shape, d->n_snp, err), err);
	if (rc == 0) {
		o->row0 = t.r0, o->row1 = t.r1, o->col0 = t.c0, o->col1 = t.c1;
		/* the parts are plain text; rank 0 compresses them as one stream */
		wr->gz = 0;
		if ((!shared || !wr->bin) && !(t.part = tmpfile()))
			rc = gvk_err_set(err, GVK_ERR_IO, "cannot make a temporary file for this rank's part");
		if (rc == 0 && !wr->bin && t.pc > 1 && !(t.seg = calloc((size_t)(t.r1 - t.r0) + 1, sizeof *t.seg)))
			rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		wr->fp = t.part;
		if (rc == 0) rc = ld_writer_init(wr, err);
		if (rc == 0 && t.part && t.w.rank > 0 && drop_header(t.part, wr) < 0)
			rc = gvk_err_set(err, GVK_ERR_IO, "cannot reset this rank's part");
		if (rc == 0 && t.seg) wr->written = 0; /* the tile rows come from sink_text_tile */
		if (shared) rc = run_shared(&t, d, o, rep, err);
		else rc = run_funnel(&t, files, path, d, o, rep, gz, err);
	} else if (shared) {
		MPI_File_close(&t.fh);
	}
	if (rc == 0) {
		unsigned long long v[2] = {rep->pairs, wr->written}, s[2];
		MPI_Allreduce(v, s, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, t.w.comm);
		rep->pairs = s[0], wr->written = s[1];
	}
	wr->gz = gz;
	if (shared) wr->fp = NULL;
	if (t.part) fclose(t.part);
	free(t.seg);
	free(t.buf);
	free(t.jlo), free(t.jhi);
	return rc;
}

/* The hooks of a gvk ld job over the ranks: this file's and mpi_ld_read.c's and mpi_ld_prune.c's
 * drivers, with what the job passes as untyped parts. */
typedef struct {
	ld_job_split_t sp;
	int quiet;
} job_split_t;

static int hook_mind(void *ctx, const char *bed, const int64_t *src, const snp_data_t *d, const snp_samples_t *ss,
                     int64_t *miss, gvk_err_t *err)
{
	(void)ctx;
	return gvk_mpi_ld_mind_count(bed, src, d, ss, miss, err);
}

static int hook_qc(void *ctx, const ld_split_bed_t *b, const snp_data_t *d, const ld_split_qc_t *q, uint8_t *keep,
                   double *rates, int64_t n[3], gvk_err_t *err)
{
	(void)ctx;
	gvk_mpi_bed_t mb = {b->bed, b->src, b->n_rows, b->n_samples, b->c};
	gvk_mpi_ld_qc_t mq = {q->geno, q->hwe, q->maf, q->midp};
	return gvk_mpi_ld_qc(&mb, d, &mq, keep, rates, n, err);
}

static int hook_read(void *ctx, const ld_split_bed_t *b, snp_data_t *d, const ld_opt_t *o, int mode, const char *path,
                     int gz, void **part, double *rates, gvk_err_t *err)
{
	(void)ctx;
	gvk_mpi_bed_t mb = {b->bed, b->src, b->n_rows, b->n_samples, b->c};
	int m = mode == LD_SPLIT_CHROMS ? GVK_MPI_LD_CHROMS : mode == LD_SPLIT_BOTH_SIDES ? GVK_MPI_LD_BOTH_SIDES : GVK_MPI_LD_TILE;
	gvk_mpi_ld_part_t *p = NULL;
	int rc = gvk_mpi_ld_read(&mb, d, o, m, path, gz, &p, rates, err);
	*part = p;
	return rc;
}

static void hook_say(void *ctx, const void *part, int64_t m)
{
	const job_split_t *s = ctx;
	if (!s->quiet) gvk_mpi_ld_say_part(part, m);
}

static void hook_free(void *part) { gvk_mpi_ld_part_free(part); }

static int hook_prune(void *ctx, const void *part, const snp_data_t *d, const ld_prune_opt_t *o, uint8_t *pruned,
                      uint8_t *skip, ld_prune_report_t *rep, gvk_err_t *err)
{
	(void)ctx;
	return gvk_mpi_ld_prune(part, d, o, pruned, skip, rep, err);
}

static int hook_table(void *ctx, const gvk_ld_files_t *files, const char *path, ld_writer_t *wr, const snp_data_t *d,
                      const void *part, ld_opt_t *o, ld_report_t *rep, int *writes, gvk_err_t *err)
{
	(void)ctx;
	return gvk_mpi_ld(files, path, wr, d, part, o, rep, writes, err);
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
	s->quiet = quiet;
	s->sp = (ld_job_split_t){w.rank, s, hook_mind, hook_qc, hook_read, hook_say, hook_free, hook_prune, hook_table};
	ld_job_split(j, &s->sp);
	*split = s;
	return 0;
}
