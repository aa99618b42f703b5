/* SPDX-License-Identifier: MIT */
/* The table or matrix of a split job. Tables are cut into contiguous SNP rows (the window runs
 * into the next process's rows), matrices into a grid of tiles (row blocks x column blocks) of
 * equal pairs: equal rows and columns for square, equal areas for triangle and square0. Each
 * process writes its bytes at their offsets of one temporary opened by all (the caller's
 * write_at): binary matrices directly (offsets follow from the shape), text from a local part
 * once the byte counts are known; process 0's caller renames the temporary into place after every
 * process succeeded. gzip output (one deflate stream) and outputs that are not regular files go
 * through process 0 in order instead (ld_split_out.c). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ld_job_split.h"
#include "../common/err.h"

enum { CHUNK = 4 << 20 };

typedef struct {
	const gvk_ld_split_t *sp;
	int pr, pc, a, b;       /* the grid and this process's tile in it (rank = a * pc + b) */
	int64_t r0, r1, c0, c1; /* the tile's rows and columns */
	int64_t m;
	ld_writer_t *wr;
	int opened;             /* the shared output is open */
	int shared;             /* written by name into one temporary (else through process 0) */
	int io_bad;             /* a write of the shared output failed */
	FILE *part;             /* text: this process's bytes in order */
	int64_t *seg;           /* text tiles of a row block shared by several processes: bytes per row */
	char *buf;              /* binary: one contiguous run of the file */
	size_t len, cap;
	long long run_off;
	const ld_opt_t *o;
	const ld_split_part_t *sub; /* the SNPs this process decoded; NULL: d holds all */
	int64_t off_r, off_c;   /* the set's index of a part's row or column: the part's + these */
	int64_t *jlo, *jhi;     /* a stripe's column ranges in the set's indices */
	int64_t jcap;
} tile_t;

/* This process's tile, the same as the one its part was read for. */
static int plan_tile(tile_t *t, int shape, int64_t m, gvk_err_t *err)
{
	ld_split_part_t p = {0};
	int rc = ld_split_plan(t->sp, t->sp->rank, shape, m, t->shared, &p, err);
	if (rc < 0) return rc;
	t->pr = p.pr, t->pc = p.pc, t->a = p.a, t->b = p.b;
	t->r0 = p.r0, t->r1 = p.r1, t->c0 = p.c0, t->c1 = p.c1;
	t->m = m;
	const ld_split_part_t *q = t->sub;
	if (q && (q->r0 != p.r0 || q->r1 != p.r1 || q->c0 != p.c0 || q->c1 != p.c1))
		return gvk_err_set(err, GVK_ERR_IO, "the output changed kind (file, device or standard output) after the input was read");
	return 0;
}

