/* SPDX-License-Identifier: MIT */
/* What gvk cnv writes and reads besides the model, through gvk.h alone, as a program using the
 * library calls it: every table's header and rows and the writers' refusals, the count matrix
 * written and read back, contig lengths, a matrix read in byte ranges, the VCF (plain, bgzipped
 * with its index, through the caller's file hooks), the plots, BAM counting by shares of the
 * rows, and a run spread by hooks against the plain run.
 * Usage: test_cnv_writers COUNTS.tsv.gz BAM_DIR */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gvk.h"

static int n_checks, n_failed;

static void check(int ok, const char *what)
{
	++n_checks;
	if (!ok) ++n_failed, printf("FAIL: %s\n", what);
}

static char *join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);
	if (p) snprintf(p, n, "%s/%s", dir, name);
	return p;
}

static int exists(const char *dir, const char *name)
{
	char *p = join(dir, name);
	int ok = p && access(p, F_OK) == 0;
	free(p);
	return ok;
}

static size_t lines_of(const char *text)
{
	size_t n = 0;
	for (const char *p = text; p && (p = strchr(p, '\n')); ++p) ++n;
	return n;
}

static int starts(const char *text, const char *prefix)
{
	return text && !strncmp(text, prefix, strlen(prefix));
}

/* A table as text (NULL when it could not be written; *rc its code). */
static char *table_text(int table, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r, const gvk_cnv_opts_t *o,
                        int *rc)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	*rc = fp ? gvk_cnv_write_table(fp, table, c, r, o, NULL) : GVK_ERR_NOMEM;
	if (fp) fclose(fp);
	if (*rc < 0) free(text), text = NULL;
	return text;
}

static char *file_text(const char *path)
{
	FILE *fp = fopen(path, "rb");
	char *text = fp ? calloc(1, 1 << 22) : NULL;
	if (text && fread(text, 1, (1 << 22) - 1, fp) == 0) free(text), text = NULL;
	if (fp) fclose(fp);
	return text;
}

static void test_tables(const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r, const gvk_cnv_opts_t *o)
{
	size_t m = (size_t)c->m, N = (size_t)c->N, cells = (size_t)c->n_seqs * N;
	const struct {
		int table;
		const char *head;
		size_t rows;
	} want[] = {
		{GVK_CNV_TABLE_CNVS, "sample\tchr\tstart\tend\tmean\tmedian\tCN\n", r->n_cnvs},
		{GVK_CNV_TABLE_SEGMENTS, "sample\tchr\tstart\tend\tmean\tmedian\tCN\n", r->n_segs},
		{GVK_CNV_TABLE_CNVR, "chr\tstart\tend\tS01\t", r->n_cnvr},
		{GVK_CNV_TABLE_CALLS_BED, "#chrom\tstart\tend\tsample\tCN\n", r->n_cnvs},
		{GVK_CNV_TABLE_SEG, "ID\tchrom\tloc.start\tloc.end\tnum.mark\tseg.mean\n", r->n_segs},
		{GVK_CNV_TABLE_NORMALIZED, "chr\tstart\tend\tS01\t", m},
		{GVK_CNV_TABLE_INI, "chr\tstart\tend\tINI\n", m},
		{GVK_CNV_TABLE_SINI, "chr\tstart\tend\tS01\t", m},
		{GVK_CNV_TABLE_REGION_CN, "chr\tstart\tend\tS01\t", m},
		{GVK_CNV_TABLE_LAMBDA, "chr\tstart\tend\tlambda_CN0\tlambda_CN1\t", m},
		{GVK_CNV_TABLE_ALPHA, "chr\tstart\tend\talpha_CN0\talpha_CN1\t", m},
		{GVK_CNV_TABLE_SEG_STAT, "chr\tstart\tend\tS01\t", m},
		{GVK_CNV_TABLE_INDIVIDUAL_CALL, "chr\tstart\tend\tS01\t", m},
		{GVK_CNV_TABLE_NORM_FACTORS, "chr\tsample\tn_windows\t", cells},
		{GVK_CNV_TABLE_PARAMS, "name\tvalue\nmethod\tcn.mops\n", 0},
		{GVK_CNV_TABLE_SEG_PARAMS, "chr\tsample\tn\teps\t", cells},
		{GVK_CNV_TABLE_POSTERIOR, "chr\tstart\tend\tsample\tpost_CN0\t", m * N},
	};
	check(sizeof want / sizeof want[0] == GVK_CNV_N_TABLES, "every table is tested");
	for (size_t k = 0; k < sizeof want / sizeof want[0]; ++k) {
		int rc;
		char *t = table_text(want[k].table, c, r, o, &rc), what[96];
		snprintf(what, sizeof what, "table %d: written, its header, one line per row", want[k].table);
		int rows_ok = want[k].table == GVK_CNV_TABLE_PARAMS || lines_of(t) == want[k].rows + 1;
		check(rc == 0 && starts(t, want[k].head) && rows_ok, what);
		free(t);
	}
	const char *s = gvk_cnv_table_suffix(GVK_CNV_TABLE_NORMALIZED), *p = gvk_cnv_table_suffix(GVK_CNV_TABLE_POSTERIOR);
	check(s && !strcmp(s, ".normalized.tsv") && p && !strcmp(p, ".posterior.tsv"), "suffixes of --regions tables");
	check(!gvk_cnv_table_suffix(GVK_CNV_TABLE_CNVS) && !gvk_cnv_table_suffix(GVK_CNV_N_TABLES), "no suffix for others");
}

