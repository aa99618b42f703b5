/* SPDX-License-Identifier: MIT */
/* The .fidb calls of gvk.h (gvk_fastid_db_*, gvk_fastid_search_db, gvk_fastid_result_merge and the
 * table writers) against gvk fastid, built on the public header alone:
 *   - gvk_fastid_db_make and _write give gvk fastid --make-fidb's file byte for byte, and _info
 *     what its summary line says;
 *   - a database read whole, opened, or streamed through a pipe, searched in small blocks, gives
 *     gvk fastid's tables byte for byte;
 *   - slices searched apart (gvk_fastid_db_range) and merged, in either order, give one search's
 *     result, and the IDs of a slice's profiles are read past the profiles it skipped;
 *   - refusals: ranges, a second ID read, writing or querying an opened file, other panels.
 * Usage: test_fastid_db GVK DATA TMPDIR */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gvk.h"

#include "snp_test_util.h"

static int same_file(const char *a, const char *b)
{
	char cmd[8400];
	path(cmd, sizeof cmd, "cmp -s '%s' '%s'", a, b);
	return run(cmd) == 0;
}

static gvk_fastid_t *engine(int mixture, int topk, int64_t thr)
{
	gvk_fastid_opts_t o;
	gvk_fastid_opts_init(&o);
	o.mixture = mixture, o.topk = topk, o.threshold = thr, o.threads = 2, o.device = GVK_DEVICE_CPU;
	gvk_err_t err = {0, ""};
	gvk_fastid_t *e = gvk_fastid_create(&o, &err);
	CHECK(e, "engine: %s\n", err.msg);
	return e;
}

/* The tables of r written by the API into TMP/api_top.tsv and api_hits.tsv. */
static int write_tables(const gvk_fastid_result_t *r, const gvk_fastid_db_t *q, const gvk_fastid_db_t *db)
{
	char top[4096], hits[4096];
	path(top, sizeof top, "%s/api_top.tsv", tmp_dir);
	path(hits, sizeof hits, "%s/api_hits.tsv", tmp_dir);
	FILE *ft = fopen(top, "w"), *fh = fopen(hits, "w");
	gvk_err_t err = {0, ""};
	int rc = ft && fh ? 0 : -1;
	if (rc == 0) rc = gvk_fastid_write_top(ft, r, q, db, &err);
	if (rc == 0) rc = gvk_fastid_write_hits(fh, r, q, db, &err);
	CHECK(rc == 0, "tables: %s\n", err.msg);
	if (ft) fclose(ft);
	if (fh) fclose(fh);
	return rc;
}

/* gvk fastid OPTS DB QUERIES into TMP/cli_top.tsv and cli_hits.tsv, then the API's tables against
 * them. */
static void same_tables(const char *what, const char *opts, const char *db, const char *q)
{
	char cmd[16384], a[4096], b[4096];
	path(cmd, sizeof cmd, "%s fastid -q --device cpu -t 2 %s -o %s/cli_top.tsv -H %s/cli_hits.tsv %s %s", gvk_bin, opts,
	     tmp_dir, tmp_dir, db, q);
	CHECK(run(cmd) == 0, "%s: gvk fastid failed\n", cmd);
	for (int k = 0; k < 2; ++k) {
		path(a, sizeof a, "%s/api_%s.tsv", tmp_dir, k ? "hits" : "top");
		path(b, sizeof b, "%s/cli_%s.tsv", tmp_dir, k ? "hits" : "top");
		CHECK(same_file(a, b), "%s: %s differs from gvk fastid's\n", what, k ? "hits" : "top");
	}
	printf("%s: tables = gvk fastid's\n", what);
}

/* ---- --make-fidb ---------------------------------------------------------------------------- */

