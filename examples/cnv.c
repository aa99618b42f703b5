/* SPDX-License-Identifier: MIT */
/* CNV calls (cn.MOPS) through gvk.h, from a count matrix file ('chr start end S1 .. SN', gzip
 * allowed) or, without an argument, from counts made up here: 8 samples x 600 windows of 25 kb,
 * sample S3 with one copy (half the reads) over windows 300-339, handed over as arrays. Prints the
 * CNVs and the CNV regions with each sample's copy number. Usage: cnv [counts.tsv[.gz]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gvk.h>

enum { N = 8, M = 600, WL = 25000 };

static uint64_t rng = 7;
static double uniform(void) /* splitmix64, 53 bits */
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

/* Counts in the program's own arrays (one row per window, as a numpy array would hold them),
 * copied into c by gvk_cnv_counts_from_arrays. */
static int make_counts(gvk_cnv_counts_t *c, gvk_err_t *err)
{
	static int64_t x[M][N], start[M], end[M];
	static const char *seq[M];
	static char name_buf[N][8];
	const char *names[N];
	for (int s = 0; s < N; ++s) snprintf(name_buf[s], sizeof name_buf[s], "S%d", s + 1), names[s] = name_buf[s];
	for (int r = 0; r < M; ++r) {
		seq[r] = "chr1", start[r] = (int64_t)r * WL + 1, end[r] = (int64_t)(r + 1) * WL;
		/* About 100 reads a window (a sum of uniforms: close to normal, sd 10), half where deleted. */
		for (int s = 0; s < N; ++s) {
			double v = 0;
			for (int k = 0; k < 12; ++k) v += uniform();
			v = 100 + 10 * (v - 6);
			if (s == 2 && r >= 300 && r < 340) v /= 2;
			x[r][s] = (int64_t)(v + 0.5);
		}
	}
	gvk_cnv_count_arrays_t a;
	memset(&a, 0, sizeof a);
	a.m = M, a.N = N, a.x_int = &x[0][0], a.layout = GVK_CNV_REGION_MAJOR;
	a.samples = names, a.seq_names = seq, a.start = start, a.end = end;
	return gvk_cnv_counts_from_arrays(&a, c, err);
}

static void print_msg(void *arg, int level, const char *msg)
{
	(void)arg;
	fprintf(stderr, "cnv: %s%s\n", level <= GVK_LOG_WARN ? "warning: " : "", msg);
}

int main(int argc, char **argv)
{
	gvk_cnv_counts_t c = {0};
	gvk_err_t err;
	gvk_set_log(print_msg, NULL, GVK_LOG_WARN); /* before the options are initialised */
	int rc = argc > 1 ? gvk_cnv_counts_read(argv[1], 0, &c, &err) : make_counts(&c, &err);
	if (rc < 0) {
		fprintf(stderr, "cnv: %s (%s)\n", err.msg, gvk_strerror(rc));
		gvk_cnv_counts_free(&c);
		return 1;
	}
	gvk_cnv_opts_t opt;
	gvk_cnv_opts_init(&opt, 0);
	gvk_cnv_result_t *res = NULL;
	gvk_cnv_t *e = gvk_cnv_create(&opt, &err);
	rc = e ? gvk_cnv_run(e, &c, &res, &err) : err.code;
	gvk_cnv_destroy(e);
	if (rc < 0) {
		fprintf(stderr, "cnv: %s (%s)\n", err.msg, gvk_strerror(rc));
		gvk_cnv_counts_free(&c);
		return 1;
	}
	printf("%d windows x %d samples on %s: %zu segments, %zu CNVs, %zu CNV regions\n", c.m, c.N, res->device_name,
	       res->n_segs, res->n_cnvs, res->n_cnvr);
	for (size_t k = 0; k < res->n_cnvs; ++k) {
		const gvk_cnv_seg_t *g = &res->segs[res->cnvs[k]];
		printf("%s\t%s:%lld-%lld\tCN%d\tmedian call %.3g\n", c.samples[g->sample], c.seq_names[g->seq],
		       (long long)c.start[g->first], (long long)c.end[g->last], g->cn, g->median);
	}
	for (size_t k = 0; k < res->n_cnvr; ++k) {
		const gvk_cnv_region_t *g = &res->cnvr[k];
		printf("region %s:%lld-%lld\tCN", c.seq_names[g->seq], (long long)c.start[g->first], (long long)c.end[g->last]);
		for (int s = 0; s < c.N; ++s) printf(" %d", res->cnvr_cn[k * (size_t)c.N + s]);
		printf("\n");
	}
	gvk_cnv_result_free(res);
	gvk_cnv_counts_free(&c);
	return 0;
}
