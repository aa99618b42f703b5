/* SPDX-License-Identifier: MIT */
/* Semi-global alignment through gvk.h: three pairs aligned as GATK's Smith-Waterman does; each
 * gives the CIGAR of alt against ref and the offset of its start in ref. Prints 'ref alt cigar C
 * offset O score S' per pair; tests/install/install.sh compares it with `gvk align`. */
#include <stdio.h>
#include <string.h>

#include <gvk.h>

enum { N = 3 };

static const char *const pairs[N][2] = {
	/* ref, alt: an exact substring, a one-base insertion, a mismatch and a trailing overhang */
	{"AAACCCGGGTTTACGTACGT", "CCCGGGTTT"},
	{"ACGTTGCAACGTAGCTAGCATCGATCGA", "ACGTTGCAACGTAGGCTAGCATCGATCGA"},
	{"TTTTGGGGCCCCAAAATTTTGGGG", "GGGGCCACAAAATTTTGGGGACGTACGT"}};

int main(void)
{
	gvk_sw_params_t par;
	gvk_sw_preset("ORIGINAL_DEFAULT", &par);
	gvk_align_pair_t in[N];
	for (int k = 0; k < N; ++k)
		in[k] = (gvk_align_pair_t){pairs[k][0], pairs[k][1], (int32_t)strlen(pairs[k][0]),
		                           (int32_t)strlen(pairs[k][1]), par, GVK_OVERHANG_SOFTCLIP};

	gvk_align_opts_t opt;
	gvk_align_opts_init(&opt);
	gvk_err_t err;
	gvk_align_t *e = gvk_align_create(&opt, &err);
	if (!e) {
		fprintf(stderr, "align: %s\n", err.msg);
		return 1;
	}
	/* The CIGARs stay the engine's until its next batch (gvk_align_batch_copy keeps them). */
	gvk_align_result_t out[N];
	int rc = gvk_align_batch(e, in, N, out, &err);
	if (rc < 0) {
		fprintf(stderr, "align: %s (%s)\n", err.msg, gvk_strerror(rc));
		gvk_align_destroy(e);
		return 1;
	}
	printf("ORIGINAL_DEFAULT scores %d/%d/%d/%d, overhang %s, on %s\n", par.match, par.mismatch, par.gap_open,
	       par.gap_extend, gvk_overhang_name(GVK_OVERHANG_SOFTCLIP), gvk_align_device_name(e));
	for (int k = 0; k < N; ++k)
		printf("%s %s cigar %s offset %d score %d\n", pairs[k][0], pairs[k][1], out[k].cigar, out[k].offset,
		       out[k].score);
	gvk_align_destroy(e);
	return 0;
}
