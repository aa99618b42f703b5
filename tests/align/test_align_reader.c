/* SPDX-License-Identifier: MIT */
/* gvk_align_reader_*, through the public header only: a table with a header line, two- and
 * seven-field lines and a blank-free last line without a newline, read in chunks of 1, 3 and all
 * pairs, gives each pair's sequences, scores and strategy (the defaults for two-field lines, or
 * for every line when forced); a bad line fails with its file and line; bad defaults are refused.
 * Usage: test_align_reader TMPFILE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"

static int fails;

#define CHECK(cond, ...)                                                                            \
	do {                                                                                       \
		if (!(cond)) ++fails, printf("FAIL: " __VA_ARGS__);                                \
	} while (0)

typedef struct {
	const char *ref, *alt;
	gvk_sw_params_t par;
	int overhang;
} want_t;

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	if (fp) fputs(text, fp), fclose(fp);
}

static int same_par(gvk_sw_params_t a, gvk_sw_params_t b)
{
	return a.match == b.match && a.mismatch == b.mismatch && a.gap_open == b.gap_open && a.gap_extend == b.gap_extend;
}

/* The table in chunks of max_pairs against want[0 .. n). */
static void read_all(const char *path, const gvk_align_defaults_t *def, size_t max_pairs, const want_t *want, size_t n)
{
	gvk_err_t err = {0, ""};
	gvk_align_reader_t *r = gvk_align_reader_open(path, def, &err);
	CHECK(r != NULL, "%s: %s\n", path, err.msg);
	if (!r) return;
	size_t at = 0, chunks = 0;
	const gvk_align_pair_t *p;
	uint64_t cells;
	long got;
	while ((got = gvk_align_reader_next(r, max_pairs, &p, &cells, &err)) > 0) {
		uint64_t sum = 0;
		++chunks;
		CHECK((size_t)got <= max_pairs, "a chunk of %ld pairs for at most %zu\n", got, max_pairs);
		for (long k = 0; k < got; ++k, ++at) {
			sum += (uint64_t)p[k].ref_len * (uint64_t)p[k].alt_len;
			if (at >= n) continue;
			const want_t *w = &want[at];
			CHECK(p[k].ref_len == (int)strlen(w->ref) && !memcmp(p[k].ref, w->ref, strlen(w->ref)) &&
			          p[k].alt_len == (int)strlen(w->alt) && !memcmp(p[k].alt, w->alt, strlen(w->alt)),
			      "pair %zu: sequences differ\n", at);
			CHECK(same_par(p[k].par, w->par) && p[k].overhang == w->overhang, "pair %zu: scores or strategy differ\n", at);
		}
		CHECK(cells == sum, "cells %llu, the pairs' %llu\n", (unsigned long long)cells, (unsigned long long)sum);
	}
	CHECK(got == 0, "%s: %s\n", path, err.msg);
	CHECK(at == n, "%zu pairs read in chunks of %zu, want %zu\n", at, max_pairs, n);
	CHECK(chunks == (n + max_pairs - 1) / max_pairs, "%zu chunks of at most %zu for %zu pairs\n", chunks, max_pairs, n);
	gvk_align_reader_close(r);
}

int main(int argc, char **argv)
{
	if (argc < 2) return fprintf(stderr, "usage: test_align_reader TMPFILE\n"), 2;
	const char *path = argv[1];
	gvk_align_defaults_t def = {{0, 0, 0, 0}, GVK_OVERHANG_SOFTCLIP, 0, 0};
	gvk_sw_preset("NEW_SW_PARAMETERS", &def.par);
	const gvk_sw_params_t own = {10, -5, -20, -2};
	write_file(path, "ref\talt\n"
	                 "ACGTACGT\tACGAACGT\n"
	                 "TTTTGGGG\tTTTGGG\t10\t-5\t-20\t-2\tINDEL\n"
	                 "A\tC\n"
	                 "GATTACA\tGATCA\t10\t-5\t-20\t-2\tIGNORE"); /* no newline at the end */
	want_t want[4] = {{"ACGTACGT", "ACGAACGT", def.par, GVK_OVERHANG_SOFTCLIP},
	                  {"TTTTGGGG", "TTTGGG", own, GVK_OVERHANG_INDEL},
	                  {"A", "C", def.par, GVK_OVERHANG_SOFTCLIP},
	                  {"GATTACA", "GATCA", own, GVK_OVERHANG_IGNORE}};
	static const size_t sizes[] = {1, 3, 1000};
	for (int s = 0; s < 3; ++s) read_all(path, &def, sizes[s], want, 4);
	/* forced: every line takes the defaults */
	gvk_align_defaults_t forced = def;
	forced.force_par = forced.force_overhang = 1, forced.overhang = GVK_OVERHANG_LEADING_INDEL;
	for (int k = 0; k < 4; ++k) want[k].par = def.par, want[k].overhang = GVK_OVERHANG_LEADING_INDEL;
	read_all(path, &forced, 2, want, 4);
	/* a bad score on line 3 */
	write_file(path, "ACGT\tACGT\nACGT\tAC\nACGT\tACGT\tx\t-5\t-20\t-2\tINDEL\n");
	gvk_err_t err = {0, ""};
	gvk_align_reader_t *r = gvk_align_reader_open(path, &def, &err);
	const gvk_align_pair_t *p = NULL;
	long n = 0, got;
	while (r && (got = gvk_align_reader_next(r, 1, &p, NULL, &err)) > 0) n += got;
	char where[4200];
	snprintf(where, sizeof where, "%s:3", path);
	CHECK(r && n == 2 && got < 0 && strstr(err.msg, where), "a bad line 3: %ld pairs, then '%s' (want '%s')\n", n, err.msg,
	      where);
	gvk_align_reader_close(r);
	gvk_align_defaults_t bad = def;
	bad.overhang = 3;
	CHECK(gvk_align_reader_open(path, &bad, &err) == NULL && err.code == GVK_ERR_ARG, "overhang 3 accepted\n");
	CHECK(gvk_align_reader_open("/nonexistent/table.tsv", &def, &err) == NULL && strstr(err.msg, "/nonexistent/table.tsv"),
	      "a missing file: '%s'\n", err.msg);
	remove(path);
	printf("the align table through the public reader: chunks of 1, 3, 2 (forced defaults) and all, a bad line, bad "
	       "defaults: %s\n", fails ? "FAILED" : "as written");
	return fails != 0;
}