static void test_table_refusals(const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r, const gvk_cnv_result_t *r_nopost,
                                const gvk_cnv_opts_t *o)
{
	gvk_err_t err = {0, ""};
	FILE *null = fopen("/dev/null", "w"), *ro = fopen("/dev/null", "r");
	if (!null || !ro) {
		check(0, "/dev/null opens");
		if (null) fclose(null);
		if (ro) fclose(ro);
		return;
	}
	check(gvk_cnv_write_table(null, GVK_CNV_N_TABLES, c, r, o, &err) == GVK_ERR_ARG && strstr(err.msg, "unknown table"),
	      "an unknown table is refused");
	check(gvk_cnv_write_table(null, GVK_CNV_TABLE_POSTERIOR, c, r_nopost, o, &err) == GVK_ERR_ARG &&
	              strstr(err.msg, "posteriors"),
	      "posteriors of a result without them are refused");
	gvk_cnv_counts_t other = *c;
	other.m = c->m - 1;
	check(gvk_cnv_write_table(null, GVK_CNV_TABLE_CNVS, &other, r, o, &err) == GVK_ERR_ARG &&
	              strstr(err.msg, "regions"),
	      "a result of other counts is refused");
	gvk_cnv_opts_t o3 = *o;
	o3.n_classes = 3, o3.cn2 = 2;
	check(gvk_cnv_write_table(null, GVK_CNV_TABLE_PARAMS, c, r, &o3, &err) == GVK_ERR_ARG && strstr(err.msg, "classes"),
	      "options of other classes are refused");
	check(gvk_cnv_write_table(ro, GVK_CNV_TABLE_SEGMENTS, c, r, o, &err) == GVK_ERR_IO &&
	              !strcmp(err.msg, "write error"),
	      "a stream that fails: write error");
	check(gvk_cnv_counts_write(ro, c, &err) == GVK_ERR_IO, "counts to a stream that fails: GVK_ERR_IO");
	fclose(null), fclose(ro);
}

/* The counts written as a plain matrix, read back the same. */
static void test_counts_file(const char *dir, const gvk_cnv_counts_t *c)
{
	char *path = join(dir, "plain.tsv");
	FILE *fp = path ? fopen(path, "w") : NULL;
	int rc = fp ? gvk_cnv_counts_write(fp, c, NULL) : GVK_ERR_IO;
	if (fp && fclose(fp) != 0) rc = GVK_ERR_IO;
	gvk_cnv_counts_t b;
	check(rc == 0 && gvk_cnv_counts_read(path, 0, &b, NULL) == 0 && b.m == c->m && b.N == c->N &&
	              !memcmp(b.x, c->x, (size_t)c->m * (size_t)c->N * sizeof *c->x),
	      "counts written and read back");
	gvk_cnv_counts_free(&b);
	free(path);
}

/* The byte after the line that holds byte at (the file's size when none). */
static long next_line(const char *text, long at, long size)
{
	while (at < size && text[at] != '\n') ++at;
	return at < size ? at + 1 : size;
}

