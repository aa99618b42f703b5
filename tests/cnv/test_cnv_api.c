/* SPDX-License-Identifier: MIT */
/* The CNV engine through its public calls (gvk.h): counts from arrays against the same counts read
 * from a file, refusals of bad arguments with a code and a message, the device choice under
 * auto and gpu, options that replace environment variables, the log, and the AUTO policy table.
 * Usage: test_cnv_api COUNTS.tsv.gz */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "cnv/cnv.h"
#include "common/device_policy.h"
#include "cnv_run_once.h"

static int n_checks, n_failed;

static void check(int ok, const char *what)
{
	++n_checks;
	if (!ok) ++n_failed, printf("FAIL: %s\n", what);
}

/* Messages kept for inspection: how many at each level, and the last INFO text. */
typedef struct {
	int at[5];
	char info[512];
} seen_t;

static void keep_log(void *arg, int level, const char *msg)
{
	seen_t *s = arg;
	if (level >= 1 && level <= 4) ++s->at[level];
	if (level == GVK_LOG_INFO) snprintf(s->info, sizeof s->info, "%s", msg);
}

static int same_counts(const gvk_cnv_counts_t *a, const gvk_cnv_counts_t *b)
{
	if (a->m != b->m || a->N != b->N || a->n_seqs != b->n_seqs || a->is_matrix != b->is_matrix) return 0;
	for (int s = 0; s < a->N; ++s)
		if (strcmp(a->samples[s], b->samples[s])) return 0;
	for (int q = 0; q < a->n_seqs; ++q)
		if (strcmp(a->seq_names[q], b->seq_names[q])) return 0;
	size_t m = (size_t)a->m;
	return !memcmp(a->seq_off, b->seq_off, (size_t)(a->n_seqs + 1) * sizeof *a->seq_off) &&
	       !memcmp(a->start, b->start, m * sizeof *a->start) && !memcmp(a->end, b->end, m * sizeof *a->end) &&
	       !memcmp(a->x, b->x, m * (size_t)a->N * sizeof *a->x);
}

static int same_result(const gvk_cnv_result_t *a, const gvk_cnv_result_t *b)
{
	size_t mN = (size_t)a->m * a->N;
	if (a->n_segs != b->n_segs || a->n_cnvs != b->n_cnvs || a->n_cnvr != b->n_cnvr) return 0;
	if (memcmp(a->norm, b->norm, mN * sizeof(double)) || memcmp(a->sini, b->sini, mN * sizeof(double)) ||
	    memcmp(a->call, b->call, mN * sizeof(double)) || memcmp(a->segs, b->segs, a->n_segs * sizeof *a->segs) ||
	    memcmp(a->cnvs, b->cnvs, a->n_cnvs * sizeof *a->cnvs))
		return 0;
	for (size_t k = 0; k < a->n_cnvr; ++k)
		if (a->cnvr[k].seq != b->cnvr[k].seq || a->cnvr[k].first != b->cnvr[k].first ||
		    a->cnvr[k].last != b->cnvr[k].last || memcmp(a->cnvr[k].cn, b->cnvr[k].cn, (size_t)a->N * sizeof(int)))
			return 0;
	return 1;
}

/* The file's counts as a program holds them: per-region names and coordinates, counts one row
 * per region (as double) or one run per sample (as int64). */
typedef struct {
	double *xd;
	int64_t *xi;
	const char **seq;
	const char **samples;
} arrays_t;

static int arrays_of(const gvk_cnv_counts_t *c, arrays_t *a)
{
	size_t m = (size_t)c->m, N = (size_t)c->N;
	a->xd = malloc(m * N * sizeof *a->xd), a->xi = malloc(m * N * sizeof *a->xi);
	a->seq = malloc(m * sizeof *a->seq), a->samples = malloc(N * sizeof *a->samples);
	if (!a->xd || !a->xi || !a->seq || !a->samples) return -1;
	for (int q = 0; q < c->n_seqs; ++q)
		for (int r = c->seq_off[q]; r < c->seq_off[q + 1]; ++r) a->seq[r] = c->seq_names[q];
	for (size_t s = 0; s < N; ++s) {
		a->samples[s] = c->samples[s];
		for (size_t r = 0; r < m; ++r) a->xd[r * N + s] = c->x[s * m + r], a->xi[s * m + r] = (int64_t)c->x[s * m + r];
	}
	return 0;
}

static void arrays_free(arrays_t *a)
{
	free(a->xd), free(a->xi), free(a->seq), free(a->samples);
}

