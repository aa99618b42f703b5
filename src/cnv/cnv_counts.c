/* SPDX-License-Identifier: MIT */
/* Count-matrix TSV input: 'chr start end S1 .. SN' (or sample names only), validated line by line. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../common/err.h"
#include "../common/lineio.h"
#include "../common/threads.h"
#include "cnv.h"

/* Splits line at tabs in place; returns the number of fields (up to cap stored). */
static int split_tabs(char *line, char **f, int cap)
{
	int n = 0;
	for (char *p = line;;) {
		if (n < cap) f[n] = p;
		++n;
		char *t = strchr(p, '\t');
		if (!t) break;
		*t = 0;
		p = t + 1;
	}
	return n;
}

static int parse_uint(const char *s, int64_t *v)
{
	if (!*s) return -1;
	int64_t x = 0;
	for (; *s; ++s) {
		if (*s < '0' || *s > '9' || x > (INT64_MAX - 9) / 10) return -1;
		x = x * 10 + (*s - '0');
	}
	*v = x;
	return 0;
}

/* Counts are held as doubles: above 2^53 neighbouring integers collapse, so a larger count would
 * be read as a different number without a word. */
#define COUNT_MAX 9007199254740992ULL

/* Decimal digits only, at most COUNT_MAX: 0, -1 (not a non-negative integer), -2 (too large). */
static int parse_count(const char *s, double *v)
{
	if (!*s) return -1;
	uint64_t x = 0;
	int big = 0;
	for (; *s; ++s) {
		if (*s < '0' || *s > '9') return -1;
		if (!big) x = x * 10 + (uint64_t)(*s - '0');
		big |= x > COUNT_MAX;
	}
	if (big) return -2;
	*v = (double)x;
	return 0;
}

static int is_coord_header(char **f, int nf)
{
	if (nf < 3) return 0;
	const char *c = f[0][0] == '#' ? f[0] + 1 : f[0];
	return (!strcasecmp(c, "chr") || !strcasecmp(c, "chrom") || !strcasecmp(c, "seqnames") || !strcasecmp(c, "seqname")) &&
	       !strcasecmp(f[1], "start") && !strcasecmp(f[2], "end");
}

typedef struct {
	double *rows; /* row-major while reading */
	size_t m, cap;
	int64_t *start, *end;
	int *seq_of_row;
} acc_t;

/* Room for `want` rows in all. */
static int acc_grow(acc_t *a, int N, size_t want)
{
	if (want <= a->cap) return 0;
	size_t nc = a->cap ? a->cap * 2 : 1024;
	if (nc < want) nc = want;
	double *r = realloc(a->rows, nc * (size_t)N * sizeof *r);
	if (r) a->rows = r;
	int64_t *s = r ? realloc(a->start, nc * sizeof *s) : NULL;
	if (s) a->start = s;
	int64_t *e = s ? realloc(a->end, nc * sizeof *e) : NULL;
	if (e) a->end = e;
	int *q = e ? realloc(a->seq_of_row, nc * sizeof *q) : NULL;
	if (q) a->seq_of_row = q;
	if (!q) return -1;
	a->cap = nc;
	return 0;
}

enum { BODY_BLOCK = 64 << 20 }; /* bytes of lines parsed at once by all threads */

/* One thread's share of a block: whole lines [beg, end), their first line number and row. */
typedef struct {
	char *beg, *end;
	long line0, lines, err_line;
	size_t row0, rows, done; /* done: rows parsed before an error */
	int err_code;
	char msg[400];
	char *tail; /* the input's last line when it has no '\n', copied to end it with a NUL */
} piece_t;

typedef struct {
	gvk_cnv_counts_t *c;
	acc_t *a;
	const char *fn;
	int coords, off, nf, N, nth;
	int last_q, qcap;
	const char **names; /* per row of the block: sequence name (in the block) and line number */
	long *lines;
	size_t names_cap;
	piece_t *piece;
} body_t;

static void piece_err(piece_t *p, long ln, const char *fmt, ...) GVK_PRINTF(3, 4);
static void piece_err(piece_t *p, long ln, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof p->msg, fmt, ap);
	va_end(ap);
	p->err_line = ln, p->err_code = GVK_ERR_FORMAT;
}

