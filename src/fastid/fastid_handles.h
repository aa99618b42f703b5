/* SPDX-License-Identifier: MIT */
/* The structs behind gvk.h's FastID handles, for the files of the public API: the engine
 * (gvk_fastid_t: its checked options) and the .fidb handle (gvk_fastid_db_t, over the reader of
 * fidb_io.h: a file whole in memory, or opened and read a block at a time as the search goes). */
#ifndef GVK_FASTID_HANDLES_H
#define GVK_FASTID_HANDLES_H

#include "gvk.h"
#include "fidb_io.h"
#include "fidb_make.h"

struct gvk_fastid_s {
	gvk_fastid_opts_t o;
	int device; /* the device searches ask for: CPU after an AUTO probe found no GPU */
	char name[300];
};

struct gvk_fastid_db_s {
	int whole;         /* f holds every profile, the panel and every ID; else rd reads the file */
	fidb_reader_t rd;  /* opened: the file, its header and panel, the profiles read so far (rd.done) */
	fid_file_t f;      /* whole: the file's contents; opened: the IDs gvk_fastid_db_read_ids read */
	int ids_read;      /* opened: the ID section has been read */
	int64_t next, end; /* the profiles the next search takes: next .. end - 1 */
	char *name;        /* the path, or "standard input" */
};

/* The panel of d (present == 0 without one), its SNP and profile counts. */
const fid_panel_t *fastid_db_panel(const gvk_fastid_db_t *d);
uint32_t fastid_db_snps(const gvk_fastid_db_t *d);
int64_t fastid_db_count(const gvk_fastid_db_t *d);

/* The next block of d's range, at most max profiles, into *blk (blk->n == 0 at the range's end) and
 * the index of its first profile into *off. A whole d's block points into d (*owned = 0); an
 * opened d's is read (*owned = 1: free it with fid_prof_free). */
int fastid_db_next_block(gvk_fastid_db_t *d, int64_t max, fid_prof_t *blk, int64_t *off, int *owned, gvk_err_t *err);

/* gvk_fastid_db_match without the NULL checks. */
int fastid_db_match(const gvk_fastid_db_t *q, const gvk_fastid_db_t *db, gvk_err_t *err);

#endif
