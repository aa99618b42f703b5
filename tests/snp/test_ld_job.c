/* SPDX-License-Identifier: MIT */
/* The LD job calls of gvk.h (gvk_ld_job_*) against gvk ld, built on the public header alone:
 *   - an --r2 table, --indep-pairwise and --clump run through the job give gvk ld's files (the
 *     log included, the job echoing the same command line) byte for byte;
 *   - the summary's counts agree with the files and with what the inputs promise;
 *   - --ld-window-kb's default reaches exactly 1,000,000 bp, no further;
 *   - every file goes through the caller's open hook, and a hook that fails fails the run with
 *     its message and no file left;
 *   - a bad option is refused naming its field, and --device gpu without a GPU before any input.
 * Usage: test_ld_job GVK DATA TMPDIR */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gvk.h"

#include "snp_test_util.h"

enum { MAX_OPENED = 8 };

/* What the recording hook saw: the paths it opened, the streams it owes a close. */
typedef struct {
	int n, fail_at; /* fail_at: the open (from 0) that fails; -1 none */
	char path[MAX_OPENED][1024];
	FILE *fp[MAX_OPENED];
} opened_t;

#define HOOK_MSG "the hook refuses"

/* A hook's failure, as the library reports one. */
static FILE *refuse(gvk_err_t *err, const char *what, const char *p)
{
	err->code = GVK_ERR_IO;
	snprintf(err->msg, sizeof err->msg, "%s %s", what, p);
	return NULL;
}

static FILE *hook_open(void *arg, const char *p, gvk_err_t *err)
{
	opened_t *o = arg;
	if (o->n == MAX_OPENED) return refuse(err, "too many opens:", p);
	if (o->n == o->fail_at) return refuse(err, HOOK_MSG, p);
	snprintf(o->path[o->n], sizeof o->path[o->n], "%s", p);
	FILE *fp = fopen(p, "wb");
	if (!fp) return refuse(err, "cannot create", p);
	return o->fp[o->n++] = fp;
}

static void opened_close(opened_t *o)
{
	for (int k = 0; k < o->n; ++k) fclose(o->fp[k]);
}

/* 1 when the hook opened name. */
static int was_opened(const opened_t *o, const char *name)
{
	for (int k = 0; k < o->n; ++k)
		if (!strcmp(o->path[k], name)) return 1;
	return 0;
}

/* The lines of a file that are not blank; -1 when it cannot be read. */
static long lines(const char *p)
{
	FILE *fp = fopen(p, "r");
	if (!fp) return -1;
	char buf[8192];
	long n = 0;
	while (fgets(buf, sizeof buf, fp))
		if (buf[0] != '\n' && buf[0] != '\r') ++n;
	fclose(fp);
	return n;
}

static int exists(const char *p) { return access(p, F_OK) == 0; }

/* gvk ld with args (argv[0] "ld") in TMP/cli, its files compared with the job's in TMP/api (the
 * working directory, so that the paths the logs name are the same). */
static void same_as_cli(const char *const *args, int argc, const char *const *names)
{
	char cmd[8192], a[1024], b[1024];
	int len = snprintf(cmd, sizeof cmd, "cd '%s/cli' && '%s'", tmp_dir, gvk_bin);
	for (int i = 0; i < argc && len < (int)sizeof cmd; ++i) len += snprintf(cmd + len, sizeof cmd - len, " '%s'", args[i]);
	if (len < (int)sizeof cmd) snprintf(cmd + len, sizeof cmd - len, " > /dev/null 2>&1");
	CHECK(run(cmd) == 0, "%s: gvk ld failed\n", args[argc - 1]);
	for (int k = 0; names[k]; ++k) {
		path(a, sizeof a, "%s/cli/%s", tmp_dir, names[k]);
		path(b, sizeof b, "%s/api/%s", tmp_dir, names[k]);
		path(cmd, sizeof cmd, "cmp -s '%s' '%s'", a, b);
		CHECK(exists(b) && run(cmd) == 0, "%s: differs from gvk ld's\n", b);
	}
}

/* o for --bfile bfile --out prefix, quiet, echoing args in the log. */
static void job_opts(gvk_ld_job_opts_t *o, const char *bfile, const char *prefix, const char *const *args, int argc)
{
	gvk_ld_job_opts_init(o);
	o->bfile = bfile, o->out_prefix = prefix, o->out_set = 1;
	o->threads = 2, o->device = GVK_DEVICE_CPU;
	o->argc = argc, o->argv = (char *const *)args;
	o->log = (gvk_log_t){NULL, NULL, 0};
}