/* Lines and records of a piece (empty lines and a lone '\r' hold no record, as line by line). */
static void count_worker(void *arg, int tid)
{
	body_t *bd = arg;
	piece_t *p = &bd->piece[tid];
	size_t rows = 0;
	long n = 0;
	for (const char *q = p->beg; q < p->end; ++n) {
		const char *nl = memchr(q, '\n', (size_t)(p->end - q)), *le = nl ? nl : p->end;
		if (le > q && !(le - q == 1 && *q == '\r')) ++rows;
		q = nl ? nl + 1 : p->end;
	}
	p->rows = rows, p->lines = n;
}

static int parse_line(body_t *bd, piece_t *p, char *line, long ln, size_t r, char **f)
{
	acc_t *a = bd->a;
	int N = bd->N, nf = bd->nf, off = bd->off;
	int k = split_tabs(line, f, nf + 1);
	if (k != nf)
		return piece_err(p, ln, "%s:%ld: expected %d tab-separated fields as in the header, found %d", bd->fn, ln, nf, k), -1;
	if (bd->coords) {
		int64_t s0, e0;
		if (!*f[0]) return piece_err(p, ln, "%s:%ld: empty sequence name", bd->fn, ln), -1;
		if (parse_uint(f[1], &s0) < 0 || parse_uint(f[2], &e0) < 0 || e0 < s0)
			return piece_err(p, ln, "%s:%ld: bad coordinates '%s' '%s' (need integers 0 <= start <= end)", bd->fn, ln, f[1],
			                 f[2]), -1;
		a->start[r] = s0, a->end[r] = e0;
	} else {
		a->start[r] = a->end[r] = (int64_t)r + 1;
	}
	bd->names[r - a->m] = f[0], bd->lines[r - a->m] = ln;
	double *row = a->rows + r * (size_t)N;
	for (int s = 0; s < N; ++s) {
		int rc = parse_count(f[off + s], &row[s]);
		if (rc == -2)
			return piece_err(p, ln, "%s:%ld: sample %s: count %s is above 2^53 = %llu, beyond what a double holds "
			                 "exactly", bd->fn, ln, bd->c->samples[s], f[off + s], COUNT_MAX), -1;
		if (rc < 0)
			return piece_err(p, ln, "%s:%ld: sample %s: '%s' is not a non-negative integer count", bd->fn, ln,
			                 bd->c->samples[s], f[off + s]), -1;
	}
	return 0;
}

/* Parses the lines of one piece into rows row0.. of the accumulator; stops at the first error. */
static void parse_worker(void *arg, int tid)
{
	body_t *bd = arg;
	piece_t *p = &bd->piece[tid];
	char **f = malloc((size_t)(bd->nf + 1) * sizeof *f);
	if (!f) {
		p->err_code = GVK_ERR_NOMEM, p->err_line = p->line0;
		snprintf(p->msg, sizeof p->msg, "%s: out of memory", bd->fn);
		return;
	}
	size_t r = p->row0;
	long ln = p->line0;
	for (char *q = p->beg; q < p->end; ++ln) {
		char *nl = memchr(q, '\n', (size_t)(p->end - q)), *le = nl ? nl : p->end, *line = q;
		q = nl ? nl + 1 : p->end;
		if (le > line && le[-1] == '\r') --le;
		if (le == line) continue;
		/* Fields are split at tabs with string functions, so a NUL would hide the fields after
		 * it; the reader checks a block's lines for length but leaves NULs to the threads. */
		const char *nul = memchr(line, 0, (size_t)(le - line));
		if (nul) {
			piece_err(p, ln, "%s:%ld: NUL byte in line (column %zu)", bd->fn, ln, (size_t)(nul - line) + 1);
			break;
		}
		/* Lines are ended in place at their '\n'; one without it ends the input, where there is
		 * no byte of ours to write the NUL to. */
		if (le == p->end) {
			size_t n = (size_t)(le - line);
			if (!(p->tail = malloc(n + 1))) {
				p->err_code = GVK_ERR_NOMEM, p->err_line = ln;
				snprintf(p->msg, sizeof p->msg, "%s: out of memory", bd->fn);
				break;
			}
			memcpy(p->tail, line, n);
			line = p->tail, le = p->tail + n;
		}
		*le = 0;
		if (parse_line(bd, p, line, ln, r, f) < 0) break;
		++r;
	}
	p->done = r - p->row0;
	free(f);
}