static int io_write(tile_t *t, long long off, const char *p, size_t n)
{
	if (!t->io_bad && t->sp->write_at(t->sp->ctx, (int64_t)off, p, (int64_t)n) < 0) t->io_bad = 1;
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

/* The sum of v over the processes before this one (*before), or -1 when a process ran out of memory. */
static int sum_before(const tile_t *t, int64_t v, long long *before)
{
	const gvk_ld_split_t *sp = t->sp;
	int64_t *cnt = malloc(sizeof *cnt * (size_t)sp->size), *at = malloc(sizeof *at * (size_t)sp->size);
	int64_t *all = malloc(sizeof *all * (size_t)sp->size), ok = cnt && at && all;
	sp->reduce(sp->ctx, &ok, 1, GVK_LD_SPLIT_MIN);
	for (int r = 0; ok && r < sp->size; ++r) cnt[r] = sizeof *all, at[r] = r * (int64_t)sizeof *all, all[r] = 0;
	if (ok) all[sp->rank] = v, sp->gather(sp->ctx, all, cnt, at);
	*before = 0;
	for (int r = 0; ok && r < sp->rank; ++r) *before += all[r];
	free(cnt), free(at), free(all);
	return ok ? 0 : -1;
}

/* A contiguous text part (one column block): its offset is the bytes of the processes before. */
static int place_part(tile_t *t, int rc, gvk_err_t *err)
{
	long long mine = rc == 0 ? (long long)ftello(t->part) : 0, off = 0;
	if (sum_before(t, mine, &off) < 0 && rc == 0) rc = gvk_err_set(err, GVK_ERR_NOMEM, "stopped: a rank ran out of memory");
	return rc == 0 ? copy_part(t, off, err) : rc;
}

/* Every process's row lengths (seg) gathered into *all, those of process r from (*at)[r] on, (*cnt)[r]
 * of them. */
static int gather_rows(tile_t *t, int64_t nr, int64_t **all, int64_t **cnt, int64_t **at, gvk_err_t *err)
{
	const gvk_ld_split_t *sp = t->sp;
	int64_t tot = 0;
	int rc = ld_split_spans(sp, nr, 0, sizeof **all, cnt, at, err);
	for (int r = 0; rc == 0 && r < sp->size; ++r) (*at)[r] = tot, tot += (*cnt)[r];
	*all = rc == 0 ? malloc((size_t)tot + sizeof **all) : NULL;
	int64_t ok = rc == 0 && *all;
	sp->reduce(sp->ctx, &ok, 1, GVK_LD_SPLIT_MIN);
	if (ok) {
		if (nr) memcpy((char *)*all + (*at)[sp->rank], t->seg, sizeof **all * (size_t)nr);
		sp->gather(sp->ctx, *all, *cnt, *at);
		for (int r = 0; r < sp->size; ++r) (*cnt)[r] /= (int64_t)sizeof **all, (*at)[r] /= (int64_t)sizeof **all;
	} else if (rc == 0) {
		rc = gvk_err_set(err, GVK_ERR_NOMEM, "stopped: a rank ran out of memory");
	}
	return rc;
}

/* Writes the part's rows: row k's piece at off + before (the pieces of the row's processes left of
 * this one), off moving on by the whole row (tot). */
static int write_rows(tile_t *t, const int64_t *all, const int64_t *at, long long off, gvk_err_t *err)
{
	int64_t nr = t->r1 - t->r0;
	int first = t->a * t->pc;
	if (fflush(t->part) != 0 || fseeko(t->part, 0, SEEK_SET) != 0)
		return gvk_err_set(err, GVK_ERR_IO, "cannot read back this rank's part");
	int rc = 0;
	for (int64_t k = 0; rc == 0 && k < nr; ++k) {
		long long before = 0, tot = 0;
		for (int b = 0; b < t->pc; ++b) {
			long long len = all[at[first + b] + k];
			tot += len;
			if (b < t->b) before += len;
		}
		size_t n = (size_t)t->seg[k];
		if (n) {
			t->len = 0;
			if (reserve(t, n, err) < 0) rc = GVK_ERR_NOMEM;
			else if (fread(t->buf, 1, n, t->part) != n)
				rc = gvk_err_set(err, GVK_ERR_IO, "cannot read back this rank's part");
			else if (io_write(t, off + before, t->buf, n) < 0) rc = gvk_err_set(err, GVK_ERR_IO, "MPI-IO write error");
		}
		off += tot;
	}
	t->len = 0;
	return rc;
}

/* Text tiles of a row block shared by pc processes: a row's pieces follow each other in column
 * order, the rows in row order, the row blocks in rank order; every process's row lengths tell
 * where its pieces go. */
static int place_tiles(tile_t *t, int rc, gvk_err_t *err)
{
	int64_t *all = NULL, *cnt = NULL, *at = NULL;
	/* every process takes part in the gathers, also after a failure, so that none waits */
	int g = gather_rows(t, t->r1 - t->r0, &all, &cnt, &at, err);
	if (rc == 0) rc = g;
	long long start = 0;
	/* the row blocks before this one, whole */
	for (int r = 0; rc == 0 && r < t->a * t->pc; ++r)
		for (int64_t k = 0; k < cnt[r]; ++k) start += all[at[r] + k];
	if (rc == 0) rc = write_rows(t, all, at, start, err);
	free(all), free(cnt), free(at);
	return rc;
}

/* Where the output goes: 1 by name into a temporary opened by all, 0 through process 0 (gzip,
 * standard output, a device or fifo). Decided on process 0, the temporary's name sent to all. */
static int open_shared(tile_t *t, file_hooks_t *files, const char *path, int gz, char *tmp, size_t tmp_len, int *rc,
                       gvk_err_t *err)
{
	const gvk_ld_split_t *sp = t->sp;
	int mode = ld_split_shared(sp, path, gz);
	if (sp->rank == 0) {
		const char *name = mode && *rc == 0 ? file_hooks_name(files, path, err) : NULL;
		if (mode && *rc == 0 && !name) *rc = GVK_ERR_IO;
		snprintf(tmp, tmp_len, "%s", name ? name : "");
	}
	sp->bcast(sp->ctx, tmp, (int64_t)tmp_len);
	*rc = sp->agree(sp->ctx, *rc, err);
	if (!mode || *rc < 0) return mode;
	gvk_err_t e = {0};
	if (sp->open(sp->ctx, tmp, &e) < 0) *rc = gvk_err_set(err, GVK_ERR_IO, "%s: %s", path, e.msg);
	else t->opened = 1;
	*rc = sp->agree(sp->ctx, *rc, err);
	return mode;
}

/* The engine on this process's tile: on d, or on the part it decoded, its rows and columns taken to
 * the part's indices (the sink takes the stripes back to the set's). */
static int run_engine(tile_t *t, const snp_data_t *d, const ld_opt_t *o, ld_report_t *rep, gvk_err_t *err)
{
	const ld_split_part_t *p = t->sub;
	if (!p) return ld_run(d, o, sink, t, rep, err);
	ld_opt_t q = *o;
	int64_t r = ld_split_local(p, t->r0);
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
		int64_t c = ld_split_local(p, t->c0);
		t->off_c = t->c0 - c;
		q.col0 = c, q.col1 = c + (c1 - t->c0);
	} else {
		/* no column at or below the diagonal: the rows' stripes come empty */
		t->off_c = 0;
		q.col0 = q.col1 = q.row1;
	}
	return ld_run(&p->d, &q, sink, t, rep, err);
}

