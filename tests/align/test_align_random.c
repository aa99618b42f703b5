/* SPDX-License-Identifier: MIT */
/* Self-consistency on random pairs (lengths 1..MAXLEN, low-complexity and related sequences,
 * every preset and strategy, random small and huge penalties, zeros included):
 *  - the AVX-512, AVX2 and NEON engines (2 threads) return exactly the scalar reference's CIGAR, offset
 *    and score in both flavours, with and without the substring shortcut, both on the whole batch
 *    (16- and 8-lane kernels) and called with 1..20 pairs at a time (diagonal kernels for small
 *    groups, partly filled lanes above);
 *  - with match > 0 and gap_open < 0 the shortcut never changes an answer (docs/align.md, Semantics 7.2);
 *  - Java-flavour CIGARs consume all of alt (and all of ref under INDEL), offsets lie in ref.
 * Usage: test_align_random [PAIRS] [MAXLEN] [SEED]. Exit 77 when the CPU has no vector kernel (AVX-512,
 * AVX2 or NEON); each one the CPU has is checked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"

#include "random_pairs.h"

static gvk_align_t *engine(int isa, int flavour, int raw, int threads)
{
	gvk_align_opts_t o;
	gvk_align_opts_init(&o);
	o.isa = isa, o.flavour = flavour, o.raw = raw, o.threads = threads, o.device = GVK_DEVICE_CPU;
	return gvk_align_create(&o, NULL);
}

/* Calls the engine on chunks of 1, 2, .. 20 pairs; the CIGARs are copied (the engine owns them
 * only until its next call). */
static int run_chunked(gvk_align_t *e, const gvk_align_pair_t *p, size_t n, gvk_align_result_t *res)
{
	size_t c = 1;
	for (size_t k = 0; k < n; k += c, c = c % 20 + 1) {
		size_t len = n - k < c ? n - k : c;
		if (gvk_align_batch(e, p + k, len, res + k, NULL) < 0) return -1;
		for (size_t q = k; q < k + len; ++q) res[q].cigar = strdup(res[q].cigar);
	}
	return 0;
}

static int same(const gvk_align_result_t *a, const gvk_align_result_t *b)
{
	return !strcmp(a->cigar, b->cigar) && a->offset == b->offset && a->score == b->score;
}

