/* SPDX-License-Identifier: MIT */
/* The public LD and FastID engines of gvk.h on the bundled data:
 *   - LD of a genotype matrix (both layouts) equals LD of the PLINK fileset it was decoded from,
 *     bit for bit, as matrices and as window tables;
 *   - window tables equal `gvk ld` .ld files row for row (names, and values as PLINK prints them);
 *   - FastID results equal `gvk fastid` top-k and threshold tables;
 *   - bad arguments give negative codes with messages, and --device gpu without a usable GPU is
 *     an error in the library and in both commands.
 * Usage: test_snp_api GVK DATA TMPDIR */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "gvk.h"
#include "common/err.h"
#include "fastid/fidb_io.h"
#include "ld/ld_write.h"

#include "snp_test_util.h"

/* A PLINK fileset decoded as the API's genotype matrix (SNP-major, copies of the .bim's A1). */
typedef struct {
	int64_t m, n;
	int8_t *g;
	char **chrom;
	int64_t *bp;
} geno_t;

static void geno_free(geno_t *x)
{
	for (int64_t i = 0; x->chrom && i < x->m; ++i) free(x->chrom[i]);
	free(x->chrom), free(x->bp), free(x->g);
	memset(x, 0, sizeof *x);
}

static int64_t count_lines(const char *file)
{
	FILE *fp = fopen(file, "r");
	if (!fp) return -1;
	int64_t n = 0;
	for (int c; (c = fgetc(fp)) != EOF;) n += c == '\n';
	fclose(fp);
	return n;
}

static int read_geno(const char *prefix, geno_t *x)
{
	char f[4096];
	memset(x, 0, sizeof *x);
	path(f, sizeof f, "%s.fam", prefix);
	x->n = count_lines(f);
	path(f, sizeof f, "%s.bim", prefix);
	x->m = count_lines(f);
	FILE *bim = fopen(f, "r");
	path(f, sizeof f, "%s.bed", prefix);
	FILE *bed = fopen(f, "rb");
	if (x->n < 1 || x->m < 1 || !bim || !bed) return fprintf(stderr, "cannot read %s\n", prefix), -1;
	int64_t bpr = (x->n + 3) / 4;
	unsigned char *row = malloc((size_t)bpr), magic[3];
	x->g = malloc((size_t)(x->m * x->n));
	x->chrom = calloc((size_t)x->m, sizeof *x->chrom);
	x->bp = malloc(sizeof *x->bp * (size_t)x->m);
	int rc = fread(magic, 1, 3, bed) == 3 ? 0 : -1;
	for (int64_t i = 0; i < x->m && rc == 0; ++i) {
		char chr[256], id[256], a1[256], a2[256];
		double cm;
		long long bp;
		if (fscanf(bim, "%255s %255s %lf %lld %255s %255s", chr, id, &cm, &bp, a1, a2) != 6 ||
		    fread(row, 1, (size_t)bpr, bed) != (size_t)bpr) {
			rc = -1;
			break;
		}
		x->chrom[i] = strdup(chr), x->bp[i] = bp;
		static const int8_t dose[4] = {2, -1, 1, 0}; /* 00 two copies of A1, 01 missing, 10 one, 11 none */
		for (int64_t s = 0; s < x->n; ++s) x->g[i * x->n + s] = dose[(row[s / 4] >> (2 * (s % 4))) & 3];
	}
	free(row);
	fclose(bim);
	fclose(bed);
	return rc;
}

static int8_t *transpose(const geno_t *x)
{
	int8_t *t = malloc((size_t)(x->m * x->n));
	for (int64_t i = 0; i < x->m; ++i)
		for (int64_t s = 0; s < x->n; ++s) t[s * x->m + i] = x->g[i * x->n + s];
	return t;
}

static int same_value(double a, double b) { return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0; }

static gvk_ld_t *ld_engine(int r2, int kao, int inter_chr, int64_t win, double kb, double wr2)
{
	gvk_ld_opts_t o;
	gvk_ld_opts_init(&o);
	o.r2 = r2, o.keep_allele_order = kao, o.inter_chr = inter_chr, o.threads = 2, o.device = GVK_DEVICE_CPU;
	if (win) o.window_snps = win;
	if (kb >= 0) o.window_kb = kb;
	if (wr2 >= 0) o.window_r2 = wr2;
	gvk_err_t err = {0, ""};
	gvk_ld_t *e = gvk_ld_create(&o, &err);
	if (!e) fprintf(stderr, "gvk_ld_create: %s\n", err.msg), exit(1);
	return e;
}

/* ---- LD: genotype matrix = PLINK fileset ------------------------------------------------------- */