/* The job o through the recording hook: its status, with err and sum as it left them. */
static int run_job(const gvk_ld_job_opts_t *o, opened_t *op, gvk_ld_job_summary_t *sum, gvk_err_t *err)
{
	gvk_ld_job_t *j = gvk_ld_job_create(o, err);
	CHECK(j, "create: %s\n", err->msg);
	if (!j) return err->code;
	gvk_files_t files = {op, hook_open, NULL, NULL};
	int rc = gvk_ld_job_run(j, &files, sum, err);
	opened_close(op);
	gvk_ld_job_destroy(j);
	return rc;
}

/* The windowed pairs of an --r2 table of the .bim at bim with PLINK's defaults (10 SNPs,
 * 1000 kb, one chromosome at a time). */
static long window_pairs(const char *bim)
{
	FILE *fp = fopen(bim, "r");
	if (!fp) return -1;
	char chr[4096][32], buf[1024];
	long bp[4096], n = 0, pairs = 0;
	while (n < 4096 && fgets(buf, sizeof buf, fp) && sscanf(buf, "%31s %*s %*s %ld", chr[n], &bp[n]) == 2) ++n;
	fclose(fp);
	for (long i = 0; i < n; ++i)
		for (long k = i + 1; k < n && k < i + 10 && !strcmp(chr[k], chr[i]) && bp[k] <= bp[i] + 1000000; ++k) ++pairs;
	return pairs;
}

static void r2_table(const char *bfile)
{
	const char *prefix = "r2";
	char bim[1024];
	path(bim, sizeof bim, "%s.bim", bfile);
	const char *args[] = {"ld", "--bfile", bfile, "--r2", "--ld-window-r2", "0", "--out", "r2"};
	gvk_ld_job_opts_t o;
	job_opts(&o, bfile, prefix, args, 8);
	o.stat_set = 1, o.r2 = 1, o.window_r2 = 0, o.window_r2_set = 1;
	opened_t op = {.fail_at = -1};
	gvk_ld_job_summary_t sum;
	gvk_err_t err = {0, ""};
	CHECK(run_job(&o, &op, &sum, &err) == 0, "r2: %s\n", err.msg);
	same_as_cli(args, 8, (const char *const[]){"r2.ld", "r2.log", NULL});
	CHECK(op.n == 2 && was_opened(&op, "r2.ld") && was_opened(&op, "r2.log"), "r2: the hook opened %d files\n", op.n);
	long pairs = window_pairs(bim);
	CHECK(sum.n_snps == 800 && sum.n_samples == 203 && !sum.phased, "r2: %lld SNPs x %lld samples\n",
	      (long long)sum.n_snps, (long long)sum.n_samples);
	CHECK(pairs == 7155 && sum.pairs == (uint64_t)pairs, "r2: %llu pairs, %ld in the windows\n",
	      (unsigned long long)sum.pairs, pairs);
	CHECK(sum.written == sum.pairs && lines(op.path[0]) == (long)sum.written + 1, "r2: %llu written, %ld lines\n",
	      (unsigned long long)sum.written, lines(op.path[0]));
	CHECK(sum.writes == 1 && !sum.no_table && !strcmp(sum.out, op.path[0]), "r2: writes %d, out %s\n", sum.writes, sum.out);
}

static void prune(const char *bfile)
{
	const char *prefix = "pr";
	const char *args[] = {"ld", "--bfile", bfile, "--indep-pairwise", "20", "5", "0.02", "--out", "pr"};
	gvk_ld_job_opts_t o;
	job_opts(&o, bfile, prefix, args, 9);
	o.prune_set = 1, o.prune.window = 20, o.prune.step = 5, o.prune.r2 = 0.02;
	opened_t op = {.fail_at = -1};
	gvk_ld_job_summary_t sum;
	gvk_err_t err = {0, ""};
	CHECK(run_job(&o, &op, &sum, &err) == 0, "prune: %s\n", err.msg);
	same_as_cli(args, 9, (const char *const[]){"pr.prune.in", "pr.prune.out", "pr.log", NULL});
	CHECK(op.n == 3 && was_opened(&op, "pr.prune.in") && was_opened(&op, "pr.prune.out") && was_opened(&op, "pr.log"),
	      "prune: the hook opened %d files\n", op.n);
	CHECK(!strcmp(sum.out, "pr.prune.in") && !sum.no_table, "prune: the summary names %s\n", sum.out);
	long n_in = lines("pr.prune.in"), n_out = lines("pr.prune.out");
	CHECK(sum.n_snps == 800 && sum.n_samples == 203, "prune: %lld SNPs x %lld samples\n", (long long)sum.n_snps,
	      (long long)sum.n_samples);
	CHECK(n_out > 0 && sum.n_pruned == n_out && n_in + n_out == 800, "prune: %lld pruned, %ld in, %ld out\n",
	      (long long)sum.n_pruned, n_in, n_out);
}

