/* SPDX-License-Identifier: MIT */
/* The .bim of a PLINK 1 fileset: its variants, validated as docs/snp.md says (Semantics 1), read on
 * the threads with the messages of one thread, and its order as PLINK 1.9's windows see it. */
#ifndef GVK_SNP_PLINK_IO_BIM_H
#define GVK_SNP_PLINK_IO_BIM_H

#include <stddef.h>
#include <stdint.h>

#include "gvk.h"
#include "snp_data.h"

/* Reads every .bim line into d->var (d zeroed), with *src[i] = the line's variant index in the
 * .bed and *n_rows the .bed's variant count. Lines with a negative position are left out, as
 * PLINK leaves them out. Chromosome names must be PLINK codes unless allow_extra
 * (--allow-extra-chr). Errors name the file and line. */
int snp_read_bim(const char *path, int allow_extra, snp_data_t *d, int64_t **src, int64_t *n_rows, gvk_err_t *err);

/* One chromosome's run of consecutive .bim lines, with the first line (1-based; 0 = none) where
 * its positions or cM values go down, checked as PLINK 1.9 checks them for windowed LD: positions
 * over the lines with a position >= 0, cM values over the lines whose cM field is not "0". */
typedef struct {
	size_t name; /* offset of the chromosome code (as snp_var_t.chr gives it) in snp_bim_order_t.names */
	long line, bp_line, cm_line;
} snp_bim_run_t;

/* The order of a .bim as PLINK 1.9's windows see it. */
typedef struct {
	snp_bim_run_t *run;
	int64_t n_run;
	size_t n_run_cap;
	char *names;
	size_t names_len, names_cap;
	long split_line;  /* first line of a chromosome that appeared before, other chromosomes between (0 = none) */
	size_t split_name; /* that chromosome's code, in names */
	int64_t *base_bp; /* per .bim line 0, 64, 128, ...: the position and cM PLINK holds for it (a line */
	double *base_cm;  /* with a negative position holds the chromosome's last position and cM before it) */
	int64_t n_base;   /* entries filled */
	size_t base_cap;
} snp_bim_order_t;

/* snp_read_bim on up to `threads` threads, also filling ord when given (zeroed by the caller;
 * freed with snp_bim_order_free). The result and every message are those of one thread. */
int snp_read_bim_order(const char *path, int allow_extra, int threads, snp_data_t *d, int64_t **src, int64_t *n_rows,
                       snp_bim_order_t *ord, gvk_err_t *err);
/* The order of rows var[0 .. n) (row k being line k + 1) into ord (zeroed by the caller), on up
 * to `threads` threads; row k's cM field is "0" when flag is NULL or flag[k] & cm0. -1 when out of
 * memory. */
int snp_bim_order_rows(const snp_var_t *var, const uint8_t *flag, uint8_t cm0, int64_t n, int threads, snp_bim_order_t *ord);
/* The same for variants already read (a VCF as PLINK imports it: its cM fields are "0"), line k
 * being d->var[k - 1]; -1 when out of memory. */
int snp_order_of_vars(const snp_data_t *d, snp_bim_order_t *ord);
void snp_bim_order_free(snp_bim_order_t *ord);

#endif