static void test_from_arrays(const char *path)
{
	gvk_err_t err = {0, ""};
	gvk_cnv_counts_t file, mem, mem2, plain_file, plain_mem;
	if (gvk_cnv_counts_read(path, 0, &file, &err) < 0) {
		printf("FAIL: %s\n", err.msg);
		++n_failed;
		return;
	}
	arrays_t a;
	check(arrays_of(&file, &a) == 0, "allocation");
	gvk_cnv_count_arrays_t in;
	memset(&in, 0, sizeof in);
	in.m = file.m, in.N = file.N, in.x = a.xd, in.layout = GVK_CNV_REGION_MAJOR;
	in.samples = a.samples, in.seq_names = a.seq, in.start = file.start, in.end = file.end;
	check(gvk_cnv_counts_from_arrays(&in, &mem, &err) == 0, "from arrays (double, region-major)");
	check(same_counts(&file, &mem), "double region-major arrays give the file's counts");
	in.x = NULL, in.x_int = a.xi, in.layout = GVK_CNV_SAMPLE_MAJOR;
	check(gvk_cnv_counts_from_arrays(&in, &mem2, &err) == 0, "from arrays (int64, sample-major)");
	check(same_counts(&file, &mem2), "int64 sample-major arrays give the file's counts");

	/* the whole pipeline on both (exome defaults, posterior kept) */
	gvk_cnv_opts_t o;
	gvk_cnv_opts_init(&o, 1);
	o.device = GVK_DEVICE_CPU, o.threads = 2, o.keep_posterior = 1;
	gvk_cnv_result_t *rf, *rm;
	check(run_once(&file, &o, &rf, &err) == 0, "run on the file's counts");
	check(run_once(&mem, &o, &rm, &err) == 0, "run on the arrays' counts");
	if (rf && rm) {
		check(same_result(rf, rm), "same result from the file and from the arrays");
		check(rf->n_cnvs > 0 && rf->n_cnvr > 0, "the small data has CNVs");
		int flat_ok = 1;
		for (size_t k = 0; k < rf->n_cnvr; ++k)
			if (rf->cnvr[k].cn != rf->cnvr_cn + k * (size_t)rf->N) flat_ok = 0;
		check(flat_ok, "cnvr[k].cn is row k of cnvr_cn");
		int listed = 1;
		for (size_t k = 0; k < rf->n_cnvs; ++k)
			if (!rf->segs[rf->cnvs[k]].is_cnv) listed = 0;
		check(listed, "cnvs lists segments marked is_cnv");
		check(!strcmp(rf->device_name, "cpu"), "device cpu runs on the CPU");
	}
	gvk_cnv_result_free(rm);

	/* force_redo (GVK_CNV_FORCE_REDO in the CLI): the near-tie path runs, says so at INFO, changes nothing */
	seen_t seen;
	memset(&seen, 0, sizeof seen);
	o.log = (gvk_log_t){keep_log, &seen, GVK_LOG_DEBUG};
	gvk_cnv_result_t *rr = NULL;
	gvk_cnv_t *er = gvk_cnv_create(&o, &err);
	if (er) cnv_set_testing(er, 0, 1);
	check(er && gvk_cnv_run(er, &mem, &rr, &err) == 0, "run with force_redo");
	gvk_cnv_destroy(er);
	check(strstr(seen.info, "EM was recomputed on the CPU") != NULL, "force_redo reports the redo at INFO");
	check(seen.at[GVK_LOG_WARN] == 0 && seen.at[GVK_LOG_ERROR] == 0, "no warnings on the CPU");
	if (rf && rr) check(same_result(rf, rr), "the redo path changes nothing");
	gvk_cnv_result_free(rr), gvk_cnv_result_free(rf);

	/* no coordinates: a plain matrix, as the file read with as_matrix */
	check(gvk_cnv_counts_read(path, 1, &plain_file, &err) == 0, "read as a matrix");
	in.seq_names = NULL, in.start = NULL, in.end = NULL;
	check(gvk_cnv_counts_from_arrays(&in, &plain_mem, &err) == 0, "from arrays without coordinates");
	check(same_counts(&plain_file, &plain_mem) && plain_mem.is_matrix, "arrays without coordinates are a plain matrix");
	/* no sample names: S1 .. SN */
	gvk_cnv_counts_t unnamed;
	in.samples = NULL;
	check(gvk_cnv_counts_from_arrays(&in, &unnamed, &err) == 0 && unnamed.N == 10 && !strcmp(unnamed.samples[0], "S1") &&
	          !strcmp(unnamed.samples[9], "S10"),
	      "default sample names S1 .. SN");
	gvk_cnv_counts_free(&unnamed);
	gvk_cnv_counts_free(&plain_file), gvk_cnv_counts_free(&plain_mem);
	gvk_cnv_counts_free(&mem), gvk_cnv_counts_free(&mem2), gvk_cnv_counts_free(&file);
	arrays_free(&a);
}

