/* SPDX-License-Identifier: MIT */
/* The BED targets of read counting (cnv --bed): intervals 0-based half-open, read into the row
 * layout of the count matrix. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "../common/err.h"
#include "../common/lineio.h"
#include "cnv.h"

void cnv_layout_free(cnv_layout_t *l)
{
	for (int q = 0; q < l->n_seqs && l->names; ++q) free(l->names[q]);
	free(l->names), free(l->off), free(l->start), free(l->end);
	memset(l, 0, sizeof *l);
}

/* The first three tab-separated fields of line, ended in place (further BED columns are left
 * alone); 0 when one is missing or empty (a doubled tab must not shift the columns). */
static int bed_fields(char *line, char *f[3])
{
	char *p = line;
	for (int k = 0; k < 3; ++k) {
		char *t = strchr(p, '\t');
		if (!t && k < 2) return 0;
		if (t) *t = 0;
		f[k] = p;
		if (!*p) return 0;
		p = t ? t + 1 : p;
	}
	return 1;
}

/* A coordinate: decimal digits only (BED has no sign), at most 18, so that it cannot overflow. */
static int bed_coord(const char *s, long long *v)
{
	long long x = 0;
	size_t n = 0;
	for (; s[n]; ++n) {
		if (s[n] < '0' || s[n] > '9' || n == 18) return -1;
		x = 10 * x + (s[n] - '0');
	}
	*v = x;
	return n ? 0 : -1;
}

int cnv_read_bed(const char *path, cnv_layout_t *l, gvk_err_t *err)
{
	memset(l, 0, sizeof *l);
	gvk_lr_t *lr = gvk_lr_open(path, err);
	if (!lr) return GVK_ERR_IO;
	char *line;
	size_t len, cap = 0;
	int rc, qcap = 0;
	while ((rc = gvk_lr_next(lr, &line, &len, err)) > 0) {
		long ln = gvk_lr_lineno(lr);
		if (len == 0 || line[0] == '#' || !strncmp(line, "track", 5) || !strncmp(line, "browser", 7)) continue;
		char *f[3];
		long long s0, e0;
		if (!bed_fields(line, f) || bed_coord(f[1], &s0) < 0 || bed_coord(f[2], &e0) < 0 || e0 <= s0) {
			rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: bad BED interval (need 'chrom start end' with 0 <= start < end)",
			                 gvk_lr_path(lr), ln);
			break;
		}
		if (l->n_seqs == 0 || strcmp(l->names[l->n_seqs - 1], f[0])) {
			for (int q = 0; q < l->n_seqs; ++q)
				if (!strcmp(l->names[q], f[0])) {
					rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: intervals of %s are not contiguous; sort the BED",
					                 gvk_lr_path(lr), ln, f[0]);
					goto out;
				}
			if (l->n_seqs + 1 >= qcap) {
				qcap = qcap ? qcap * 2 : 16;
				char **nn = realloc(l->names, (size_t)qcap * sizeof *nn);
				int *no = nn ? realloc(l->off, (size_t)(qcap + 1) * sizeof *no) : NULL;
				if (nn) l->names = nn;
				if (no) l->off = no;
				if (!no) goto nomem;
			}
			if (!(l->names[l->n_seqs] = strdup(f[0]))) goto nomem;
			l->off[l->n_seqs++] = l->m;
		}
		if ((size_t)l->m == cap) {
			cap = cap ? cap * 2 : 1024;
			int64_t *ns = realloc(l->start, cap * sizeof *ns), *ne = ns ? realloc(l->end, cap * sizeof *ne) : NULL;
			if (ns) l->start = ns;
			if (ne) l->end = ne;
			if (!ne) goto nomem;
		}
		l->start[l->m] = s0 + 1, l->end[l->m] = e0;
		++l->m;
	}
	if (rc == 0 && l->m == 0) rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: no intervals", gvk_lr_path(lr));
	if (rc == 0) l->off[l->n_seqs] = l->m;
	goto out;
nomem:
	rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", path);
out:
	gvk_lr_close(lr);
	if (rc < 0) cnv_layout_free(l);
	return rc < 0 ? rc : 0;
}
