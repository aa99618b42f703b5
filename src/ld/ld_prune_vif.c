/* SPDX-License-Identifier: MIT */
/* The order of drops is PLINK 1.9's: while the matrix is singular, a binary search over the sizes
 * of its leading blocks (from the carried-over part on) finds a size n whose block is singular
 * while the one below is not, and the variant at index n goes (PLINK's choice: the one just past
 * that block); once the matrix inverts, the variant with the largest VIF (the first of equal ones)
 * goes if that VIF exceeds the threshold, and the loop repeats. */
#include <stdlib.h>
#include <string.h>

#include "ld_prune_vif.h"
#include "ld_lu.h"

int vif_buf_init(vif_buf_t *b, int64_t cap)
{
	memset(b, 0, sizeof *b);
	size_t sq = (size_t)(cap < 2 ? 2 : cap);
	b->cap = cap;
	b->r = malloc(sizeof *b->r * sq * sq);
	b->m = malloc(sizeof *b->m * sq * sq);
	b->work = malloc(sizeof *b->work * sq * sq);
	b->ipiv = malloc(sizeof *b->ipiv * sq);
	b->rem = malloc(sizeof *b->rem * sq);
	if (b->r && b->m && b->work && b->ipiv && b->rem) return 0;
	vif_buf_free(b);
	return -1;
}

void vif_buf_free(vif_buf_t *b)
{
	free(b->r), free(b->m), free(b->work), free(b->ipiv), free(b->rem);
	memset(b, 0, sizeof *b);
}

/* The correlation matrix of the first n slots of rem, inverted in b->m; 1 when singular. */
static int invert_leading(vif_buf_t *b, int64_t n)
{
	double *m = b->m;
	for (int64_t i = 0; i < n; ++i) {
		m[i * n + i] = 1.0;
		for (int64_t j = 0; j < i; ++j) m[i * n + j] = m[j * n + i] = b->r[b->rem[j] * b->cap + b->rem[i]];
	}
	return ld_lu_invert((int)n, m, b->ipiv, b->work);
}

/* Removes entry k of rem (n entries). */
static void drop_at(vif_buf_t *b, int64_t k, int64_t n)
{
	memmove(b->rem + k, b->rem + k + 1, sizeof *b->rem * (size_t)(n - 1 - k));
}

/* Where the binary search puts the variant to drop from a singular matrix of n variants. */
static int64_t singular_drop(vif_buf_t *b, int64_t n, int64_t *old, int64_t *old_n)
{
	int64_t lo = *old_n, hi = n - 1;
	if (lo > hi) *old = 0, *old_n = 0, lo = 0;
	while (lo < hi) {
		int64_t mid = (lo + hi) / 2;
		if (!mid) lo = 1;
		else if (!invert_leading(b, mid)) lo = mid + 1;
		else hi = mid;
	}
	return lo;
}

int64_t vif_window(vif_buf_t *b, const int64_t *live, int64_t size, int64_t *old, uint8_t *out, double vif)
{
	int64_t n = 0, old_n = 0, dropped = 0;
	for (int64_t k = 0; k < size; ++k) {
		if (out[live[k]]) continue;
		if (k < *old) ++old_n;
		b->rem[n++] = k;
	}
	while (n > 1) {
		while (invert_leading(b, n)) {
			int64_t k = singular_drop(b, n, old, &old_n);
			out[live[b->rem[k]]] = 1, ++dropped;
			drop_at(b, k, n--);
		}
		int64_t best = 0;
		for (int64_t k = 1; k < n; ++k)
			if (b->m[k * n + k] > b->m[best * n + best]) best = k;
		if (!(b->m[best * n + best] > vif)) break;
		out[live[b->rem[best]]] = 1, ++dropped;
		if (b->rem[best] < *old) --old_n;
		drop_at(b, best, n--);
	}
	return dropped;
}
