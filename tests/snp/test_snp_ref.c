/* SPDX-License-Identifier: MIT */
/* Checks gvk's SNP engines against the reference data (tests/data/snp, README tolerances:
 * |diff| <= 5e-7 or relative 5e-6; integer counts and FastID scores exactly).
 *   test_snp_ref text OURS REF          .ld tables and text matrices, token by token
 *   test_snp_ref bin OURS REF 4|8        .ld.bin matrices
 *   test_snp_ref fastid Q DB ID.scores MIX.scores   full score matrices, every CPU kernel
 *   test_snp_ref hap HAP.gz HAPREF.gz [VCOR.gz]     phased D / D' / r / r^2 and raw counts
 *   test_snp_ref api DATA                public gvk.h functions on the edge set and small FastID case */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/lineio.h"
#include "fastid/fidb_io.h"
#include "ld/ld_engine.h"
#include "snp/snp_data.h"

static int close_enough(double a, double b)
{
	if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
	double d = fabs(a - b);
	return d <= 5e-7 || d <= 5e-6 * fabs(b);
}

static int parse_num(const char *s, double *v)
{
	char *end;
	*v = strtod(s, &end);
	return end != s && *end == 0;
}

/* Splits in place on spaces/tabs. */
static int tokens(char *s, char **t, int max)
{
	int n = 0;
	for (char *p = strtok(s, " \t"); p && n < max; p = strtok(NULL, " \t")) t[n++] = p;
	return n;
}

static int cmp_text(const char *ours, const char *ref)
{
	gvk_err_t err = {0, ""};
	gvk_lr_t *a = gvk_lr_open(ours, &err), *b = a ? gvk_lr_open(ref, &err) : NULL;
	if (!a || !b) return fprintf(stderr, "%s\n", err.msg), 1;
	long lines = 0, same = 0, values = 0, bad = 0;
	double maxd = 0;
	char *la, *lb;
	size_t na, nb;
	enum { MAXT = 1 << 16 };
	static char *ta[MAXT], *tb[MAXT];
	for (;;) {
		int ra = gvk_lr_next(a, &la, &na, &err);
		char *ca = ra == 1 ? strdup(la) : NULL;
		int rb = gvk_lr_next(b, &lb, &nb, &err);
		if (ra != rb) {
			fprintf(stderr, "%s: %ld lines, %s has a different count\n", ours, lines, ref);
			free(ca);
			return 1;
		}
		if (ra != 1) break;
		++lines;
		same += strcmp(ca, lb) == 0;
		int ka = tokens(ca, ta, MAXT), kb = tokens(lb, tb, MAXT);
		if (ka != kb) {
			fprintf(stderr, "%s:%ld: %d fields, reference %d\n", ours, lines, ka, kb);
			free(ca);
			return 1;
		}
		for (int k = 0; k < ka; ++k) {
			double x, y;
			if (parse_num(ta[k], &x) && parse_num(tb[k], &y)) {
				++values;
				if (!isnan(x) && !isnan(y) && fabs(x - y) > maxd) maxd = fabs(x - y);
				if (!close_enough(x, y) && bad++ < 5)
					fprintf(stderr, "%s:%ld field %d: %s, reference %s\n", ours, lines, k + 1, ta[k], tb[k]);
			} else if (strcmp(ta[k], tb[k]) != 0 && bad++ < 5) {
				fprintf(stderr, "%s:%ld field %d: '%s', reference '%s'\n", ours, lines, k + 1, ta[k], tb[k]);
			}
		}
		free(ca);
	}
	gvk_lr_close(a);
	gvk_lr_close(b);
	printf("%s: %ld lines (%ld byte-identical), %ld values, max |diff| %.3g, %ld outside tolerance\n", ref, lines, same,
	       values, maxd, bad);
	return bad != 0 || lines == 0;
}

static unsigned char *slurp(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) return NULL;
	fseek(fp, 0, SEEK_END);
	long sz = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	unsigned char *b = malloc((size_t)sz + 1);
	if (b && fread(b, 1, (size_t)sz, fp) != (size_t)sz) free(b), b = NULL;
	fclose(fp);
	*n = (size_t)sz;
	return b;
}

static int cmp_bin(const char *ours, const char *ref, int width)
{
	size_t na, nb;
	unsigned char *a = slurp(ours, &na), *b = slurp(ref, &nb);
	if (!a || !b || na != nb || na % (size_t)width) return fprintf(stderr, "%s: size %zu, reference %zu\n", ours, na, nb), 1;
	size_t n = na / (size_t)width, bad = 0, exact = 0;
	for (size_t i = 0; i < n; ++i) {
		double x, y;
		if (width == 4) {
			float f, g;
			memcpy(&f, a + 4 * i, 4), memcpy(&g, b + 4 * i, 4);
			x = f, y = g;
		} else {
			memcpy(&x, a + 8 * i, 8), memcpy(&y, b + 8 * i, 8);
		}
		exact += memcmp(a + (size_t)width * i, b + (size_t)width * i, (size_t)width) == 0;
		if (!close_enough(x, y) && bad++ < 5) fprintf(stderr, "%s: value %zu: %.9g, reference %.9g\n", ours, i, x, y);
	}
	printf("%s: %zu values (%zu bit-identical), %zu outside tolerance\n", ref, n, exact, bad);
	free(a);
	free(b);
	return bad != 0;
}

