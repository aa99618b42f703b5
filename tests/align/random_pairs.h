/* SPDX-License-Identifier: MIT */
/* Random alignment pairs for the align tests: lengths 1..maxlen, low-complexity and related
 * sequences, every preset and strategy, random small and huge penalties, zeros included. */
#ifndef GVK_TEST_RANDOM_PAIRS_H
#define GVK_TEST_RANDOM_PAIRS_H

#include <stdlib.h>
#include <string.h>

#include "gvk.h"

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

static int rnd(uint64_t *s, int lo, int hi) { return lo + (int)(rng(s) % (uint64_t)(hi - lo + 1)); }

static char *random_seq(uint64_t *s, int len, const char *alpha)
{
	char *q = malloc((size_t)len + 1);
	int na = (int)strlen(alpha);
	if (rnd(s, 0, 4) == 0) { /* tandem repeat of a short unit */
		int u = rnd(s, 1, 4);
		for (int k = 0; k < len; ++k) q[k] = k < u ? alpha[rnd(s, 0, na - 1)] : q[k - u];
	} else {
		for (int k = 0; k < len; ++k) q[k] = alpha[rnd(s, 0, na - 1)];
	}
	q[len] = 0;
	return q;
}

/* A read-like copy of part of src with substitutions and small indels. */
static char *mutate(uint64_t *s, const char *src, int n, int *len)
{
	int beg = rnd(s, 0, n / 3), end = rnd(s, beg + (n - beg) / 2, n);
	char *q = malloc((size_t)(end - beg) * 2 + 8);
	int k = 0;
	for (int i = beg; i < end; ++i) {
		int r = rnd(s, 0, 99);
		if (r < 3) continue;
		if (r < 6) q[k++] = "ACGT"[rnd(s, 0, 3)];
		q[k++] = r < 10 ? "ACGT"[rnd(s, 0, 3)] : src[i];
	}
	if (k == 0) q[k++] = 'A';
	q[k] = 0;
	*len = k;
	return q;
}

static void random_pair(uint64_t *s, int maxlen, gvk_align_pair_t *p)
{
	static const char *const alphas[] = {"ACGT", "ACGT", "ACGTN", "AC", "A", "ACGTX"};
	static const char *const presets[] = {"ORIGINAL_DEFAULT", "STANDARD_NGS", "NEW_SW_PARAMETERS",
	                                      "ALIGNMENT_TO_BEST_HAPLOTYPE_SW_PARAMETERS"};
	const char *alpha = alphas[rnd(s, 0, 5)];
	int small = rnd(s, 0, 9) == 0;
	int n = small ? rnd(s, 1, 8) : rnd(s, 1, maxlen);
	char *ref = random_seq(s, n, alpha);
	int m;
	char *alt;
	if (rnd(s, 0, 2) == 0) {
		alt = mutate(s, ref, n, &m);
	} else {
		m = small ? rnd(s, 1, 8) : rnd(s, 1, maxlen);
		alt = random_seq(s, m, alpha);
	}
	if (rnd(s, 0, 1)) { /* either may be the longer one */
		char *t = ref;
		int tl = n;
		ref = alt, n = m, alt = t, m = tl;
	}
	gvk_align_pair_t q = {ref, alt, n, m, {0, 0, 0, 0}, GVK_OVERHANG_SOFTCLIP + rnd(s, 0, 3)};
	for (;;) {
		int kind = rnd(s, 0, 9);
		if (kind < 5)
			gvk_sw_preset(presets[kind % 4], &q.par);
		else if (kind < 9)
			q.par = (gvk_sw_params_t){rnd(s, 0, 6), -rnd(s, 0, 6), -rnd(s, 0, 8), -rnd(s, 0, 4)};
		else
			q.par = (gvk_sw_params_t){rnd(s, 0, 5), -rnd(s, 0, 3) * 1000000, -rnd(s, 0, 3) * 1000000, -rnd(s, 0, 3) * 333333};
		if (gvk_align_check_pair(&q, NULL) == 0) break;
	}
	*p = q;
}

#endif