/* The plain matrix in two byte ranges: their rows are the whole matrix's, in order. */
static void test_range(const char *dir, const gvk_cnv_counts_t *c)
{
	char *path = join(dir, "plain.tsv"), *text = path ? file_text(path) : NULL;
	if (!text) {
		check(0, "the plain matrix can be read");
		free(path);
		return;
	}
	long size = (long)strlen(text), body = next_line(text, 0, size), mid = next_line(text, size / 2, size);
	long first_lines = 0;
	for (long k = body; k < mid; ++k) first_lines += text[k] == '\n';
	gvk_cnv_counts_t a, b;
	gvk_err_t err = {0, ""};
	int rc = gvk_cnv_counts_read_range(path, 0, 2, body, mid, 2, &a, &err);
	if (rc == 0) rc = gvk_cnv_counts_read_range(path, 0, 1, mid, size, 2 + first_lines, &b, &err);
	int same = rc == 0 && a.m + b.m == c->m && a.N == c->N && b.N == c->N;
	for (int s = 0; same && s < c->N; ++s)
		same = !memcmp(a.x + (size_t)s * a.m, c->x + (size_t)s * c->m, (size_t)a.m * sizeof *c->x) &&
		       !memcmp(b.x + (size_t)s * b.m, c->x + (size_t)s * c->m + a.m, (size_t)b.m * sizeof *c->x);
	check(same, "two byte ranges hold the matrix's rows");
	gvk_cnv_counts_free(&a), gvk_cnv_counts_free(&b);
	check(gvk_cnv_counts_read_range(path, 0, 1, mid, body, 2, &a, &err) == GVK_ERR_ARG,
	      "a range that ends before it starts");
	free(text), free(path);
}

static int write_file(const char *dir, const char *name, const char *text)
{
	char *p = join(dir, name);
	FILE *fp = p ? fopen(p, "w") : NULL;
	int ok = fp && fputs(text, fp) >= 0;
	if (fp) ok &= fclose(fp) == 0;
	free(p);
	return ok;
}

/* Lengths from a .fai; c keeps them (the VCF's ##contig lines). */
static void test_lengths(const char *dir, gvk_cnv_counts_t *c)
{
	gvk_err_t err = {0, ""};
	char *ok = join(dir, "ok.fai"), *shrt = join(dir, "short.fai");
	write_file(dir, "ok.fai", "chr2\t20000000\t6\t60\t61\nchrX\t5\t0\t60\t61\nchr1\t30000000\t0\t60\t61\n");
	write_file(dir, "short.fai", "chr1\t30000000\nchr2\t200\n");
	check(gvk_cnv_counts_read_lengths(shrt, c, &err) == GVK_ERR_FORMAT && strstr(err.msg, "short.fai:2:") &&
	              !c->seq_len,
	      "a contig shorter than its windows: file and line named, counts unchanged");
	check(gvk_cnv_counts_read_lengths(ok, c, &err) == 0 && c->seq_len && c->seq_len[0] == 30000000 &&
	              c->seq_len[1] == 20000000,
	      "lengths read from a .fai");
	free(ok), free(shrt);
}

/* The caller's file hooks: names under a temporary prefix, the drops recorded. */
typedef struct {
	const char *dir;
	char names[4][256];
	int n_names;
	char dropped[256];
} hooks_t;

static const char *hook_name(void *arg, const char *path, gvk_err_t *err)
{
	hooks_t *h = arg;
	(void)err;
	const char *base = strrchr(path, '/');
	if (h->n_names == 4) return NULL;
	char *n = h->names[h->n_names++];
	snprintf(n, sizeof h->names[0], "%s/tmp.%s", h->dir, base ? base + 1 : path);
	return n;
}

static int hook_drop(void *arg, const char *path, gvk_err_t *err)
{
	(void)err;
	snprintf(((hooks_t *)arg)->dropped, sizeof ((hooks_t *)arg)->dropped, "%s", path);
	return 0;
}

static size_t records(const char *text)
{
	size_t n = 0;
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (*p != '#') ++n;
	return n;
}

static void test_vcf(const char *dir, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r, const gvk_cnv_opts_t *o)
{
	gvk_err_t err = {0, ""};
	char *plain = join(dir, "a.vcf"), *gz = join(dir, "a.vcf.gz"), *text = NULL;
	check(gvk_cnv_write_vcf(plain, NULL, c, r, o, NULL, 1, &err) == 0 && (text = file_text(plain)) &&
	              starts(text, "##fileformat=VCFv4.3\n") && strstr(text, "##contig=<ID=chr1,length=30000000>") &&
	              records(text) == r->n_cnvr,
	      "a plain VCF at its path: one record per CNV region");
	free(text);
	if (!(gvk_features() & GVK_FEATURE_HTSLIB)) {
		check(gvk_cnv_write_vcf(gz, NULL, c, r, o, NULL, 1, &err) == GVK_ERR_UNSUPPORTED, ".gz without htslib");
		free(plain), free(gz);
		return;
	}
	write_file(dir, "a.vcf.gz.csi", "stale");
	check(gvk_cnv_write_vcf(gz, NULL, c, r, o, NULL, 0, &err) == 0 && exists(dir, "a.vcf.gz") &&
	              exists(dir, "a.vcf.gz.tbi") && !exists(dir, "a.vcf.gz.csi"),
	      "a bgzipped VCF at its path: indexed, the stale index of the other kind removed");
	hooks_t h = {dir, {{0}}, 0, ""};
	gvk_files_t files = {&h, NULL, hook_name, hook_drop};
	char *csi = join(dir, "a.vcf.gz.csi");
	check(gvk_cnv_write_vcf(gz, &files, c, r, o, NULL, 2, &err) == 0 && h.n_names == 2 && exists(dir, "tmp.a.vcf.gz") &&
	              exists(dir, "tmp.a.vcf.gz.tbi") && csi && !strcmp(h.dropped, csi),
	      "a bgzipped VCF through the hooks: the names they give, the other index dropped through them");
	free(csi), free(plain), free(gz);
}