static void matrix_case(const char *stem, int r2, int kao)
{
	char prefix[4096];
	path(prefix, sizeof prefix, "%s/%s", data_dir, stem);
	geno_t x;
	if (read_geno(prefix, &x) < 0) {
		CHECK(0, "%s: not read\n", stem);
		return;
	}
	int8_t *t = transpose(&x);
	gvk_ld_t *e = ld_engine(r2, kao, 0, 0, -1, -1);
	gvk_err_t err = {0, ""};
	gvk_ld_matrix_t *a = NULL, *b = NULL, *c = NULL;
	int rc = gvk_ld_matrix_bfile(e, prefix, &a, &err);
	if (rc == 0) rc = gvk_ld_matrix_geno(e, x.g, x.m, x.n, GVK_GENO_SNP_MAJOR, &b, &err);
	if (rc == 0) rc = gvk_ld_matrix_geno(e, t, x.m, x.n, GVK_GENO_SAMPLE_MAJOR, &c, &err);
	CHECK(rc == 0, "%s: %s\n", stem, err.msg);
	if (rc == 0) {
		CHECK(a->m == x.m && b->m == x.m && c->m == x.m, "%s: %lld SNPs\n", stem, (long long)a->m);
		CHECK(a->n_samples == x.n && b->n_samples == x.n, "%s: %lld samples\n", stem, (long long)a->n_samples);
		CHECK(a->snps.id && !strcmp(a->snps.chrom[0], x.chrom[0]) && a->snps.bp[x.m - 1] == x.bp[x.m - 1] && !b->snps.id,
		      "%s: SNP names\n", stem);
		size_t bad = 0, nan = 0;
		for (int64_t k = 0; k < x.m * x.m; ++k) {
			bad += !same_value(a->r[k], b->r[k]) || !same_value(b->r[k], c->r[k]);
			nan += isnan(a->r[k]);
		}
		CHECK(bad == 0, "%s r2=%d kao=%d: %zu of %lld matrix values differ\n", stem, r2, kao, bad, (long long)(x.m * x.m));
		CHECK(nan < (size_t)(x.m * x.m), "%s: every value NaN\n", stem);
		printf("%s %s kao=%d: %lld x %lld matrix from the fileset = from the genotype matrix\n", stem, r2 ? "r2" : "r",
		       kao, (long long)x.m, (long long)x.m);
	}
	gvk_ld_matrix_free(a), gvk_ld_matrix_free(b), gvk_ld_matrix_free(c);
	gvk_ld_destroy(e);
	free(t);
	geno_free(&x);
}

/* ---- LD: window tables = gvk ld --------------------------------------------------------------- */

/* The .ld table file against t: same rows in order, names from t->snps, values as ld_fmt_g prints. */
static void compare_ld_file(const char *file, const gvk_ld_table_t *t, const char *what)
{
	FILE *fp = fopen(file, "r");
	char line[1024];
	if (!fp || !fgets(line, sizeof line, fp)) {
		CHECK(0, "%s: no %s\n", what, file);
		if (fp) fclose(fp);
		return;
	}
	size_t k = 0, bad = 0;
	while (fgets(line, sizeof line, fp)) {
		char ca[64], ia[256], cb[64], ib[256], v[64], num[32];
		long long ba, bb;
		if (sscanf(line, "%63s %lld %255s %63s %lld %255s %63s", ca, &ba, ia, cb, &bb, ib, v) != 7) break;
		if (k < t->n) {
			int64_t i = t->snp_a[k], j = t->snp_b[k];
			ld_fmt_g(num, t->r[k]);
			int ok = !strcmp(ca, t->snps.chrom[i]) && ba == t->snps.bp[i] && !strcmp(ia, t->snps.id[i]) &&
			         !strcmp(cb, t->snps.chrom[j]) && bb == t->snps.bp[j] && !strcmp(ib, t->snps.id[j]) && !strcmp(v, num);
			if (!ok && bad++ < 3) fprintf(stderr, "%s row %zu: file '%s %s %s' API '%s %s %s'\n", what, k, ia, ib, v,
			                              t->snps.id[i], t->snps.id[j], num);
		}
		++k;
	}
	fclose(fp);
	CHECK(k == t->n && bad == 0, "%s: %zu rows in the file, %zu in the API table, %zu differ\n", what, k, t->n, bad);
	printf("%s: %zu rows as gvk ld writes them\n", what, k);
}

