/* SPDX-License-Identifier: MIT */
/* A large PLINK 1 fileset with LD blocks for the pruning benchmark: the copying model of
 * tests/snp/gen_ld_data.py in C (each haplotype a mosaic of 8 founder haplotypes, switching at
 * rate 0.02 per SNP, mutations at 0.002, 1% missing calls), chromosomes 1 .. C of M / C SNPs.
 * With ASSOC, also an association report for the clumping benchmark: about 1% of the SNPs, in
 * blocks of 50 around random centres, get p < 1e-4 (down to 1e-12), the rest p uniform in (0, 1).
 * Each chromosome has random streams of its own (from SEED and its number) and is made on a thread
 * of its own, its .bed rows written at their offsets, so a 10^6-SNP panel takes seconds on a many-
 * core host and the files do not depend on the thread count.
 * usage: gen_ld_bed PREFIX SAMPLES SNPS CHROMS SEED [ASSOC] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double unif(uint64_t *s) { return (double)(next(s) >> 11) * (1.0 / 9007199254740992.0); }

/* A growing text buffer for one chromosome's .bim or report lines. */
typedef struct {
	char *p;
	size_t len, cap;
} text_t;

static int put(text_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int put(text_t *t, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (t->len + (size_t)k > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1 << 16;
		while (cap < t->len + (size_t)k) cap *= 2;
		char *p = realloc(t->p, cap);
		if (!p) return -1;
		t->p = p, t->cap = cap;
	}
	memcpy(t->p + t->len, line, (size_t)k), t->len += (size_t)k;
	return 0;
}

typedef struct {
	long c, j0, n_snp, n; /* chromosome, its first SNP, its SNPs, samples */
	uint64_t seed;
	int fd, assoc;
	text_t bim, rep;
	int failed;
} chrom_t;

static void *make_chrom(void *arg)
{
	chrom_t *ch = arg;
	const long n = ch->n, bpr = (n + 3) / 4;
	uint64_t rng = ch->seed ^ (0x2545f4914f6cdd1dULL * (uint64_t)ch->c), arng = rng ^ 0x5deece66dULL;
	int *src = malloc(sizeof *src * 2 * (size_t)n);
	uint8_t *row = malloc((size_t)bpr);
	long pos = 0, block = 0;
	ch->failed = !src || !row;
	for (long h = 0; h < 2 * n && !ch->failed; ++h) src[h] = (int)(next(&rng) & 7);
	for (long k = 0; k < ch->n_snp && !ch->failed; ++k) {
		double f = 0.05 + 0.9 * unif(&rng);
		int founder[8];
		for (int q = 0; q < 8; ++q) founder[q] = unif(&rng) < f;
		memset(row, 0, (size_t)bpr);
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
		if (pwrite(ch->fd, row, (size_t)bpr, 3 + (off_t)(ch->j0 + k) * bpr) != bpr) ch->failed = 1;
		pos += 50 + (long)(next(&rng) % 4000);
		if (put(&ch->bim, "%ld\t%ld_%ld\t0\t%ld\tA\tG\n", ch->c, ch->c, k + 1, pos) < 0) ch->failed = 1;
		if (ch->assoc) {
			if (!block && unif(&arng) < 1.0 / 2500) block = 50;
			double p = unif(&arng);
			if (block && (--block, unif(&arng) < 0.5)) p *= unif(&arng) < 0.3 ? 1e-8 : 1e-4;
			char id[64];
			snprintf(id, sizeof id, "%ld_%ld", ch->c, k + 1);
			if (put(&ch->rep, "%4ld %12s %10ld %4s %12.4g\n", ch->c, id, pos, "A", p > 0 ? p : 1e-300) < 0) ch->failed = 1;
		}
	}
	free(src), free(row);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 6 && argc != 7) return fprintf(stderr, "usage: gen_ld_bed PREFIX SAMPLES SNPS CHROMS SEED [ASSOC]\n"), 2;
	const char *pre = argv[1];
	long n = atol(argv[2]), m = atol(argv[3]), nc = atol(argv[4]);
	uint64_t rng = (uint64_t)atoll(argv[5]);
	if (n < 2 || m < 1 || nc < 1 || nc > m) return fprintf(stderr, "gen_ld_bed: bad arguments\n"), 2;
	char path[4096];
	snprintf(path, sizeof path, "%s.bed", pre);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	snprintf(path, sizeof path, "%s.bim", pre);
	FILE *bim = fopen(path, "w");
	snprintf(path, sizeof path, "%s.fam", pre);
	FILE *fam = fopen(path, "w");
	FILE *assoc = argc == 7 ? fopen(argv[6], "w") : NULL;
	if (fd < 0 || !bim || !fam || (argc == 7 && !assoc)) return fprintf(stderr, "gen_ld_bed: cannot write %s\n", pre), 1;
	const uint8_t magic[3] = {0x6c, 0x1b, 0x01};
	int bad = write(fd, magic, 3) != 3;
	for (long s = 0; s < n; ++s) fprintf(fam, "F%ld\tI%ld\t0\t0\t%d\t-9\n", s + 1, s + 1, 1 + (int)(next(&rng) & 1));
	if (assoc) fprintf(assoc, " CHR          SNP         BP   A1            P\n");
	const long per = (m + nc - 1) / nc;
	chrom_t *ch = calloc((size_t)nc, sizeof *ch);
	pthread_t *th = calloc((size_t)nc, sizeof *th);
	if (!ch || !th) return fprintf(stderr, "gen_ld_bed: out of memory\n"), 1;
	/* Every chromosome at once: the host's scheduler shares them out over its cores. */
	long made = 0;
	for (long c = 0; c < nc && c * per < m; ++c, ++made) {
		ch[c] = (chrom_t){c + 1, c * per, (c + 1) * per < m ? per : m - c * per, n, rng, fd, assoc != NULL, {0}, {0}, 0};
		if (pthread_create(&th[c], NULL, make_chrom, &ch[c]) != 0) make_chrom(&ch[c]), th[c] = 0;
	}
	for (long c = 0; c < made; ++c) {
		if (th[c]) pthread_join(th[c], NULL);
		bad |= ch[c].failed || fwrite(ch[c].bim.p, 1, ch[c].bim.len, bim) != ch[c].bim.len ||
		       (assoc && fwrite(ch[c].rep.p, 1, ch[c].rep.len, assoc) != ch[c].rep.len);
		free(ch[c].bim.p), free(ch[c].rep.p);
	}
	free(ch), free(th);
	if (assoc && fclose(assoc)) bad = 1;
	bad |= close(fd) | fclose(bim) | fclose(fam);
	if (bad) fprintf(stderr, "gen_ld_bed: writing %s failed\n", pre);
	return bad;
}