/* One bad input: GVK_ERR_ARG, a message containing `msg`, the counts left zeroed. */
static void refused(const gvk_cnv_count_arrays_t *in, const char *msg, const char *what)
{
	gvk_err_t err = {0, ""};
	gvk_cnv_counts_t c;
	memset(&c, 0x5a, sizeof c);
	int rc = gvk_cnv_counts_from_arrays(in, &c, &err);
	int ok = rc == GVK_ERR_ARG && err.code == GVK_ERR_ARG && strstr(err.msg, msg) && c.x == NULL && c.m == 0;
	if (!ok) printf("  %s: rc %d, message '%s'\n", what, rc, err.msg);
	check(ok, what);
	if (rc == 0) gvk_cnv_counts_free(&c);
}

static void test_bad_arrays(void)
{
	enum { M = 4, N = 3 };
	double x[M * N];
	int64_t xi[M * N], st[M] = {1, 101, 201, 1}, en[M] = {100, 200, 300, 100};
	const char *seq[M] = {"chr1", "chr1", "chr1", "chr2"}, *names[N] = {"A", "B", "C"};
	for (int k = 0; k < M * N; ++k) x[k] = 10 + k, xi[k] = 10 + k;
	gvk_cnv_count_arrays_t good = {M, N, x, NULL, GVK_CNV_REGION_MAJOR, names, seq, st, en}, b;
	gvk_cnv_counts_t c;
	gvk_err_t err = {0, ""};
	check(gvk_cnv_counts_from_arrays(&good, &c, &err) == 0 && c.n_seqs == 2 && c.seq_off[1] == 3 && c.x[1 * M + 0] == 11,
	      "a small good input");
	gvk_cnv_counts_free(&c);
	refused(NULL, "no count arrays", "NULL arrays");
	b = good, b.m = 0, refused(&b, "no regions", "m = 0");
	b = good, b.N = 1, refused(&b, "at least two samples", "N = 1");
	b = good, b.x = NULL, refused(&b, "exactly one of", "no counts");
	b = good, b.x_int = xi, refused(&b, "exactly one of", "double and int64 counts");
	b = good, b.layout = 7, refused(&b, "layout", "unknown layout");
	double xb[M * N];
	memcpy(xb, x, sizeof x), xb[5] = -1, b = good, b.x = xb, refused(&b, "finite and non-negative", "negative count");
	memcpy(xb, x, sizeof x), xb[7] = NAN, b = good, b.x = xb, refused(&b, "finite and non-negative", "NaN count");
	memcpy(xb, x, sizeof x), xb[0] = INFINITY, b = good, b.x = xb, refused(&b, "finite and non-negative", "infinite count");
	int64_t xib[M * N];
	memcpy(xib, xi, sizeof xi), xib[2] = -3, b = good, b.x = NULL, b.x_int = xib, refused(&b, "0 .. 2^53", "negative int64");
	memcpy(xib, xi, sizeof xi), xib[2] = ((int64_t)1 << 53) + 1, b = good, b.x = NULL, b.x_int = xib,
	                             refused(&b, "0 .. 2^53", "int64 above 2^53");
	const char *bad_names[N] = {"A", "", "C"};
	b = good, b.samples = bad_names, refused(&b, "sample 2 has no name", "empty sample name");
	b = good, b.start = NULL, refused(&b, "together", "names without starts");
	b = good, b.seq_names = NULL, refused(&b, "together", "coordinates without names");
	int64_t en_bad[M] = {100, 50, 300, 100};
	b = good, b.end = en_bad, refused(&b, "0 <= start <= end", "end before start");
	const char *seq_split[M] = {"chr1", "chr2", "chr1", "chr2"};
	b = good, b.seq_names = seq_split, refused(&b, "not consecutive", "a sequence's regions apart");
	const char *seq_null[M] = {"chr1", NULL, "chr1", "chr2"};
	b = good, b.seq_names = seq_null, refused(&b, "no sequence name", "a region without a sequence");
	check(gvk_cnv_counts_from_arrays(&good, NULL, &err) == GVK_ERR_ARG, "NULL counts struct");
}