static int count_files(const char *dir, const char *const *names, int n)
{
	int k = 0;
	while (k < n && exists(dir, names[k])) ++k;
	return k;
}

static void test_plots(const char *dir, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r, const gvk_cnv_opts_t *o)
{
	gvk_err_t err = {0, ""};
	gvk_cnv_plot_opts_t po;
	gvk_cnv_plot_opts_init(&po);
	po.png = 0, po.svg = 1, po.plain_svg = 1, po.contigs = GVK_CNV_PLOT_CONTIGS_NONE;
	char *prefix = join(dir, "p"), *cohort = join(dir, "p.cohort.svg"), *text = NULL;
	static const char *const names[] = {"p.S01.genome.svg", "p.S05.genome.svg", "p.S10.genome.svg", "p.cohort.svg"};
	check(gvk_cnv_plot(prefix, &po, NULL, c, r, o, &err) == 0 && count_files(dir, names, 4) == 4 &&
	              !exists(dir, "p.S01.chr1.svg") && (text = file_text(cohort)) && strstr(text, "<svg"),
	      "plain SVG plots at their paths, no per-contig plots");
	free(text);
	po.png = 1, po.svg = 0;
	int png = gvk_cnv_plot(prefix, &po, NULL, c, r, o, &err);
	if (gvk_features() & GVK_FEATURE_CAIRO) check(png == 0 && exists(dir, "p.cohort.png"), "PNG plots with cairo");
	else check(png == GVK_ERR_UNSUPPORTED && !exists(dir, "p.cohort.png"), "PNG plots refused without cairo");
	po.contigs = 7;
	check(gvk_cnv_plot(prefix, &po, NULL, c, r, o, &err) == GVK_ERR_ARG && strstr(err.msg, "contigs"), "a bad option");
	free(prefix), free(cohort);
}

/* Two shares of the rows of every file: each share's rows as the whole count gives them, the
 * others 0. */
static void test_bam_share(const char *bam_dir)
{
	char *paths[3] = {join(bam_dir, "T1.bam"), join(bam_dir, "T2.bam"), join(bam_dir, "T3.bam")};
	gvk_cnv_bam_opts_t bo;
	gvk_cnv_bam_opts_init(&bo);
	bo.wl = 5000;
	gvk_cnv_counts_t all, part[2];
	gvk_err_t err = {0, ""};
	int row0[2], row1[2], rc = 0;
	if (!gvk_cnv_have_bam()) {
		check(gvk_cnv_count_bams_share((const char *const *)paths, 3, NULL, &bo, 0, 2, row0, row1, part, &err) ==
		              GVK_ERR_UNSUPPORTED,
		      "counting by shares without htslib");
		for (int k = 0; k < 3; ++k) free(paths[k]);
		return;
	}
	rc = gvk_cnv_count_bams((const char *const *)paths, 3, NULL, &bo, &all, &err);
	const char *const *p = (const char *const *)paths;
	for (int k = 0; k < 2 && rc == 0; ++k)
		rc = gvk_cnv_count_bams_share(p, 3, NULL, &bo, k, 2, &row0[k], &row1[k], &part[k], &err);
	int ok = rc == 0 && row0[0] == 0 && row1[0] == row0[1] && row1[1] == all.m && part[0].m == all.m;
	for (int k = 0; ok && k < 2; ++k)
		for (int s = 0; ok && s < all.N; ++s)
			for (int i = 0; ok && i < all.m; ++i) {
				size_t at = (size_t)s * all.m + i;
				ok = part[k].x[at] == (i >= row0[k] && i < row1[k] ? all.x[at] : 0);
			}
	check(ok, "two shares of the rows: each its rows as the whole count, the others 0");
	if (rc == 0) gvk_cnv_counts_free(&part[0]), gvk_cnv_counts_free(&part[1]), gvk_cnv_counts_free(&all);
	check(gvk_cnv_count_bams_share(p, 3, NULL, &bo, 2, 2, row0, row1, part, &err) == GVK_ERR_ARG,
	      "share 2 of 2 is refused");
	for (int k = 0; k < 3; ++k) free(paths[k]);
}