/* The run through process 0 (gzip, standard output, devices): the rows of this process to a part,
 * the parts joined on process 0. */
static int run_funnel(tile_t *t, file_hooks_t *files, const char *path, const snp_data_t *d, const ld_opt_t *o,
                      ld_report_t *rep, int gz, gvk_err_t *err)
{
	int rc = 0;
	if (t->r1 > t->r0) rc = run_engine(t, d, o, rep, err);
	if (rc == 0) rc = ld_writer_finish(t->wr, err);
	rc = t->sp->agree(t->sp->ctx, rc, err);
	FILE *out = NULL;
	if (rc == 0 && t->sp->rank == 0 && !(out = file_hooks_open(files, path, err))) rc = GVK_ERR_IO;
	rc = t->sp->agree(t->sp->ctx, rc, err);
	if (rc == 0) rc = ld_split_funnel(t->sp, t->part, out, gz, err);
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
	t->opened = 0;
	if (t->sp->close(t->sp->ctx) < 0 && rc == 0) rc = gvk_err_set(err, GVK_ERR_IO, "MPI-IO: cannot close the output");
	return t->sp->agree(t->sp->ctx, rc, err);
}

/* Leaves the part empty: the table's header belongs to process 0's part alone. */
static int drop_header(FILE *fp, ld_writer_t *w)
{
	w->written = 0;
	return fflush(fp) == 0 && ftruncate(fileno(fp), 0) == 0 && fseeko(fp, 0, SEEK_SET) == 0 ? 0 : -1;
}

int ld_split_table(const gvk_ld_split_t *sp, file_hooks_t *files, const char *path, ld_writer_t *wr,
                   const snp_data_t *d, const ld_split_part_t *part, ld_opt_t *o, ld_report_t *rep, int *writes,
                   gvk_err_t *err)
{
	tile_t t = {.sp = sp, .wr = wr, .o = o, .sub = part};
	*writes = sp->rank == 0;
	int gz = wr->gz, rc = 0;
	char tmp[4096] = "";
	int shared = open_shared(&t, files, path, gz, tmp, sizeof tmp, &rc, err);
	if (rc < 0) {
		if (t.opened) sp->close(sp->ctx);
		return rc;
	}
	t.shared = shared;
	rc = sp->agree(sp->ctx, plan_tile(&t, o->shape, d->n_snp, err), err);
	if (rc == 0) {
		o->row0 = t.r0, o->row1 = t.r1, o->col0 = t.c0, o->col1 = t.c1;
		/* the parts are plain text; process 0 compresses them as one stream */
		wr->gz = 0;
		if ((!shared || !wr->bin) && !(t.part = tmpfile()))
			rc = gvk_err_set(err, GVK_ERR_IO, "cannot make a temporary file for this rank's part");
		if (rc == 0 && !wr->bin && t.pc > 1 && !(t.seg = calloc((size_t)(t.r1 - t.r0) + 1, sizeof *t.seg)))
			rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		wr->fp = t.part;
		if (rc == 0) rc = ld_writer_init(wr, err);
		if (rc == 0 && t.part && sp->rank > 0 && drop_header(t.part, wr) < 0)
			rc = gvk_err_set(err, GVK_ERR_IO, "cannot reset this rank's part");
		if (rc == 0 && t.seg) wr->written = 0; /* the tile rows come from sink_text_tile */
		if (shared) rc = run_shared(&t, d, o, rep, err);
		else rc = run_funnel(&t, files, path, d, o, rep, gz, err);
	} else if (t.opened) {
		sp->close(sp->ctx);
	}
	if (rc == 0) {
		int64_t v[2] = {(int64_t)rep->pairs, (int64_t)wr->written};
		sp->reduce(sp->ctx, v, 2, GVK_LD_SPLIT_SUM);
		rep->pairs = (uint64_t)v[0], wr->written = (uint64_t)v[1];
	}
	wr->gz = gz;
	if (shared) wr->fp = NULL;
	if (t.part) fclose(t.part);
	free(t.seg);
	free(t.buf);
	free(t.jlo), free(t.jhi);
	return rc;
}

