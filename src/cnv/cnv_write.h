/* SPDX-License-Identifier: MIT */
/* Text outputs of gvk cnv: TSV tables as the reference files lay them out, BED and SEG. Each
 * returns 0, GVK_ERR_IO (-1) when the stream reports an error, or GVK_ERR_NOMEM. */
#ifndef GVK_CNV_WRITE_H
#define GVK_CNV_WRITE_H

#include <stdio.h>
#include "gvk.h"

/* 'sample chr start end mean median CN' for the CNVs (cnvs = 1) or every segment. */
int cnv_write_segments(FILE *fp, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r, int cnvs);
/* 'chr start end' + one CN column per sample. */
int cnv_write_cnvr(FILE *fp, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r);

/* Per-sample calls as BED: 'chrom start end sample CN', 0-based half-open, by position. */
int cnv_write_calls_bed(FILE *fp, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r);
/* Every segment as SEG (IGV, GISTIC): 'ID chrom loc.start loc.end num.mark seg.mean', 1-based
 * inclusive as the TSV tables, by sample; seg.mean is the segment's mean sI/NI (log2 scale). */
int cnv_write_seg(FILE *fp, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r);

/* Per-region table 'chr start end' + columns: v is ncol x m region-fastest, names the headers
 * (NULL: the sample names). is_int writes integers (classes). */
int cnv_write_regions(FILE *fp, const gvk_cnv_counts_t *c, const double *v, const uint8_t *iv, int ncol,
                      const char *const *names);
/* The raw count matrix (input format of --counts). */
int cnv_write_counts(FILE *fp, const gvk_cnv_counts_t *c);
/* Posterior in the reference's long format: one row per region and sample. */
int cnv_write_posterior(FILE *fp, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r);

/* Normalization and segmentation diagnostics, one row per sequence and sample. */
int cnv_write_norm_factors(FILE *fp, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r);
int cnv_write_seg_params(FILE *fp, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r);

/* The run's parameters as name/value rows, laid out like cn.mops' params() (version: gvk's). */
int cnv_write_params(FILE *fp, const gvk_cnv_opts_t *o, const gvk_cnv_result_t *r);

/* For the public writers (fn: the call, for the message): GVK_ERR_ARG unless r is a result of
 * counts of c's shape, and o (when given) valid options of r's classes. */
int cnv_result_check(const char *fn, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r, const gvk_cnv_opts_t *o,
                     gvk_err_t *err);

#endif