static void test_engine(const char *path)
{
	gvk_err_t err = {0, ""};
	gvk_cnv_opts_t o;
	gvk_cnv_opts_init(&o, 0);
	/* bad options: no engine, GVK_ERR_ARG and a message */
	check(gvk_cnv_create(NULL, &err) == NULL && err.code == GVK_ERR_ARG, "NULL options");
	gvk_cnv_opts_t b = o;
	b.cyc = 0, err.msg[0] = 0;
	check(gvk_cnv_create(&b, &err) == NULL && err.code == GVK_ERR_ARG && err.msg[0], "cyc 0 refused");
	b = o, b.device = 7, err.msg[0] = 0;
	check(gvk_cnv_create(&b, &err) == NULL && err.code == GVK_ERR_ARG && strstr(err.msg, "device"), "unknown device refused");
	b = o, b.gpu_min_work = -1, err.msg[0] = 0;
	check(gvk_cnv_create(&b, &err) == NULL && err.code == GVK_ERR_ARG && strstr(err.msg, "gpu_min_work"),
	      "negative gpu_min_work refused");
	b = o, b.gpu_min_work = NAN;
	check(gvk_cnv_create(&b, &err) == NULL && err.code == GVK_ERR_ARG, "NaN gpu_min_work refused");
	b = o, b.n_classes = 1;
	check(gvk_cnv_create(&b, &err) == NULL && err.code == GVK_ERR_ARG, "one class refused");

	gvk_cnv_counts_t c;
	if (gvk_cnv_counts_read(path, 0, &c, &err) < 0) {
		printf("FAIL: %s\n", err.msg);
		++n_failed;
		return;
	}
	/* device gpu: the GPU or an error at create */
	b = o, b.device = GVK_DEVICE_GPU, err.msg[0] = 0, err.code = 0;
	gvk_cnv_t *e = gvk_cnv_create(&b, &err);
	if (!e) {
		int want = gvk_cnv_have_gpu() ? GVK_ERR_GPU : GVK_ERR_UNSUPPORTED;
		check(err.code == want && (!strncmp(err.msg, "no GPU (", 8) || strstr(err.msg, "GPU (cnv): ") || strstr(err.msg, "built without GPU support")),
		      "device gpu without a GPU: GVK_ERR_GPU (or UNSUPPORTED) with a message");
		printf("device gpu refused: %s (%s)\n", err.msg, gvk_strerror(err.code));
	} else {
		gvk_cnv_result_t *r = NULL;
		check(gvk_cnv_run(e, &c, &r, &err) == 0 && r && !strcmp(r->device_name, "gpu"), "device gpu runs on the GPU");
		gvk_cnv_result_free(r);
		gvk_cnv_destroy(e);
	}
	/* auto: below the policy's size the CPU, silently; with the threshold lowered to 1 the GPU when
	 * there is one, else the CPU, still without a warning */
	seen_t seen;
	memset(&seen, 0, sizeof seen);
	b = o, b.log = (gvk_log_t){keep_log, &seen, GVK_LOG_DEBUG};
	gvk_cnv_result_t *r = NULL;
	check(run_once(&c, &b, &r, &err) == 0 && r && !strcmp(r->device_name, "cpu"),
	      "auto: 2000 x 10 counts (under 1e6) run on the CPU");
	gvk_cnv_result_free(r);
	b.gpu_min_work = 1;
	check(run_once(&c, &b, &r, &err) == 0 && r, "auto with gpu_min_work 1 runs");
	if (r) {
		gvk_cnv_t *probe = NULL;
		gvk_cnv_opts_t g = o;
		g.device = GVK_DEVICE_GPU;
		gvk_err_t perr;
		int have = (probe = gvk_cnv_create(&g, &perr)) != NULL;
		gvk_cnv_destroy(probe);
		check(!strcmp(r->device_name, have ? "gpu" : "cpu"), "auto with gpu_min_work 1: the GPU exactly when usable");
	}
	gvk_cnv_result_free(r);
	check(seen.at[GVK_LOG_WARN] == 0 && seen.at[GVK_LOG_ERROR] == 0, "auto is silent (no warning) without a GPU");
	/* run's own refusals */
	e = gvk_cnv_create(&o, &err);
	check(e != NULL, "default engine");
	r = (gvk_cnv_result_t *)&err; /* must be reset to NULL */
	check(gvk_cnv_run(e, NULL, &r, &err) == GVK_ERR_ARG && r == NULL, "NULL counts refused");
	check(gvk_cnv_run(NULL, &c, &r, &err) == GVK_ERR_ARG, "NULL engine refused");
	check(gvk_cnv_run(e, &c, NULL, &err) == GVK_ERR_ARG, "NULL result pointer refused");
	c.N = 1;
	check(gvk_cnv_run(e, &c, &r, &err) == GVK_ERR_ARG && strstr(err.msg, "two samples"), "one sample refused");
	c.N = 10;
	double keep = c.x[5];
	c.x[5] = -1;
	check(gvk_cnv_run(e, &c, &r, &err) == GVK_ERR_FORMAT && r == NULL, "negative count refused by run");
	c.x[5] = keep;
	/* one engine, several runs: the same result */
	gvk_cnv_result_t *r1 = NULL, *r2 = NULL;
	check(gvk_cnv_run(e, &c, &r1, &err) == 0 && gvk_cnv_run(e, &c, &r2, &err) == 0 && same_result(r1, r2),
	      "an engine runs again with the same result");
	gvk_cnv_result_free(r1), gvk_cnv_result_free(r2);
	gvk_cnv_destroy(e);
	gvk_cnv_destroy(NULL);
	gvk_cnv_result_free(NULL);
	gvk_cnv_counts_free(&c);
}

