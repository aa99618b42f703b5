/* SPDX-License-Identifier: MIT */
/* PLINK 1.9 --clump over snp_data_t: p-value records read from association reports
 * (ld_clump_input.c), greedy clumps around the most significant records by haplotype r^2
 * (docs/snp.md, "Clumping"), and the .clumped table. */
#ifndef GVK_SNP_LD_CLUMP_H
#define GVK_SNP_LD_CLUMP_H

#include <stdio.h>
#include "snp_data.h"
#include "../common/threads.h"

/* One parsed line of a report. */
typedef struct {
	int64_t var;  /* SNP of d, or -1 when the fileset lacks the ID */
	double p;
	int file;     /* 1-based, in the order the reports were given */
	int64_t line; /* 1-based line in that report */
	char *id;     /* the ID, kept only for a top record the fileset lacks (a warning names it) */
} clump_rec_t;

typedef struct {
	clump_rec_t *rec;
	int64_t n, cap;
} clump_recs_t;

typedef struct {
	double p1, p2, r2, kb;
	int allow_overlap;
	int threads;      /* CPU threads for the r^2 batches */
	gvk_pool_t *pool; /* may be NULL */
} clump_opt_t;

/* Member counts by p: NSIG (p >= 0.05), S05, S01, S001, S0001 (p < 1e-4). */
enum { CLUMP_BINS = 5 };

typedef struct {
	int64_t index;              /* the index record */
	int64_t total;              /* records in LD with it */
	int64_t bins[CLUMP_BINS];
	int64_t m0, nm;             /* members listed (p <= p2): member[m0 .. m0 + nm) */
} clump_t;

typedef struct {
	clump_t *c;
	int64_t n;
	int64_t *member;            /* record indices, by variant then file */
	int64_t n_member;
	int64_t n_top;              /* records with p <= p1 among the fileset's variants */
	int64_t *missing;           /* top records the fileset lacks, by p then file and line */
	int64_t n_missing;
} clump_result_t;

/* PLINK's ranges (p1 in (0, 1], p2 in [p1, 1], r2 in [0, 1), kb > 0); 0 or GVK_ERR_ARG. */
int clump_opt_check(const clump_opt_t *o, gvk_err_t *err);

/* Appends the records of report `path` (file number `file`) whose ID column is the first of
 * snp_fields (n_snp names) found in the header and p column the first of p_fields; IDs are looked
 * up in d through ids (clump_id_index). Lines too short or with a non-numeric p are skipped, as
 * PLINK skips them; a negative p or one above 1 is an error naming the line. */
typedef struct {
	int64_t *order; /* d's SNPs sorted by ID */
	int64_t n;
} clump_ids_t;
int clump_id_index(const snp_data_t *d, clump_ids_t *ix, gvk_err_t *err);
void clump_id_free(clump_ids_t *ix);
int clump_read(const char *path, int file, const snp_data_t *d, const clump_ids_t *ix, const char *const *snp_fields,
               int n_snp, const char *const *p_fields, int n_p, double p1, clump_recs_t *out, gvk_err_t *err);
void clump_recs_free(clump_recs_t *r);

/* The clumps of recs over d (each chromosome sorted by position), in PLINK's order. */
int clump_run(const snp_data_t *d, const clump_recs_t *recs, const clump_opt_t *o, clump_result_t *res, gvk_err_t *err);
void clump_result_free(clump_result_t *r);

/* PREFIX.clumped's text: header, one row per clump, two blank lines. */
int clump_write(FILE *fp, const snp_data_t *d, const clump_recs_t *recs, const clump_result_t *res);

/* p with PLINK's 3 significant digits (its rounding, %g's layout); s holds at least 16 bytes. */
int clump_fmt_p(char *s, double p);

#endif