static void table_case(const char *stem, const char *what, int r2, int inter_chr, int64_t win, double kb, double wr2,
                       const char *flags)
{
	char prefix[4096], out[4096], cmd[16384], file[4096];
	path(prefix, sizeof prefix, "%s/%s", data_dir, stem);
	path(out, sizeof out, "%s/%s", tmp_dir, what);
	path(cmd, sizeof cmd, "%s ld -q --device cpu -t 2 --bfile %s %s --out %s", gvk_bin, prefix, flags, out);
	CHECK(run(cmd) == 0, "%s: gvk ld failed\n", cmd);
	gvk_ld_t *e = ld_engine(r2, 0, inter_chr, win, kb, wr2);
	gvk_err_t err = {0, ""};
	gvk_ld_table_t *t = NULL;
	int rc = gvk_ld_table_bfile(e, prefix, &t, &err);
	CHECK(rc == 0 && t, "%s: gvk_ld_table_bfile: %s\n", what, err.msg);
	if (rc == 0) {
		path(file, sizeof file, "%s.ld", out);
		compare_ld_file(file, t, what);
		for (size_t k = 0; k < t->n; ++k)
			CHECK(t->snp_a[k] < t->snp_b[k] && (k == 0 || t->snp_a[k - 1] < t->snp_a[k] ||
			                                    (t->snp_a[k - 1] == t->snp_a[k] && t->snp_b[k - 1] < t->snp_b[k])),
			      "%s: row %zu out of order\n", what, k);
	}
	/* the same windows over the genotype matrix, placed by the .bim's chromosomes and positions
	 * (the A1 of the file: keep_allele_order, so r keeps its sign) */
	geno_t x;
	gvk_ld_t *k1 = ld_engine(r2, 1, inter_chr, win, kb, wr2);
	gvk_ld_table_t *a = NULL, *b = NULL;
	if (read_geno(prefix, &x) == 0 && gvk_ld_table_bfile(k1, prefix, &a, &err) == 0 &&
	    gvk_ld_table_geno(k1, x.g, x.m, x.n, GVK_GENO_SNP_MAJOR, (const char *const *)x.chrom, x.bp, &b, &err) == 0) {
		int same = a->n == b->n && !b->snps.chrom;
		for (size_t k = 0; same && k < a->n; ++k)
			same = a->snp_a[k] == b->snp_a[k] && a->snp_b[k] == b->snp_b[k] && same_value(a->r[k], b->r[k]);
		CHECK(same, "%s: genotype-matrix table (%zu pairs) differs from the fileset's (%zu)\n", what, b->n, a->n);
	} else {
		CHECK(0, "%s: genotype-matrix table: %s\n", what, err.msg);
	}
	gvk_ld_table_free(a), gvk_ld_table_free(b), gvk_ld_table_free(t);
	gvk_ld_destroy(e), gvk_ld_destroy(k1);
	geno_free(&x);
}

/* ---- FastID = gvk fastid ---------------------------------------------------------------------- */

/* Profiles of a .fidb without the engine's padding words, as the public call takes them. */
static uint64_t *unpadded(const fid_prof_t *p)
{
	uint64_t *w = malloc(sizeof *w * (size_t)(p->n * p->nw) + 8);
	for (int64_t i = 0; i < p->n; ++i) memcpy(w + i * p->nw, p->w + i * p->stride, 8 * (size_t)p->nw);
	return w;
}

/* Rows of a gvk fastid table: top (query_id query rank db_id db score) or hits (query_id query
 * db_id db score), compared field by field. */
static void compare_fastid_file(const char *file, const gvk_fastid_result_t *r, int top, const char *what)
{
	FILE *fp = fopen(file, "r");
	char line[1024];
	size_t k = 0, bad = 0;
	if (fp && fgets(line, sizeof line, fp))
		while (fgets(line, sizeof line, fp)) {
			char qid[256], did[256];
			long long q, rank = 0, d, sc;
			int n = top ? sscanf(line, "%255s %lld %lld %255s %lld %lld", qid, &q, &rank, did, &d, &sc)
			            : sscanf(line, "%255s %lld %255s %lld %lld", qid, &q, did, &d, &sc);
			if (n != (top ? 6 : 5)) break;
			size_t at = top ? (size_t)q * (size_t)r->k + (size_t)rank : k;
			size_t len = top ? r->n_queries * (size_t)r->k : r->n_hits;
			const gvk_fastid_hit_t *h = at >= len ? NULL : top ? &r->top[at] : &r->hits[at];
			bad += !h || h->query != (uint32_t)q || h->db != d || h->score != (uint32_t)sc;
			++k;
		}
	if (fp) fclose(fp);
	size_t want = top ? r->n_queries * (size_t)r->k : r->n_hits;
	CHECK(k == want && bad == 0, "%s: %zu rows in %s, %zu in the result, %zu differ\n", what, k, file, want, bad);
	printf("%s: %zu rows as gvk fastid writes them\n", what, k);
}

