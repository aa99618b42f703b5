/* SPDX-License-Identifier: MIT */
/* Contig lengths for a count matrix (gvk cnv --fai), which holds windows but not the lengths
 * that the VCF's ##contig lines and a CSI/tabix choice want. */
#ifndef GVK_CNV_FAI_H
#define GVK_CNV_FAI_H

#include "gvk.h"

/* Reads path, a samtools faidx .fai or any file of 'name length' lines (tab- or
 * space-separated, further columns ignored, plain or gzip), into c->seq_len for every sequence of
 * c. Every sequence of c must be listed once, with a length that holds its last window; lines of
 * other contigs are skipped. On error (naming the file and line, or the contig) c is unchanged. */
int cnv_fai_lengths(const char *path, gvk_cnv_counts_t *c, gvk_err_t *err);

#endif
