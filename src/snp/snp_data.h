/* SPDX-License-Identifier: MIT */
/* In-memory SNP data: variant descriptions and the bit planes of docs/snp.md (Semantics 4), shared by LD,
 * FastID conversion and every kernel back end. */
#ifndef GVK_SNP_DATA_H
#define GVK_SNP_DATA_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "gvk.h"

/* One variant as the .bim (or a VCF record) describes it. Strings point into snp_data_t.pool. */
typedef struct {
	const char *chr;  /* chromosome, normalised as PLINK 1.9 prints it ("chr1" -> "1", X -> "23") */
	const char *id;
	const char *a1, *a2;
	double cm;
	int64_t bp;
} snp_var_t;

/* Planes per SNP: genotypes use A (>= 1 copy of A1), B (2 copies), V (called); haplotypes use
 * A = allele 1 on the haplotype, B = 0, V = haplotype present. One layout serves both so that
 * every kernel takes the same operands. */
enum { SNP_PLANES = 3, SNP_PA = 0, SNP_PB = 1, SNP_PV = 2 };

/* PLINK's hh_exists: a male heterozygous call on X; on Y a male heterozygous or a non-male call. */
enum { SNP_HH_X = 1, SNP_HH_Y = 2 };

typedef struct {
	int64_t n_snp;       /* M */
	int64_t n_bits;      /* columns of the planes: kept samples, or haplotypes when phased */
	int nw;              /* 64-bit words per plane, a multiple of 8 so vector loads need no tails */
	int phased;          /* bits are haplotypes (2 per sample) rather than samples */
	uint64_t *w;         /* SNP i, plane p: w + ((size_t)i * SNP_PLANES + p) * nw; 64-byte aligned;
	                        bits >= n_bits are 0; NULL when the reader kept only statistics */
	uint8_t *full;       /* per SNP: 1 when every bit of V is set (no missing call) */
	snp_var_t *var;      /* n_snp entries */
	char *pool;          /* strings of var[] */
	size_t pool_len, pool_cap;
	int64_t n_samples;   /* samples in the input, before the founder filter */
	char **sample_id;    /* the kept samples' IDs, in column order (FID_IID for PLINK input, the name
	                        plink --recode vcf gives it; the header's name for VCF); owned */
	int64_t n_sample_id;
	/* Filled by the genotype decoder (snp_geno.h), NULL otherwise: */
	double *a2f;         /* per SNP: A2 frequency among the counted samples, as PLINK keeps it */
	double *rate;        /* per SNP: genotyping rate among the kept samples (--geno) */
	uint64_t *male;      /* nw words: LD columns that are males (X: haploid, Y: the only calls) */
	uint64_t *male_raw;  /* nw words: column k set when the input's k-th sample is male (PLINK's
	                        unphased D' tables read the sex by that index) */
	int hh;              /* SNP_HH_* flags: haploid calls PLINK sets missing were seen */
	int id_width;        /* PLINK's SNP column width when fixed before later filters; 0 = from var[] */
} snp_data_t;

/* Frees everything snp_data_t owns and zeroes it. */
void snp_data_free(snp_data_t *d);

/* Allocates zeroed planes for n_snp SNPs of n_bits columns. */
int snp_data_alloc_planes(snp_data_t *d, int64_t n_snp, int64_t n_bits, gvk_err_t *err);

/* The same with the planes left unset, for a caller that writes every word of every SNP (the
 * genotype decoder, which then touches each page first on the thread that decodes it). */
int snp_data_alloc_planes_unset(snp_data_t *d, int64_t n_snp, int64_t n_bits, gvk_err_t *err);

static inline uint64_t *snp_plane(const snp_data_t *d, int64_t i, int p)
{
	return d->w + ((size_t)i * SNP_PLANES + (size_t)p) * (size_t)d->nw;
}

/* The sizes and per-SNP flags without the planes (w stays NULL), for a reader that decodes SNPs
 * into buffers of its own a few at a time (snp_read_bed_stats). */
int snp_data_alloc_no_planes(snp_data_t *d, int64_t n_snp, int64_t n_bits, gvk_err_t *err);

/* Copies s (len bytes) into the pool; returns its offset or -1 when out of memory. Offsets are
 * turned into pointers by snp_data_fix_strings once the pool stops growing. */
long snp_pool_add(snp_data_t *d, const char *s, size_t len);
void snp_data_fix_strings(snp_data_t *d, const long *offs);

/* PLINK 1.9's chromosome code for name ("chr1" -> "1", "X" -> "23", "Y" -> "24", "XY" -> "25",
 * "M"/"MT" -> "26"); other names are kept whole (snp_chrom.h has PLINK's exact rules). */
void snp_chr_normalise(const char *name, size_t len, char *out, size_t out_size);

/* Keeps the SNPs with keep[i] != 0, in order, moving their planes and descriptions down. */
void snp_data_select(snp_data_t *d, const uint8_t *keep);

/* Marks SNP i full when V is all ones over n_bits. */
void snp_data_set_full(snp_data_t *d, int64_t i);

/* Splits line in place at runs of spaces and tabs (PLINK's .fam, .bim and list files); stores at most
 * max fields and their lengths, and returns how many there are. */
int snp_split_ws(char *line, char **f, size_t *fl, int max);

/* The fields of the line at s, which a '\n' ends (a '\r' before it is no part of the line),
 * split at runs of spaces and tabs without a copy: the first max and their lengths, and how many
 * there are; *eol receives the '\n'. One pass over the bytes finds both the fields and the end,
 * for the parsers that cut a block of lines among threads (lines are short, and a search for the
 * end first costs as much again). */
int snp_split_line(const char *s, const char **f, size_t *fl, int max, const char **eol);

/* The end of the last '\n' in [s, e) (s when there is none): the lines snp_split_line can take,
 * the rest being a last line that no '\n' ends. */
const char *snp_last_lines_end(const char *s, const char *e);

/* Memory for a large per-variant table (freed with free), in 2 MiB pages where the system gives
 * them on request: entered 4 KiB at a time, the tables of a large fileset cost more than the
 * parsing that fills them. */
void *snp_big_alloc(size_t n);

/* The chromosome runs of d (the longest stretches of one chromosome, in order): *n of them, run k
 * being SNPs [(*start)[k], (*start)[k + 1]); *start (malloc'd, *n + 1 entries) is the caller's to
 * free. The description table is large (tens of bytes per SNP), so threads scan slices of it for
 * the places where the chromosome changes. Returns 0, or -1 when out of memory. */
int snp_chr_runs(const snp_data_t *d, int threads, int64_t **start, int64_t *n);

/* Whether two variants are on the same chromosome (the .bim reader shares a run's name). */
static inline int snp_var_same_chr(const snp_var_t *a, const snp_var_t *b)
{
	return a->chr == b->chr || !strcmp(a->chr, b->chr);
}

static inline int snp_same_chr(const snp_data_t *d, int64_t i, int64_t j) { return snp_var_same_chr(&d->var[i], &d->var[j]); }

#endif
