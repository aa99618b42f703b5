/* SPDX-License-Identifier: MIT */
/* gvk ld --vcf: a VCF/BCF imported as PLINK 1.9 imports it (src/snp/vcf_import.c: multi-allelic
 * records, haploid calls, sample IDs split at '_'), then decoded as gvk ld decodes it
 * (src/snp/snp_geno.c: X and Y rules, allele order, frequencies). The size's low bits pick
 * --double-id, --allow-extra-chr, --keep-allele-order, --nonfounders and the unphased D' coding,
 * so that every input has one fixed meaning. */
#include <stdlib.h>
#include <string.h>
#include <htslib/hts.h>

#include "fuzz_util.h"
#include "snp_check.h"
#include "snp/snp_geno.h"
#include "snp/vcf_import.h"

/* htslib's own warnings say nothing the returned error does not, and cost time. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	hts_set_log_level(HTS_LOG_OFF);
	return 0;
}

/* What the importer returns, against itself. */
static void check_import(const snp_samples_t *ss, const snp_data_t *d, int64_t row_bytes)
{
	if (ss->n < 1 || d->n_samples != ss->n || d->n_snp < 1 || row_bytes != (ss->n + 3) / 4)
		fz_fail("imported %lld samples (header %lld), %lld variants, rows of %lld bytes", (long long)ss->n,
		        (long long)d->n_samples, (long long)d->n_snp, (long long)row_bytes);
	for (int64_t s = 0; s < ss->n; ++s) {
		const snp_sample_t *p = &ss->s[s];
		if (!p->fid[0] || !p->iid[0] || !p->founder || !p->kept || p->sex)
			fz_fail("sample %lld imported as '%s' '%s' (founder %d, kept %d, sex %d)", (long long)s, p->fid, p->iid,
			        p->founder, p->kept, p->sex);
	}
}

/* The rows decoded as gvk ld decodes them, every sample a column. */
static void decode(const snp_samples_t *ss, snp_data_t *d, const uint8_t *rows, int64_t row_bytes, size_t size)
{
	snp_geno_ctx_t c;
	gvk_err_t err = {0, ""};
	if (snp_geno_ctx_init(&c, ss, (int)(size >> 3 & 1), (int)(size >> 2 & 1), &err) < 0) fz_fail("%s", err.msg);
	c.raw = (int)(size >> 4 & 1);
	if (snp_geno_alloc(d, d->n_snp, &c, &err) < 0) fz_fail("%s", err.msg);
	for (int64_t i = 0; i < d->n_snp; ++i) snp_geno_row(d, i, rows + i * row_bytes, &c);
	if (d->n_bits != ss->n) fz_fail("%lld columns for %lld samples", (long long)d->n_bits, (long long)ss->n);
	snp_geno_ctx_free(&c);
	fz_check_snp_data(d);
	fz_check_snp_stats(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_file_t f;
	fz_write(&f, data, size, ".vcf");
	snp_vcf_import_opt_t opt = {(int)(size & 1), (int)(size >> 1 & 1)};
	snp_samples_t ss = {0};
	snp_data_t d;
	memset(&d, 0, sizeof d);
	uint8_t *rows = NULL;
	int64_t row_bytes = 0;
	gvk_err_t err = {0, ""};
	int rc = snp_vcf_import(f.path, &opt, &ss, &d, &rows, &row_bytes, &err);
	fz_check_err(rc, &err, f.path);
	if (rc == 0) {
		check_import(&ss, &d, row_bytes);
		decode(&ss, &d, rows, row_bytes, size);
	}
	free(rows);
	snp_samples_free(&ss);
	snp_data_free(&d);
	fz_remove(&f);
	return 0;
}
