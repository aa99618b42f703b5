/* FastID profile files (.fidb, see docs/snp.md): magic "FIDB", uint32 profiles, uint32 SNPs,
 * uint32 words per profile, then the profiles as little-endian uint64 words. */
#ifndef GVK_SNP_FIDB_IO_H
#define GVK_SNP_FIDB_IO_H

#include <stdint.h>
#include <stdio.h>
#include "gvk.h"

typedef struct {
	int64_t n;      /* profiles */
	uint32_t n_snp; /* S */
	int nw;         /* words per profile in the file, ceil(S / 64) */
	int stride;     /* words per profile in memory: nw rounded up to a multiple of 8, zero padded */
	uint64_t *w;    /* n * stride words, 64-byte aligned; owned */
} fid_prof_t;

/* Sequential reader, for databases read in blocks. */
typedef struct {
	FILE *fp;
	const char *path;
	uint32_t n, n_snp, nw; /* header */
	int64_t done;          /* profiles read so far */
} fidb_reader_t;

/* Opens path and checks the header against the file size. */
int fidb_open(fidb_reader_t *r, const char *path, gvk_err_t *err);
void fidb_close(fidb_reader_t *r);

/* The next min(max, remaining) profiles into p (allocated here; free with fid_prof_free), with
 * the padding-bit check of fidb_read. */
int fidb_read_block(fidb_reader_t *r, int64_t max, fid_prof_t *p, gvk_err_t *err);

/* Reads a .fidb file; checks the magic, the header against the file size and that bits at
 * positions >= S are 0 (naming the first offending profile). */
int fidb_read(const char *path, fid_prof_t *p, gvk_err_t *err);
void fid_prof_free(fid_prof_t *p);

/* Allocates n zeroed profiles of n_snp SNPs. */
int fid_prof_alloc(fid_prof_t *p, int64_t n, uint32_t n_snp, gvk_err_t *err);

/* Writes p to fp in the .fidb format. */
int fidb_write(FILE *fp, const fid_prof_t *p);

#endif
