/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "fuzz_util.h"
#include "pairhmm_check.h"

typedef struct {
	int rc;           /* 0 or the first error */
	gvk_err_t err;
	uint64_t pairs, h; /* pairs read and the hash of their contents */
} outcome_t;

/* Folds a chunk's pairs into the hash: what the engine and the writer use of each pair. */
static uint64_t hash_chunk(uint64_t h, const phmm_chunk_t *c)
{
	for (size_t k = 0; k < c->n_pairs; ++k) {
		const gvk_read_t *r = &c->reads[c->pairs[k].read];
		const gvk_hap_t *hp = &c->haps[c->pairs[k].hap];
		size_t R = (size_t)r->len;
		if (r->len < 1 || hp->len < 1) fz_fail("pair %zu: read of %d, haplotype of %d bases", k, r->len, hp->len);
		h = fz_hash(h, &r->len, sizeof r->len);
		h = fz_hash(h, r->bases, R), h = fz_hash(h, r->qual, R), h = fz_hash(h, r->ins, R);
		h = fz_hash(h, r->del, R), h = fz_hash(h, r->gcp, R);
		h = fz_hash(h, hp->bases, (size_t)hp->len);
		h = fz_hash(h, &c->group[k], sizeof c->group[k]);
		h = fz_hash(h, &c->rin[k], sizeof c->rin[k]), h = fz_hash(h, &c->hin[k], sizeof c->hin[k]);
	}
	return h;
}

static outcome_t parse(const char *path, phmm_format_t fmt, int threads)
{
	outcome_t o = {0, {0, ""}, 0, FZ_HASH0};
	phmm_reader_t *rd = phmm_reader_open(path, fmt, &o.err);
	if (!rd) {
		o.rc = o.err.code < 0 ? o.err.code : GVK_ERR_FORMAT;
		fz_check_err(o.rc, &o.err, path);
		return o;
	}
	phmm_chunk_t c;
	memset(&c, 0, sizeof c);
	for (;;) {
		/* Three pairs a chunk: records cross chunk boundaries often. The threaded reader needs
		 * the CLI's large chunks to take its threaded path. */
		long n = threads > 1 ? phmm_reader_next_mt(rd, &c, (size_t)1 << 16, threads, &o.err)
		                     : phmm_reader_next(rd, &c, 3, &o.err);
		if (n < 0) {
			o.rc = (int)n;
			fz_check_err(o.rc, &o.err, path);
			break;
		}
		if (n == 0) break;
		if ((size_t)n != c.n_pairs) fz_fail("returned %ld pairs, the chunk holds %zu", n, c.n_pairs);
		o.pairs += (uint64_t)n;
		o.h = hash_chunk(o.h, &c);
	}
	phmm_chunk_free(&c);
	phmm_reader_close(rd);
	return o;
}

void fz_pairhmm(const char *path, phmm_format_t fmt)
{
	outcome_t a = parse(path, fmt, 1), b = parse(path, fmt, 4);
	if ((a.rc < 0) != (b.rc < 0))
		fz_fail("sequential parse: %s; threaded parse: %s", a.rc < 0 ? a.err.msg : "ok", b.rc < 0 ? b.err.msg : "ok");
	/* A read error (a damaged gzip stream) is told "after line N" of the lines counted when the
	 * read failed, which depends on how far ahead each reader reads; any other error must read
	 * the same. */
	if (a.rc < 0 && (a.rc != b.rc || (a.rc != GVK_ERR_IO && strcmp(a.err.msg, b.err.msg) != 0)))
		fz_fail("the errors differ: sequential '%s', threaded '%s'", a.err.msg, b.err.msg);
	if (a.rc == 0 && (a.pairs != b.pairs || a.h != b.h))
		fz_fail("the parses differ: %llu pairs sequentially, %llu on threads (hashes %s)", (unsigned long long)a.pairs,
		        (unsigned long long)b.pairs, a.h == b.h ? "equal" : "differ");
}
