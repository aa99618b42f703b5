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
		char *f[3], *save = NULL;
		f[0] = strtok_r(line, "\t", &save);
		f[1] = f[0] ? strtok_r(NULL, "\t", &save) : NULL;
		f[2] = f[1] ? strtok_r(NULL, "\t", &save) : NULL;
		char *e1 = NULL, *e2 = NULL;
		long long s0 = f[2] ? strtoll(f[1], &e1, 10) : -1, e0 = f[2] ? strtoll(f[2], &e2, 10) : -1;
		if (!f[2] || *e1 || *e2 || e1 == f[1] || e2 == f[2] || s0 < 0 || e0 <= s0) {
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