/* Counts whose model would exceed any machine's memory: refused from their shape alone, before
 * any count is read or any array allocated (the counts here are one row). */
static void test_memory(void)
{
	enum { N = 1000 };
	static char name[N][16];
	static char *samples[N];
	for (int s = 0; s < N; ++s) snprintf(name[s], sizeof name[s], "s%d", s), samples[s] = name[s];
	double x[1] = {0};
	int off[2] = {0, 2147483647};
	char *seq = "chr1";
	gvk_cnv_counts_t c = {0};
	c.m = 2147483647, c.N = N, c.n_seqs = 1, c.x = x, c.samples = samples, c.seq_names = &seq, c.seq_off = off;
	gvk_cnv_opts_t o;
	gvk_cnv_opts_init(&o, 0);
	gvk_err_t err = {0, ""};
	gvk_cnv_t *e = gvk_cnv_create(&o, &err);
	gvk_cnv_result_t *r = NULL;
	int rc = e ? gvk_cnv_run(e, &c, &r, &err) : -1;
	check(rc == GVK_ERR_NOMEM && !r && strstr(err.msg, "2147483647 regions x 1000 samples needs about") &&
	          strstr(err.msg, "GiB of memory here"),
	      "a model larger than memory is refused before it is allocated");
	gvk_cnv_destroy(e);
}

static void test_policy(void)
{
	check(gvk_policy_min_work(GVK_ENGINE_PAIRHMM, 0) == 2e9, "pairhmm: 2e9 cells");
	check(gvk_policy_min_work(GVK_ENGINE_ALIGN, 0) == 2e7, "align: 2e7 cells");
	check(gvk_policy_min_work(GVK_ENGINE_CNV, 0) == 1e6, "cnv: 1e6 counts");
	check(gvk_policy_auto_gpu(GVK_ENGINE_LD, 0, 0) && gvk_policy_auto_gpu(GVK_ENGINE_FASTID, 1, 0), "ld, fastid: any size");
	check(!gvk_policy_auto_gpu(GVK_ENGINE_ALIGN, 2e7 - 1, 0) && gvk_policy_auto_gpu(GVK_ENGINE_ALIGN, 2e7, 0),
	      "align: the GPU from 2e7 on");
	check(!gvk_policy_auto_gpu(GVK_ENGINE_CNV, 999999, 0) && gvk_policy_auto_gpu(GVK_ENGINE_CNV, 1e6, 0), "cnv: from 1e6 on");
	check(gvk_policy_auto_gpu(GVK_ENGINE_PAIRHMM, 10, 5) && !gvk_policy_auto_gpu(GVK_ENGINE_PAIRHMM, 4, 5),
	      "an override replaces the rule");
	check(gvk_policy_auto_gpu(GVK_ENGINE_CNV, 5, -1) == 0, "a negative override is the rule");
	check(!gvk_policy_auto_gpu(GVK_ENGINE_COUNT, 1e30, 0) && !gvk_policy_auto_gpu(-1, 1e30, 1) &&
	          gvk_policy_rule(GVK_ENGINE_COUNT) == NULL,
	      "an unknown engine never takes the GPU");
	check(!gvk_policy_auto_gpu(GVK_ENGINE_CNV, NAN, 0), "NaN work stays on the CPU");
	for (int k = 0; k < GVK_ENGINE_COUNT; ++k)
		check(gvk_policy_rule(k) && gvk_policy_rule(k)->engine && gvk_policy_rule(k)->unit, "every engine has a rule");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_cnv_api COUNTS.tsv.gz\n");
		return 2;
	}
	test_policy();
	test_memory();
	test_bad_arrays();
	test_from_arrays(argv[1]);
	test_engine(argv[1]);
	printf("cnv api: %d checks, %d failed\n", n_checks, n_failed);
	return n_failed ? 1 : 0;
}
