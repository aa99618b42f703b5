/* SPDX-License-Identifier: MIT */
/* gvk cnv --bed with BAM input: what src/cnv/cnv_bamhdr.c reads from the first file's header (as
 * htslib parses it) before counting: the BED's contigs against @SQ (another spelling such as
 * 'chr1' for '1' is an error, as is no contig in common) and the sample name from the @RG SM of
 * the read groups, then the file names of two such files. The input holds the BED and the SAM
 * header text, separated by FZ_SEP. */
#include <stdlib.h>
#include <string.h>
#include <htslib/hts.h>

#include "cnv/cnv.h"
#include "cnv/cnv_bamhdr.h"
#include "fuzz_util.h"

/* htslib's own warnings say nothing the returned error does not, and cost time. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	hts_set_log_level(HTS_LOG_OFF);
	return 0;
}

/* Notes are formatted as for the command line (so that their code is fuzzed too) and dropped. */
static void drop_msg(void *arg, int level, const char *text) { (void)arg, (void)level, (void)text; }
static const gvk_cnv_bam_opts_t notes = {25000, 1, 1, NULL, {drop_msg, NULL, GVK_LOG_DEBUG}, NULL, NULL};

static void check_contigs(const sam_hdr_t *h, const char *sam, const char *bed, const cnv_layout_t *l)
{
	gvk_err_t err = {0, ""};
	const char *names[2] = {sam, bed};
	int rc = cnv_check_bed_contigs(h, sam, bed, l->names, l->n_seqs, &notes, &err);
	fz_check_err_any(rc, &err, names, 2);
	int found = 0;
	for (int q = 0; q < l->n_seqs; ++q) found += sam_hdr_name2tid((sam_hdr_t *)h, l->names[q]) >= 0;
	if (rc == 0 && !found) fz_fail("accepted a BED of %d contigs, none in the header", l->n_seqs);
}

/* The header's sample, then the names of two files of that header (the same sample twice, unless
 * the first is named by its file). */
static void check_sample(const sam_hdr_t *h, const char *sam)
{
	gvk_err_t err = {0, ""};
	char *sm[2] = {NULL, NULL};
	int rc = cnv_hdr_sample(h, sam, &sm[0], &err);
	fz_check_err(rc, &err, sam);
	if (rc < 0) return;
	if (sm[0] && !sm[0][0]) fz_fail("an empty sample name");
	const char *paths[2] = {sam, "other.bam"};
	sm[1] = sm[0] ? strdup(sm[0]) : NULL;
	rc = cnv_sample_names(sm, paths, 2, &notes, &err);
	if (rc == 0 && !strcmp(sm[0], sm[1])) fz_fail("two files named '%s' accepted", sm[0]);
	if (rc < 0 && (!strstr(err.msg, sam) || !strstr(err.msg, paths[1]))) fz_fail("the message names not both files: %s", err.msg);
	free(sm[0]);
	free(sm[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *part[2];
	size_t len[2];
	fz_split(data, size, part, len, 2);
	fz_file_t bed, sam;
	fz_write(&bed, part[0], len[0], ".bed");
	fz_write(&sam, part[1], len[1], ".sam");
	cnv_layout_t l;
	gvk_err_t err = {0, ""};
	int rc = cnv_read_bed(bed.path, &l, &err);
	samFile *fp = rc == 0 ? sam_open(sam.path, "r") : NULL;
	sam_hdr_t *h = fp ? sam_hdr_read(fp) : NULL;
	if (h) {
		check_contigs(h, sam.path, bed.path, &l);
		check_sample(h, sam.path);
		sam_hdr_destroy(h);
	}
	if (fp) sam_close(fp);
	cnv_layout_free(&l);
	fz_remove(&bed), fz_remove(&sam);
	return 0;
}
