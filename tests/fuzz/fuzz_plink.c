/* gvk ld --bed/--bim/--fam: a PLINK 1 fileset read as the CLI reads it. The input holds the three
 * files as .fam, .bim and .bed, in that order, separated by FZ_SEP; the size's low bits pick
 * --keep-allele-order and --nonfounders, so that every input has one fixed meaning. */
#include <string.h>

#include "fuzz_util.h"
#include "snp/plink_io.h"

static void check_data(const snp_data_t *d)
{
	if (d->n_snp < 1 || d->n_samples < 1 || d->n_bits > d->n_samples)
		fz_fail("accepted %lld SNPs, %lld samples, %lld columns", (long long)d->n_snp, (long long)d->n_samples,
		        (long long)d->n_bits);
	for (int64_t i = 0; i < d->n_snp; ++i) {
		const snp_var_t *v = &d->var[i];
		if (!v->chr || !v->id || !v->a1 || !v->a2 || v->bp < 0) fz_fail("variant %lld incomplete", (long long)i);
		/* Bits past the last column stay 0: the kernels count whole words. */
		for (int p = 0; p < SNP_PLANES; ++p) {
			const uint64_t *w = snp_plane(d, i, p);
			for (int64_t b = d->n_bits; b < (int64_t)d->nw * 64; ++b)
				if (w[b >> 6] >> (b & 63) & 1) fz_fail("variant %lld plane %d: bit %lld set past the samples", (long long)i, p, (long long)b);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *part[3];
	size_t len[3];
	fz_split(data, size, part, len, 3);
	fz_file_t fam, bim, bed;
	fz_write(&fam, part[0], len[0], ".fam");
	fz_write(&bim, part[1], len[1], ".bim");
	fz_write(&bed, part[2], len[2], ".bed");
	snp_plink_opt_t opt = {(int)(size & 1), (int)(size >> 1 & 1)};
	snp_data_t d;
	memset(&d, 0, sizeof d);
	gvk_err_t err = {0, ""};
	int rc = snp_read_plink(bed.path, bim.path, fam.path, &opt, &d, &err);
	if (rc < 0 && !strstr(err.msg, fam.path) && !strstr(err.msg, bim.path) && !strstr(err.msg, bed.path) && rc != GVK_ERR_NOMEM)
		fz_fail("the message names none of the files: %s", err.msg);
	if (rc < 0 && (err.code != rc || !err.msg[0])) fz_fail("returned %d, error code %d, message '%s'", rc, err.code, err.msg);
	if (rc == 0) check_data(&d);
	snp_data_free(&d);
	fz_remove(&fam), fz_remove(&bim), fz_remove(&bed);
	return 0;
}
