/* SPDX-License-Identifier: MIT */
/* gvk_fastid_db_*: .fidb files through the public API, as gvk fastid makes, reads and searches
 * them: fidb_make.c's conversion, fidb_io.c's reader and writer, fid_panel.c's comparison. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "fastid_handles.h"
#include "fastid_write.h"
#include "../common/err.h"
#include "../common/threads.h"

void gvk_fastid_make_opts_init(gvk_fastid_make_opts_t *o)
{
	if (!o) return;
	memset(o, 0, sizeof *o);
	o->threads = 1;
}

int gvk_fastid_make_opts_check(const gvk_fastid_make_opts_t *o, gvk_err_t *err)
{
	if (!o) return gvk_err_null(err, __func__, "o");
	if (o->minor != 0 && o->minor != 1)
		return gvk_err_set(err, GVK_ERR_ARG, "minor must be 0 (allele 1 of the input) or 1 (the minor allele), not %d",
		                   o->minor);
	if (o->threads < 0) return gvk_err_set(err, GVK_ERR_ARG, "threads must be >= 0 (0: all processors), not %d", o->threads);
	return 0;
}

/* An empty handle named after path ("-": standard input). */
static gvk_fastid_db_t *db_new(const char *path, gvk_err_t *err)
{
	gvk_fastid_db_t *d = calloc(1, sizeof *d);
	if (d && !(d->name = strdup(strcmp(path, "-") ? path : "standard input"))) free(d), d = NULL;
	if (!d) gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	return d;
}

/* d's contents are now all in memory: a search may take any of its profiles. */
static gvk_fastid_db_t *db_whole(gvk_fastid_db_t *d)
{
	d->whole = 1;
	d->end = d->f.prof.n;
	return d;
}

gvk_fastid_db_t *gvk_fastid_db_make(const char *in, const gvk_fastid_make_opts_t *o, gvk_err_t *err)
{
	if (!in) return gvk_err_null(err, __func__, "in"), NULL;
	if (gvk_fastid_make_opts_check(o, err) < 0) return NULL; /* o NULL too */
	gvk_fastid_db_t *d = db_new(in, err);
	if (d && fid_make(in, o->minor, o->threads > 0 ? o->threads : gvk_ncpu(), &d->f, err) < 0)
		gvk_fastid_db_close(d), d = NULL;
	return d ? db_whole(d) : NULL;
}

gvk_fastid_db_t *gvk_fastid_db_read(const char *path, gvk_err_t *err)
{
	if (!path) return gvk_err_null(err, __func__, "path"), NULL;
	gvk_fastid_db_t *d = db_new(path, err);
	if (d && fidb_read_all(path, &d->f.prof, &d->f.panel, &d->f.ids, err) < 0) gvk_fastid_db_close(d), d = NULL;
	return d ? db_whole(d) : NULL;
}

gvk_fastid_db_t *gvk_fastid_db_open(const char *path, gvk_err_t *err)
{
	if (!path) return gvk_err_null(err, __func__, "path"), NULL;
	gvk_fastid_db_t *d = db_new(path, err);
	/* the reader keeps the name it is given: the handle's copy, not the caller's string */
	if (d && fidb_open(&d->rd, strcmp(path, "-") ? d->name : "-", err) < 0) gvk_fastid_db_close(d), d = NULL;
	if (d) d->end = d->rd.n;
	return d;
}

void gvk_fastid_db_close(gvk_fastid_db_t *d)
{
	if (!d) return;
	fidb_close(&d->rd);
	fid_file_free(&d->f);
	free(d->name);
	free(d);
}

const fid_panel_t *fastid_db_panel(const gvk_fastid_db_t *d) { return d->whole ? &d->f.panel : &d->rd.panel; }

uint32_t fastid_db_snps(const gvk_fastid_db_t *d) { return d->whole ? d->f.prof.n_snp : d->rd.n_snp; }

int64_t fastid_db_count(const gvk_fastid_db_t *d) { return d->whole ? d->f.prof.n : (int64_t)d->rd.n; }

void gvk_fastid_db_info(const gvk_fastid_db_t *d, gvk_fastid_db_info_t *info)
{
	if (!info) return;
	memset(info, 0, sizeof *info);
	info->name = "none";
	if (!d) return;
	const fid_panel_t *pl = fastid_db_panel(d);
	info->n = fastid_db_count(d);
	info->n_snp = fastid_db_snps(d);
	info->has_panel = pl->present;
	info->panel_hash = pl->present ? pl->hash : 0;
	info->whole = d->whole;
	info->seekable = d->whole || !d->rd.stream;
	info->name = d->name;
}

