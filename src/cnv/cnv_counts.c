/* Count-matrix TSV input: 'chr start end S1 .. SN' (or sample names only), validated line by line. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../common/err.h"
#include "../common/lineio.h"
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

static int acc_grow(acc_t *a, int N)
{
	if (a->m < a->cap) return 0;
	size_t nc = a->cap ? a->cap * 2 : 1024;
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

int gvk_cnv_counts_read(const char *path, int as_matrix, gvk_cnv_counts_t *c, gvk_err_t *err)
{
	memset(c, 0, sizeof *c);
	gvk_lr_t *lr = gvk_lr_open(path, err);
	if (!lr) return GVK_ERR_IO;
	const char *fn = gvk_lr_path(lr);
	acc_t a = {0};
	char *line, **f = NULL;
	size_t len;
	int rc = gvk_lr_next(lr, &line, &len, err), nf = 0, coords = 0, N = 0, off = 0, last_q = -1, qcap = 0;
	if (rc <= 0) {
		if (rc == 0) rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: empty file, expected a header line", fn);
		goto fail;
	}
	nf = 1;
	for (size_t i = 0; i < len; ++i) nf += line[i] == '\t';
	if (!(f = malloc((size_t)(nf + 1) * sizeof *f))) goto nomem;
	split_tabs(line, f, nf);
	coords = is_coord_header(f, nf);
	off = coords ? 3 : 0;
	N = nf - off;
	if (N < 2) {
		rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s:1: cn.mops needs at least two samples, the header names %d", fn, N);
		goto fail;
	}
	c->N = N;
	if (!(c->samples = calloc((size_t)N, sizeof *c->samples))) goto nomem;
	for (int s = 0; s < N; ++s) {
		if (!*f[off + s]) {
			rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s:1: sample %d has an empty name", fn, s + 1);
			goto fail;
		}
		if (!(c->samples[s] = strdup(f[off + s]))) goto nomem;
	}
	while ((rc = gvk_lr_next(lr, &line, &len, err)) > 0) {
		long ln = gvk_lr_lineno(lr);
		if (len == 0) continue;
		int k = split_tabs(line, f, nf + 1);
		if (k != nf) {
			rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: expected %d tab-separated fields as in the header, found %d", fn,
			                 ln, nf, k);
			goto fail;
		}
		if (acc_grow(&a, N) < 0) goto nomem;
		int q = 0;
		if (coords && !as_matrix) {
			if (!*f[0]) {
				rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: empty sequence name", fn, ln);
				goto fail;
			}
			if (last_q < 0 || strcmp(c->seq_names[last_q], f[0]) != 0) {
				for (int p = 0; p < c->n_seqs; ++p)
					if (!strcmp(c->seq_names[p], f[0])) {
						rc = gvk_err_set(err, GVK_ERR_FORMAT,
						                 "%s:%ld: the rows of sequence %s are not contiguous; sort the matrix by sequence", fn,
						                 ln, f[0]);
						goto fail;
					}
				if (c->n_seqs == qcap) {
					qcap = qcap ? qcap * 2 : 16;
					char **nn = realloc(c->seq_names, (size_t)qcap * sizeof *nn);
					if (!nn) goto nomem;
					c->seq_names = nn;
				}
				if (!(c->seq_names[c->n_seqs] = strdup(f[0]))) goto nomem;
				last_q = c->n_seqs++;
			}
			q = last_q;
			int64_t s0, e0;
			if (parse_uint(f[1], &s0) < 0 || parse_uint(f[2], &e0) < 0 || e0 < s0) {
				rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: bad coordinates '%s' '%s' (need integers 0 <= start <= end)", fn,
				                 ln, f[1], f[2]);
				goto fail;
			}
			a.start[a.m] = s0, a.end[a.m] = e0;
		} else {
			a.start[a.m] = a.end[a.m] = (int64_t)a.m + 1;
		}
		a.seq_of_row[a.m] = q;
		double *row = a.rows + a.m * (size_t)N;
		for (int s = 0; s < N; ++s) {
			int64_t v;
			if (parse_uint(f[off + s], &v) < 0) {
				rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: sample %s: '%s' is not a non-negative integer count", fn, ln,
				                 c->samples[s], f[off + s]);
				goto fail;
			}
			row[s] = (double)v;
		}
		++a.m;
	}
	if (rc < 0) goto fail;
	if (a.m == 0) {
		rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: no regions after the header", fn);
		goto fail;
	}
	if (!coords || as_matrix) {
		if (!(c->seq_names = malloc(sizeof *c->seq_names)) || !(c->seq_names[0] = strdup("undef"))) goto nomem;
		c->n_seqs = 1;
		c->is_matrix = 1;
	}
	c->m = (int)a.m;
	if (!(c->seq_off = malloc((size_t)(c->n_seqs + 1) * sizeof *c->seq_off))) goto nomem;
	if (!(c->x = malloc(a.m * (size_t)N * sizeof *c->x))) goto nomem;
	for (int p = 0, r = 0; p <= c->n_seqs; ++p) {
		while (r < c->m && a.seq_of_row[r] < p) ++r;
		c->seq_off[p] = p == c->n_seqs ? c->m : r;
	}
	for (size_t r = 0; r < a.m; ++r)
		for (int s = 0; s < N; ++s) c->x[(size_t)s * a.m + r] = a.rows[r * (size_t)N + s];
	c->start = a.start, c->end = a.end;
	free(a.rows), free(a.seq_of_row), free(f);
	gvk_lr_close(lr);
	return 0;
nomem:
	rc = gvk_err_set(err, GVK_ERR_NOMEM, "%s: out of memory", fn);
fail:
	free(a.rows), free(a.start), free(a.end), free(a.seq_of_row), free(f);
	gvk_lr_close(lr);
	gvk_cnv_counts_free(c);
	return rc;
}