static uint16_t *read_scores(const char *path, uint32_t *nq, uint32_t *nd)
{
	size_t n;
	unsigned char *b = slurp(path, &n);
	if (!b || n < 16 || memcmp(b, "FIDS", 4)) return NULL;
	memcpy(nq, b + 4, 4), memcpy(nd, b + 8, 4);
	if (n != 16 + (size_t)*nq * *nd * 2) return NULL;
	uint16_t *s = malloc(n - 16 + 2);
	memcpy(s, b + 16, n - 16);
	free(b);
	return s;
}

static int test_fastid(const char *qp, const char *dp, const char *idp, const char *mixp)
{
	gvk_err_t err = {0, ""};
	fid_prof_t q, d;
	if (fidb_read(qp, &q, &err) < 0 || fidb_read(dp, &d, &err) < 0) return fprintf(stderr, "%s\n", err.msg), 1;
	int fails = 0;
	const char *paths[2] = {idp, mixp};
	pg_op_t ops[2] = {PG_XOR, PG_ANDNOT};
	uint32_t *row = malloc(sizeof *row * (size_t)d.n);
	for (int o = 0; o < 2; ++o) {
		uint32_t nq, nd;
		uint16_t *ref = read_scores(paths[o], &nq, &nd);
		if (!ref || nq != q.n || nd != d.n) return fprintf(stderr, "%s: bad scores file\n", paths[o]), 1;
		const pg_isa_t *sets[3] = {&pg_isa_scalar, pg_isa_word(), pg_isa_select(GVK_ISA_AUTO)};
		for (int v = 0; v < 3; ++v) {
			const pg_isa_t *k = sets[v];
			if (!k || (v == 1 && k == sets[0])) continue;
			long bad = 0;
			for (uint32_t i = 0; i < nq; ++i) {
				k->fid_row(ops[o], q.w + (size_t)i * (size_t)q.stride, d.w, (int)d.n, d.stride, row);
				for (uint32_t j = 0; j < nd; ++j) bad += row[j] != ref[(size_t)i * nd + j];
			}
			printf("%s: %u x %u scores on %s: %ld differ\n", paths[o], nq, nd, k->name, bad);
			fails += bad != 0;
		}
		free(ref);
	}
	free(row);
	fid_prof_free(&q);
	fid_prof_free(&d);
	return fails != 0;
}

/* Phased haplotypes from the .hap text: one line per SNP, 2 characters per sample, '.' missing. */
static int read_hap(const char *path, snp_data_t *d)
{
	gvk_err_t err = {0, ""};
	gvk_lr_t *lr = gvk_lr_open(path, &err);
	if (!lr) return fprintf(stderr, "%s\n", err.msg), -1;
	char **lines = NULL;
	size_t n = 0;
	char *l;
	size_t len;
	while (gvk_lr_next(lr, &l, &len, &err) == 1) {
		lines = realloc(lines, sizeof *lines * (n + 1));
		lines[n++] = strdup(l);
	}
	gvk_lr_close(lr);
	size_t h = strlen(lines[0]);
	if (snp_data_alloc_planes(d, (int64_t)n, (int64_t)h, &err) < 0) return -1;
	d->phased = 1;
	for (size_t i = 0; i < n; ++i) {
		uint64_t *a = snp_plane(d, (int64_t)i, SNP_PA), *v = snp_plane(d, (int64_t)i, SNP_PV);
		for (size_t k = 0; k < h; ++k) {
			if (lines[i][k] == '.') continue;
			v[k >> 6] |= (uint64_t)1 << (k & 63);
			if (lines[i][k] == '1') a[k >> 6] |= (uint64_t)1 << (k & 63);
		}
		snp_data_set_full(d, (int64_t)i);
		free(lines[i]);
	}
	free(lines);
	return 0;
}

typedef struct {
	int64_t m;
	double *r, *dd, *dp; /* m x m, upper triangle filled */
} hapres_t;

static int hap_sink(void *ctx, const ld_stripe_t *s, gvk_err_t *err)
{
	hapres_t *h = ctx;
	(void)err;
	for (int64_t i = s->i0; i < s->i1; ++i)
		for (int64_t j = s->jlo[i - s->i0]; j < s->jhi[i - s->i0]; ++j) {
			size_t o = (size_t)(i - s->i0) * (size_t)s->width + (size_t)(j - s->cbase), t = (size_t)i * (size_t)h->m + (size_t)j;
			h->r[t] = s->r[o], h->dd[t] = s->d[o], h->dp[t] = s->dp[o];
		}
	return 0;
}

