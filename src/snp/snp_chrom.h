/* SPDX-License-Identifier: MIT */
/* PLINK 1.9's chromosome names for human data: which names are codes, how they print, which
 * chromosomes are haploid, and its --chr lists. */
#ifndef GVK_SNP_CHROM_H
#define GVK_SNP_CHROM_H

#include <stddef.h>

enum { SNP_CHR_INVALID = -1, SNP_CHR_EXTRA = 0, SNP_CHR_STD = 1 };

/* Chromosome classes that change how genotypes count: X and Y are haploid in males. */
enum { SNP_CHR_AUTO = 0, SNP_CHR_X = 1, SNP_CHR_Y = 2 };

/* PLINK's printed name of name[0, len) into out (out_size >= 4): the code number of a standard name
 * ("chr1" -> "1", "X" -> "23", "Y" -> "24", "XY" -> "25", "M"/"MT" -> "26", "05" -> "5"), or the
 * name itself for a contig PLINK only accepts with --allow-extra-chr. Returns SNP_CHR_STD,
 * SNP_CHR_EXTRA, or SNP_CHR_INVALID for a two-digit number above 26, which PLINK always refuses.
 * A name longer than out_size - 1 is cut (callers size out for their longest name). */
int snp_chr_code(const char *name, size_t len, char *out, size_t out_size);

/* Class of a printed name from snp_chr_code. */
int snp_chr_class(const char *code);

/* 1 when the printed name chr is in PLINK's --chr list (comma-separated names and numeric ranges
 * such as 1-4,X), 0 otherwise. */
int snp_chr_listed(const char *list, const char *chr);

/* 0 when every item of a --chr list is a chromosome name or a numeric range, else a negative code
 * naming the bad item. */
int snp_chr_list_check(const char *list, int allow_extra, char *msg, size_t msg_size);

#endif
