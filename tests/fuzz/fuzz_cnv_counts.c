/* SPDX-License-Identifier: MIT */
/* gvk cnv --counts: the count matrix read as the CLI reads it, with coordinates and as a plain
 * matrix (--as-matrix), on one thread and on three (the body is split among threads at line ends,
 * so the two must agree exactly, errors included). */
#include <math.h>
#include <string.h>

#include "fuzz_util.h"

typedef struct {
	int rc;
	gvk_err_t err;
	uint64_t h;
} outcome_t;

static void check_counts(const gvk_cnv_counts_t *c)
{
	if (c->N < 2 || c->m < 1 || c->n_seqs < 1) fz_fail("accepted %d regions x %d samples in %d sequences", c->m, c->N, c->n_seqs);
	if (c->seq_off[0] != 0 || c->seq_off[c->n_seqs] != c->m) fz_fail("sequence offsets do not span the rows");
	for (int q = 0; q < c->n_seqs; ++q)
		if (c->seq_off[q] > c->seq_off[q + 1]) fz_fail("sequence %d has negative length", q);
	for (int r = 0; r < c->m; ++r)
		if (c->start[r] > c->end[r] || c->start[r] < 0) fz_fail("row %d: [%lld, %lld]", r, (long long)c->start[r], (long long)c->end[r]);
	/* Counts are integers read exactly; one above 2^53 would be rounded without a word. */
	for (size_t k = 0; k < (size_t)c->m * (size_t)c->N; ++k)
		if (!(c->x[k] >= 0) || c->x[k] > 9007199254740992.0 || c->x[k] != floor(c->x[k]))
			fz_fail("count %zu is %.17g", k, c->x[k]);
}

static uint64_t hash_counts(const gvk_cnv_counts_t *c)
{
	uint64_t h = fz_hash(FZ_HASH0, c, 3 * sizeof(int));
	for (int s = 0; s < c->N; ++s) h = fz_hash(h, c->samples[s], strlen(c->samples[s]) + 1);
	for (int q = 0; q < c->n_seqs; ++q) h = fz_hash(h, c->seq_names[q], strlen(c->seq_names[q]) + 1);
	h = fz_hash(h, c->seq_off, (size_t)(c->n_seqs + 1) * sizeof *c->seq_off);
	h = fz_hash(h, c->start, (size_t)c->m * sizeof *c->start);
	h = fz_hash(h, c->end, (size_t)c->m * sizeof *c->end);
	return fz_hash(h, c->x, (size_t)c->m * (size_t)c->N * sizeof *c->x);
}

static outcome_t read_counts(const char *path, int as_matrix, int threads)
{
	outcome_t o = {0, {0, ""}, 0};
	gvk_cnv_counts_t c;
	o.rc = gvk_cnv_counts_read_mt(path, as_matrix, threads, &c, &o.err);
	fz_check_err(o.rc, &o.err, path);
	if (o.rc == 0) {
		check_counts(&c);
		o.h = hash_counts(&c);
	}
	gvk_cnv_counts_free(&c);
	return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_file_t f;
	fz_write(&f, data, size, ".tsv");
	for (int as_matrix = 0; as_matrix < 2; ++as_matrix) {
		outcome_t a = read_counts(f.path, as_matrix, 1), b = read_counts(f.path, as_matrix, 3);
		if (a.rc != b.rc || strcmp(a.err.msg, b.err.msg) != 0 || a.h != b.h)
			fz_fail("one thread: %s; three threads: %s%s", a.rc ? a.err.msg : "ok", b.rc ? b.err.msg : "ok",
			        a.h != b.h ? " (the matrices differ)" : "");
	}
	fz_remove(&f);
	return 0;
}
