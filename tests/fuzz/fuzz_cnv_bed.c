/* SPDX-License-Identifier: MIT */
/* gvk cnv --bed: the targets of read counting, read as the BAM counter reads them. */
#include "cnv/cnv.h"
#include "fuzz_util.h"

static void check_layout(const cnv_layout_t *l)
{
	if (l->m < 1 || l->n_seqs < 1) fz_fail("accepted %d intervals in %d sequences", l->m, l->n_seqs);
	if (l->off[0] != 0 || l->off[l->n_seqs] != l->m) fz_fail("sequence offsets do not span the rows");
	for (int q = 0; q < l->n_seqs; ++q)
		if (l->off[q] >= l->off[q + 1]) fz_fail("sequence %s has no interval", l->names[q]);
	/* 1-based inclusive after the conversion, so never empty and never before base 1. */
	for (int r = 0; r < l->m; ++r)
		if (l->start[r] < 1 || l->start[r] > l->end[r]) fz_fail("row %d: [%lld, %lld]", r, (long long)l->start[r], (long long)l->end[r]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_file_t f;
	fz_write(&f, data, size, ".bed");
	cnv_layout_t l;
	gvk_err_t err = {0, ""};
	int rc = cnv_read_bed(f.path, &l, &err);
	fz_check_err(rc, &err, f.path);
	if (rc == 0) check_layout(&l);
	cnv_layout_free(&l);
	fz_remove(&f);
	return 0;
}
