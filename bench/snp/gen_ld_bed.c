/* SPDX-License-Identifier: MIT */
/* A large PLINK 1 fileset with LD blocks for the pruning benchmark: the copying model of
 * tests/snp/gen_ld_data.py in C (each haplotype a mosaic of 8 founder haplotypes, switching at
 * rate 0.02 per SNP, mutations at 0.002, 1% missing calls), chromosomes 1 .. C of M / C SNPs.
 * With ASSOC, also an association report for the clumping benchmark: about 1% of the SNPs, in
 * blocks of 50 around random centres, get p < 1e-4 (down to 1e-12), the rest p uniform in (0, 1).
 * usage: gen_ld_bed PREFIX SAMPLES SNPS CHROMS SEED [ASSOC] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double unif(uint64_t *s) { return (double)(next(s) >> 11) * (1.0 / 9007199254740992.0); }

int main(int argc, char **argv)
{
	if (argc != 6 && argc != 7) return fprintf(stderr, "usage: gen_ld_bed PREFIX SAMPLES SNPS CHROMS SEED [ASSOC]\n"), 2;
	const char *pre = argv[1];
	long n = atol(argv[2]), m = atol(argv[3]), nc = atol(argv[4]);
	uint64_t rng = (uint64_t)atoll(argv[5]);
	char path[4096];
	FILE *bed, *bim, *fam;
	snprintf(path, sizeof path, "%s.bed", pre), bed = fopen(path, "wb");
	snprintf(path, sizeof path, "%s.bim", pre), bim = fopen(path, "w");
	snprintf(path, sizeof path, "%s.fam", pre), fam = fopen(path, "w");
	FILE *assoc = argc == 7 ? fopen(argv[6], "w") : NULL;
	uint64_t arng = rng ^ 0x5deece66dULL;
	long block = 0;
	if (assoc) fprintf(assoc, " CHR          SNP         BP   A1            P\n");
	if (!bed || !bim || !fam || (argc == 7 && !assoc) || n < 2 || m < 1 || nc < 1) return fprintf(stderr, "gen_ld_bed: bad arguments or cannot write\n"), 1;
	for (long s = 0; s < n; ++s) fprintf(fam, "F%ld\tI%ld\t0\t0\t%d\t-9\n", s + 1, s + 1, 1 + (int)(next(&rng) & 1));
	fputc(0x6c, bed), fputc(0x1b, bed), fputc(0x01, bed);
	int *src = malloc(sizeof *src * 2 * (size_t)n);
	uint8_t *row = malloc((size_t)(n + 3) / 4);
	long per = (m + nc - 1) / nc;
	for (long c = 1, j = 0; j < m; ++c) {
		long pos = 0;
		for (long h = 0; h < 2 * n; ++h) src[h] = (int)(next(&rng) & 7);
		for (long k = 0; k < per && j < m; ++k, ++j) {
			double f = 0.05 + 0.9 * unif(&rng);
			int founder[8];
			for (int q = 0; q < 8; ++q) founder[q] = unif(&rng) < f;
			for (long b = 0; b < (n + 3) / 4; ++b) row[b] = 0;
			for (long s = 0; s < n; ++s) {
				int g = 0;
				for (int t = 0; t < 2; ++t) {
					long h = 2 * s + t;
					if (k && unif(&rng) < 0.02) src[h] = (int)(next(&rng) & 7);
					g += founder[src[h]] ^ (unif(&rng) < 0.002);
				}
				int code = unif(&rng) < 0.01 ? 1 : g == 0 ? 0 : g == 1 ? 2 : 3;
				row[s >> 2] |= (uint8_t)(code << ((s & 3) * 2));
			}
			fwrite(row, 1, (size_t)(n + 3) / 4, bed);
			pos += 50 + (long)(next(&rng) % 4000);
			fprintf(bim, "%ld\t%ld_%ld\t0\t%ld\tA\tG\n", c, c, k + 1, pos);
			if (assoc) {
				if (!block && unif(&arng) < 1.0 / 2500) block = 50;
				double p = unif(&arng);
				if (block && (--block, unif(&arng) < 0.5)) p *= unif(&arng) < 0.3 ? 1e-8 : 1e-4;
				char id[64];
				snprintf(id, sizeof id, "%ld_%ld", c, k + 1);
				fprintf(assoc, "%4ld %12s %10ld %4s %12.4g\n", c, id, pos, "A", p > 0 ? p : 1e-300);
			}
		}
	}
	free(src), free(row);
	if (assoc && fclose(assoc)) return 1;
	return fclose(bed) | fclose(bim) | fclose(fam) ? 1 : 0;
}
