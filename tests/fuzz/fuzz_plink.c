/* SPDX-License-Identifier: MIT */
/* A PLINK 1 fileset (src/snp/plink_io.c, the .fam through src/snp/snp_samples.c) read three ways:
 * by the library's reader (snp_read_plink), as gvk ld reads it (.fam, .bim with or without
 * --allow-extra-chr, --make-founders, only then the .bed rows through snp_geno.c), and by gvk
 * fastid --make-fidb. The input holds the .fam, .bim and .bed in that order, separated by FZ_SEP;
 * the size's low bits pick --keep-allele-order, every sample a founder, --allow-extra-chr,
 * --make-founders, --nonfounders, the unphased D' coding and --minor, so that every input has one
 * fixed meaning. The .bim is also read on three threads, which must change nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "snp_check.h"
#include "snp/plink_io.h"
#include "snp/snp_samples.h"

/* The three files, and their prefix as --make-fidb names the fileset. */
static const char *names[4];
static char prefix[256];

static void library_reader(const fz_file_t *fs, size_t size)
{
	snp_plink_opt_t opt = {(int)(size & 1), (int)(size >> 1 & 1)};
	snp_data_t d;
	memset(&d, 0, sizeof d);
	gvk_err_t err = {0, ""};
	int rc = snp_read_plink(fs[2].path, fs[1].path, fs[0].path, &opt, &d, &err);
	fz_check_err_any(rc, &err, names, 3);
	if (rc == 0) {
		fz_check_snp_data(&d);
		fz_check_snp_stats(&d);
		if (d.n_sample_id != d.n_bits) fz_fail("%lld sample IDs for %lld columns", (long long)d.n_sample_id, (long long)d.n_bits);
	}
	snp_data_free(&d);
}

/* gvk ld's order: samples and their selection, variants, then the rows of the variants kept. */
static int ld_reader(const fz_file_t *fs, size_t size, snp_data_t *d, gvk_err_t *err)
{
	snp_samples_t ss = {0};
	snp_geno_ctx_t c;
	int64_t *src = NULL, rows = 0;
	int rc = snp_samples_read_fam(fs[0].path, &ss, err);
	if (rc == 0 && (size >> 3 & 1) && snp_samples_make_founders(&ss) < 0) fz_fail("--make-founders: out of memory");
	if (rc == 0) rc = snp_read_bim(fs[1].path, (int)(size >> 2 & 1), d, &src, &rows, err);
	if (rc == 0 && (rc = snp_geno_ctx_init(&c, &ss, (int)(size >> 4 & 1), (int)(size & 1), err)) == 0) {
		c.raw = (int)(size >> 5 & 1);
		d->n_samples = ss.n;
		rc = snp_read_bed(fs[2].path, src, rows, ss.n, &c, d, err);
		if (rc == 0 && d->n_bits != c.n_cols) fz_fail("%lld columns for %lld LD samples", (long long)d->n_bits, (long long)c.n_cols);
		snp_geno_ctx_free(&c);
	}
	if (rc == 0 && d->n_snp > rows) fz_fail("%lld variants kept of %lld rows", (long long)d->n_snp, (long long)rows);
	snp_samples_free(&ss);
	free(src);
	return rc;
}

/* The .bim on one thread and on three (its lines cut into parts): the same variants, order and
 * message. */
static void bim_threads(const fz_file_t *fs, size_t size)
{
	snp_data_t d[2];
	snp_bim_order_t o[2];
	int64_t *src[2] = {NULL, NULL}, rows[2] = {0, 0};
	gvk_err_t err[2] = {{0, ""}, {0, ""}};
	int rc[2];
	for (int k = 0; k < 2; ++k) {
		memset(&d[k], 0, sizeof d[k]), memset(&o[k], 0, sizeof o[k]);
		rc[k] = snp_read_bim_order(fs[1].path, (int)(size >> 2 & 1), k ? 3 : 1, &d[k], &src[k], &rows[k], &o[k], &err[k]);
	}
	if (rc[0] != rc[1] || strcmp(err[0].msg, err[1].msg)) fz_fail("bim on 1 and 3 threads: '%s' against '%s'", err[0].msg, err[1].msg);
	if (rc[0] == 0 && (rows[0] != rows[1] || d[0].n_snp != d[1].n_snp || o[0].n_run != o[1].n_run || o[0].split_line != o[1].split_line))
		fz_fail("bim on 1 and 3 threads: %lld and %lld rows", (long long)rows[0], (long long)rows[1]);
	for (int64_t i = 0; rc[0] == 0 && i < d[0].n_snp; ++i) {
		const snp_var_t *a = &d[0].var[i], *b = &d[1].var[i];
		if (src[0][i] != src[1][i] || strcmp(a->chr, b->chr) || strcmp(a->id, b->id) || strcmp(a->a1, b->a1) ||
		    strcmp(a->a2, b->a2) || a->bp != b->bp || memcmp(&a->cm, &b->cm, sizeof a->cm))
			fz_fail("bim on 1 and 3 threads: variant %lld differs", (long long)i);
	}
	for (int64_t r = 0; rc[0] == 0 && r < o[0].n_run; ++r)
		if (o[0].run[r].line != o[1].run[r].line || o[0].run[r].bp_line != o[1].run[r].bp_line ||
		    o[0].run[r].cm_line != o[1].run[r].cm_line)
			fz_fail("bim on 1 and 3 threads: chromosome run %lld differs", (long long)r);
	for (int k = 0; k < 2; ++k) snp_data_free(&d[k]), snp_bim_order_free(&o[k]), free(src[k]);
}

static void ld_route(const fz_file_t *fs, size_t size)
{
	snp_data_t d;
	memset(&d, 0, sizeof d);
	gvk_err_t err = {0, ""};
	int rc = ld_reader(fs, size, &d, &err);
	fz_check_err_any(rc, &err, names, 3);
	/* Every variant may sit at a negative position and be left out; gvk ld then says no variants
	 * remain. Founders may be none (gvk ld refuses fewer than two). */
	if (rc == 0 && d.n_snp > 0 && d.n_bits > 0) {
		fz_check_snp_data(&d);
		fz_check_snp_stats(&d);
	}
	snp_data_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *part[3];
	size_t len[3];
	fz_split(data, size, part, len, 3);
	fz_file_t fs[3];
	fz_write_named(&fs[0], "in.fam", part[0], len[0]);
	fz_write_named(&fs[1], "in.bim", part[1], len[1]);
	fz_write_named(&fs[2], "in.bed", part[2], len[2]);
	for (int k = 0; k < 3; ++k) names[k] = fs[k].path;
	snprintf(prefix, sizeof prefix, "%.*s", (int)strlen(fs[2].path) - 4, fs[2].path);
	names[3] = prefix;
	library_reader(fs, size);
	ld_route(fs, size);
	bim_threads(fs, size);
	fz_check_make_fidb(fs[2].path, (int)(size >> 6 & 1), names, 4);
	for (int k = 0; k < 3; ++k) fz_remove(&fs[k]);
	return 0;
}