static void make_case(const char *prefix, int minor, const char *out)
{
	char cli[4096], cmd[16384], want[256];
	gvk_err_t err = {0, ""};
	gvk_fastid_make_opts_t mo;
	gvk_fastid_make_opts_init(&mo);
	mo.minor = minor, mo.threads = 3;
	gvk_fastid_db_t *d = gvk_fastid_db_make(prefix, &mo, &err);
	CHECK(d, "make %s: %s\n", prefix, err.msg);
	if (!d) return;
	FILE *fp = fopen(out, "wb");
	CHECK(fp && gvk_fastid_db_write(d, fp, &err) == 0, "write %s: %s\n", out, err.msg);
	if (fp) fclose(fp);
	gvk_fastid_db_info_t in;
	gvk_fastid_db_info(d, &in);
	CHECK(in.whole && in.seekable && in.has_panel && in.panel_hash && !strcmp(in.name, prefix), "make info\n");
	path(cli, sizeof cli, "%s/cli.fidb", tmp_dir);
	path(want, sizeof want, "%lld profiles of %u SNPs (panel %016llx) written", (long long)in.n, in.n_snp,
	     (unsigned long long)in.panel_hash);
	path(cmd, sizeof cmd, "%s fastid -t 1 %s --make-fidb %s -o %s 2>&1 | grep -qF '%s'", gvk_bin, minor ? "--minor" : "",
	     prefix, cli, want);
	CHECK(run(cmd) == 0, "%s: gvk fastid does not say '%s'\n", cmd, want);
	CHECK(same_file(out, cli), "make %s (minor %d): the API's .fidb differs from gvk fastid's\n", prefix, minor);
	printf("make %s, minor %d: %s = gvk fastid --make-fidb\n", prefix, minor, want);
	gvk_fastid_db_close(d);
}

/* ---- searches = gvk fastid ------------------------------------------------------------------ */

/* Queries read whole, the database read whole (mode 0), opened (1), or streamed (2: fed through a
 * pipe as standard input), searched 7 profiles at a time. */
static void search_case(const char *what, int mode, int mixture, int topk, int64_t thr, const char *dbp, const char *qp)
{
	gvk_err_t err = {0, ""};
	gvk_fastid_t *e = engine(mixture, topk, thr);
	gvk_fastid_db_t *q = gvk_fastid_db_read(qp, &err), *db = NULL;
	CHECK(q, "%s: queries: %s\n", what, err.msg);
	pid_t feeder = -1;
	int saved = -1;
	if (mode == 2) {
		int fd[2];
		char cmd[8400];
		saved = dup(0);
		if (pipe(fd) == 0 && (feeder = fork()) == 0) {
			dup2(fd[1], 1), close(fd[0]), close(fd[1]);
			path(cmd, sizeof cmd, "cat '%s'", dbp);
			_exit(run(cmd));
		}
		dup2(fd[0], 0), close(fd[0]), close(fd[1]);
		clearerr(stdin); /* the last stream's end */
	}
	db = mode == 0 ? gvk_fastid_db_read(dbp, &err) : gvk_fastid_db_open(mode == 2 ? "-" : dbp, &err);
	CHECK(db, "%s: database: %s\n", what, err.msg);
	gvk_fastid_result_t *r = NULL;
	int rc = e && q && db ? gvk_fastid_search_db(e, q, db, 7, &r, &err) : -1;
	if (rc == 0) rc = gvk_fastid_db_read_ids(db, r, &err);
	CHECK(rc == 0, "%s: %s\n", what, err.msg);
	if (rc == 0 && write_tables(r, q, db) == 0) {
		char opts[256];
		path(opts, sizeof opts, "--%s -k %d -T %lld", mixture ? "mixture" : "identity", topk, (long long)thr);
		same_tables(what, opts, dbp, qp);
		CHECK(r->kernel[0] && r->search_s >= 0, "%s: kernel '%s', %g s\n", what, r->kernel, r->search_s);
	}
	gvk_fastid_db_info_t in;
	gvk_fastid_db_info(db, &in);
	CHECK(in.seekable == (mode != 2) && in.whole == (mode == 0), "%s: info: seekable %d, whole %d\n", what, in.seekable,
	      in.whole);
	gvk_fastid_result_free(r);
	gvk_fastid_db_close(db);
	gvk_fastid_db_close(q);
	gvk_fastid_destroy(e);
	if (mode == 2) {
		waitpid(feeder, NULL, 0);
		dup2(saved, 0), close(saved);
		clearerr(stdin);
	}
}