int gvk_fastid_db_write(const gvk_fastid_db_t *d, FILE *fp, gvk_err_t *err)
{
	if (!d) return gvk_err_null(err, __func__, "d");
	if (!fp) return gvk_err_null(err, __func__, "fp");
	if (!d->whole)
		return gvk_err_set(err, GVK_ERR_ARG, "%s: %s was opened, not read whole: its profiles are not held", __func__,
		                   d->name);
	return fidb_write(fp, &d->f.prof, &d->f.panel, &d->f.ids, err);
}

int fastid_db_match(const gvk_fastid_db_t *q, const gvk_fastid_db_t *db, gvk_err_t *err)
{
	if (fastid_db_snps(q) != fastid_db_snps(db))
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: profiles have %u SNPs but those of %s have %u", q->name,
		                   fastid_db_snps(q), db->name, fastid_db_snps(db));
	return fid_panel_match(fastid_db_panel(q), q->name, fastid_db_panel(db), db->name, err);
}

int gvk_fastid_db_match(const gvk_fastid_db_t *queries, const gvk_fastid_db_t *db, gvk_err_t *err)
{
	if (!queries) return gvk_err_null(err, __func__, "queries");
	if (!db) return gvk_err_null(err, __func__, "db");
	return fastid_db_match(queries, db, err);
}

int gvk_fastid_db_range(gvk_fastid_db_t *d, int64_t first, int64_t end, gvk_err_t *err)
{
	if (!d) return gvk_err_null(err, __func__, "d");
	const int64_t n = fastid_db_count(d);
	if (first < 0 || first > end || end > n)
		return gvk_err_set(err, GVK_ERR_ARG, "%s: profiles %lld .. %lld - 1 are not a range of the %lld of %s", __func__,
		                   (long long)first, (long long)end, (long long)n, d->name);
	if (!d->whole && first != d->rd.done) {
		if (d->rd.stream)
			return gvk_err_set(err, GVK_ERR_ARG, "%s: %s is read in order (not a regular file): it is at profile %lld, "
			                   "not %lld", __func__, d->name, (long long)d->rd.done, (long long)first);
		int rc = fidb_seek(&d->rd, first, err);
		if (rc < 0) return rc;
	}
	d->next = first;
	d->end = end;
	return 0;
}

int fastid_db_next_block(gvk_fastid_db_t *d, int64_t max, fid_prof_t *blk, int64_t *off, int *owned, gvk_err_t *err)
{
	const int64_t n = d->end - d->next < max ? d->end - d->next : max;
	memset(blk, 0, sizeof *blk);
	*off = d->next;
	*owned = !d->whole;
	if (n == 0) return 0;
	if (d->whole) {
		*blk = d->f.prof;
		blk->n = n;
		blk->w += (size_t)d->next * (size_t)blk->stride;
	} else {
		int rc = fidb_read_block(&d->rd, n, blk, err);
		if (rc < 0) return rc;
	}
	d->next += n;
	return 0;
}

/* 0 when every database profile r names is one of d's n. */
static int check_named(const gvk_fastid_db_t *d, const int64_t *idx, size_t n, gvk_err_t *err)
{
	if (n == 0 || (idx[0] >= 0 && idx[n - 1] < fastid_db_count(d))) return 0;
	const int64_t bad = idx[0] < 0 ? idx[0] : idx[n - 1];
	return gvk_err_set(err, GVK_ERR_ARG, "gvk_fastid_db_read_ids: the result names database profile %lld, but %s has "
	                   "%lld", (long long)bad, d->name, (long long)fastid_db_count(d));
}

int gvk_fastid_db_read_ids(gvk_fastid_db_t *d, const gvk_fastid_result_t *r, gvk_err_t *err)
{
	if (!d) return gvk_err_null(err, __func__, "d");
	if (!r) return gvk_err_null(err, __func__, "r");
	if (d->whole) return 0;
	if (d->ids_read) return gvk_err_set(err, GVK_ERR_ARG, "%s: the sample IDs of %s were read already", __func__, d->name);
	int64_t *idx = NULL;
	size_t n = 0;
	int rc = fid_result_check(r, __func__, "r", err);
	if (rc == 0) rc = fid_result_db_profiles(r, &idx, &n, err);
	if (rc == 0) rc = check_named(d, idx, n, err);
	/* a slice's search ends before the last profile: a regular file skips the rest */
	if (rc == 0 && d->rd.done != (int64_t)d->rd.n && !d->rd.stream) rc = fidb_seek(&d->rd, d->rd.n, err);
	if (rc == 0) rc = fidb_read_ids(&d->rd, idx, n, &d->f.ids, err);
	if (rc == 0) d->ids_read = 1;
	free(idx);
	return rc;
}

const char *gvk_fastid_db_id(const gvk_fastid_db_t *d, int64_t i) { return d ? fid_ids_get(&d->f.ids, i) : NULL; }