/* Sequence of each new row in order (names must form contiguous runs), up to row `stop`. */
static int assign_seqs(body_t *bd, size_t stop, gvk_err_t *err)
{
	gvk_cnv_counts_t *c = bd->c;
	acc_t *a = bd->a;
	for (size_t i = 0; i < stop; ++i) {
		int q = 0;
		if (bd->coords) {
			const char *nm = bd->names[i];
			if (bd->last_q < 0 || strcmp(c->seq_names[bd->last_q], nm) != 0) {
				for (int p = 0; p < c->n_seqs; ++p)
					if (!strcmp(c->seq_names[p], nm))
						return gvk_err_set(err, GVK_ERR_FORMAT,
						                   "%s:%ld: the rows of sequence %s are not contiguous; sort the matrix by sequence",
						                   bd->fn, bd->lines[i], nm);
				if (c->n_seqs == bd->qcap) {
					bd->qcap = bd->qcap ? bd->qcap * 2 : 16;
					char **nn = realloc(c->seq_names, (size_t)bd->qcap * sizeof *nn);
					if (!nn) return gvk_err_set(err, GVK_ERR_NOMEM, "%s: out of memory", bd->fn);
					c->seq_names = nn;
				}
				if (!(c->seq_names[c->n_seqs] = strdup(nm))) return gvk_err_set(err, GVK_ERR_NOMEM, "%s: out of memory", bd->fn);
				bd->last_q = c->n_seqs++;
			}
			q = bd->last_q;
		}
		a->seq_of_row[a->m + i] = q;
	}
	return 0;
}

/* One block of whole lines (first line number line0): split among the threads at line ends,
 * records counted, then parsed in place into their rows; the first error in file order wins. */
static int body_block(body_t *bd, char *blk, size_t len, long line0, gvk_err_t *err)
{
	int T = bd->nth;
	char *e = blk + len, *b = blk;
	for (int t = 0; t < T; ++t) {
		char *stop = t == T - 1 ? e : blk + len / T * (t + 1);
		if (stop < b) stop = b;
		if (stop < e) {
			char *nl = memchr(stop, '\n', (size_t)(e - stop));
			stop = nl ? nl + 1 : e;
		}
		bd->piece[t] = (piece_t){b, stop, 0, 0, 0, 0, 0, 0, 0, "", NULL};
		b = stop;
	}
	gvk_parallel(T, count_worker, bd);
	size_t rows = 0;
	long ln = line0 + 1;
	for (int t = 0; t < T; ++t) {
		bd->piece[t].row0 = bd->a->m + rows, bd->piece[t].line0 = ln;
		rows += bd->piece[t].rows, ln += bd->piece[t].lines;
	}
	if (acc_grow(bd->a, bd->N, bd->a->m + rows) < 0) return gvk_err_set(err, GVK_ERR_NOMEM, "%s: out of memory", bd->fn);
	if (rows > bd->names_cap) {
		free(bd->names), free(bd->lines);
		bd->names = malloc(rows * sizeof *bd->names), bd->lines = malloc(rows * sizeof *bd->lines);
		bd->names_cap = bd->names && bd->lines ? rows : 0;
		if (!bd->names_cap) return gvk_err_set(err, GVK_ERR_NOMEM, "%s: out of memory", bd->fn);
	}
	gvk_parallel(T, parse_worker, bd);
	size_t stop = rows;
	piece_t *bad = NULL;
	for (int t = 0; t < T && !bad; ++t)
		if (bd->piece[t].err_code) bad = &bd->piece[t];
	if (bad) stop = bad->row0 - bd->a->m + bad->done; /* the rows before the bad line */
	int rc = assign_seqs(bd, stop, err);
	for (int t = 0; t < T; ++t) free(bd->piece[t].tail);
	if (rc < 0) return rc;
	if (bad) return gvk_err_set(err, bad->err_code, "%s", bad->msg);
	bd->a->m += rows;
	return 0;
}

typedef struct {
	const double *rows;
	double *x;
	size_t m;
	int N, nth;
} tr_t;

