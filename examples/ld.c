/* SPDX-License-Identifier: MIT */
/* PLINK 1.9 LD through gvk.h: writes a tiny PLINK 1 fileset (4 SNPs x 8 founders) and prints its
 * r^2 matrix, as `plink --r2 square` (or `gvk ld --r2 square`) would; then the same matrix from the
 * genotypes in memory, and the window table `plink --r2` would write. Usage: ld [PREFIX] (default
 * ld_example: PREFIX.bed/.bim/.fam are written, then removed). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gvk.h>

enum { N_SNP = 4, N_SAMPLE = 8 };

/* Copies of the second allele per sample, -1 = missing. SNP 2 mirrors SNP 0, so r^2 = 1. */
static const int geno[N_SNP][N_SAMPLE] = {
	{0, 1, 2, 0, 1, 2, 0, 1}, {0, 1, 2, 0, 1, 2, 0, 2}, {2, 1, 0, 2, 1, 0, 2, 1}, {0, 0, 1, -1, 2, 1, 0, 0}};

static int write_fileset(const char *prefix)
{
	char path[4096];
	snprintf(path, sizeof path, "%s.fam", prefix);
	FILE *fam = fopen(path, "w");
	if (!fam) return -1;
	for (int s = 0; s < N_SAMPLE; ++s) fprintf(fam, "F%d I%d 0 0 %d -9\n", s, s, 1 + s % 2);
	fclose(fam);
	snprintf(path, sizeof path, "%s.bim", prefix);
	FILE *bim = fopen(path, "w");
	if (!bim) return -1;
	for (int j = 0; j < N_SNP; ++j) fprintf(bim, "1\trs%d\t0\t%d\tA\tG\n", j + 1, 1000 * (j + 1));
	fclose(bim);
	/* SNP-major .bed: two bits per sample, the first sample in the lowest bits; 00 and 11 are the
	 * homozygotes of the first and second allele, 10 the heterozygote, 01 missing. */
	snprintf(path, sizeof path, "%s.bed", prefix);
	FILE *bed = fopen(path, "wb");
	if (!bed) return -1;
	const unsigned char magic[3] = {0x6c, 0x1b, 0x01}, code[3] = {0, 2, 3};
	fwrite(magic, 1, 3, bed);
	for (int j = 0; j < N_SNP; ++j) {
		unsigned char b[(N_SAMPLE + 3) / 4] = {0};
		for (int s = 0; s < N_SAMPLE; ++s)
			b[s / 4] |= (unsigned char)((geno[j][s] < 0 ? 1 : code[geno[j][s]]) << 2 * (s % 4));
		fwrite(b, 1, sizeof b, bed);
	}
	return fclose(bed);
}

static void remove_fileset(const char *prefix)
{
	char path[4096];
	const char *ext[] = {".bed", ".bim", ".fam"};
	for (int k = 0; k < 3; ++k) {
		snprintf(path, sizeof path, "%s%s", prefix, ext[k]);
		remove(path);
	}
}

/* The same genotypes as an in-memory matrix, SNP-major; r^2 does not depend on which allele is
 * counted, so the matrix equals the fileset's. */
static int same_from_memory(gvk_ld_t *e, const gvk_ld_matrix_t *want)
{
	int8_t g[N_SNP * N_SAMPLE];
	for (int j = 0; j < N_SNP; ++j)
		for (int s = 0; s < N_SAMPLE; ++s) g[j * N_SAMPLE + s] = (int8_t)geno[j][s];
	gvk_ld_matrix_t *m;
	gvk_err_t err;
	if (gvk_ld_matrix_geno(e, g, N_SNP, N_SAMPLE, GVK_GENO_SNP_MAJOR, &m, &err) < 0) {
		fprintf(stderr, "ld: %s (%s)\n", err.msg, gvk_strerror(err.code));
		return 1;
	}
	int same = 1;
	for (int64_t k = 0; k < m->m * m->m; ++k)
		same &= (isnan(m->r[k]) && isnan(want->r[k])) || m->r[k] == want->r[k];
	printf("from the genotype matrix in memory: %s\n", same ? "the same r^2" : "DIFFERENT");
	gvk_ld_matrix_free(m);
	return !same;
}

int main(int argc, char **argv)
{
	const char *prefix = argc > 1 ? argv[1] : "ld_example";
	if (write_fileset(prefix) != 0) {
		perror(prefix);
		remove_fileset(prefix);
		return 1;
	}
	gvk_ld_opts_t opt;
	gvk_ld_opts_init(&opt); /* r^2, PLINK's windows, 1 thread, the GPU when there is one */
	gvk_err_t err;
	gvk_ld_t *e = gvk_ld_create(&opt, &err);
	gvk_ld_matrix_t *m = NULL;
	gvk_ld_table_t *t = NULL;
	int rc = e ? gvk_ld_matrix_bfile(e, prefix, &m, &err) : -1;
	if (rc == 0) rc = gvk_ld_table_bfile(e, prefix, &t, &err);
	remove_fileset(prefix);
	if (rc < 0) {
		fprintf(stderr, "ld: %s (%s)\n", err.msg, gvk_strerror(err.code));
		gvk_ld_destroy(e);
		return 1;
	}
	printf("r^2 of %lld SNPs, %d founders\n", (long long)m->m, N_SAMPLE);
	for (int64_t i = 0; i < m->m; ++i) {
		for (int64_t j = 0; j < m->m; ++j) printf("%s%.6g", j ? "\t" : "", m->r[i * m->m + j]);
		printf("\n");
	}
	rc = same_from_memory(e, m);
	printf("window table (r^2 >= %g), %zu pairs:\n", opt.window_r2, t->n);
	for (size_t k = 0; k < t->n; ++k)
		printf("%s\t%s\t%.6g\n", t->snps.id[t->snp_a[k]], t->snps.id[t->snp_b[k]], t->r[k]);
	gvk_ld_table_free(t);
	gvk_ld_matrix_free(m);
	gvk_ld_destroy(e);
	return rc;
}
