/* SPDX-License-Identifier: MIT */
/* BAM read-counting throughput: writes synthetic coordinate-sorted, indexed BAMs to a temporary
 * directory, then counts them in 25 kb windows with gvk_cnv_count_bams.
 * Usage: bench_cnv_bam [READS_PER_FILE (2000000)] [FILES (8)] [THREADS ...] */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <htslib/sam.h>

#include "gvk.h"
#include "common/threads.h"

static uint64_t rng(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 17;
}

/* 24 sequences of 10 Mb, 100 bp reads at sorted positions, MAPQ 0..60. */
static int write_bam(const char *path, long reads, uint64_t seed)
{
	samFile *fp = sam_open(path, "wb1");
	sam_hdr_t *h = sam_hdr_init();
	bam1_t *b = bam_init1();
	if (!fp || !h || !b) return -1;
	const int Q = 24;
	const int64_t L = 10000000;
	sam_hdr_add_line(h, "HD", "VN", "1.6", "SO", "coordinate", NULL);
	for (int q = 0; q < Q; ++q) {
		char name[16], len[24];
		snprintf(name, sizeof name, "chr%d", q + 1), snprintf(len, sizeof len, "%lld", (long long)L);
		sam_hdr_add_line(h, "SQ", "SN", name, "LN", len, NULL);
	}
	if (sam_hdr_write(fp, h) < 0) return -1;
	char seq[101], qual[101];
	memset(seq, 'A', 100), memset(qual, 30, 100), seq[100] = qual[100] = 0;
	uint32_t cigar = 100 << BAM_CIGAR_SHIFT | BAM_CMATCH;
	long per = reads / Q;
	for (int q = 0; q < Q; ++q) {
		double step = (double)(L - 100) / (double)per, pos = 0;
		for (long i = 0; i < per; ++i) {
			pos += step * 2 * ((double)(rng(&seed) & 0xffff) / 65536.0);
			if (pos > L - 100) pos = L - 100;
			char qn[24];
			int ql = snprintf(qn, sizeof qn, "r%d_%ld", q, i);
			if (bam_set1(b, (size_t)ql, qn, 0, q, (hts_pos_t)pos, (uint8_t)(rng(&seed) % 61), 1, &cigar, -1, -1, 0, 100,
			             seq, qual, 0) < 0 ||
			    sam_write1(fp, h, b) < 0)
				return -1;
		}
	}
	bam_destroy1(b);
	sam_hdr_destroy(h);
	if (sam_close(fp) < 0) return -1;
	return sam_index_build(path, 0);
}

int main(int argc, char **argv)
{
	long reads = argc > 1 ? atol(argv[1]) : 2000000;
	int files = argc > 2 ? atoi(argv[2]) : 8;
	if (reads < 24 || files < 2) return fprintf(stderr, "usage: bench_cnv_bam [READS_PER_FILE] [FILES >= 2] [THREADS ...]\n"), 1;
	int threads[16], nt = 0;
	for (int a = 3; a < argc && nt < 16; ++a)
		if ((threads[nt] = atoi(argv[a])) > 0) ++nt;
	if (!nt) {
		threads[nt++] = 1;
		if (gvk_ncpu() > 1) threads[nt++] = gvk_ncpu();
	}
	const char *td = getenv("TMPDIR");
	char dir[512];
	snprintf(dir, sizeof dir, "%s/gvk_bench_bam_XXXXXX", td ? td : "/tmp");
	if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
	char **paths = calloc((size_t)files, sizeof *paths);
	double t0 = gvk_seconds();
	for (int f = 0; f < files; ++f) {
		paths[f] = malloc(600);
		snprintf(paths[f], 600, "%s/S%02d.bam", dir, f + 1);
		if (write_bam(paths[f], reads, 1234567ULL + (uint64_t)f) < 0) return fprintf(stderr, "cannot write %s\n", paths[f]), 1;
	}
	long total = reads / 24 * 24 * files;
	printf("%d BAM files x %ld reads written and indexed in %.1f s\n", files, reads / 24 * 24, gvk_seconds() - t0);
	printf("%-8s %10s %14s %10s\n", "threads", "seconds", "reads/s", "windows");
	for (int k = 0; k < nt; ++k) {
		gvk_cnv_bam_opts_t o;
		gvk_cnv_bam_opts_init(&o);
		o.threads = threads[k];
		gvk_cnv_counts_t c;
		gvk_err_t err;
		double t1 = gvk_seconds();
		if (gvk_cnv_count_bams((const char *const *)paths, files, NULL, &o, &c, &err) < 0)
			return fprintf(stderr, "bench_cnv_bam: %s\n", err.msg), 1;
		double dt = gvk_seconds() - t1;
		printf("%-8d %10.3f %14.4g %10d\n", threads[k], dt, total / dt, c.m);
		gvk_cnv_counts_free(&c);
	}
	for (int f = 0; f < files; ++f) {
		char idx[620];
		snprintf(idx, sizeof idx, "%s.bai", paths[f]);
		unlink(paths[f]), unlink(idx), free(paths[f]);
	}
	free(paths);
	rmdir(dir);
	return 0;
}