static void fastid_case(int mixture, int topk, int64_t thr)
{
	char q[4096], d[4096], top[4096], hits[4096], cmd[16384], what[128];
	path(q, sizeof q, "%s/fastid/fastid40x500x200.queries.fidb", data_dir);
	path(d, sizeof d, "%s/fastid/fastid40x500x200.db.fidb", data_dir);
	path(top, sizeof top, "%s/fastid_top.tsv", tmp_dir);
	path(hits, sizeof hits, "%s/fastid_hits.tsv", tmp_dir);
	path(what, sizeof what, "fastid %s top-%d threshold %lld", mixture ? "mixture" : "identity", topk, (long long)thr);
	path(cmd, sizeof cmd, "%s fastid -q --device cpu -t 2 --%s -k %d -T %lld -o %s -H %s %s %s", gvk_bin,
	     mixture ? "mixture" : "identity", topk, (long long)thr, top, hits, d, q);
	CHECK(run(cmd) == 0, "%s: gvk fastid failed\n", cmd);
	fid_prof_t qs, db;
	gvk_err_t err = {0, ""};
	if (fidb_read(q, &qs, &err) < 0 || fidb_read(d, &db, &err) < 0) {
		CHECK(0, "%s\n", err.msg);
		return;
	}
	uint64_t *qw = unpadded(&qs), *dw = unpadded(&db);
	gvk_fastid_opts_t o;
	gvk_fastid_opts_init(&o);
	o.mixture = mixture, o.topk = topk, o.threshold = thr, o.threads = 3, o.device = GVK_DEVICE_CPU;
	gvk_fastid_t *e = gvk_fastid_create(&o, &err);
	gvk_fastid_result_t *r = NULL;
	int rc = e ? gvk_fastid_search(e, qw, (size_t)qs.n, dw, (size_t)db.n, qs.n_snp, &r, &err) : -1;
	CHECK(rc == 0 && r, "%s: %s\n", what, err.msg);
	if (rc == 0) {
		CHECK(r->n_queries == (size_t)qs.n && r->k == (topk < db.n ? topk : (int)db.n) &&
		          r->pairs == (uint64_t)(qs.n * db.n),
		      "%s: sizes\n", what);
		compare_fastid_file(top, r, 1, what);
		compare_fastid_file(hits, r, 0, what);
	}
	gvk_fastid_result_free(r);
	gvk_fastid_destroy(e);
	free(qw), free(dw);
	fid_prof_free(&qs), fid_prof_free(&db);
}

/* ---- bad arguments ---------------------------------------------------------------------------- */

static gvk_err_t *fresh(gvk_err_t *e)
{
	e->code = 0, e->msg[0] = 0;
	return e;
}

/* rc must be negative (code when code != 0) with a message containing `has`. */
static void expect_err(int rc, const gvk_err_t *err, int code, const char *has, const char *what)
{
	const char *want = has ? has : "";
	CHECK(rc < 0 && (code == 0 || rc == code) && err->msg[0] && strstr(err->msg, want),
	      "%s: rc %d, message '%s' (wanted code %d with '%s')\n", what, rc, err->msg, code, want);
}

static void bad_ld_opts(void)
{
	static const struct {
		const char *field;
		int which;
	} cases[] = {{"r2", 0}, {"threads", 1}, {"device", 2}, {"isa", 3}, {"gpu", 4}, {"gpu_path", 5},
	             {"window_snps", 6}, {"window_kb", 7}, {"window_r2", 8}, {"inter_chr", 9}};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
		gvk_ld_opts_t o;
		gvk_ld_opts_init(&o);
		switch (cases[k].which) {
		case 0: o.r2 = 2; break;
		case 1: o.threads = -1; break;
		case 2: o.device = 7; break;
		case 3: o.isa = 42; break;
		case 4: o.gpu = -2; break;
		case 5: o.gpu_path = 3; break;
		case 6: o.window_snps = 1; break;
		case 7: o.window_kb = -1; break;
		case 8: o.window_r2 = 1.5; break;
		default: o.inter_chr = 2; break;
		}
		gvk_err_t err = {0, ""};
		gvk_ld_t *e = gvk_ld_create(&o, &err);
		expect_err(e ? 0 : -1, &err, 0, cases[k].field, cases[k].field);
		CHECK(!e && err.code == GVK_ERR_ARG, "ld option %s: code %d\n", cases[k].field, err.code);
		gvk_ld_destroy(e);
	}
	gvk_err_t err = {0, ""};
	CHECK(!gvk_ld_create(NULL, &err) && err.code == GVK_ERR_ARG && err.msg[0], "gvk_ld_create(NULL)\n");
}

