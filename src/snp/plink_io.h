/* SPDX-License-Identifier: MIT */
/* PLINK 1 binary filesets (.bed/.bim/.fam), validated as docs/snp.md says (Semantics 1). The .bim gives the
 * variants, the .bed rows then go through snp_geno.h for the variants and samples kept. */
#ifndef GVK_SNP_PLINK_IO_H
#define GVK_SNP_PLINK_IO_H

#include <sys/types.h>

#include "plink_io_bim.h"
#include "snp_data.h"
#include "snp_geno.h"

typedef struct {
	int keep_allele_order; /* keep the .bim A1; otherwise A1 becomes the founders' minor allele
	                          (strictly rarer A2 swaps), as PLINK 1.9 does on loading */
	int all_samples;       /* every sample a founder (the library's and tests' reader) */
} snp_plink_opt_t;

/* Decodes the .bed rows src[0 .. d->n_snp) into d (planes allocated here) for the samples of c;
 * n_rows and n_samples give the size the file must have. */
int snp_read_bed(const char *path, const int64_t *src, int64_t n_rows, int64_t n_samples, const snp_geno_ctx_t *c,
                 snp_data_t *d, gvk_err_t *err);

/* The same, keeping only the per-SNP statistics, allele swaps and flags (d->w stays NULL): a
 * first pass for a caller that decodes the rows again a window at a time (snp_bed_src_t). geno
 * (3 per .bed row, may be NULL) receives at 3 src[i] SNP i's genotype counts for the
 * Hardy-Weinberg test (snp_geno_plane_counts). */
int snp_read_bed_stats(const char *path, const int64_t *src, int64_t n_rows, int64_t n_samples,
                       const snp_geno_ctx_t *c, snp_data_t *d, uint32_t *geno, gvk_err_t *err);

/* A .bed whose rows a caller decodes itself, a few SNPs at a time (pruning's and clumping's
 * windows): each SNP of d's row, the decoding context, and whether each SNP's statistics and
 * allele order are still to be set as its row is decoded (no first pass counted them). */
typedef struct {
	const char *bed;
	const int64_t *row;  /* per SNP of d: its row in the .bed */
	int64_t n_rows;      /* rows in the .bed */
	int64_t n_samples;   /* samples in a row */
	const snp_geno_ctx_t *c;
	int stats;
} snp_bed_src_t;

/* 0 when path is a SNP-major .bed of n_rows rows of n_samples, else an error naming it. */
int snp_bed_check(const char *path, int64_t n_rows, int64_t n_samples, gvk_err_t *err);

/* Reads and decodes the rows of d's SNPs snp[0 .. n) (increasing; NULL: 0 .. n - 1) into planes,
 * slot k for snp[k] (SNP_PLANES * d->nw words each, 64-byte aligned), with their statistics and
 * allele order set in d when s->stats. planes NULL: into d's planes when d has them, else the
 * statistics only. Blocks of rows on up to threads threads, of pool (a gvk_pool_t) when given.
 * *hh (may be NULL) receives the SNP_HH_* flags seen. */
int snp_bed_decode(const snp_bed_src_t *s, const snp_data_t *d, const int64_t *snp, int64_t n, uint64_t *planes,
                   int threads, void *pool, int *hh, gvk_err_t *err);

/* .bed rows by index, read a buffer of rows at a time for a caller that goes through them in
 * increasing order (a window's or a filter's pass). */
typedef struct {
	int fd;
	int64_t bpr, n_rows;  /* bytes per row, rows in the file */
	int64_t r0, r1, cap;  /* rows [r0, r1) are in buf, which holds cap */
	uint8_t *buf;
} snp_rows_t;

/* 0, or an error naming path. bytes: about how much to read at once. */
int snp_rows_open(snp_rows_t *r, const char *path, int64_t n_rows, int64_t n_samples, size_t bytes, gvk_err_t *err);
/* Row k, or NULL on a read error. */
const uint8_t *snp_rows_get(snp_rows_t *r, int64_t k);
void snp_rows_close(snp_rows_t *r);

/* The whole fileset with default PLINK rules (all founders with all_samples); for the library. */
int snp_read_plink(const char *bed, const char *bim, const char *fam, const snp_plink_opt_t *opt, snp_data_t *d,
                   gvk_err_t *err);

/* Same with prefix.bed, prefix.bim, prefix.fam. */
int snp_read_bfile(const char *prefix, const snp_plink_opt_t *opt, snp_data_t *d, gvk_err_t *err);

/* snp_read_bfile without the planes, for a reader that decodes the rows itself (snp_bed_src_t):
 * with first_pass the statistics of every SNP (snp_read_bed_stats), else none (the .bed's size
 * checked; the statistics are set as rows are decoded). *src (d's rows in the .bed, of *n_rows)
 * and c (freed with snp_geno_ctx_free) are the caller's. */
int snp_read_bfile_rows(const char *prefix, const snp_plink_opt_t *opt, int first_pass, snp_data_t *d,
                        snp_geno_ctx_t *c, int64_t **src, int64_t *n_rows, gvk_err_t *err);

#endif
