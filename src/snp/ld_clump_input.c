/* SPDX-License-Identifier: MIT */
/* The association reports of --clump: a header line naming the columns, then whitespace-separated
 * fields. PLINK 1.9 skips a line without the two columns or with a p that is not a number (NA,
 * nan), and stops at a negative p or one above 1; so does this reader. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ld_clump.h"
#include "../common/err.h"

typedef struct {
	const char *id;
	int64_t i;
} id_key_t;

static int by_id(const void *a, const void *b)
{
	const id_key_t *x = a, *y = b;
	int c = strcmp(x->id, y->id);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

int clump_id_index(const snp_data_t *d, clump_ids_t *ix, gvk_err_t *err)
{
	ix->n = d->n_snp;
	ix->order = malloc(sizeof *ix->order * (size_t)(d->n_snp + 1));
	id_key_t *k = malloc(sizeof *k * (size_t)(d->n_snp + 1));
	if (!ix->order || !k) return free(k), gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	for (int64_t i = 0; i < d->n_snp; ++i) k[i] = (id_key_t){d->var[i].id, i};
	qsort(k, (size_t)d->n_snp, sizeof *k, by_id);
	for (int64_t i = 0; i < d->n_snp; ++i) ix->order[i] = k[i].i;
	free(k);
	return 0;
}

void clump_id_free(clump_ids_t *ix)
{
	free(ix->order);
	ix->order = NULL;
}

/* The first SNP of d with this ID, or -1. */
static int64_t find_id(const snp_data_t *d, const clump_ids_t *ix, const char *id)
{
	int64_t lo = 0, hi = ix->n;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (strcmp(d->var[ix->order[mid]].id, id) < 0) lo = mid + 1;
		else hi = mid;
	}
	return lo < ix->n && !strcmp(d->var[ix->order[lo]].id, id) ? ix->order[lo] : -1;
}

/* Splits line in place into at most max fields; returns the count. */
static int split(char *line, char **f, int max)
{
	int n = 0;
	char *save = NULL;
	for (char *s = strtok_r(line, " \t\r\n", &save); s && n < max; s = strtok_r(NULL, " \t\r\n", &save)) f[n++] = s;
	return n;
}

/* The column of the first name in names that the header has; -1 when none, -2 when it is there twice. */
static int column(char **f, int nf, const char *const *names, int n_names, const char **found)
{
	for (int k = 0; k < n_names; ++k) {
		int col = -1;
		for (int c = 0; c < nf; ++c)
			if (!strcmp(f[c], names[k])) {
				if (col >= 0) return *found = names[k], -2;
				col = c;
			}
		if (col >= 0) return col;
	}
	return -1;
}

static int add(clump_recs_t *out, clump_rec_t r)
{
	if (out->n == out->cap) {
		int64_t cap = out->cap * 2 + 1024;
		clump_rec_t *x = realloc(out->rec, sizeof *x * (size_t)cap);
		if (!x) return -1;
		out->rec = x, out->cap = cap;
	}
	out->rec[out->n++] = r;
	return 0;
}

#define CLUMP_MAX_FIELDS 4096

/* One data line; 0 when kept or skipped. */
static int data_line(char *buf, int c_id, int c_p, const char *path, int file, int64_t ln, const snp_data_t *d,
                     const clump_ids_t *ix, double p1, char **f, clump_recs_t *out, gvk_err_t *err)
{
	int need = (c_id > c_p ? c_id : c_p) + 1;
	if (split(buf, f, need) < need) return 0;
	char *end;
	double p = strtod(f[c_p], &end);
	if (end == f[c_p] || *end || isnan(p)) return 0;
	if (p < 0) return gvk_err_set(err, GVK_ERR_FORMAT, "%s, line %lld: negative p-value '%s'", path, (long long)ln, f[c_p]);
	if (p > 1) return gvk_err_set(err, GVK_ERR_FORMAT, "%s, line %lld: p-value '%s' is above 1", path, (long long)ln, f[c_p]);
	clump_rec_t r = {find_id(d, ix, f[c_id]), p, file, ln, NULL};
	if (r.var < 0 && p > p1) return 0;
	if (r.var < 0 && !(r.id = strdup(f[c_id]))) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (add(out, r) < 0) return free(r.id), gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	return 0;
}

int clump_read(const char *path, int file, const snp_data_t *d, const clump_ids_t *ix, const char *const *snp_fields,
               int n_snp, const char *const *p_fields, int n_p, double p1, clump_recs_t *out, gvk_err_t *err)
{
	FILE *fp = fopen(path, "r");
	if (!fp) return gvk_err_set(err, GVK_ERR_IO, "cannot open --clump file %s", path);
	char *buf = NULL, **f = malloc(sizeof *f * CLUMP_MAX_FIELDS);
	size_t cap = 0;
	int rc = f ? 0 : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory"), c_id = -1, c_p = -1;
	int64_t ln = 0;
	const char *dup = NULL;
	if (rc == 0 && getline(&buf, &cap, fp) < 0) rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: empty --clump file", path);
	if (rc == 0) {
		ln = 1;
		int nf = split(buf, f, CLUMP_MAX_FIELDS);
		c_id = column(f, nf, snp_fields, n_snp, &dup);
		c_p = column(f, nf, p_fields, n_p, &dup);
		if (c_id == -2 || c_p == -2) rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s, line 1: column '%s' appears twice", path, dup);
		else if (c_id < 0) rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s, line 1: no variant ID column (%s%s)", path, snp_fields[0], n_snp > 1 ? ", ..." : "");
		else if (c_p < 0) rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s, line 1: no p-value column (%s%s)", path, p_fields[0], n_p > 1 ? ", ..." : "");
	}
	while (rc == 0 && getline(&buf, &cap, fp) >= 0)
		rc = data_line(buf, c_id, c_p, path, file, ++ln, d, ix, p1, f, out, err);
	if (rc == 0 && ferror(fp)) rc = gvk_err_set(err, GVK_ERR_IO, "%s: read error", path);
	fclose(fp);
	free(buf), free(f);
	return rc;
}

void clump_recs_free(clump_recs_t *r)
{
	for (int64_t k = 0; r->rec && k < r->n; ++k) free(r->rec[k].id);
	free(r->rec);
	memset(r, 0, sizeof *r);
}