static void bad_ld_calls(void)
{
	gvk_ld_t *e = ld_engine(1, 0, 0, 0, -1, -1);
	gvk_err_t err = {0, ""};
	gvk_ld_matrix_t *m = (gvk_ld_matrix_t *)&err; /* must come back NULL */
	gvk_ld_table_t *t = (gvk_ld_table_t *)&err;
	int8_t g[6] = {0, 1, 2, 2, 1, 0};
	char missing[4096], edge[4096];
	path(missing, sizeof missing, "%s/no_such_fileset", tmp_dir);
	path(edge, sizeof edge, "%s/ld_edge/edge13x10", data_dir);
	expect_err(gvk_ld_matrix_bfile(NULL, edge, &m, fresh(&err)), &err, GVK_ERR_ARG, "engine", "matrix_bfile NULL engine");
	CHECK(m == NULL, "matrix_bfile: *out not NULL after an error\n");
	expect_err(gvk_ld_matrix_bfile(e, NULL, &m, fresh(&err)), &err, GVK_ERR_ARG, "prefix", "matrix_bfile NULL prefix");
	expect_err(gvk_ld_matrix_bfile(e, edge, NULL, fresh(&err)), &err, GVK_ERR_ARG, "out", "matrix_bfile NULL out");
	expect_err(gvk_ld_table_bfile(e, missing, &t, fresh(&err)), &err, GVK_ERR_IO, "no_such_fileset", "table_bfile missing file");
	CHECK(t == NULL, "table_bfile: *out not NULL after an error\n");
	expect_err(gvk_ld_matrix_geno(e, NULL, 2, 3, GVK_GENO_SNP_MAJOR, &m, fresh(&err)), &err, GVK_ERR_ARG, "NULL", "geno NULL");
	expect_err(gvk_ld_matrix_geno(e, g, 0, 3, GVK_GENO_SNP_MAJOR, &m, fresh(&err)), &err, GVK_ERR_ARG, "n_snps", "n_snps 0");
	expect_err(gvk_ld_matrix_geno(e, g, 6, 1, GVK_GENO_SNP_MAJOR, &m, fresh(&err)), &err, GVK_ERR_ARG, "n_samples", "n_samples 1");
	expect_err(gvk_ld_matrix_geno(e, g, 2, 3, 5, &m, fresh(&err)), &err, GVK_ERR_ARG, "layout", "bad layout");
	g[4] = 3;
	expect_err(gvk_ld_matrix_geno(e, g, 2, 3, GVK_GENO_SNP_MAJOR, &m, fresh(&err)), &err, GVK_ERR_ARG, "SNP 1, sample 1",
	           "genotype 3");
	g[4] = -2;
	expect_err(gvk_ld_table_geno(e, g, 3, 2, GVK_GENO_SAMPLE_MAJOR, NULL, NULL, &t, fresh(&err)), &err, GVK_ERR_ARG,
	           "SNP 1, sample 1", "genotype -2 (sample-major)");
	g[4] = 1;
	const char *chrom[2] = {"1", NULL};
	expect_err(gvk_ld_table_geno(e, g, 2, 3, GVK_GENO_SNP_MAJOR, chrom, NULL, &t, fresh(&err)), &err, GVK_ERR_ARG, "chrom[1]",
	           "NULL chromosome name");
	CHECK(m == NULL && t == NULL, "geno calls: *out not NULL after an error\n");
	/* and a valid call: two SNPs, one the mirror of the other */
	int8_t h[6] = {0, 1, 2, 2, 1, 0};
	CHECK(gvk_ld_matrix_geno(e, h, 2, 3, GVK_GENO_SNP_MAJOR, &m, &err) == 0 && m && m->r[1] == 1.0 && m->r[2] == 1.0,
	      "mirror SNPs: %s\n", err.msg);
	gvk_ld_matrix_free(m);
	gvk_ld_matrix_free(NULL), gvk_ld_table_free(NULL);
	gvk_ld_destroy(e);
}