/* ---- slices -------------------------------------------------------------------------------- */

static int same_result(const gvk_fastid_result_t *a, const gvk_fastid_result_t *b)
{
	return a->n_queries == b->n_queries && a->k == b->k && a->n_hits == b->n_hits && a->pairs == b->pairs &&
	       !memcmp(a->top, b->top, sizeof *a->top * a->n_queries * (size_t)a->k) &&
	       (!a->n_hits || !memcmp(a->hits, b->hits, sizeof *a->hits * a->n_hits));
}

/* The search of d's profiles first .. end - 1 (d's next range). */
static gvk_fastid_result_t *slice(gvk_fastid_t *e, const gvk_fastid_db_t *q, gvk_fastid_db_t *d, int64_t first,
                                  int64_t end)
{
	gvk_err_t err = {0, ""};
	gvk_fastid_result_t *r = NULL;
	int rc = gvk_fastid_db_range(d, first, end, &err);
	if (rc == 0) rc = gvk_fastid_search_db(e, q, d, 0, &r, &err);
	CHECK(rc == 0, "slice %lld .. %lld: %s\n", (long long)first, (long long)end, err.msg);
	return r;
}

/* Slices of an opened database, merged in order and in reverse, = the whole search; the tables
 * after the merge = gvk fastid's. */
static void slices_case(const char *dbp, const char *qp)
{
	static const int64_t cut[] = {0, 123, 124, 124, 500};
	enum { N = sizeof cut / sizeof *cut - 1 };
	gvk_err_t err = {0, ""};
	gvk_fastid_t *e = engine(1, 6, 40);
	gvk_fastid_db_t *q = gvk_fastid_db_read(qp, &err), *d = gvk_fastid_db_open(dbp, &err);
	CHECK(q && d, "slices: %s\n", err.msg);
	if (!e || !q || !d) return;
	gvk_fastid_result_t *whole = slice(e, q, d, 0, 500), *fwd = NULL, *rev = NULL;
	for (int k = 0; k < N; ++k) {
		gvk_fastid_result_t *a = slice(e, q, d, cut[k], cut[k + 1]), *b = slice(e, q, d, cut[N - 1 - k], cut[N - k]);
		if (!fwd) fwd = a, a = NULL;
		else CHECK(gvk_fastid_result_merge(e, fwd, a, &err) == 0, "merge: %s\n", err.msg);
		if (!rev) rev = b, b = NULL;
		else CHECK(gvk_fastid_result_merge(e, rev, b, &err) == 0, "merge: %s\n", err.msg);
		gvk_fastid_result_free(a);
		gvk_fastid_result_free(b);
	}
	CHECK(whole && fwd && rev && same_result(whole, fwd) && same_result(whole, rev),
	      "slices merged differ from the whole search\n");
	CHECK(fwd && whole && !strcmp(fwd->kernel, whole->kernel), "merged kernel '%s'\n", fwd ? fwd->kernel : "");
	CHECK(fwd && gvk_fastid_db_read_ids(d, fwd, &err) == 0, "slices: IDs: %s\n", err.msg);
	if (fwd && write_tables(fwd, q, d) == 0)
		same_tables("slices 0..123, 123..124, 124..500 merged", "--mixture -k 6 -T 40", dbp, qp);
	gvk_fastid_result_free(whole), gvk_fastid_result_free(fwd), gvk_fastid_result_free(rev);
	gvk_fastid_db_close(d), gvk_fastid_db_close(q);
	gvk_fastid_destroy(e);
}

/* A slice that ends before the last profile: its IDs are read past the profiles it skipped, and
 * name the profiles as the file read whole does. An empty slice searches nothing, on the engine's
 * CPU kernel. */
