/* SPDX-License-Identifier: MIT */
/* The CNV regions as VCF 4.3: one record per region, symbolic alleles, GT:CN:SM per sample. */
#ifndef GVK_CNV_VCF_H
#define GVK_CNV_VCF_H

#include <stdio.h>
#include "gvk.h"
#include "../common/outset.h"

/* VCF text to fp. reference: FASTA whose base at POS becomes REF (NULL: REF is N). */
int cnv_write_vcf(FILE *fp, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r, const gvk_cnv_opts_t *o,
                  const char *reference, gvk_err_t *err);

/* The VCF at path through the output set: plain text, or when path ends in .gz bgzipped and
 * indexed beside it (path.tbi, or path.csi when a contig is too long for tabix), the index a
 * member of the set like the VCF. The sample names are distinct (gvk_cnv_run checked them). */
int cnv_vcf_save(gvk_outset_t *os, const char *path, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r,
                 const gvk_cnv_opts_t *o, const char *reference, int threads, gvk_err_t *err);

#endif
