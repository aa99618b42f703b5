/* SPDX-License-Identifier: MIT */
/* FastID profile files (.fidb; docs/snp.md gives the layout). All numbers little-endian.
 *   version 1: magic "FIDB", uint32 profiles, uint32 SNPs, uint32 words per profile, then the
 *              profiles as uint64 words. No SNP panel, no sample IDs.
 *   version 2: magic "FID2", uint32 profiles, uint32 SNPs, uint32 words per profile, uint64 panel
 *              bytes, uint64 sample ID bytes, uint64 panel hash (40 bytes), then the SNP panel
 *              (fid_panel.h), the profiles, and the sample IDs (fid_ids.h).
 * The IDs come last so that a database read in blocks meets them once the search is done and
 * knows which profiles it has to name. */
#ifndef GVK_SNP_FIDB_IO_H
#define GVK_SNP_FIDB_IO_H

#include <stdint.h>
#include <stdio.h>
#include "gvk.h"
#include "fid_ids.h"
#include "fid_panel.h"

enum { FIDB_V1_HEADER = 16, FIDB_V2_HEADER = 40 };

typedef struct {
	int64_t n;      /* profiles */
	uint32_t n_snp; /* S */
	int nw;         /* words per profile in the file, ceil(S / 64) */
	int stride;     /* words per profile in memory: nw rounded up to a multiple of 8, zero padded */
	uint64_t *w;    /* n * stride words, 64-byte aligned; owned */
} fid_prof_t;

/* Sequential reader: header and panel (fidb_open), profiles in blocks (fidb_read_block), then
 * the sample IDs (fidb_read_ids). */
typedef struct {
	FILE *fp;
	const char *path;        /* "-": standard input */
	int version;             /* 1 or 2 */
	int stream;              /* not a regular file: sizes are checked while reading, not up front */
	uint32_t n, n_snp, nw;   /* header */
	uint64_t panel_len, ids_len, panel_hash; /* version 2 header */
	fid_panel_t panel;       /* version 2; present == 0 for version 1 */
	int64_t done;            /* profiles read so far */
} fidb_reader_t;

/* Opens path ("-": standard input), checks the header (against the file size for a regular file)
 * and reads and checks the panel and its hash. */
int fidb_open(fidb_reader_t *r, const char *path, gvk_err_t *err);
void fidb_close(fidb_reader_t *r);

/* The next min(max, remaining) profiles into p (allocated here; free with fid_prof_free), with
 * the padding-bit check of fidb_read. */
int fidb_read_block(fidb_reader_t *r, int64_t max, fid_prof_t *p, gvk_err_t *err);

/* Moves a regular file's reading to profile i (i == r->n: the sample IDs), as if the profiles
 * before it had been read. GVK_ERR_ARG for a stream, GVK_ERR_IO when the file cannot seek. */
int fidb_seek(fidb_reader_t *r, int64_t i, gvk_err_t *err);

/* After the last block: the IDs of profiles want[0..n_want) (strictly ascending), or of every
 * profile when want is NULL; indices as names for a version 1 file. Every ID is checked, and a
 * stream must end right after them. */
int fidb_read_ids(fidb_reader_t *r, const int64_t *want, size_t n_want, fid_ids_t *ids, gvk_err_t *err);

/* Reads a whole .fidb file: checks the magic, the header against the file size, that bits at
 * positions >= S are 0 (naming the first offending profile), the panel and the IDs. panel and
 * ids may be NULL when not wanted. */
int fidb_read_all(const char *path, fid_prof_t *p, fid_panel_t *panel, fid_ids_t *ids, gvk_err_t *err);
/* The same, profiles only. */
int fidb_read(const char *path, fid_prof_t *p, gvk_err_t *err);
void fid_prof_free(fid_prof_t *p);

/* Allocates n zeroed profiles of n_snp SNPs. */
int fid_prof_alloc(fid_prof_t *p, int64_t n, uint32_t n_snp, gvk_err_t *err);

/* Writes p to fp as a version 2 file with its panel (p->n_snp SNPs) and IDs (one per profile). */
int fidb_write(FILE *fp, const fid_prof_t *p, const fid_panel_t *panel, const fid_ids_t *ids, gvk_err_t *err);

#endif
