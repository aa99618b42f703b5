/* SPDX-License-Identifier: MIT */
/* gvk cnv --counts over MPI ranks: each rank parses an equal byte range of the matrix (cut at
 * line starts) with its own threads, and the ranks' rows are joined on every rank in file order
 * (the model needs the whole matrix on each), so that the parse, which every rank repeated,
 * shrinks with the ranks. A compressed matrix or standard input is parsed whole by every rank. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gvk.h"
#include "mpi_drivers.h"
#include "../../common/err.h"

/* The first line start at or after at (size when none). */
static int64_t line_start(FILE *fp, int64_t at, int64_t size)
{
	if (at <= 0) return 0;
	if (at >= size || fseeko(fp, (off_t)(at - 1), SEEK_SET) != 0) return size;
	int64_t k = at - 1;
	for (int ch; (ch = getc(fp)) != EOF; ++k)
		if (ch == '\n') return k + 1;
	return size;
}

/* Lines in [a, b): the '\n's, and one more for a last line without it; -1 on a read error. */
static long long count_lines(FILE *fp, int64_t a, int64_t b)
{
	enum { BUF = 1 << 20 };
	char *buf = malloc(BUF);
	long long n = 0;
	char last = '\n';
	if (!buf || fseeko(fp, (off_t)a, SEEK_SET) != 0) return free(buf), -1;
	for (int64_t k = a; k < b;) {
		size_t want = b - k < BUF ? (size_t)(b - k) : BUF, got = fread(buf, 1, want, fp);
		if (got != want) return free(buf), -1;
		for (const char *p = buf, *e = buf + got; (p = memchr(p, '\n', (size_t)(e - p))); ++p) ++n;
		last = buf[got - 1], k += (int64_t)got;
	}
	free(buf);
	return n + (b > a && last != '\n');
}

/* The byte range and first line number of this rank's rows; 0, or 1 when the file cannot be cut
 * (compressed, not a regular file). */
static int my_range(const gvk_mpi_world_t *w, const char *path, int64_t *a, int64_t *b, long *line0)
{
	struct stat st;
	FILE *fp = strcmp(path, "-") && stat(path, &st) == 0 && S_ISREG(st.st_mode) ? fopen(path, "rb") : NULL;
	int c0 = fp ? getc(fp) : EOF, c1 = fp ? getc(fp) : EOF, whole = !fp || (c0 == 0x1f && c1 == 0x8b);
	int64_t size = fp ? (int64_t)st.st_size : 0, body = fp && !whole ? line_start(fp, 1, size) : 0;
	long long lines = 0, before = 0;
	*a = *b = 0;
	if (!whole) {
		int64_t n = size - body;
		*a = line_start(fp, body + n * w->rank / w->size, size);
		*b = w->rank == w->size - 1 ? size : line_start(fp, body + n * (w->rank + 1) / w->size, size);
		if (*a < body) *a = body;
		if (*b < *a) *b = *a;
		lines = count_lines(fp, *a, *b);
		if (lines < 0) whole = 1, lines = 0;
	}
	if (fp) fclose(fp);
	/* every rank must take the same path */
	MPI_Allreduce(MPI_IN_PLACE, &whole, 1, MPI_INT, MPI_MAX, w->comm);
	MPI_Exscan(&lines, &before, 1, MPI_LONG_LONG, MPI_SUM, w->comm);
	if (w->rank == 0) before = 0;
	*line0 = 2 + (long)before;
	return whole;
}

