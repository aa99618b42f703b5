/* SPDX-License-Identifier: MIT */
/* PLINK 1.9 --clump over snp_data_t: association files read into per-variant entry lists
 * (ld_clump_input.c), greedy clumps around the most significant variants by the r^2 of
 * maximum-likelihood haplotype frequencies (ld_clump.c; the r^2 rows in ld_clump_rows.c), and
 * the .clumped report (ld_clump_write.c). docs/snp.md, "Clumping", states the semantics. */
#ifndef GVK_SNP_LD_CLUMP_H
#define GVK_SNP_LD_CLUMP_H

#include <stdio.h>
#include "../snp/plink_io.h"

typedef struct {
	double p1, p2;       /* index variants: p <= p1; clump members: p < p2 */
	double r2;           /* members: |r^2| above this */
	int64_t bp_radius;   /* members: |bp - index bp| <= this (kb * 1000 - 1, as PLINK keeps it) */
	int allow_overlap;   /* a variant may join several clumps */
	int index_first;     /* with several files, only the first file's entries can be index variants */
	int threads;
	void *gpu;           /* an open snp_gpu_t: the tables of each batch of rows on it (NULL: the CPU) */
	const snp_bed_src_t *src; /* d without planes: its rows, of which only the SNPs with report lines
	                             in the candidates' windows are read, a component at a time */
} ld_clump_opt_t;

/* PLINK's defaults: p1 1e-4, p2 0.01, r2 0.5, 250 kb. */
void ld_clump_opt_init(ld_clump_opt_t *o);

/* 0, or GVK_ERR_ARG naming the first value PLINK 1.9 refuses. */
int ld_clump_opt_check(const ld_clump_opt_t *o, gvk_err_t *err);

/* The bp radius PLINK derives from --clump-kb X (X >= 0.001). */
int64_t ld_clump_kb_radius(double kb);

/* One line of an association file that names a variant of the fileset. */
typedef struct {
	double p;
	int fidx;     /* file number, from 1 */
	int64_t next; /* the variant's next entry, or -1 */
} ld_clump_entry_t;

/* A top variant (p <= p1) that the fileset lacks. */
typedef struct {
	char *id;
	double p;
} ld_clump_missing_t;

typedef struct {
	int64_t n_snp;
	int64_t *head;          /* per variant: its first entry (first file first, later lines first) or -1 */
	uint32_t *nsig;         /* per variant: lines with p at or above the load threshold (>= 0.05) */
	uint8_t *top;           /* per variant: can be an index variant */
	ld_clump_entry_t *e;
	int64_t n_e, cap_e;
	ld_clump_missing_t *miss; /* sorted by p (ties by id), one per id with its smallest p */
	int64_t n_miss;
	int n_files;
} ld_clump_input_t;

/* Column names (NULL: "SNP" and "P") tried in order, the first found in a header winning. */
typedef struct {
	const char *const *snp_field;
	int n_snp_field;
	const char *const *p_field;
	int n_p_field;
} ld_clump_fields_t;

/* Reads the files (n of them, each plain or gzip) against d's variant ids. Errors name the file
 * and line: no header, no id or p column, a negative p, or p > 1 on a line the clumping reads. */
int ld_clump_read(const snp_data_t *d, const char *const *files, int n, const ld_clump_fields_t *f,
                  const ld_clump_opt_t *o, ld_clump_input_t *in, gvk_err_t *err);
void ld_clump_input_free(ld_clump_input_t *in);

typedef struct {
	int64_t snp;
	int fidx;
	double r2;  /* signed r^2 (negative: the alleles pair the other way); 1 for the index itself */
	double p;   /* the p of the variant's first entry from that file */
} ld_clump_member_t;

typedef struct {
	int64_t snp;
	int fidx;
	double p;
	uint64_t histo[5]; /* p >= 0.05, [0.01, 0.05), [0.001, 0.01), [1e-4, 0.001), < 1e-4 */
	int64_t first, n;  /* members: ld_clump_result_t.m[first .. first + n) */
} ld_clump_t;

typedef struct {
	ld_clump_t *c;
	int64_t n, cap_c;
	ld_clump_member_t *m;
	int64_t n_m, cap_m;
	int64_t n_top; /* variants of the fileset that could be index variants */
	uint64_t pairs;
} ld_clump_result_t;

/* The clumps of d (chromosomes contiguous, positions ascending within each), in PLINK's order;
 * from d's planes, or when d has none from o->src. */
int ld_clump_run(const snp_data_t *d, const ld_clump_input_t *in, const ld_clump_opt_t *o, ld_clump_result_t *r,
                 gvk_err_t *err);
void ld_clump_result_free(ld_clump_result_t *r);

/* r[k]: signed r^2 of the SNPs in slots i and j[k] of the planes w (SNP_PLANES * nw words a slot,
 * 64-byte aligned) from their haplotype frequencies over the founders, or NaN where PLINK has
 * none (a variant constant among the pair's calls); xmale: the male columns when the pair is on
 * X, else NULL. With drop > 0 a pair whose |r^2| is bound to be below drop may get NaN without
 * its estimate. One batched call per index variant, the shape a device kernel takes
 * (ld_clump_rows.c). */
void ld_clump_r2_row(const uint64_t *w, int nw, int64_t i, const int64_t *j, int64_t n, const uint64_t *xmale,
                     double drop, double *r);

/* The .clumped file: the table, or with verbose the per-clump blocks; then the ids the fileset
 * lacks (verbose only). The rows are formatted on up to `threads` threads; GVK_ERR_IO on a write
 * error, GVK_ERR_NOMEM when out of memory. */
int ld_clump_write(FILE *fp, const snp_data_t *d, const ld_clump_input_t *in, const ld_clump_result_t *r,
                   int verbose, int threads);

#endif