static void bad_fastid(void)
{
	gvk_err_t err = {0, ""};
	gvk_fastid_opts_t o;
	for (int k = 0; k < 7; ++k) {
		gvk_fastid_opts_init(&o);
		static const char *field[] = {"mixture", "topk", "asks for nothing", "threads", "device", "gpu_path", "gpu_db_block"};
		switch (k) {
		case 0: o.mixture = 3; break;
		case 1: o.topk = -1; break;
		case 2: o.topk = 0, o.threshold = -1; break;
		case 3: o.threads = -2; break;
		case 4: o.device = -1; break;
		case 5: o.gpu_path = -1; break;
		default: o.gpu_db_block = -5; break;
		}
		gvk_fastid_t *e = gvk_fastid_create(&o, fresh(&err));
		expect_err(e ? 0 : -1, &err, 0, field[k], field[k]);
		CHECK(!e && err.code == GVK_ERR_ARG, "fastid option %s: code %d\n", field[k], err.code);
		gvk_fastid_destroy(e);
	}
	CHECK(!gvk_fastid_create(NULL, &err) && err.code == GVK_ERR_ARG, "gvk_fastid_create(NULL)\n");
	gvk_fastid_opts_init(&o);
	o.device = GVK_DEVICE_CPU;
	gvk_fastid_t *e = gvk_fastid_create(&o, &err);
	uint64_t q[2] = {5, 0}, d[4] = {5, 0, 1, 0};
	gvk_fastid_result_t *r = (gvk_fastid_result_t *)&err;
	expect_err(gvk_fastid_search(NULL, q, 1, d, 2, 100, &r, fresh(&err)), &err, GVK_ERR_ARG, "engine", "fastid NULL engine");
	CHECK(r == NULL, "fastid: *out not NULL after an error\n");
	expect_err(gvk_fastid_search(e, NULL, 1, d, 2, 100, &r, fresh(&err)), &err, GVK_ERR_ARG, "queries", "fastid NULL queries");
	expect_err(gvk_fastid_search(e, q, 1, NULL, 2, 100, &r, fresh(&err)), &err, GVK_ERR_ARG, "db", "fastid NULL db");
	expect_err(gvk_fastid_search(e, q, 0, d, 2, 100, &r, fresh(&err)), &err, GVK_ERR_ARG, "n_q", "fastid n_q 0");
	expect_err(gvk_fastid_search(e, q, 1, d, 0, 100, &r, fresh(&err)), &err, GVK_ERR_ARG, "n_db", "fastid n_db 0");
	expect_err(gvk_fastid_search(e, q, 1, d, 2, 0, &r, fresh(&err)), &err, GVK_ERR_ARG, "n_snp", "fastid n_snp 0");
	expect_err(gvk_fastid_search(e, q, 1, d, 2, 100, NULL, fresh(&err)), &err, GVK_ERR_ARG, "out", "fastid NULL out");
	uint64_t d2[2] = {5, 8}; /* 3 SNPs: bit 3 is padding */
	expect_err(gvk_fastid_search(e, q, 1, d2, 2, 3, &r, fresh(&err)), &err, GVK_ERR_ARG, "database profile 1", "padding bits");
	/* and a valid call: 100 SNPs in 2 words, scores 0 and 1 */
	CHECK(gvk_fastid_search(e, q, 1, d, 2, 100, &r, &err) == 0 && r && r->k == 2 && r->top[0].db == 0 &&
	          r->top[0].score == 0 && r->top[1].db == 1 && r->top[1].score == 1 && !r->hits,
	      "small fastid search: %s\n", err.msg);
	gvk_fastid_result_free(r);
	gvk_fastid_result_free(NULL);
	gvk_fastid_destroy(e);
}

/* ---- devices ---------------------------------------------------------------------------------- */

static int logged;
static void count_log(void *arg, int level, const char *msg)
{
	/* INFO and DEBUG notes (the CPU kernel taken, the device chosen) are not complaints */
	(void)arg, (void)msg;
	if (level <= GVK_LOG_WARN) ++logged;
}

/* With a GPU: the engines on it (each count kernel forced, planes streamed, small FastID blocks and
 * batches) give the CPU's results exactly. */