/* The line number of the first row of sequence name in [a, b) (line0: its first line). */
static long row_line(const char *path, int64_t a, int64_t b, long line0, const char *name)
{
	FILE *fp = fopen(path, "rb");
	size_t n = strlen(name);
	long ln = line0, found = line0;
	char *buf = malloc(n + 2);
	if (!fp || !buf || fseeko(fp, (off_t)a, SEEK_SET) != 0) goto done;
	for (int64_t k = a; k < b; ++ln) {
		size_t got = 0;
		int ch = 0;
		while (k < b && (ch = getc(fp)) != EOF && ch != '\n') {
			if (got < n + 1) buf[got++] = (char)ch;
			++k;
		}
		++k;
		if (got == n + 1 && !memcmp(buf, name, n) && buf[n] == '\t') {
			found = ln;
			break;
		}
		if (ch == EOF) break;
	}
done:
	if (fp) fclose(fp);
	free(buf);
	return found;
}

/* Every rank's sequence names (NUL-separated) and first rows (relative to its rows), to every
 * rank; nseq[r]: rank r's count. */
static char *all_names(const gvk_mpi_world_t *w, const gvk_cnv_counts_t *p, int *nseq, int **offs)
{
	int len = 0, tot = 0;
	for (int q = 0; q < p->n_seqs; ++q) len += (int)strlen(p->seq_names[q]) + 1;
	char *mine = malloc((size_t)len + 1), *all = NULL;
	int *lens = malloc(sizeof *lens * (size_t)w->size), *at = malloc(sizeof *at * (size_t)w->size);
	for (int q = 0, o = 0; mine && q < p->n_seqs; ++q) o += sprintf(mine + o, "%s", p->seq_names[q]) + 1;
	int ok = mine && lens && at;
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, w->comm);
	if (ok) {
		MPI_Allgather(&len, 1, MPI_INT, lens, 1, MPI_INT, w->comm);
		MPI_Allgather(&p->n_seqs, 1, MPI_INT, nseq, 1, MPI_INT, w->comm);
		int tl = 0;
		for (int r = 0; r < w->size; ++r) at[r] = tl, tl += lens[r], tot += nseq[r];
		all = malloc((size_t)tl + 1);
		*offs = malloc(sizeof **offs * (size_t)(tot + 1));
		ok = all && *offs;
		MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, w->comm);
		if (ok) {
			MPI_Allgatherv(mine, len, MPI_CHAR, all, lens, at, MPI_CHAR, w->comm);
			for (int r = 0, t = 0; r < w->size; ++r) at[r] = t, t += nseq[r];
			MPI_Allgatherv(p->seq_off, p->n_seqs, MPI_INT, *offs, nseq, at, MPI_INT, w->comm);
		}
	}
	if (!ok) free(all), all = NULL;
	free(mine), free(lens), free(at);
	return all;
}

/* The joined sequences: the ranks' lists in order, a rank's first one continuing the last one
 * before it. A name seen before, not continuing, is the one-process error, named by the rank
 * whose range holds the row. */
static int join_seqs(const gvk_mpi_world_t *w, const gvk_cnv_counts_t *p, const int *rows, gvk_cnv_counts_t *c,
                     const char *path, int64_t a, int64_t b, long line0, gvk_err_t *err)
{
	int *nseq = malloc(sizeof *nseq * (size_t)w->size), *offs = NULL;
	char *all = nseq ? all_names(w, p, nseq, &offs) : NULL;
	if (!all) return free(nseq), free(offs), gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	int cap = 0, rc = 0;
	for (int r = 0; r < w->size; ++r) cap += nseq[r];
	c->seq_names = calloc((size_t)cap + 1, sizeof *c->seq_names);
	c->seq_off = malloc(sizeof *c->seq_off * (size_t)(cap + 2));
	if (!c->seq_names || !c->seq_off) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	const char *nm = all;
	int base = 0, q = 0, j = 0;
	for (int r = 0; rc == 0 && r < w->size; base += rows[r], ++r) {
		for (int k = 0; rc == 0 && k < nseq[r]; ++k, ++j, nm += strlen(nm) + 1) {
			if (k == 0 && q > 0 && !strcmp(c->seq_names[q - 1], nm)) continue;
			for (int t = 0; t < q && rc == 0; ++t) {
				if (strcmp(c->seq_names[t], nm)) continue;
				if (r == w->rank)
					rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: the rows of sequence %s are not contiguous; sort the matrix by sequence",
					                 path, row_line(path, a, b, line0, nm), nm);
				else
					rc = gvk_err_set(err, GVK_ERR_FORMAT, "stopped: rank %d found the rows of sequence %s not contiguous", r, nm);
			}
			if (rc == 0 && !(c->seq_names[q] = strdup(nm))) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
			if (rc == 0) c->seq_off[q++] = base + offs[j];
		}
	}
	c->n_seqs = q;
	c->seq_off[q] = base;
	free(all), free(nseq), free(offs);
	return rc;
}