/* An association report of the fileset's SNPs: every 50th with p below --clump-p1, the rest
 * above --clump-p2. The number of index SNPs; -1 when it cannot be written. */
static int write_assoc(const char *bim, const char *assoc)
{
	FILE *in = fopen(bim, "r"), *out = fopen(assoc, "w");
	int n = 0, idx = 0;
	char buf[1024], snp[256];
	if (in && out) {
		fprintf(out, " CHR SNP BP P\n");
		for (; fgets(buf, sizeof buf, in) && sscanf(buf, "%*s %255s", snp) == 1; ++n) {
			double p = n % 50 == 0 ? 1e-6 * (1 + n % 7) : 0.02 + (n % 97) / 100.0;
			idx += n % 50 == 0;
			fprintf(out, "1 %s %d %g\n", snp, n, p);
		}
	}
	if (in) fclose(in);
	if (out && fclose(out) != 0) n = 0;
	return n ? idx : -1;
}

static void clump(const char *bfile)
{
	const char *prefix = "cl";
	char bim[1024], assoc[1024];
	path(bim, sizeof bim, "%s.bim", bfile);
	path(assoc, sizeof assoc, "%s/cl.assoc", tmp_dir);
	int idx = write_assoc(bim, assoc);
	CHECK(idx == 16, "clump: cannot write %s\n", assoc);
	const char *args[] = {"ld", "--bfile", bfile, "--clump", assoc, "--out", "cl"};
	const char *files[] = {assoc};
	gvk_ld_job_opts_t o;
	job_opts(&o, bfile, prefix, args, 7);
	o.clump_set = 1, o.clump_files = files, o.n_clump_files = 1;
	opened_t op = {.fail_at = -1};
	gvk_ld_job_summary_t sum;
	gvk_err_t err = {0, ""};
	CHECK(run_job(&o, &op, &sum, &err) == 0, "clump: %s\n", err.msg);
	same_as_cli(args, 7, (const char *const[]){"cl.clumped", "cl.log", NULL});
	CHECK(op.n == 2 && was_opened(&op, "cl.clumped") && was_opened(&op, "cl.log"), "clump: the hook opened %d files\n",
	      op.n);
	CHECK(!strcmp(sum.out, "cl.clumped") && !sum.no_table, "clump: the summary names %s\n", sum.out);
	/* random genotypes: no index SNP reaches another's r^2 of 0.5 */
	CHECK(sum.n_clumps == idx && lines("cl.clumped") == idx + 1, "clump: %lld clumps, %ld lines, %d index SNPs\n",
	      (long long)sum.n_clumps, lines("cl.clumped"), idx);
}

/* Three copies of one SNP at bp 1000, 1001000 and 1001001: with --ld-window-kb's default, the
 * first pairs with the second (1,000,000 bp on) but not with the third. */
static void window_default(void)
{
	static const unsigned char bed[] = {0x6c, 0x1b, 0x01, 0x38, 0xce, 0x38, 0xce, 0x38, 0xce};
	char prefix[1024], p[1100];
	path(prefix, sizeof prefix, "%s/api/win", tmp_dir);
	path(p, sizeof p, "%s.bed", prefix);
	FILE *fb = fopen(p, "wb");
	path(p, sizeof p, "%s.bim", prefix);
	FILE *fm = fopen(p, "w");
	path(p, sizeof p, "%s.fam", prefix);
	FILE *ff = fopen(p, "w");
	if (fb) fwrite(bed, 1, sizeof bed, fb);
	if (fm) fprintf(fm, "1 a 0 1000 A C\n1 b 0 1001000 A C\n1 c 0 1001001 A C\n");
	for (int s = 0; ff && s < 8; ++s) fprintf(ff, "s%d s%d 0 0 1 1\n", s, s);
	int ok = fb && fm && ff;
	if (fb) ok &= fclose(fb) == 0;
	if (fm) ok &= fclose(fm) == 0;
	if (ff) ok &= fclose(ff) == 0;
	CHECK(ok, "window: cannot write %s\n", prefix);
	gvk_ld_job_opts_t o;
	job_opts(&o, prefix, prefix, NULL, 0);
	CHECK(o.window_kb == 1000, "window: window_kb defaults to %g\n", o.window_kb);
	o.stat_set = 1, o.r2 = 1, o.window_r2 = 0;
	gvk_ld_job_summary_t sum;
	gvk_err_t err = {0, ""};
	gvk_ld_job_t *j = gvk_ld_job_create(&o, &err);
	int rc = j ? gvk_ld_job_run(j, NULL, &sum, &err) : err.code;
	gvk_ld_job_destroy(j);
	CHECK(rc == 0, "window: %s\n", err.msg);
	CHECK(sum.pairs == 2 && sum.written == 2, "window: %llu pairs, %llu written (want a-b and b-c)\n",
	      (unsigned long long)sum.pairs, (unsigned long long)sum.written);
}

