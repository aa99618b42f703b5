/* SPDX-License-Identifier: MIT */
/* One variant's PLINK .bed codes, for every sample of the input, into the bit planes of its LD
 * samples plus the statistics PLINK 1.9 filters on: genotyping rate (--geno) and allele frequency
 * (--maf, A1 = minor allele, with-freqs). Males count once on X and Y, as PLINK counts them. */
#ifndef GVK_SNP_GENO_H
#define GVK_SNP_GENO_H

#include "snp_data.h"
#include "snp_samples.h"
#include "popgemm.h"

enum { SNP_ROLE_KEPT = 1, SNP_ROLE_FREQ = 2, SNP_ROLE_MALE = 4 };

typedef struct {
	int64_t n;              /* samples in a row */
	int64_t *col;           /* per sample: LD column (plane bit), or -1 */
	uint8_t *role;          /* per sample: SNP_ROLE_* bits */
	int64_t n_cols, n_kept, n_kept_male;
	int keep_allele_order;
	int raw;                /* planes keep every call as diploid (X / Y rules left to the user) */
	int plain;              /* every sample kept, counted and a column in order */
	const pg_isa_t *isa;    /* the fastest kernels, for plane popcounts */
	int threads;            /* readers may decode rows on this many threads (1 after init) */
} snp_geno_ctx_t;

/* LD columns are the kept founders; frequencies count the kept founders, or every kept sample
 * when nonfounders (PLINK --nonfounders). Set c->raw afterwards for unphased D / D' (ld_em.h). */
int snp_geno_ctx_init(snp_geno_ctx_t *c, const snp_samples_t *ss, int nonfounders, int keep_allele_order,
                      gvk_err_t *err);
void snp_geno_ctx_free(snp_geno_ctx_t *c);

/* Allocates d's planes and per-SNP statistics for n_snp SNPs (d->var already filled), and the
 * male column mask. A SNP's planes are unset until snp_geno_row decodes it. */
int snp_geno_alloc(snp_data_t *d, int64_t n_snp, const snp_geno_ctx_t *c, gvk_err_t *err);

/* The same without the planes, for snp_geno_row_to. */
int snp_geno_alloc_stats(snp_data_t *d, int64_t n_snp, const snp_geno_ctx_t *c, gvk_err_t *err);

/* SNP i from its row of ceil(n / 4) .bed bytes, coded against var[i].a1 / a2 (code 00 = two
 * copies of a1). Swaps a1 and a2 when a2 is the rarer allele, unless keep_allele_order. */
void snp_geno_row(snp_data_t *d, int64_t i, const uint8_t *row, const snp_geno_ctx_t *c);

/* The same, touching nothing of d but SNP i's entries, so that threads can decode different SNPs;
 * returns the SNP_HH_* flags the caller adds to d->hh. */
int snp_geno_row_hh(snp_data_t *d, int64_t i, const uint8_t *row, const snp_geno_ctx_t *c);

/* SNP i decoded into planes (SNP_PLANES * d->nw words, 64-byte aligned) rather than d's. With
 * stats its statistics and allele swap go to d as snp_geno_row_hh sets them; without, d is left
 * as it is (a row decoded again after a first pass counted it). Returns the SNP_HH_* flags. */
int snp_geno_row_to(const snp_data_t *d, int64_t i, const uint8_t *row, const snp_geno_ctx_t *c, uint64_t *planes, int stats);
/* The same without stats, for a SNP whose statistics another thread may be setting: of d->var[i]
 * it reads only the chromosome, and *a2f receives the A2 frequency that the statistics hold once
 * set. */
int snp_geno_row_apart(const snp_data_t *d, int64_t i, const uint8_t *row, const snp_geno_ctx_t *c, uint64_t *planes,
                       double *a2f);

/* The same statistics with d's per-SNP entries set, and nothing decoded where the counts come
 * straight from the row (every sample kept, an autosome); scratch: planes as above otherwise.
 * geno (may be NULL) receives the counts snp_geno_plane_counts gives. */
int snp_geno_row_stats(const snp_data_t *d, int64_t i, const uint8_t *row, const snp_geno_ctx_t *c, uint64_t *scratch,
                       uint32_t geno[3]);

/* The LD columns' genotype counts of a SNP on chromosome class cls from its planes p (two copies
 * of A1, one, none), on X over the non-male columns: what the Hardy-Weinberg test takes. */
void snp_geno_plane_counts(const snp_data_t *d, int cls, const uint64_t *p, uint32_t out[3]);

/* SNP i's statistics, allele order and full flag (as snp_geno_row_stats sets them) from the counts
 * of its codes 00, 10 and 11, for a caller that counted them itself: c plain, SNP i on an
 * autosome. */
void snp_geno_plain_counts(const snp_data_t *d, int64_t i, int64_t ll, int64_t lh, int64_t hh, const snp_geno_ctx_t *c);
/* The A2 frequency snp_geno_plain_counts would set, d left as it is. */
double snp_geno_plain_a2f(int64_t ll, int64_t lh, int64_t hh, const snp_geno_ctx_t *c);

#endif