static void gpu_equals_cpu(void)
{
	char prefix[4096], q[4096], d[4096];
	path(prefix, sizeof prefix, "%s/ld_dummy/dummy203x800", data_dir);
	path(q, sizeof q, "%s/fastid/fastid40x500x200.queries.fidb", data_dir);
	path(d, sizeof d, "%s/fastid/fastid40x500x200.db.fidb", data_dir);
	fid_prof_t qs, db;
	gvk_err_t err = {0, ""};
	if (fidb_read(q, &qs, &err) < 0 || fidb_read(d, &db, &err) < 0) {
		CHECK(0, "%s\n", err.msg);
		return;
	}
	uint64_t *qw = unpadded(&qs), *dw = unpadded(&db);
	for (int v = 0; v < 3; ++v) {
		gvk_ld_opts_t lo;
		gvk_fastid_opts_t fo;
		gvk_ld_matrix_t *m[2] = {NULL, NULL};
		gvk_fastid_result_t *r[2] = {NULL, NULL};
		for (int dev = 0; dev < 2; ++dev) {
			gvk_ld_opts_init(&lo);
			gvk_fastid_opts_init(&fo);
			lo.r2 = 0, lo.threads = fo.threads = 2, fo.mixture = 1, fo.threshold = 2;
			lo.device = fo.device = dev ? GVK_DEVICE_GPU : GVK_DEVICE_CPU;
			lo.gpu_path = fo.gpu_path = v == 1 ? GVK_SNP_PATH_MMA : GVK_SNP_PATH_POPC;
			if (v == 2) lo.gpu_mem = 800 * 3 * 64 * 2 / 3, fo.gpu_db_block = 77, fo.gpu_q_batch = 5; /* a third of the planes */
			gvk_ld_t *le = gvk_ld_create(&lo, &err);
			gvk_fastid_t *fe = gvk_fastid_create(&fo, &err);
			CHECK(le && fe && gvk_ld_matrix_bfile(le, prefix, &m[dev], &err) == 0 &&
			          gvk_fastid_search(fe, qw, (size_t)qs.n, dw, (size_t)db.n, qs.n_snp, &r[dev], &err) == 0,
			      "GPU variant %d, device %d: %s\n", v, dev, err.msg);
			gvk_ld_destroy(le);
			gvk_fastid_destroy(fe);
		}
		if (m[0] && m[1]) {
			size_t bad = 0;
			for (int64_t k = 0; k < m[0]->m * m[0]->m; ++k) bad += !same_value(m[0]->r[k], m[1]->r[k]);
			CHECK(bad == 0, "GPU variant %d: %zu LD values differ from the CPU's\n", v, bad);
		}
		if (r[0] && r[1])
			CHECK(r[0]->k == r[1]->k && r[0]->n_hits == r[1]->n_hits &&
			          !memcmp(r[0]->top, r[1]->top, sizeof *r[0]->top * r[0]->n_queries * (size_t)r[0]->k) &&
			          !memcmp(r[0]->hits, r[1]->hits, sizeof *r[0]->hits * r[0]->n_hits),
			      "GPU variant %d: FastID results differ from the CPU's\n", v);
		printf("GPU variant %d: LD matrix and FastID results = the CPU's\n", v);
		gvk_ld_matrix_free(m[0]), gvk_ld_matrix_free(m[1]);
		gvk_fastid_result_free(r[0]), gvk_fastid_result_free(r[1]);
	}
	free(qw), free(dw);
	fid_prof_free(&qs), fid_prof_free(&db);
}

/* The commands' GVK_SNP_GPU_* variables are checked like options. */
static void cli_env(void)
{
	char cmd[16384];
	path(cmd, sizeof cmd, "GVK_SNP_GPU_PATH=fast %s ld -q --device cpu --bfile %s/ld_edge/edge13x10 --r2 --out %s/env 2>&1 | "
	     "grep -q 'gvk ld: GVK_SNP_GPU_PATH must be auto, popc or mma, not .fast.'", gvk_bin, data_dir, tmp_dir);
	CHECK(run(cmd) == 0, "gvk ld with GVK_SNP_GPU_PATH=fast: no such error\n");
	path(cmd, sizeof cmd, "GVK_SNP_GPU_QBATCH=many %s fastid -q --device cpu %s/fastid/fastid40x500x200.db.fidb "
	     "%s/fastid/fastid40x500x200.queries.fidb 2>&1 | grep -q 'GVK_SNP_GPU_QBATCH must be a whole number'",
	     gvk_bin, data_dir, data_dir);
	CHECK(run(cmd) == 0, "gvk fastid with GVK_SNP_GPU_QBATCH=many: no such error\n");
	path(cmd, sizeof cmd, "GVK_SNP_GPU_PATH=mma GVK_SNP_GPU_MEM=1000 %s ld -q --device cpu --bfile %s/ld_edge/edge13x10 "
	     "--r2 --out %s/env", gvk_bin, data_dir, tmp_dir);
	CHECK(run(cmd) == 0, "gvk ld with valid GVK_SNP_GPU_* on the CPU failed\n");
}