/* Lengths of ref and alt a CIGAR consumes. */
static void consumed(const char *c, int *r, int *a)
{
	*r = *a = 0;
	while (*c) {
		int len = (int)strtol(c, (char **)&c, 10);
		char op = *c++;
		if (op == 'M' || op == 'D') *r += len;
		if (op == 'M' || op == 'I' || op == 'S') *a += len;
	}
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? (size_t)atol(argv[1]) : 20000;
	int maxlen = argc > 2 ? atoi(argv[2]) : 1000;
	uint64_t s = (argc > 3 ? strtoull(argv[3], NULL, 10) : 12345) | 1;
	int isas[3], nisa = 0;
	static const int cand[3] = {GVK_ISA_AVX512, GVK_ISA_AVX2, GVK_ISA_NEON};
	for (int k = 0; k < 3; ++k) {
		gvk_align_t *probe = engine(cand[k], GVK_SW_GKL, 0, 1);
		if (probe) isas[nisa++] = cand[k];
		gvk_align_destroy(probe);
	}
	if (!nisa) {
		printf("SKIP: no vector kernel on this CPU or build\n");
		return 77;
	}
	size_t nbig = 3;
	gvk_align_pair_t *pairs = calloc(n + nbig, sizeof *pairs);
	for (size_t k = 0; k < n; ++k) random_pair(&s, maxlen, &pairs[k]);
	/* Pairs above the vector kernel's matrix size take the scalar path inside the same batch. */
	for (size_t k = n; k < n + nbig; ++k) {
		int len = 2100 + (int)k % 7;
		gvk_align_pair_t *p = &pairs[k];
		char *a = random_seq(&s, len, "ACGT"), *b = malloc((size_t)len + 1);
		memcpy(b, a, (size_t)len + 1);
		for (int i = 0; i < len; i += 37) b[i] = 'T';
		*p = (gvk_align_pair_t){a, b, len, len - (int)(k - n) * 50, {200, -150, -260, -11}, GVK_OVERHANG_SOFTCLIP + (int)(k - n)};
	}
	n += nbig;
	gvk_align_result_t *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b), *c1 = calloc(n, sizeof *c1);
	gvk_align_result_t *raw = calloc(n, sizeof *raw);
	char **rawc = calloc(n, sizeof *rawc);
	int bad = 0;
	size_t checked_shortcut = 0, checked_len = 0;
	for (int fl = 0; fl < 2; ++fl) {
		for (int r = 1; r >= 0; --r) {
			gvk_align_t *es = engine(GVK_ISA_SCALAR, fl, r, 2);
			if (gvk_align_batch(es, pairs, n, a, NULL) < 0) return fprintf(stderr, "batch failed\n"), 1;
			size_t diff = 0;
			for (size_t k = 0; k < n; ++k) {
				const gvk_align_pair_t *p = &pairs[k];
				int ovh = p->overhang;
				if (r) {
					raw[k] = a[k];
					rawc[k] = strdup(a[k].cigar);
					if (fl == 1 && ovh != GVK_OVERHANG_IGNORE) {
						int cr, ca;
						consumed(a[k].cigar, &cr, &ca);
						int ok = ca == p->alt_len && a[k].offset >= 0 && a[k].offset + cr <= p->ref_len &&
						         (ovh != GVK_OVERHANG_INDEL || cr == p->ref_len);
						if (!ok && diff++ < 5) fprintf(stderr, "pair %zu: CIGAR %s does not fit %d x %d\n", k, a[k].cigar, p->ref_len, p->alt_len);
						++checked_len;
					}
				} else {
					if ((ovh == GVK_OVERHANG_SOFTCLIP || ovh == GVK_OVERHANG_IGNORE) && p->par.match > 0 && p->par.gap_open < 0) {
						if ((strcmp(rawc[k], a[k].cigar) || raw[k].offset != a[k].offset) && diff++ < 5)
							fprintf(stderr, "pair %zu: the shortcut changed %s %d into %s %d\n", k, rawc[k], raw[k].offset, a[k].cigar, a[k].offset);
						++checked_shortcut;
					}
					free(rawc[k]);
				}
			}
			/* Each vector kernel set: the whole batch on 2 threads, and small calls on 1. */
			for (int v = 0; v < nisa; ++v) {
				gvk_align_t *ev = engine(isas[v], fl, r, 2), *ec = engine(isas[v], fl, r, 1);
				if (run_chunked(ec, pairs, n, c1) < 0 || gvk_align_batch(ev, pairs, n, b, NULL) < 0)
					return fprintf(stderr, "batch failed\n"), 1;
				size_t vdiff = 0;
				for (size_t k = 0; k < n; ++k) {
					if (!same(&a[k], &c1[k]) && vdiff++ < 5)
						fprintf(stderr, "pair %zu (%d x %d) flavour %d raw %d: scalar %s %d %d, %s small calls %s %d %d\n", k,
						        pairs[k].ref_len, pairs[k].alt_len, fl, r, a[k].cigar, a[k].offset, a[k].score,
						        gvk_align_device_name(ev), c1[k].cigar, c1[k].offset, c1[k].score);
					free((char *)c1[k].cigar);
					if (!same(&a[k], &b[k]) && vdiff++ < 5)
						fprintf(stderr, "pair %zu (%d x %d, %s, %d/%d/%d/%d) flavour %d raw %d: scalar %s %d %d, %s %s %d %d\n", k,
						        pairs[k].ref_len, pairs[k].alt_len, gvk_overhang_name(pairs[k].overhang), pairs[k].par.match,
						        pairs[k].par.mismatch, pairs[k].par.gap_open, pairs[k].par.gap_extend, fl, r, a[k].cigar,
						        a[k].offset, a[k].score, gvk_align_device_name(ev), b[k].cigar, b[k].offset, b[k].score);
				}
				printf("%s flavour %s raw %d: %zu pairs, %zu differences\n", gvk_align_device_name(ev), fl ? "java" : "gkl", r, n,
				       vdiff);
				diff += vdiff;
				gvk_align_destroy(ev);
				gvk_align_destroy(ec);
			}
			bad += diff != 0;
			gvk_align_destroy(es);
		}
	}
	for (size_t k = 0; k < n; ++k) free((char *)pairs[k].ref), free((char *)pairs[k].alt);
	free(pairs), free(a), free(b), free(c1), free(raw), free(rawc);
	printf("shortcut invariance checked on %zu pair runs, CIGAR lengths on %zu\n", checked_shortcut, checked_len);
	return bad ? 1 : 0;
}
