/* SPDX-License-Identifier: MIT */
/* What gvk cnv reads from BAM/CRAM headers besides the window layout: the sample names (@RG SM)
 * and the check of BED contig names against @SQ. */
#ifndef GVK_CNV_BAMHDR_H
#define GVK_CNV_BAMHDR_H

#include "gvk.h"

/* The sample name of a path: its base name without .bam / .cram (malloc'ed, NULL: no memory). */
char *cnv_path_sample(const char *path);

/* Final names of n files: sm[f] is file f's @RG SM (malloc'ed) or NULL, replaced here by the file
 * name; the files without SM are named in one note to o->log (INFO). Two files of one name are an error
 * naming both. */
int cnv_sample_names(char **sm, const char *const *paths, int n, const gvk_cnv_bam_opts_t *o, gvk_err_t *err);

#ifdef GVK_HAVE_HTSLIB
#include <htslib/sam.h>

/* *sm: the SM of the header's read groups (malloc'ed), or NULL when none has one. Read groups of
 * different samples in one file are an error (cn.mops counts one sample per file). */
int cnv_hdr_sample(const sam_hdr_t *h, const char *path, char **sm, gvk_err_t *err);

/* The BED's contigs (names, n) against the header of the BAM `bam`: an error when one of them is
 * missing but the header has it under another spelling ('1' / 'chr1', 'MT' / 'chrM'), or when none
 * of them is in the header; a note to o->log (INFO) for the others that are missing. */
int cnv_check_bed_contigs(const sam_hdr_t *h, const char *bam_path, const char *bed_path, char *const *names, int n,
                          const gvk_cnv_bam_opts_t *o, gvk_err_t *err);

/* Whether the windows of length wl over the header's sequences fit, before any of them is laid
 * out: their counts for n_samples and the model of the default classes against the machine's
 * physical memory, their number against a count matrix's int. The error says what window
 * length fits. */
int cnv_check_windows(const sam_hdr_t *h, int wl, int n_samples, gvk_err_t *err);
#endif

#endif
