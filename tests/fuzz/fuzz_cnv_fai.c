/* SPDX-License-Identifier: MIT */
/* gvk cnv --fai: contig lengths (a .fai or 'name length' lines) for a count matrix of two
 * contigs, chr1 (windows to 1000) and chr2 (to 500), as the command reads them. */
#include <stdlib.h>
#include <string.h>

#include "cnv/cnv_fai.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_file_t f;
	fz_write(&f, data, size, ".fai");
	char n1[] = "chr1", n2[] = "chr2";
	char *names[] = {n1, n2};
	int off[] = {0, 2, 3};
	int64_t start[] = {1, 501, 1}, end[] = {500, 1000, 500};
	gvk_cnv_counts_t c;
	memset(&c, 0, sizeof c);
	c.m = 3, c.N = 1, c.n_seqs = 2, c.seq_names = names, c.seq_off = off, c.start = start, c.end = end;
	gvk_err_t err = {0, ""};
	int rc = cnv_fai_lengths(f.path, &c, &err);
	fz_check_err(rc, &err, f.path);
	if (rc < 0 && c.seq_len) fz_fail("lengths set although the file was refused");
	if (rc == 0 && (!c.seq_len || c.seq_len[0] < 1000 || c.seq_len[1] < 500))
		fz_fail("accepted lengths shorter than the windows");
	free(c.seq_len);
	fz_remove(&f);
	return 0;
}
