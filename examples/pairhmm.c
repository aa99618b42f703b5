/* SPDX-License-Identifier: MIT */
/* Pair-HMM through gvk.h: log10 P(read | haplotype) of two reads against two haplotypes, the
 * gpuPairHMM README's example (tests/data/pairhmm/inputs/gpupairhmm_readme_example.in, which
 * `gvk pairhmm` reads and tests/install/install.sh compares with this program's output). */
#include <stdio.h>
#include <string.h>

#include <gvk.h>

enum { N_READS = 2, N_HAPS = 2, MAX_LEN = 64 };

/* Bases, then base, insertion, deletion and gap-continuation qualities as Phred+33 text. */
static const char *const reads[N_READS][5] = {
	{"CTGTGTCCATGTCAGAGCAATGGCCCAAGTCTGGGCCTGGG", "888888888888'88888888'8888888888888'8'888",
	 "IIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIN", "IIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIN",
	 "+++++++++++++++++++++++++++++++++++++++++"},
	{"ATGTCAGAGCAATGGCCCAAGTCTGGGTCTGGG", "<AFFFKKKKKKKKKKKKKKKKKKKKKKKKKKKK",
	 "IIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIN", "IIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIN",
	 "+++++++++++++++++++++++++++++++++"}};
static const char *const haps[N_HAPS] = {"CTGTGTCCATGTCAGAGCAACGGCCCAAGTCTGGGTCTGGG",
                                         "CTGTGTCCATGTCAGAGCAATGGCCCAAGTCTGGGTCTGGG"};

int main(void)
{
	/* The library takes raw Phred values. */
	static uint8_t q[N_READS][4][MAX_LEN];
	gvk_read_t rd[N_READS];
	for (int r = 0; r < N_READS; ++r) {
		int len = (int)strlen(reads[r][0]);
		for (int k = 0; k < 4; ++k)
			for (int i = 0; i < len; ++i) q[r][k][i] = (uint8_t)(reads[r][k + 1][i] - 33);
		rd[r] = (gvk_read_t){len, reads[r][0], q[r][0], q[r][1], q[r][2], q[r][3]};
	}
	gvk_hap_t hp[N_HAPS];
	for (int h = 0; h < N_HAPS; ++h) hp[h] = (gvk_hap_t){(int)strlen(haps[h]), haps[h]};

	gvk_pairhmm_opts_t opt;
	gvk_pairhmm_opts_init(&opt);
	gvk_err_t err;
	gvk_pairhmm_t *e = gvk_pairhmm_create(&opt, &err);
	if (!e) {
		fprintf(stderr, "pairhmm: %s\n", err.msg);
		return 1;
	}
	double out[N_READS * N_HAPS];
	int rc = gvk_pairhmm_batch(e, rd, N_READS, hp, N_HAPS, out, &err);
	if (rc < 0) {
		fprintf(stderr, "pairhmm: %s (%s)\n", err.msg, gvk_strerror(rc));
		gvk_pairhmm_destroy(e);
		return 1;
	}
	printf("gvk %s (header %s) on %s\n", gvk_version(), GVK_VERSION, gvk_pairhmm_device_name(e));
	for (int r = 0; r < N_READS; ++r)
		for (int h = 0; h < N_HAPS; ++h) printf("read %d hap %d log10 %.17g\n", r, h, out[r * N_HAPS + h]);
	gvk_pairhmm_destroy(e);
	return 0;
}
