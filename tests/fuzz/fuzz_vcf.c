/* SPDX-License-Identifier: MIT */
/* The strict VCF/BCF reader (src/snp/vcf_io.c: gvk ld --vcf --phased) and gvk fastid --make-fidb
 * from VCF (src/fastid/fidb_make.c), on VCF/BCF plain, gzip or BGZF, as htslib detects it. The
 * size's low bits pick --keep-allele-order, --phased and --minor, so that every input has one
 * fixed meaning. */
#include <string.h>
#include <htslib/hts.h>

#include "fuzz_util.h"
#include "snp_check.h"
#include "snp/vcf_io.h"

/* htslib's own warnings say nothing the returned error does not, and cost time. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	hts_set_log_level(HTS_LOG_OFF);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_file_t f;
	fz_write(&f, data, size, ".vcf");
	snp_vcf_opt_t opt = {(int)(size & 1), (int)(size >> 1 & 1), 1 + (int)(size >> 2 & 1)};
	snp_data_t d;
	memset(&d, 0, sizeof d);
	gvk_err_t err = {0, ""};
	int rc = snp_read_vcf(f.path, &opt, &d, &err);
	fz_check_err(rc, &err, f.path);
	if (rc == 0) {
		if (d.n_bits != (opt.haplotypes ? 2 : 1) * d.n_samples || d.phased != opt.haplotypes)
			fz_fail("%lld columns for %lld samples (phased %d)", (long long)d.n_bits, (long long)d.n_samples, d.phased);
		fz_check_snp_data(&d);
	}
	snp_data_free(&d);
	const char *name = f.path;
	fz_check_make_fidb(f.path, (int)(size >> 2 & 1), &name, 1);
	fz_remove(&f);
	return 0;
}
