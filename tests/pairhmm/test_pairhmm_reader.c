/* SPDX-License-Identifier: MIT */
/* gvk_pairhmm_reader_*, through the public header only as a program using the library would: an
 * input read in chunks of several sizes on one and three threads gives, pair by pair, the records,
 * indices and log10 values (bit for bit) that gvk_pairhmm_file gives for the whole file; the
 * format is told as named; a malformed input fails with its file and line.
 * Usage: test_pairhmm_reader INPUT FORMAT-NAME TMPFILE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"

static int fails;

#define CHECK(cond, ...)                                                                            \
	do {                                                                                       \
		if (!(cond)) ++fails, printf("FAIL: " __VA_ARGS__);                                \
	} while (0)

/* The file in chunks of about max_pairs pairs on nt threads against r, the whole file's result. */
static void chunks(gvk_pairhmm_t *e, const char *path, const char *fmt, size_t max_pairs, int nt,
                   const gvk_pairhmm_file_result_t *r)
{
	gvk_err_t err = {0, ""};
	gvk_pairhmm_reader_t *rd = gvk_pairhmm_reader_open(path, GVK_PAIRHMM_FMT_AUTO, &err);
	gvk_pairhmm_chunk_t *c = gvk_pairhmm_chunk_new();
	CHECK(rd && c, "%s: cannot open: %s\n", path, err.msg);
	if (!rd || !c) {
		gvk_pairhmm_chunk_free(c), gvk_pairhmm_reader_close(rd);
		return;
	}
	CHECK(!strcmp(gvk_pairhmm_format_name(gvk_pairhmm_reader_format(rd)), fmt), "%s: format %s, want %s\n", path,
	      gvk_pairhmm_format_name(gvk_pairhmm_reader_format(rd)), fmt);
	size_t at = 0, n_chunks = 0;
	double *v = NULL;
	long n;
	while ((n = gvk_pairhmm_reader_next(rd, c, max_pairs, nt, &err)) > 0) {
		gvk_pairhmm_view_t w;
		gvk_pairhmm_chunk_view(c, &w);
		++n_chunks;
		CHECK((size_t)n == w.n_pairs, "%s: next gave %ld pairs, the view %zu\n", path, n, w.n_pairs);
		v = realloc(v, sizeof *v * w.n_pairs);
		gvk_pairhmm_out_t o = {v, NULL, NULL, NULL};
		if (gvk_pairhmm_pairs(e, w.reads, w.haps, w.pairs, w.n_pairs, &o, &err) < 0) {
			CHECK(0, "%s: %s\n", path, err.msg);
			break;
		}
		for (size_t k = 0; k < w.n_pairs && at + k < r->n; ++k) {
			size_t q = at + k;
			CHECK(w.group[k] == r->group[q] && w.rin[k] == r->read[q] && w.hin[k] == r->hap[q] &&
			          !memcmp(&v[k], &r->log10[q], sizeof v[k]),
			      "%s: chunks of %zu on %d threads: pair %zu differs\n", path, max_pairs, nt, q);
		}
		at += w.n_pairs;
		gvk_pairhmm_reader_release(rd, gvk_pairhmm_reader_consumed(rd));
	}
	CHECK(n == 0, "%s: %s\n", path, err.msg);
	CHECK(at == r->n, "%s: chunks of %zu on %d threads gave %zu pairs, the file %zu\n", path, max_pairs, nt, at, r->n);
	/* a chunk holds whole records, at least one: chunks of one pair are the records */
	CHECK(max_pairs > 1 || n_chunks == (size_t)r->group[r->n - 1] + 1, "%s: %zu chunks of one pair for %llu records\n", path,
	      n_chunks, (unsigned long long)r->group[r->n - 1] + 1);
	free(v);
	gvk_pairhmm_chunk_free(c);
	gvk_pairhmm_reader_close(rd);
}

/* A record whose read and quality lengths differ: the error names the file and its line 2. */
static void malformed(const char *tmp)
{
	FILE *fp = fopen(tmp, "w");
	if (!fp) {
		CHECK(0, "cannot write %s\n", tmp);
		return;
	}
	fputs("# a comment\nACGTACGT ACGTA +++++ +++++ ++++ +++++\n", fp);
	fclose(fp);
	gvk_err_t err = {0, ""};
	gvk_pairhmm_reader_t *rd = gvk_pairhmm_reader_open(tmp, GVK_PAIRHMM_FMT_GKL, &err);
	gvk_pairhmm_chunk_t *c = gvk_pairhmm_chunk_new();
	long n = rd && c ? gvk_pairhmm_reader_next(rd, c, 100, 1, &err) : -1;
	char want[4200];
	snprintf(want, sizeof want, "%s:2:", tmp);
	CHECK(n < 0 && strstr(err.msg, want), "malformed input: rc %ld, message '%s' (want '%s')\n", n, err.msg, want);
	CHECK(gvk_pairhmm_reader_open(tmp, 42, &err) == NULL && err.code == GVK_ERR_ARG, "format 42 accepted\n");
	gvk_pairhmm_chunk_free(c);
	gvk_pairhmm_reader_close(rd);
	remove(tmp);
}

int main(int argc, char **argv)
{
	if (argc < 4) return fprintf(stderr, "usage: test_pairhmm_reader INPUT FORMAT-NAME TMPFILE\n"), 2;
	for (int f = GVK_PAIRHMM_FMT_AUTO; f <= GVK_PAIRHMM_FMT_HEX; ++f)
		CHECK(gvk_pairhmm_format_parse(gvk_pairhmm_format_name(f)) == f, "format %d's name does not parse back\n", f);
	CHECK(gvk_pairhmm_format_parse("fasta") == -1, "an unknown format name parsed\n");
	gvk_pairhmm_opts_t o;
	gvk_pairhmm_opts_init(&o);
	o.device = GVK_DEVICE_CPU;
	gvk_err_t err = {0, ""};
	gvk_pairhmm_t *e = gvk_pairhmm_create(&o, &err);
	gvk_pairhmm_file_result_t *r = NULL;
	if (!e || gvk_pairhmm_file(e, argv[1], &r, &err) < 0) return printf("FAIL: %s: %s\n", argv[1], err.msg), 1;
	CHECK(r->n > 0, "%s: no pairs\n", argv[1]);
	static const size_t sizes[] = {1, 7, 1000, 1u << 30};
	for (int s = 0; s < 4; ++s)
		for (int nt = 1; nt <= 3; nt += 2) chunks(e, argv[1], argv[2], sizes[s], nt, r);
	malformed(argv[3]);
	printf("%s: %zu pairs through the public reader in chunks of 1, 7, 1000 and all, on 1 and 3 threads: %s\n", argv[1],
	       r->n, fails ? "FAILED" : "the same");
	gvk_pairhmm_file_result_free(r);
	gvk_pairhmm_destroy(e);
	return fails != 0;
}
