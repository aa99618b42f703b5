/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cnv_fai.h"
#include "../common/err.h"
#include "../common/lineio.h"

/* The sequences of c sorted by name, for the lookup of each line's contig. */
typedef struct {
	const char *name;
	int q;
} entry_t;

typedef struct {
	const gvk_cnv_counts_t *c;
	entry_t *e;
} names_t;

static int cmp_entry(const void *a, const void *b) { return strcmp(((const entry_t *)a)->name, ((const entry_t *)b)->name); }

static int find(const names_t *nm, const char *name)
{
	int lo = 0, hi = nm->c->n_seqs - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2, d = strcmp(name, nm->e[mid].name);
		if (d == 0) return nm->e[mid].q;
		if (d < 0) hi = mid - 1;
		else lo = mid + 1;
	}
	return -1;
}

/* "name length ..." at line: the name cut at the first blank, the length a whole number from 1 to
 * 2^62. 0, or -1 for a line of another shape. */
static int split_line(char *line, char **name, int64_t *len)
{
	size_t n = strcspn(line, " \t");
	if (n == 0 || !line[n]) return -1;
	line[n] = 0;
	*name = line;
	char *p = line + n + 1;
	p += strspn(p, " \t");
	int64_t v = 0;
	int d = 0;
	for (; *p >= '0' && *p <= '9'; ++p, ++d) {
		if (v > (INT64_C(1) << 62) / 10) return -1;
		v = 10 * v + (*p - '0');
	}
	if (d == 0 || v < 1 || v > INT64_C(1) << 62 || (*p && *p != ' ' && *p != '\t')) return -1;
	*len = v;
	return 0;
}

static int read_lengths(gvk_lr_t *lr, const names_t *nm, int64_t *len, gvk_err_t *err)
{
	const gvk_cnv_counts_t *c = nm->c;
	char *line, *name;
	size_t n;
	int64_t v;
	int rc;
	while ((rc = gvk_lr_next(lr, &line, &n, err)) > 0) {
		if (split_line(line, &name, &v) < 0)
			return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: need 'name length' (a .fai, or two columns), length a whole "
			                   "number of at least 1", gvk_lr_path(lr), gvk_lr_lineno(lr));
		int q = find(nm, name);
		if (q < 0) continue;
		if (len[q]) return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: contig %s listed twice", gvk_lr_path(lr), gvk_lr_lineno(lr), name);
		int64_t last = c->end[c->seq_off[q + 1] - 1];
		if (last > v)
			return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: contig %s has length %lld, but its last window ends at %lld "
			                   "(a .fai of another assembly?)", gvk_lr_path(lr), gvk_lr_lineno(lr), name, (long long)v,
			                   (long long)last);
		len[q] = v;
	}
	if (rc < 0) return rc;
	for (int q = 0; q < c->n_seqs; ++q)
		if (!len[q]) return gvk_err_set(err, GVK_ERR_FORMAT, "%s: no length for contig %s", gvk_lr_path(lr), c->seq_names[q]);
	return 0;
}

int cnv_fai_lengths(const char *path, gvk_cnv_counts_t *c, gvk_err_t *err)
{
	if (c->is_matrix) return gvk_err_set(err, GVK_ERR_ARG, "%s: a plain matrix (--matrix) has no contigs to give lengths to", path);
	if (c->n_seqs < 1) return gvk_err_set(err, GVK_ERR_ARG, "%s: no contigs to give lengths to", path);
	names_t nm = {c, malloc((size_t)c->n_seqs * sizeof *nm.e)};
	int64_t *len = calloc((size_t)c->n_seqs, sizeof *len);
	if (!nm.e || !len) {
		free(nm.e), free(len);
		return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	}
	for (int q = 0; q < c->n_seqs; ++q) nm.e[q] = (entry_t){c->seq_names[q], q};
	qsort(nm.e, (size_t)c->n_seqs, sizeof *nm.e, cmp_entry);
	gvk_lr_t *lr = gvk_lr_open(path, err);
	int rc = lr ? read_lengths(lr, &nm, len, err) : GVK_ERR_IO;
	if (lr) gvk_lr_close(lr);
	free(nm.e);
	if (rc < 0) return free(len), rc;
	free(c->seq_len);
	c->seq_len = len;
	return 0;
}

int gvk_cnv_counts_read_lengths(const char *path, gvk_cnv_counts_t *c, gvk_err_t *err)
{
	if (!path || !c) return gvk_err_null(err, __func__, !path ? "path" : "c");
	return cnv_fai_lengths(path, c, err);
}