/* Row-major records to the region-fastest matrix, in tiles of 64 rows per thread stripe. */
static void transpose_worker(void *arg, int tid)
{
	tr_t *t = arg;
	size_t a = t->m * tid / t->nth, b = t->m * (tid + 1) / t->nth;
	for (size_t r0 = a; r0 < b; r0 += 64) {
		size_t r1 = r0 + 64 < b ? r0 + 64 : b;
		for (int s = 0; s < t->N; ++s)
			for (size_t r = r0; r < r1; ++r) t->x[(size_t)s * t->m + r] = t->rows[r * (size_t)t->N + s];
	}
}

static void transpose(const double *rows, double *x, size_t m, int N, int nth)
{
	tr_t t = {rows, x, m, N, nth};
	gvk_parallel(nth, transpose_worker, &t);
}

int gvk_cnv_counts_read(const char *path, int as_matrix, gvk_cnv_counts_t *c, gvk_err_t *err)
{
	return gvk_cnv_counts_read_mt(path, as_matrix, 1, c, err);
}

/* The header line: sample names into c, the field count and whether it has coordinates. */
static int read_header(gvk_lr_t *lr, const char *fn, gvk_cnv_counts_t *c, char ***fp, int *nf, int *coords,
                       gvk_err_t *err)
{
	char *line, **f;
	size_t len;
	int rc = gvk_lr_next(lr, &line, &len, err);
	if (rc <= 0) return rc == 0 ? gvk_err_set(err, GVK_ERR_FORMAT, "%s: empty file, expected a header line", fn) : rc;
	*nf = 1;
	for (size_t i = 0; i < len; ++i) *nf += line[i] == '\t';
	if (!(f = *fp = malloc((size_t)(*nf + 1) * sizeof *f))) return gvk_err_set(err, GVK_ERR_NOMEM, "%s: out of memory", fn);
	split_tabs(line, f, *nf);
	*coords = is_coord_header(f, *nf);
	int off = *coords ? 3 : 0, N = *nf - off;
	/* A CSV or space-separated file reads as one sample whose name holds the whole line. */
	const char *sep = *nf == 1 ? strpbrk(f[0], ", ;") : NULL;
	if (sep)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s:1: the header has one field; the matrix must be tab-separated "
		                   "(this one looks %s-separated)", fn, *sep == ',' ? "comma" : *sep == ';' ? "semicolon" : "space");
	if (N < 2) return gvk_err_set(err, GVK_ERR_FORMAT, "%s:1: cn.mops needs at least two samples, the header names %d", fn, N);
	c->N = N;
	if (!(c->samples = calloc((size_t)N, sizeof *c->samples))) return gvk_err_set(err, GVK_ERR_NOMEM, "%s: out of memory", fn);
	for (int s = 0; s < N; ++s) {
		if (!*f[off + s]) return gvk_err_set(err, GVK_ERR_FORMAT, "%s:1: sample %d has an empty name", fn, s + 1);
		if (!(c->samples[s] = strdup(f[off + s]))) return gvk_err_set(err, GVK_ERR_NOMEM, "%s: out of memory", fn);
	}
	return 1;
}

/* The body's lines from lr into the accumulator, in blocks. */
static int read_body(gvk_lr_t *lr, body_t *bd, gvk_err_t *err)
{
	int rc;
	size_t len;
	char *blk;
	long lineno = gvk_lr_lineno(lr);
	while ((rc = gvk_lr_block(lr, BODY_BLOCK, &blk, &len, err)) > 0) {
		if ((rc = body_block(bd, blk, len, lineno, err)) < 0) return rc;
		lineno = gvk_lr_lineno(lr);
	}
	return rc;
}

/* The accumulated rows as c's matrix (region-fastest), sequences and coordinates. */
static int finish(gvk_cnv_counts_t *c, acc_t *a, const body_t *bd, int plain, const char *fn, gvk_err_t *err)
{
	if (plain) {
		if (!(c->seq_names = malloc(sizeof *c->seq_names)) || !(c->seq_names[0] = strdup("undef")))
			return gvk_err_set(err, GVK_ERR_NOMEM, "%s: out of memory", fn);
		c->n_seqs = 1;
		c->is_matrix = 1;
	}
	c->m = (int)a->m;
	if (!(c->seq_off = malloc((size_t)(c->n_seqs + 1) * sizeof *c->seq_off)) ||
	    !(c->x = malloc(a->m * (size_t)c->N * sizeof *c->x + 1)))
		return gvk_err_set(err, GVK_ERR_NOMEM, "%s: out of memory", fn);
	for (int p = 0, r = 0; p <= c->n_seqs; ++p) {
		while (r < c->m && a->seq_of_row[r] < p) ++r;
		c->seq_off[p] = p == c->n_seqs ? c->m : r;
	}
	transpose(a->rows, c->x, a->m, c->N, bd->nth);
	c->start = a->start, c->end = a->end;
	a->start = a->end = NULL;
	return 0;
}

