/* SPDX-License-Identifier: MIT */
/* CNV calls (cn.MOPS) through gvk.h, from a count matrix file ('chr start end S1 .. SN', gzip
 * allowed) or, without an argument, from counts made up here: 8 samples x 600 windows of 25 kb,
 * sample S3 with one copy (half the reads) over windows 300-339. Usage: cnv [counts.tsv[.gz]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gvk.h>

enum { N = 8, M = 600, WL = 25000 };

static char *copy(const char *s)
{
	char *d = malloc(strlen(s) + 1);
	return d ? strcpy(d, s) : NULL;
}

static uint64_t rng = 7;
static double uniform(void) /* splitmix64, 53 bits */
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

/* The matrix is owned by c and freed by gvk_cnv_counts_free, so everything is malloc'ed. */
static int make_counts(gvk_cnv_counts_t *c)
{
	memset(c, 0, sizeof *c);
	c->m = M, c->N = N, c->n_seqs = 1;
	c->samples = calloc(N, sizeof *c->samples), c->seq_names = calloc(1, sizeof *c->seq_names);
	c->seq_off = malloc(2 * sizeof *c->seq_off);
	c->start = malloc(M * sizeof *c->start), c->end = malloc(M * sizeof *c->end);
	c->x = malloc((size_t)N * M * sizeof *c->x);
	if (!c->samples || !c->seq_names || !c->seq_off || !c->start || !c->end || !c->x) return -1;
	if (!(c->seq_names[0] = copy("chr1"))) return -1;
	c->seq_off[0] = 0, c->seq_off[1] = M;
	for (int r = 0; r < M; ++r) c->start[r] = (int64_t)r * WL + 1, c->end[r] = (int64_t)(r + 1) * WL;
	for (int s = 0; s < N; ++s) {
		char name[8];
		snprintf(name, sizeof name, "S%d", s + 1);
		if (!(c->samples[s] = copy(name))) return -1;
		/* About 100 reads a window (a sum of uniforms: close to normal, sd 10), half where deleted. */
		for (int r = 0; r < M; ++r) {
			double v = 0;
			for (int k = 0; k < 12; ++k) v += uniform();
			v = 100 + 10 * (v - 6);
			if (s == 2 && r >= 300 && r < 340) v /= 2;
			c->x[(size_t)s * M + r] = (double)(int)(v + 0.5);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	gvk_cnv_counts_t c = {0};
	gvk_err_t err;
	int rc;
	if (argc > 1) {
		rc = gvk_cnv_counts_read(argv[1], 0, &c, &err);
	} else if ((rc = make_counts(&c)) < 0) {
		snprintf(err.msg, sizeof err.msg, "out of memory");
		rc = GVK_ERR_NOMEM;
	}
	if (rc < 0) {
		fprintf(stderr, "cnv: %s (%s)\n", err.msg, gvk_strerror(rc));
		gvk_cnv_counts_free(&c);
		return 1;
	}
	gvk_cnv_opt_t opt;
	gvk_cnv_opt_init(&opt, 0);
	gvk_cnv_result_t *res;
	if ((rc = gvk_cnv_run(&c, &opt, &res, &err)) < 0) {
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
	gvk_cnv_result_free(res);
	gvk_cnv_counts_free(&c);
	return 0;
}