static int test_hap(const char *hap, const char *hapref, const char *vcor)
{
	snp_data_t d = {0};
	if (read_hap(hap, &d) < 0) return 1;
	int64_t m = d.n_snp;
	hapres_t h = {m, calloc((size_t)(m * m), 8), calloc((size_t)(m * m), 8), calloc((size_t)(m * m), 8)};
	ld_opt_t o;
	ld_opt_init(&o);
	o.inter_chr = 1;
	o.haplotype = 1;
	o.threads = 2;
	o.stripe_cells = 5000; /* many stripes */
	gvk_err_t err = {0, ""};
	if (ld_run(&d, &o, hap_sink, &h, NULL, &err) < 0) return fprintf(stderr, "%s\n", err.msg), 1;
	gvk_lr_t *lr = gvk_lr_open(hapref, &err);
	if (!lr) return fprintf(stderr, "%s\n", err.msg), 1;
	char *l;
	size_t len;
	long rows = 0, badc = 0, bads = 0, nan_pairs = 0;
	int64_t i = 0, j = 0;
	gvk_lr_next(lr, &l, &len, &err); /* header */
	const pg_isa_t *isa = pg_isa_select(GVK_ISA_AUTO);
	while (gvk_lr_next(lr, &l, &len, &err) == 1) {
		char *t[16];
		if (tokens(l, t, 16) != 14) return fprintf(stderr, "%s: bad line\n", hapref), 1;
		/* Rows are every pair i < j in order. */
		if (++j >= m) ++i, j = i + 1;
		++rows;
		pg_ldcnt_t c;
		ld_counts_pairs(&d, isa, &i, &j, 1, &c);
		badc += c.n != atol(t[4]) || c.sx != atol(t[5]) || c.sy != atol(t[6]) || c.sxy != atol(t[7]);
		size_t k = (size_t)i * (size_t)m + (size_t)j;
		double r = h.r[k], want[4], got[4] = {h.dd[k], r, r * r, h.dp[k]};
		for (int x = 0; x < 4; ++x) parse_num(t[10 + x], &want[x]);
		nan_pairs += isnan(want[1]);
		for (int x = 0; x < 4; ++x)
			if (!close_enough(got[x], want[x]) && bads++ < 5)
				fprintf(stderr, "%s: pair %lld,%lld column %d: %.10g, reference %.10g\n", hapref, (long long)i,
				        (long long)j, 11 + x, got[x], want[x]);
	}
	gvk_lr_close(lr);
	printf("%s: %ld pairs (%ld undefined), counts differ %ld, statistics outside tolerance %ld\n", hapref, rows, nan_pairs,
	       badc, bads);
	int fail = badc || bads || rows != m * (m - 1) / 2;
	if (vcor) {
		/* PLINK 2 signs D and D' against the major alleles: flip when exactly one ALT is major. */
		lr = gvk_lr_open(vcor, &err);
		if (!lr) return fprintf(stderr, "%s\n", err.msg), 1;
		long vr = 0, vbad = 0;
		gvk_lr_next(lr, &l, &len, &err);
		/* IDs are v<index>. */
		while (gvk_lr_next(lr, &l, &len, &err) == 1) {
			char *t[32];
			if (tokens(l, t, 32) != 19) return fprintf(stderr, "%s: bad line\n", vcor), 1;
			int64_t a = atol(t[2] + 1), b = atol(t[10] + 1);
			size_t k = (size_t)a * (size_t)m + (size_t)b;
			int flip = (strcmp(t[5], t[4]) == 0) != (strcmp(t[13], t[12]) == 0);
			double w[3], g[3] = {h.r[k] * h.r[k], flip ? -h.dd[k] : h.dd[k], flip ? -h.dp[k] : h.dp[k]};
			for (int x = 0; x < 3; ++x) parse_num(t[16 + x], &w[x]);
			++vr;
			for (int x = 0; x < 3; ++x)
				if (!close_enough(g[x], w[x]) && vbad++ < 5)
					fprintf(stderr, "%s: %s %s column %d: %.10g, reference %.10g\n", vcor, t[2], t[10], 17 + x, g[x], w[x]);
		}
		gvk_lr_close(lr);
		printf("%s: %ld pairs, outside tolerance %ld\n", vcor, vr, vbad);
		fail |= vbad != 0 || vr != m * (m - 1) / 2 - nan_pairs;
	}
	free(h.r), free(h.dd), free(h.dp);
	snp_data_free(&d);
	return fail;
}