/* The hooks of a world of one process: nothing to join, this process calls. */
static int em_join(void *ctx, const gvk_cnv_counts_t *c, gvk_cnv_result_t *r, int rc, gvk_err_t *err)
{
	(void)c, (void)r, (void)err;
	++*(int *)ctx;
	return rc;
}

static int near_join(void *ctx, uint8_t *again, int n_seqs, int rc, gvk_err_t *err)
{
	(void)ctx, (void)again, (void)n_seqs, (void)err;
	return rc;
}

static int seg_join(void *ctx, const gvk_cnv_counts_t *c, gvk_cnv_result_t *r, gvk_cnv_piece_t **pieces, int *n_pieces,
                    int rc, int *calls, gvk_err_t *err)
{
	(void)c, (void)r, (void)pieces, (void)n_pieces, (void)err;
	++*(int *)ctx;
	*calls = 1;
	return rc;
}

static void test_split(gvk_cnv_t *e, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *want)
{
	int joins = 0;
	gvk_cnv_split_t sp = {0, c->m, 0, c->n_seqs * c->N, &joins, em_join, near_join, seg_join};
	gvk_cnv_result_t *r = NULL;
	gvk_err_t err = {0, ""};
	int rc = gvk_cnv_run_split(e, c, &sp, &r, &err);
	check(rc == 0 && joins == 2 && r->n_segs == want->n_segs && r->n_cnvr == want->n_cnvr &&
	              !memcmp(r->segs, want->segs, want->n_segs * sizeof *want->segs) &&
	              !memcmp(r->cnvr_cn, want->cnvr_cn, want->n_cnvr * (size_t)c->N * sizeof *want->cnvr_cn),
	      "a run spread over one process: the plain run's segments and regions");
	gvk_cnv_result_free(r);
	sp.r1 = c->m + 1;
	check(gvk_cnv_run_split(e, c, &sp, &r, &err) == GVK_ERR_ARG && !r && strstr(err.msg, "regions"),
	      "regions outside the counts are refused");
}

int main(int argc, char **argv)
{
	if (argc < 3) return fprintf(stderr, "usage: test_cnv_writers COUNTS.tsv.gz BAM_DIR\n"), 2;
	char dir[] = "/tmp/gvk_cnv_writers.XXXXXX";
	gvk_cnv_counts_t c;
	gvk_cnv_opts_t o, o_nopost;
	gvk_cnv_opts_init(&o, 0);
	o.device = GVK_DEVICE_CPU, o.threads = 2, o.keep_posterior = 1;
	o_nopost = o, o_nopost.keep_posterior = 0;
	gvk_cnv_t *e = gvk_cnv_create(&o, NULL), *e_nopost = gvk_cnv_create(&o_nopost, NULL);
	gvk_cnv_result_t *r = NULL, *r_nopost = NULL;
	if (!mkdtemp(dir) || !e || !e_nopost || gvk_cnv_counts_read(argv[1], 0, &c, NULL) < 0 ||
	    gvk_cnv_run(e, &c, &r, NULL) < 0 || gvk_cnv_run(e_nopost, &c, &r_nopost, NULL) < 0) {
		fprintf(stderr, "test_cnv_writers: cannot set up (a temporary directory, the engines, %s)\n", argv[1]);
		return 1;
	}
	test_tables(&c, r, &o);
	test_table_refusals(&c, r, r_nopost, &o);
	test_counts_file(dir, &c);
	test_range(dir, &c);
	test_lengths(dir, &c);
	test_vcf(dir, &c, r, &o);
	test_plots(dir, &c, r, &o);
	test_bam_share(argv[2]);
	test_split(e_nopost, &c, r_nopost);
	gvk_cnv_result_free(r), gvk_cnv_result_free(r_nopost);
	gvk_cnv_destroy(e), gvk_cnv_destroy(e_nopost);
	gvk_cnv_counts_free(&c);
	char cmd[64];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0) fprintf(stderr, "test_cnv_writers: %s left behind\n", dir);
	printf("cnv writers: %d checks, %d failed\n", n_checks, n_failed);
	return n_failed ? 1 : 0;
}
