/* SPDX-License-Identifier: MIT */
/* Compares a TSV written by gvk with a cn.mops reference file (gzip read transparently):
 * columns matched by header name, integers and text exact, reals to 1e-9 relative, values at
 * the 1e-100 floor absolutely (|d| < 1e-90), as the reference README prescribes.
 * With --ties=W (for seg_stat), a cell where one side is 0 and the other a score s is accepted
 * when the other table has s within 1e-9 at a neighbouring row (distance <= W): the local-maximum
 * filter of the segmentation keeps one of two scores that agree to ~1e-14, and which one R kept
 * depends on its last-bit rounding. Such cells are counted and reported.
 * Usage: test_cnv_cmp GOT EXPECTED [--ties=W] [IGNORED_COLUMN ...] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/lineio.h"

typedef struct {
	char **f;
	int n;
} row_t;

static int split(char *line, row_t *r)
{
	int n = 1;
	for (char *p = line; *p; ++p) n += *p == '\t';
	r->f = malloc((size_t)n * sizeof *r->f);
	r->n = 0;
	for (char *p = line;;) {
		r->f[r->n++] = p;
		char *t = strchr(p, '\t');
		if (!t) break;
		*t = 0, p = t + 1;
	}
	return r->n;
}

static int is_int(const char *s)
{
	if (*s == '-') ++s;
	if (!*s) return 0;
	for (; *s; ++s)
		if (*s < '0' || *s > '9') return 0;
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_cnv_cmp GOT EXPECTED [IGNORED_COLUMN ...]\n");
		return 2;
	}
	gvk_err_t err;
	gvk_lr_t *a = gvk_lr_open(argv[1], &err), *b = gvk_lr_open(argv[2], &err);
	if (!a || !b) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	char *la, *lb;
	size_t na, nb;
	if (gvk_lr_next(a, &la, &na, &err) <= 0) return fprintf(stderr, "%s: empty\n", argv[1]), 1;
	char *ha = strdup(la);
	if (gvk_lr_next(b, &lb, &nb, &err) <= 0) return fprintf(stderr, "%s: empty\n", argv[2]), 1;
	char *hb = strdup(lb);
	row_t HA, HB;
	split(ha, &HA), split(hb, &HB);
	int *map = malloc((size_t)HB.n * sizeof *map), bad = 0, tie_w = 0;
	for (int j = 0; j < HB.n; ++j) {
		map[j] = -1;
		for (int k = 3; k < argc; ++k)
			if (!strcmp(argv[k], HB.f[j])) map[j] = -2;
			else if (!strncmp(argv[k], "--ties=", 7)) tie_w = atoi(argv[k] + 7);
		if (map[j] == -2) continue;
		for (int i = 0; i < HA.n; ++i)
			if (!strcmp(HA.f[i], HB.f[j])) map[j] = i;
		if (map[j] < 0) fprintf(stderr, "column %s of %s missing in %s\n", HB.f[j], argv[2], argv[1]), bad = 1;
	}
	long rows = 0, cells = 0, exact = 0, floor_cells = 0, mism = 0, ties = 0;
	double maxrel = 0;
	row_t *RA = NULL, *RB = NULL;
	for (;;) {
		int ra = gvk_lr_next(a, &la, &na, &err), rb = gvk_lr_next(b, &lb, &nb, &err);
		if (ra <= 0 || rb <= 0) {
			if (ra != rb) fprintf(stderr, "row counts differ (after %ld rows)\n", rows), bad = 1;
			break;
		}
		RA = realloc(RA, (size_t)(rows + 1) * sizeof *RA), RB = realloc(RB, (size_t)(rows + 1) * sizeof *RB);
		split(strdup(la), &RA[rows]), split(strdup(lb), &RB[rows]);
		++rows;
	}
	for (long ri = 0; ri < rows; ++ri) {
		row_t A = RA[ri], B = RB[ri];
		if (A.n != HA.n || B.n != HB.n) {
			fprintf(stderr, "row %ld: field count differs from the header\n", rows);
			bad = 1;
		} else {
			for (int j = 0; j < HB.n; ++j) {
				if (map[j] < 0) continue;
				const char *x = A.f[map[j]], *y = B.f[j];
				++cells;
				int ok = 0;
				if (!strcmp(x, y)) {
					ok = 1, ++exact;
				} else if (!is_int(x) && !is_int(y)) {
					char *ex, *ey;
					double u = strtod(x, &ex), v = strtod(y, &ey);
					if (!*ex && !*ey && ex != x && ey != y) {
						double d = fabs(u - v), s = fmax(fabs(u), fabs(v));
						if (s < 1e-80 && d < 1e-90) ok = 1, ++floor_cells;
						else if (d <= 1e-9 * s) ok = 1, maxrel = fmax(maxrel, d / s);
					}
				}
				if (!ok && tie_w > 0 && (!strcmp(x, "0") || !strcmp(y, "0"))) {
					const char *val = strcmp(x, "0") ? x : y;
					double v = strtod(val, NULL);
					for (long d = -tie_w; d <= tie_w && !ok; ++d) {
						long rj = ri + d;
						if (d == 0 || rj < 0 || rj >= rows) continue;
						double u1 = strtod(RA[rj].f[map[j]], NULL), u2 = strtod(RB[rj].f[j], NULL);
						if (fabs(u1 - v) <= 1e-9 * fabs(v) || fabs(u2 - v) <= 1e-9 * fabs(v)) ok = 1, ++ties;
					}
				}
				if (!ok && mism++ < 5)
					fprintf(stderr, "row %ld column %s: got '%s', expected '%s'\n", ri + 1, HB.f[j], x, y);
			}
		}
	}
	printf("%s: %ld rows, %ld cells, %ld identical, %ld at the floor, max relative difference %.3g, %ld near-tie "
	       "flips, %ld mismatches\n", argv[2], rows, cells, exact, floor_cells, maxrel, ties, mism);
	for (long ri = 0; ri < rows; ++ri) free(RA[ri].f[0]), free(RA[ri].f), free(RB[ri].f[0]), free(RB[ri].f);
	free(RA), free(RB);
	gvk_lr_close(a), gvk_lr_close(b);
	free(ha), free(hb), free(HA.f), free(HB.f), free(map);
	return bad || mism ? 1 : 0;
}