/* gvk_ld_matrix_bfile against the text matrix, gvk_fastid_search against the top-10 list. */
static int test_api(const char *data)
{
	char p[4096], q[4096];
	gvk_err_t err = {0, ""};
	int fails = 0;
	snprintf(p, sizeof p, "%s/ld_edge/edge13x10", data);
	gvk_ld_opts_t lo;
	gvk_ld_opts_init(&lo);
	lo.r2 = 0, lo.threads = 2, lo.device = GVK_DEVICE_CPU;
	gvk_ld_t *le = gvk_ld_create(&lo, &err);
	gvk_ld_matrix_t *lm = NULL;
	if (!le || gvk_ld_matrix_bfile(le, p, &lm, &err) < 0) return fprintf(stderr, "gvk_ld_matrix_bfile: %s\n", err.msg), 1;
	gvk_ld_destroy(le);
	const double *mat = lm->r;
	int64_t m = lm->m;
	snprintf(q, sizeof q, "%s/ld_edge/edge13x10.r_square.ld", data);
	FILE *fp = fopen(q, "r");
	long checked = 0;
	for (int64_t k = 0; fp && k < m * m; ++k) {
		char tok[64];
		double v;
		if (fscanf(fp, "%63s", tok) != 1 || !parse_num(tok, &v)) break;
		fails += !close_enough(mat[k], v);
		++checked;
	}
	if (fp) fclose(fp);
	gvk_ld_matrix_free(lm);
	fails += checked != 100;
	printf("gvk_ld_matrix_bfile: %ld cells checked, %d failures\n", checked, fails);

	fid_prof_t qs, db;
	snprintf(p, sizeof p, "%s/fastid/fastid40x500x200.queries.fidb", data);
	snprintf(q, sizeof q, "%s/fastid/fastid40x500x200.db.fidb", data);
	if (fidb_read(p, &qs, &err) < 0 || fidb_read(q, &db, &err) < 0) return fprintf(stderr, "%s\n", err.msg), 1;
	/* The public call takes unpadded profiles of ceil(S/64) words. */
	uint64_t *qw = malloc(sizeof *qw * (size_t)(qs.n * qs.nw)), *dw = malloc(sizeof *dw * (size_t)(db.n * db.nw));
	for (int64_t i = 0; i < qs.n; ++i) memcpy(qw + i * qs.nw, qs.w + i * qs.stride, 8 * (size_t)qs.nw);
	for (int64_t i = 0; i < db.n; ++i) memcpy(dw + i * db.nw, db.w + i * db.stride, 8 * (size_t)db.nw);
	gvk_fastid_opts_t o;
	gvk_fastid_opts_init(&o);
	o.mixture = 1, o.topk = 10, o.threshold = 2, o.threads = 2, o.device = GVK_DEVICE_CPU;
	gvk_fastid_t *fe = gvk_fastid_create(&o, &err);
	gvk_fastid_result_t *res = NULL;
	if (!fe || gvk_fastid_search(fe, qw, (size_t)qs.n, dw, (size_t)db.n, qs.n_snp, &res, &err) < 0)
		return fprintf(stderr, "gvk_fastid_search: %s\n", err.msg), 1;
	gvk_fastid_destroy(fe);
	const gvk_fastid_hit_t *top = res->top;
	size_t nh = res->n_hits;
	snprintf(p, sizeof p, "%s/fastid/fastid40x500x200.top10_mixture.tsv", data);
	fp = fopen(p, "r");
	char line[256];
	long rows = 0, bad = 0;
	if (fp && fgets(line, sizeof line, fp))
		while (fgets(line, sizeof line, fp)) {
			long qq, r, dd, sc;
			if (sscanf(line, "%ld %ld %ld %ld", &qq, &r, &dd, &sc) != 4) break;
			gvk_fastid_hit_t h = top[qq * 10 + r];
			bad += h.query != (uint32_t)qq || h.db != dd || h.score != (uint32_t)sc;
			++rows;
		}
	if (fp) fclose(fp);
	printf("gvk_fastid_search: %ld top-10 rows checked, %ld differ, %zu hits <= 2\n", rows, bad, nh);
	fails += bad != 0 || rows != qs.n * 10 || nh != 952;
	gvk_fastid_result_free(res), free(qw), free(dw);
	fid_prof_free(&qs), fid_prof_free(&db);
	return fails != 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "api")) return test_api(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "text")) return cmp_text(argv[2], argv[3]);
	if (argc == 5 && !strcmp(argv[1], "bin")) return cmp_bin(argv[2], argv[3], atoi(argv[4]));
	if (argc == 6 && !strcmp(argv[1], "fastid")) return test_fastid(argv[2], argv[3], argv[4], argv[5]);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "hap")) return test_hap(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
	fprintf(stderr, "usage: see the comment at the top of test_snp_ref.c\n");
	return 2;
}