/* Header from hl, body from bl (the same reader, or one over a byte range), into c. */
static int read_counts(gvk_lr_t *hl, gvk_lr_t *bl, int as_matrix, int threads, int need_rows, gvk_cnv_counts_t *c,
                       gvk_err_t *err)
{
	const char *fn = gvk_lr_path(hl);
	acc_t a = {0};
	char **f = NULL;
	body_t bd = {0};
	int nf = 0, coords = 0;
	int rc = read_header(hl, fn, c, &f, &nf, &coords, err);
	if (rc > 0) {
		bd = (body_t){c, &a, fn, coords && !as_matrix, coords ? 3 : 0, nf, c->N, threads < 1 ? gvk_ncpu() : threads, -1,
		              0, NULL, NULL, 0, NULL};
		rc = (bd.piece = malloc((size_t)bd.nth * sizeof *bd.piece)) ? 0 : gvk_err_set(err, GVK_ERR_NOMEM, "%s: out of memory", fn);
	}
	if (rc == 0) rc = read_body(bl, &bd, err);
	if (rc == 0 && need_rows && a.m == 0) rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: no regions after the header", fn);
	if (rc == 0) rc = finish(c, &a, &bd, !coords || as_matrix, fn, err);
	free(a.rows), free(a.start), free(a.end), free(a.seq_of_row), free(f);
	free(bd.names), free(bd.lines), free(bd.piece);
	if (rc < 0) gvk_cnv_counts_free(c);
	return rc;
}

int gvk_cnv_counts_read_mt(const char *path, int as_matrix, int threads, gvk_cnv_counts_t *c, gvk_err_t *err)
{
	if (!path || !c) return gvk_err_null(err, "gvk_cnv_counts_read", !path ? "path" : "c");
	memset(c, 0, sizeof *c);
	gvk_lr_t *lr = gvk_lr_open(path, err);
	if (!lr) return GVK_ERR_IO;
	int rc = read_counts(lr, lr, as_matrix, threads, 1, c, err);
	gvk_lr_close(lr);
	return rc;
}

int gvk_cnv_counts_read_range(const char *path, int as_matrix, int threads, int64_t lo, int64_t hi, long line0,
                              gvk_cnv_counts_t *c, gvk_err_t *err)
{
	if (!path || !c) return gvk_err_null(err, __func__, !path ? "path" : "c");
	memset(c, 0, sizeof *c);
	if (lo < 0 || hi < lo || line0 < 1)
		return gvk_err_set(err, GVK_ERR_ARG, "%s: bad range: bytes [%lld, %lld) from line %ld", path, (long long)lo,
		                   (long long)hi, line0);
	gvk_lr_t *lr = gvk_lr_open(path, err), *bl = NULL;
	if (!lr) return GVK_ERR_IO;
	char *text = malloc((size_t)(hi - lo) + 1);
	FILE *fp = fopen(path, "rb");
	int rc = text && fp ? 0 : gvk_err_set(err, text ? GVK_ERR_IO : GVK_ERR_NOMEM, "%s: cannot read its rows", path);
	if (rc == 0 && (fseeko(fp, (off_t)lo, SEEK_SET) != 0 || fread(text, 1, (size_t)(hi - lo), fp) != (size_t)(hi - lo)))
		rc = gvk_err_set(err, GVK_ERR_IO, "%s: read error at byte %lld", path, (long long)lo);
	if (rc == 0 && !(bl = gvk_lr_open_mem(text, (size_t)(hi - lo), gvk_lr_path(lr), line0 - 1, err))) rc = GVK_ERR_NOMEM;
	if (rc == 0) rc = read_counts(lr, bl, as_matrix, threads, 0, c, err);
	if (bl) gvk_lr_close(bl);
	if (fp) fclose(fp);
	free(text);
	gvk_lr_close(lr);
	return rc;
}