/* The ranks' rows joined into c on every rank: each sample's counts, the coordinates. */
static int join_rows(const gvk_mpi_world_t *w, const gvk_cnv_counts_t *p, const int *rows, gvk_cnv_counts_t *c, gvk_err_t *err)
{
	int *at = malloc(sizeof *at * (size_t)w->size), m = 0;
	for (int r = 0; at && r < w->size; ++r) at[r] = m, m += rows[r];
	c->m = m, c->N = p->N, c->is_matrix = p->is_matrix;
	c->x = malloc(sizeof *c->x * (size_t)m * (size_t)p->N + 1);
	c->start = malloc(sizeof *c->start * (size_t)m + 1), c->end = malloc(sizeof *c->end * (size_t)m + 1);
	c->samples = calloc((size_t)p->N, sizeof *c->samples);
	int ok = at && c->x && c->start && c->end && c->samples;
	for (int s = 0; ok && s < p->N; ++s) ok = (c->samples[s] = strdup(p->samples[s])) != NULL;
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, w->comm);
	if (ok) {
		for (int s = 0; s < p->N; ++s)
			MPI_Allgatherv(p->x + (size_t)s * (size_t)p->m, p->m, MPI_DOUBLE, c->x + (size_t)s * (size_t)m, rows, at,
			               MPI_DOUBLE, w->comm);
		MPI_Allgatherv(p->start, p->m, MPI_INT64_T, c->start, rows, at, MPI_INT64_T, w->comm);
		MPI_Allgatherv(p->end, p->m, MPI_INT64_T, c->end, rows, at, MPI_INT64_T, w->comm);
		/* a plain matrix numbers its regions within each range: from 1 over the whole */
		for (int i = 0; c->is_matrix && i < m; ++i) c->start[i] = c->end[i] = i + 1;
	}
	free(at);
	return ok ? 0 : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory joining the counts");
}

int gvk_mpi_cnv_read(const char *path, int as_matrix, int threads, gvk_cnv_counts_t *c, gvk_err_t *err)
{
	gvk_mpi_world_t w;
	gvk_mpi_world_get(&w);
	int64_t a, b;
	long line0;
	memset(c, 0, sizeof *c);
	if (my_range(&w, path, &a, &b, &line0)) return gvk_cnv_counts_read_mt(path, as_matrix, threads, c, err);
	gvk_cnv_counts_t p = {0};
	int rc = gvk_mpi_agree(&w, gvk_cnv_counts_read_range(path, as_matrix, threads, a, b, line0, &p, err), err);
	int *rows = malloc(sizeof *rows * (size_t)w.size), ok = rows != NULL;
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, w.comm);
	if (rc == 0 && !ok) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (rc == 0) {
		MPI_Allgather(&p.m, 1, MPI_INT, rows, 1, MPI_INT, w.comm);
		long long m = 0;
		for (int r = 0; r < w.size; ++r) m += rows[r];
		if (m == 0) rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: no regions after the header", path);
	}
	if (rc == 0) rc = gvk_mpi_agree(&w, join_seqs(&w, &p, rows, c, path, a, b, line0, err), err);
	if (rc == 0) rc = join_rows(&w, &p, rows, c, err);
	gvk_cnv_counts_free(&p);
	free(rows);
	if (rc < 0) gvk_cnv_counts_free(c);
	return rc;
}
