/* gvk ld --vcf and gvk fastid --make-fidb: VCF/BCF (plain, gzip or BGZF, as htslib detects it)
 * read as the CLI reads it; the size's low bits pick --keep-allele-order, --phased and --minor. */
#include <string.h>

#include "fuzz_util.h"
#include "snp/vcf_io.h"

static void check_data(const snp_data_t *d, int phased)
{
	if (d->n_snp < 1 || d->n_samples < 1 || d->n_bits != (phased ? 2 : 1) * d->n_samples)
		fz_fail("accepted %lld SNPs, %lld samples, %lld columns", (long long)d->n_snp, (long long)d->n_samples,
		        (long long)d->n_bits);
	for (int64_t i = 0; i < d->n_snp; ++i) {
		const snp_var_t *v = &d->var[i];
		if (!v->chr || !v->id || !v->a1 || !v->a2 || v->bp < 0) fz_fail("variant %lld incomplete", (long long)i);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_file_t f;
	fz_write(&f, data, size, ".vcf");
	snp_vcf_opt_t opt = {(int)(size & 1), (int)(size >> 1 & 1)};
	snp_data_t d;
	memset(&d, 0, sizeof d);
	gvk_err_t err = {0, ""};
	int rc = snp_read_vcf(f.path, &opt, &d, &err);
	fz_check_err(rc, &err, f.path);
	if (rc == 0) check_data(&d, opt.haplotypes);
	snp_data_free(&d);
	fid_prof_t p;
	memset(&p, 0, sizeof p);
	rc = snp_vcf_to_profiles(f.path, (int)(size >> 2 & 1), &p, &err);
	fz_check_err(rc, &err, f.path);
	fid_prof_free(&p);
	fz_remove(&f);
	return 0;
}