/* An open that fails: the run fails with the hook's message, and no output is left. */
static void hook_fails(const char *bfile, int fail_at)
{
	char prefix[1024], ld[1100], log[1100];
	path(prefix, sizeof prefix, "%s/api/bad%d", tmp_dir, fail_at);
	path(ld, sizeof ld, "%s.ld", prefix);
	path(log, sizeof log, "%s.log", prefix);
	gvk_ld_job_opts_t o;
	job_opts(&o, bfile, prefix, NULL, 0);
	o.stat_set = 1, o.r2 = 1;
	opened_t op = {.fail_at = fail_at};
	gvk_ld_job_summary_t sum;
	gvk_err_t err = {0, ""};
	int rc = run_job(&o, &op, &sum, &err);
	CHECK(rc == GVK_ERR_IO && err.code == GVK_ERR_IO && strstr(err.msg, HOOK_MSG), "hook fails at %d: rc %d, '%s'\n",
	      fail_at, rc, err.msg);
	/* the job made no file itself: the table is there only when the hook made it, and what the
	 * hook made is the caller's to remove, as gvk ld's output set does */
	CHECK(op.n == fail_at && exists(ld) == (op.n > 0) && !exists(log), "hook fails at %d: %d opened, a file is left\n",
	      fail_at, op.n);
	for (int k = 0; k < op.n; ++k) remove(op.path[k]);
}

static void refusals(const char *bfile)
{
	gvk_ld_job_opts_t o;
	gvk_err_t err = {0, ""};
	job_opts(&o, bfile, "x", NULL, 0);
	o.stat_set = 1, o.r2 = 1, o.window_snps = 1;
	CHECK(gvk_ld_job_opts_check(&o, &err) == GVK_ERR_ARG && strstr(err.msg, "window_snps"), "window_snps 1: '%s'\n",
	      err.msg);
	err = (gvk_err_t){0, ""};
	CHECK(!gvk_ld_job_create(&o, &err) && err.code == GVK_ERR_ARG, "create with window_snps 1: code %d\n", err.code);
	job_opts(&o, bfile, "x", NULL, 0);
	o.stat_set = 1, o.r2 = 1, o.device = GVK_DEVICE_GPU;
	err = (gvk_err_t){0, ""};
	gvk_ld_job_t *j = gvk_ld_job_create(&o, &err);
	if (j) {
		printf("GPU present: the no-GPU refusal is not tested here\n");
		gvk_ld_job_destroy(j);
		return;
	}
	/* GVK_ERR_GPU in a CUDA build on a machine without one; GVK_ERR_UNSUPPORTED built without */
	CHECK(err.code == GVK_ERR_GPU || err.code == GVK_ERR_UNSUPPORTED, "device gpu: code %d, '%s'\n", err.code, err.msg);
	CHECK(strstr(err.msg, "GPU") != NULL, "device gpu: message '%s'\n", err.msg);
}

int main(int argc, char **argv)
{
	if (argc != 4) return fprintf(stderr, "usage: test_ld_job GVK DATA TMPDIR\n"), 2;
	/* the job runs in TMP/api, so the paths given are made absolute first */
	static char abs[3][4096];
	for (int k = 0; k < 3; ++k)
		if (!realpath(argv[k + 1], abs[k])) return fprintf(stderr, "%s: not found\n", argv[k + 1]), 1;
	gvk_bin = abs[0], data_dir = abs[1], tmp_dir = abs[2];
	char bfile[1024], cmd[4200];
	path(bfile, sizeof bfile, "%s/ld_dummy/dummy203x800", data_dir);
	path(cmd, sizeof cmd, "rm -rf '%s/cli' '%s/api' && mkdir -p '%s/cli' '%s/api'", tmp_dir, tmp_dir, tmp_dir, tmp_dir);
	path(cmd + 2048, 2048, "%s/api", tmp_dir);
	if (run(cmd) != 0 || chdir(cmd + 2048) != 0) return fprintf(stderr, "cannot make %s/cli and /api\n", tmp_dir), 1;
	r2_table(bfile);
	prune(bfile);
	clump(bfile);
	window_default();
	hook_fails(bfile, 0);
	hook_fails(bfile, 1);
	refusals(bfile);
	printf("ld_job: %ld checks, %d failed\n", checks, fails);
	return fails != 0;
}