static void slice_ids_case(const char *fidb)
{
	gvk_err_t err = {0, ""};
	gvk_fastid_t *e = engine(0, 3, -1);
	gvk_fastid_db_t *w = gvk_fastid_db_read(fidb, &err), *d = gvk_fastid_db_open(fidb, &err);
	CHECK(w && d, "slice IDs: %s\n", err.msg);
	if (!e || !w || !d) return;
	gvk_fastid_result_t *r = slice(e, w, d, 40, 90), *none = slice(e, w, d, 90, 90);
	CHECK(r && gvk_fastid_db_read_ids(d, r, &err) == 0, "slice IDs: %s\n", err.msg);
	size_t bad = 0;
	for (size_t k = 0; r && k < r->n_queries * (size_t)r->k; ++k) {
		const char *a = gvk_fastid_db_id(d, r->top[k].db), *b = gvk_fastid_db_id(w, r->top[k].db);
		bad += !a || !b || strcmp(a, b) || r->top[k].db < 40 || r->top[k].db >= 90;
	}
	CHECK(r && bad == 0, "slice IDs: %zu of the top lists' IDs differ\n", bad);
	CHECK(gvk_fastid_db_id(d, 0) == NULL && gvk_fastid_db_id(d, -1) == NULL && gvk_fastid_db_id(NULL, 0) == NULL,
	      "IDs of profiles not named\n");
	CHECK(none && none->k == 0 && !none->top && none->pairs == 0 && !strcmp(none->kernel, gvk_fastid_device_name(e)),
	      "empty slice: k %d, kernel '%s'\n", none ? none->k : -1, none ? none->kernel : "");
	CHECK(gvk_fastid_db_read_ids(d, r, &err) == GVK_ERR_ARG && strstr(err.msg, "read already"), "IDs read twice\n");
	printf("slice 40..90 of %s: IDs read past the rest, as the whole file names them\n", fidb);
	gvk_fastid_result_free(r), gvk_fastid_result_free(none);
	gvk_fastid_db_close(d), gvk_fastid_db_close(w);
	gvk_fastid_destroy(e);
}

/* ---- refusals ------------------------------------------------------------------------------ */

static void expect(int rc, const gvk_err_t *err, int code, const char *part, const char *what)
{
	CHECK(rc == code && err->code == code && strstr(err->msg, part), "%s: rc %d, '%s'\n", what, rc, err->msg);
}

