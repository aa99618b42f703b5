/* SPDX-License-Identifier: MIT */
/* The C side of bench_overhead.py: the same calls as the Python package makes (create an engine,
 * one run, destroy), on data the script wrote, timed the same way (best of N).
 * Usage: bench_overhead_c pairhmm FILE THREADS REPS | ld FILE THREADS REPS
 * Prints "seconds checksum" of the best run. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gvk.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	void *p = malloc(*n ? *n : 1);
	if (p && fread(p, 1, *n, f) != *n) free(p), p = NULL;
	fclose(f);
	return p;
}

static int die(const gvk_err_t *e)
{
	fprintf(stderr, "bench_overhead_c: %s\n", e->msg);
	return 1;
}

/* File: int32 R, H, read length L, haplotype length HL; bases, qual, ins, del, gcp (R x L each);
 * haplotypes (H x HL). */
static int bench_pairhmm(const char *buf, int threads, int reps)
{
	int32_t hd[4];
	memcpy(hd, buf, sizeof hd);
	int R = hd[0], H = hd[1], L = hd[2], HL = hd[3];
	const char *p = buf + sizeof hd;
	gvk_read_t *reads = calloc(R, sizeof *reads);
	gvk_hap_t *haps = calloc(H, sizeof *haps);
	double *out = malloc((size_t)R * H * sizeof *out);
	for (int i = 0; i < R; ++i) {
		size_t o = (size_t)i * L, plane = (size_t)R * L;
		reads[i].len = L;
		reads[i].bases = p + o;
		reads[i].qual = (const uint8_t *)p + plane + o;
		reads[i].ins = (const uint8_t *)p + 2 * plane + o;
		reads[i].del = (const uint8_t *)p + 3 * plane + o;
		reads[i].gcp = (const uint8_t *)p + 4 * plane + o;
	}
	for (int j = 0; j < H; ++j) haps[j].len = HL, haps[j].bases = p + 5 * (size_t)R * L + (size_t)j * HL;
	double best = 1e30, sum = 0;
	for (int k = 0; k < reps; ++k) {
		gvk_err_t err = {0};
		double t0 = now();
		gvk_pairhmm_opts_t o;
		gvk_pairhmm_opts_init(&o);
		o.threads = threads, o.device = GVK_DEVICE_CPU;
		gvk_pairhmm_t *e = gvk_pairhmm_create(&o, &err);
		if (!e) return die(&err);
		if (gvk_pairhmm_batch(e, reads, R, haps, H, out, &err) < 0) return die(&err);
		gvk_pairhmm_destroy(e);
		double t = now() - t0;
		if (t < best) best = t;
	}
	for (size_t i = 0; i < (size_t)R * H; ++i) sum += out[i];
	printf("%.6f %.17g\n", best, sum);
	free(reads), free(haps), free(out);
	return 0;
}

/* File: int64 n_snps, n_samples; int8 genotypes, SNP-major. */
static int bench_ld(const char *buf, int threads, int reps)
{
	int64_t hd[2];
	memcpy(hd, buf, sizeof hd);
	const int8_t *g = (const int8_t *)(buf + sizeof hd);
	double best = 1e30, sum = 0;
	for (int k = 0; k < reps; ++k) {
		gvk_err_t err = {0};
		double t0 = now();
		gvk_ld_opts_t o;
		gvk_ld_opts_init(&o);
		o.threads = threads, o.device = GVK_DEVICE_CPU;
		gvk_ld_t *e = gvk_ld_create(&o, &err);
		if (!e) return die(&err);
		gvk_ld_matrix_t *m = NULL;
		if (gvk_ld_matrix_geno(e, g, hd[0], hd[1], GVK_GENO_SNP_MAJOR, &m, &err) < 0) return die(&err);
		gvk_ld_destroy(e);
		double t = now() - t0;
		if (t < best) best = t;
		sum = 0;
		for (int64_t i = 0; i < m->m; i += 97) sum += m->r[i * m->m + (i * 31) % m->m];
		gvk_ld_matrix_free(m);
	}
	printf("%.6f %.17g\n", best, sum);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: bench_overhead_c pairhmm|ld FILE THREADS REPS\n");
		return 2;
	}
	size_t n;
	char *buf = slurp(argv[2], &n);
	if (!buf) {
		fprintf(stderr, "bench_overhead_c: cannot read %s\n", argv[2]);
		return 1;
	}
	int threads = atoi(argv[3]), reps = atoi(argv[4]);
	int rc = !strcmp(argv[1], "pairhmm") ? bench_pairhmm(buf, threads, reps) : bench_ld(buf, threads, reps);
	free(buf);
	return rc;
}
