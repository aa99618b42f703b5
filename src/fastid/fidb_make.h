/* SPDX-License-Identifier: MIT */
/* gvk fastid --make-fidb: profiles, SNP panel and sample IDs from genotypes, read from a PLINK 1
 * binary fileset (its prefix, or the path of its .bed, .bim or .fam) or a VCF/BCF file. */
#ifndef GVK_SNP_FIDB_MAKE_H
#define GVK_SNP_FIDB_MAKE_H

#include "fidb_io.h"

/* What a .fidb file holds. */
typedef struct {
	fid_prof_t prof;
	fid_panel_t panel;
	fid_ids_t ids;
} fid_file_t;

/* One profile per sample (PLINK: every sample of the .fam, founder or not). Bit j is set when the
 * sample carries allele 1 of SNP j: the VCF's ALT or the .bim's A1 (the allele plink --recode vcf
 * writes as ALT), or with minor = 1 the allele rarer among the input's calls (ties keep ALT / A1).
 * Missing calls give 0. threads (< 1: 1) read, decode and transpose at once; the result is the
 * same for any number. */
int fid_make(const char *in, int minor, int threads, fid_file_t *f, gvk_err_t *err);
void fid_file_free(fid_file_t *f);

#endif