/* device GPU: the GPU or an error, in the library and in both commands; AUTO is silent. */
static void devices(void)
{
	gvk_err_t err = {0, ""};
	gvk_ld_opts_t o;
	gvk_ld_opts_init(&o);
	o.log = (gvk_log_t){count_log, NULL, GVK_LOG_DEBUG};
	o.device = GVK_DEVICE_GPU;
	gvk_ld_t *e = gvk_ld_create(&o, &err);
	if (e) {
		CHECK(!strncmp(gvk_ld_device_name(e), "gpu-", 4), "device gpu named '%s'\n", gvk_ld_device_name(e));
		printf("GPU present (%s): the no-GPU errors are not tested here\n", gvk_ld_device_name(e));
		gvk_ld_destroy(e);
		gpu_equals_cpu();
		return;
	}
	CHECK(err.code == GVK_ERR_GPU || err.code == GVK_ERR_UNSUPPORTED, "ld device gpu: code %d\n", err.code);
	CHECK(strstr(err.msg, "GPU") != NULL, "ld device gpu: message '%s'\n", err.msg);
	printf("ld device gpu without a GPU: %s\n", err.msg);
	gvk_err_t ferr = {0, ""};
	gvk_fastid_opts_t fo;
	gvk_fastid_opts_init(&fo);
	fo.device = GVK_DEVICE_GPU;
	gvk_fastid_t *fe = gvk_fastid_create(&fo, &ferr);
	CHECK(!fe && ferr.code == err.code && !strcmp(ferr.msg, err.msg), "fastid device gpu: '%s'\n", ferr.msg);
	gvk_fastid_destroy(fe);
	/* auto: the CPU without a message */
	o.device = GVK_DEVICE_AUTO;
	e = gvk_ld_create(&o, &err);
	CHECK(e && !strncmp(gvk_ld_device_name(e), "cpu-", 4), "ld device auto: %s\n", e ? gvk_ld_device_name(e) : err.msg);
	int8_t g[6] = {0, 1, 2, 2, 1, 0};
	gvk_ld_matrix_t *m = NULL;
	CHECK(e && gvk_ld_matrix_geno(e, g, 2, 3, GVK_GENO_SNP_MAJOR, &m, &err) == 0, "ld auto run: %s\n", err.msg);
	CHECK(logged == 0, "%d warnings from a CPU run\n", logged);
	gvk_ld_matrix_free(m);
	gvk_ld_destroy(e);
	/* the commands say the library's words and fail before reading anything */
	char cmd[16384], out[4096], line[1024];
	path(out, sizeof out, "%s/device_gpu.err", tmp_dir);
	const char *sub[2] = {"ld --bfile %s/ld_edge/edge13x10 --r2 --out %s/devgpu",
	                      "fastid %s/fastid/fastid40x500x200.db.fidb %s/none"};
	for (int k = 0; k < 2; ++k) {
		char args[8192];
		snprintf(args, sizeof args, sub[k], data_dir, k ? "x" : tmp_dir);
		path(cmd, sizeof cmd, "%s %s --device gpu > /dev/null 2> %s", gvk_bin, args, out);
		int rc = run(cmd);
		FILE *fp = fopen(out, "r");
		line[0] = 0;
		if (fp && !fgets(line, sizeof line, fp)) line[0] = 0;
		if (fp) fclose(fp);
		line[strcspn(line, "\n")] = 0;
		char want[700];
		if (!strncmp(ferr.msg, "no usable ", 10) || !strncmp(ferr.msg, "no GPU (", 8)) snprintf(want, sizeof want, "gvk %s: --device gpu: %s", k ? "fastid" : "ld", ferr.msg);
		else snprintf(want, sizeof want, "gvk %s: --device gpu: no usable GPU (%s)", k ? "fastid" : "ld", ferr.msg);
		CHECK(rc == 1 && !strcmp(line, want), "gvk %s --device gpu: exit %d, '%s' (wanted '%s')\n", k ? "fastid" : "ld",
		      rc, line, want);
	}
}

int main(int argc, char **argv)
{
	if (argc != 4) return fprintf(stderr, "usage: test_snp_api GVK DATA TMPDIR\n"), 2;
	gvk_bin = argv[1], data_dir = argv[2], tmp_dir = argv[3];
	for (int kao = 0; kao < 2; ++kao) /* r^2 does not depend on which allele is A1; r does */
		matrix_case("ld_dummy/dummy203x800", 1, kao);
	matrix_case("ld_dummy/dummy203x800", 0, 1);
	matrix_case("ld_edge/edge13x10", 0, 1);
	matrix_case("ld_phased/phased257x200_miss0.02", 0, 1);
	table_case("ld_dummy/dummy203x800", "r2_window", 1, 0, 0, -1, 0, "--r2 --ld-window-r2 0");
	table_case("ld_dummy/dummy203x800", "r2_default", 1, 0, 0, -1, -1, "--r2");
	table_case("ld_dummy/dummy203x800", "r_window", 0, 0, 0, -1, 0, "--r --ld-window-r2 0");
	table_case("ld_phased/phased257x200_miss0.02", "r2_kb", 1, 0, 25, 5, 0.01,
	           "--r2 --ld-window 25 --ld-window-kb 5 --ld-window-r2 0.01");
	table_case("ld_phased/phased257x200_miss0.02", "r_kb", 0, 0, 40, 2.5, 0.05,
	           "--r --ld-window 40 --ld-window-kb 2.5 --ld-window-r2 0.05");
	table_case("ld_edge/edge13x10", "r2_inter_chr", 1, 1, 0, -1, 0, "--r2 inter-chr --ld-window-r2 0");
	fastid_case(1, 10, 2);
	fastid_case(0, 5, 8);
	fastid_case(0, 600, 60); /* more than the 500 profiles: lists of all 500 */
	bad_ld_opts();
	bad_ld_calls();
	bad_fastid();
	cli_env();
	devices();
	printf("%ld checks, %d failures\n", checks, fails);
	return fails ? 1 : 0;
}
