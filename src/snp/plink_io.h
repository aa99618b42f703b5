/* SPDX-License-Identifier: MIT */
/* PLINK 1 binary filesets (.bed/.bim/.fam), validated as docs/snp.md says (Semantics 1). The .bim gives the
 * variants, the .bed rows then go through snp_geno.h for the variants and samples kept. */
#ifndef GVK_SNP_PLINK_IO_H
#define GVK_SNP_PLINK_IO_H

#include <sys/types.h>

#include "snp_data.h"
#include "snp_geno.h"

typedef struct {
	int keep_allele_order; /* keep the .bim A1; otherwise A1 becomes the founders' minor allele
	                          (strictly rarer A2 swaps), as PLINK 1.9 does on loading */
	int all_samples;       /* every sample a founder (the library's and tests' reader) */
} snp_plink_opt_t;

/* Memory for a large per-variant table (freed with free), in 2 MiB pages where the system gives
 * them on request: entered 4 KiB at a time, the tables of a large fileset cost more than the
 * parsing that fills them. */
void *snp_big_alloc(size_t n);

/* Reads every .bim line into d->var (d zeroed), with *src[i] = the line's variant index in the
 * .bed and *n_rows the .bed's variant count. Lines with a negative position are left out, as
 * PLINK leaves them out. Chromosome names must be PLINK codes unless allow_extra
 * (--allow-extra-chr). Errors name the file and line. */
int snp_read_bim(const char *path, int allow_extra, snp_data_t *d, int64_t **src, int64_t *n_rows, gvk_err_t *err);

/* One chromosome's run of consecutive .bim lines, with the first line (1-based; 0 = none) where
 * its positions or cM values go down, checked as PLINK 1.9 checks them for windowed LD: positions
 * over the lines with a position >= 0, cM values over the lines whose cM field is not "0". */
typedef struct {
	size_t name; /* offset of the chromosome code (as snp_var_t.chr gives it) in snp_bim_order_t.names */
	long line, bp_line, cm_line;
} snp_bim_run_t;

/* The order of a .bim as PLINK 1.9's windows see it. */
typedef struct {
	snp_bim_run_t *run;
	int64_t n_run;
	size_t n_run_cap;
	char *names;
	size_t names_len, names_cap;
	long split_line;  /* first line of a chromosome that appeared before, other chromosomes between (0 = none) */
	size_t split_name; /* that chromosome's code, in names */
	int64_t *base_bp; /* per .bim line 0, 64, 128, ...: the position and cM PLINK holds for it (a line */
	double *base_cm;  /* with a negative position holds the chromosome's last position and cM before it) */
	int64_t n_base;   /* entries filled */
	size_t base_cap;
} snp_bim_order_t;

/* snp_read_bim on up to `threads` threads, also filling ord when given (zeroed by the caller;
 * freed with snp_bim_order_free). The result and every message are those of one thread. */
int snp_read_bim_order(const char *path, int allow_extra, int threads, snp_data_t *d, int64_t **src, int64_t *n_rows,
                       snp_bim_order_t *ord, gvk_err_t *err);
/* The same for variants already read (a VCF as PLINK imports it: its cM fields are "0"), line k
 * being d->var[k - 1]; -1 when out of memory. */
int snp_order_of_vars(const snp_data_t *d, snp_bim_order_t *ord);
void snp_bim_order_free(snp_bim_order_t *ord);

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