static void refusals(const char *made, const char *made_minor, const char *other, const char *dbp, const char *qp)
{
	gvk_err_t err = {0, ""};
	gvk_fastid_t *e = engine(0, 3, -1);
	gvk_fastid_db_t *a = gvk_fastid_db_read(made, &err), *b = gvk_fastid_db_read(made_minor, &err),
	                *c = gvk_fastid_db_read(other, &err), *d = gvk_fastid_db_open(dbp, &err),
	                *q = gvk_fastid_db_read(qp, &err);
	FILE *null_out = fopen("/dev/null", "w");
	CHECK(a && b && c && d && q && null_out, "refusals: %s\n", err.msg);
	if (!e || !a || !b || !c || !d || !q || !null_out) return;
	expect(gvk_fastid_db_match(a, b, &err), &err, GVK_ERR_FORMAT, "different SNP panels", "minor against ALT panel");
	expect(gvk_fastid_db_match(a, c, &err), &err, GVK_ERR_FORMAT, "SNPs but those of", "200 SNPs against 800");
	CHECK(gvk_fastid_db_match(a, a, &err) == 0, "a panel against itself: %s\n", err.msg);
	gvk_fastid_result_t *r = NULL;
	expect(gvk_fastid_search_db(e, a, b, 0, &r, &err), &err, GVK_ERR_FORMAT, "different SNP panels", "search, panels");
	CHECK(r == NULL, "search refused: *out not NULL\n");
	expect(gvk_fastid_search_db(e, d, d, 0, &r, &err), &err, GVK_ERR_ARG, "must be whole", "opened queries");
	expect(gvk_fastid_db_write(d, null_out, &err), &err, GVK_ERR_ARG, "opened", "writing an opened file");
	expect(gvk_fastid_db_range(d, 5, 4, &err), &err, GVK_ERR_ARG, "not a range", "range 5 .. 4");
	expect(gvk_fastid_db_range(d, 0, 501, &err), &err, GVK_ERR_ARG, "not a range", "range past the end");
	gvk_fastid_hit_t far = {.db = 500, .query = 0, .score = 1};
	gvk_fastid_result_t fake = {.n_queries = 1, .k = 1, .top = &far, .pairs = 1};
	expect(gvk_fastid_db_read_ids(d, &fake, &err), &err, GVK_ERR_ARG, "profile 500", "IDs of a profile past the end");
	CHECK(gvk_fastid_search_db(e, q, d, 0, &r, &err) == 0, "search: %s\n", err.msg);
	expect(gvk_fastid_write_top(null_out, r, q, d, &err), &err, GVK_ERR_ARG, "no sample ID", "tables before the IDs");
	fake.n_queries = 2;
	expect(gvk_fastid_result_merge(e, r, &fake, &err), &err, GVK_ERR_ARG, "queries", "merge of other queries");
	fake.n_queries = r ? r->n_queries : 0, fake.top = NULL;
	expect(gvk_fastid_result_merge(e, r, &fake, &err), &err, GVK_ERR_ARG, "part->top is NULL", "merge of no lists");
	fake.k = 0, fake.n_hits = 3;
	expect(gvk_fastid_db_read_ids(d, &fake, &err), &err, GVK_ERR_ARG, "r->hits is NULL", "IDs of no hits");
	gvk_fastid_db_t *none = gvk_fastid_db_read("/nonexistent.fidb", &err);
	expect(none ? 0 : err.code, &err, GVK_ERR_IO, "/nonexistent.fidb", "a file that is not there");
	gvk_fastid_make_opts_t mo;
	gvk_fastid_make_opts_init(&mo);
	none = gvk_fastid_db_make("/nonexistent", &mo, &err);
	expect(none ? 0 : err.code, &err, GVK_ERR_IO, "/nonexistent", "genotypes that are not there");
	gvk_fastid_db_info_t in;
	gvk_fastid_db_info(NULL, &in);
	CHECK(!strcmp(in.name, "none") && in.n == 0, "info of NULL\n");
	printf("refusals: panels, opened queries and writes, ranges, IDs, merges, missing inputs\n");
	gvk_fastid_result_free(r);
	fclose(null_out);
	gvk_fastid_db_close(a), gvk_fastid_db_close(b), gvk_fastid_db_close(c), gvk_fastid_db_close(d);
	gvk_fastid_db_close(q);
	gvk_fastid_destroy(e);
}

int main(int argc, char **argv)
{
	if (argc != 4) return fprintf(stderr, "usage: test_fastid_db GVK DATA TMPDIR\n"), 2;
	gvk_bin = argv[1], data_dir = argv[2], tmp_dir = argv[3];
	char phased[4096], dummy[4096], made[4096], minor[4096], other[4096], db[4096], q[4096];
	path(phased, sizeof phased, "%s/ld_phased/phased257x200_miss0.02", data_dir);
	path(dummy, sizeof dummy, "%s/ld_dummy/dummy203x800", data_dir);
	path(made, sizeof made, "%s/made.fidb", tmp_dir);
	path(minor, sizeof minor, "%s/made_minor.fidb", tmp_dir);
	path(other, sizeof other, "%s/other.fidb", tmp_dir);
	path(db, sizeof db, "%s/fastid/fastid40x500x200.db.fidb", data_dir);
	path(q, sizeof q, "%s/fastid/fastid40x500x200.queries.fidb", data_dir);
	make_case(phased, 0, made);
	make_case(phased, 1, minor);
	make_case(dummy, 0, other);
	for (int mode = 0; mode < 3; ++mode) {
		char what[64];
		path(what, sizeof what, "identity, database %s", mode == 0 ? "whole" : mode == 1 ? "opened" : "streamed");
		search_case(what, mode, 0, 10, 110, db, q);
		path(what, sizeof what, "mixture, database %s", mode == 0 ? "whole" : mode == 1 ? "opened" : "streamed");
		search_case(what, mode, 1, 3, 60, db, q);
	}
	search_case("made file against itself", 1, 0, 4, 30, made, made);
	slices_case(db, q);
	slice_ids_case(made);
	refusals(made, minor, other, db, q);
	printf("test_fastid_db: %ld checks, %d failed\n", checks, fails);
	return fails != 0;
}
