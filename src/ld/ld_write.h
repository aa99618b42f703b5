/* SPDX-License-Identifier: MIT */
/* PLINK 1.9 --r/--r2 output: the .ld table (fixed-width columns), text matrices and the
 * .ld.bin matrices, written stripe by stripe from ld_run. */
#ifndef GVK_SNP_LD_WRITE_H
#define GVK_SNP_LD_WRITE_H

#include <stdio.h>
#include "ld_engine.h"

enum { LD_DP_NONE = 0, LD_DP_ABS = 1, LD_DP_SIGNED = 2 };

typedef struct {
	FILE *fp;
	const snp_data_t *d;
	int shape;       /* ld_shape_t */
	int r2;          /* the stripes hold r squared (--r2) rather than signed r (--r) */
	int bin;         /* 0 text, 4 float32, 8 float64 */
	int spaces;      /* text matrix: single spaces instead of tabs */
	double r2_min;   /* table: keep pairs with r^2 >= r2_min (--ld-window-r2) */
	int with_freqs, in_phase, dcol, dprime;
	int gz;          /* text output gzip-compressed (PLINK's 'gz' modifier, PREFIX.ld.gz) */
	int threads;     /* text is formatted on this many threads (0 or 1: the caller's alone) */
	void *pool;      /* gvk_pool_t for them (the caller's, shared with ld_run); NULL: the writer's own */
	/* filled by ld_writer_init */
	int maxsnp;
	double r_min;
	double *maf;
	char *pre;       /* table: per SNP "CHR BP SNP" at pre + i * pre_len, pre_n[i] bytes */
	size_t pre_len;
	int *pre_n;
	size_t row_max;  /* table: the longest row the options can give */
	void *zs;        /* ld_gz_t when gz */
	void *own_pool;
	struct ld_part *part; /* one text buffer per formatting thread */
	uint64_t written;
	char *buf;
	size_t len, cap;
} ld_writer_t;

/* Prepares widths and frequencies and writes the table header (if any). */
int ld_writer_init(ld_writer_t *w, gvk_err_t *err);
void ld_writer_free(ld_writer_t *w);

/* Writes what is buffered and ends the gzip stream; call once after ld_run succeeds. */
int ld_writer_finish(ld_writer_t *w, gvk_err_t *err);

/* 1 when this build can write gzip output. */
int ld_writer_gz_available(void);

/* ld_sink_fn for ld_run. */
int ld_writer_sink(void *ctx, const ld_stripe_t *s, gvk_err_t *err);

/* v as PLINK 1.9 prints it (ld_fmt.c): %g's layout with 6 significant digits, PLINK's rounding
 * of near-ties, "nan" for any NaN; returns the length. s needs 32 bytes. */
int ld_fmt_g(char *s, double v);

/* v with 3 significant digits as PLINK 1.9 prints p-values and r^2 in .clumped, right-aligned in
 * width w; returns the length. s needs w + 32 bytes. */
int ld_fmt_g3(char *s, double v, int w);

/* PLINK 1.9's width of the SNP ID columns for these variants. */
int ld_plink_maxsnp(const snp_data_t *d);
/* The same on up to `threads` threads. */
int ld_plink_maxsnp_threads(const snp_data_t *d, int threads);

#endif
