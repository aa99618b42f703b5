/* SPDX-License-Identifier: MIT */
/* Random inputs of awkward sizes (samples not a multiple of 64, SNP counts not a multiple of any
 * tile): every CPU kernel and the threaded, striped engines must equal a naive loop exactly on
 * the integer counts and bit for bit on the statistics computed from them.
 * Usage: test_snp_random SEED [TMPDIR] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cpu_features.h"
#include "fastid/fastid_engine.h"
#include "ld/ld_engine.h"
#include "ld/ld_write.h"
#include "snp/plink_io.h"
#include "snp/plink_io_bim.h"
#include "snp/snp_data.h"

#include "test_planes.h"
#include "test_rng.h"

static int fails;

/* The SVE kernels at whatever vector length this CPU has (AUTO takes them only from 256 bits). */
static const pg_isa_t *sve_set(void)
{
#if defined(GVK_HAVE_SVE)
	return cpu_has(CPUF_SVE) ? &pg_isa_sve : NULL;
#else
	return NULL;
#endif
}
#define CHECK(c, ...) do { if (!(c)) { if (fails++ < 10) fprintf(stderr, __VA_ARGS__); } } while (0)

/* Genotypes g[i * n + s] in {-1 (missing), 0, 1, 2}. */
static void make_data(snp_data_t *d, int8_t *g, int64_t m, int64_t n, double miss)
{
	gvk_err_t err;
	snp_data_alloc_planes(d, m, n, &err);
	d->var = calloc((size_t)m, sizeof *d->var);
	for (int64_t i = 0; i < m; ++i) {
		double p = unif(), mi = (i % 3 == 0) ? 0.0 : miss; /* a third of the SNPs have no missing call */
		if (i % 7 == 5) p = 0.0;                           /* monomorphic */
		for (int64_t s = 0; s < n; ++s) {
			int x = (unif() < p) + (unif() < p);
			if (i % 11 == 4) x = 1;                        /* all heterozygous */
			if (unif() < mi) x = -1;
			g[i * n + s] = (int8_t)x;
			if (x < 0) continue;
			test_put_call(d, i, s, x);
		}
		snp_data_set_full(d, i);
	}
}

static pg_ldcnt_t naive(const int8_t *g, int64_t n, int64_t i, int64_t j)
{
	pg_ldcnt_t c = {0, 0, 0, 0, 0, 0};
	for (int64_t s = 0; s < n; ++s) {
		int x = g[i * n + s], y = g[j * n + s];
		if (x < 0 || y < 0) continue;
		c.n++, c.sx += x, c.sy += y, c.sxx += x * x, c.syy += y * y, c.sxy += x * y;
	}
	return c;
}

typedef struct {
	const int8_t *g;
	int64_t n, m;
	int r2;
	long checked;
} sink_t;

static int sink(void *ctx, const ld_stripe_t *s, gvk_err_t *err)
{
	sink_t *k = ctx;
	(void)err;
	for (int64_t i = s->i0; i < s->i1; ++i)
		for (int64_t j = s->jlo[i - s->i0]; j < s->jhi[i - s->i0]; ++j) {
			pg_ldcnt_t c = naive(k->g, k->n, i, j);
			double want = ld_value_genotype(&c, k->r2, 0);
			double got = s->r[(size_t)(i - s->i0) * (size_t)s->width + (size_t)(j - s->cbase)];
			CHECK((isnan(want) && isnan(got)) || want == got, "engine pair %lld,%lld: %.17g vs %.17g\n", (long long)i,
			      (long long)j, got, want);
			k->checked++;
		}
	return 0;
}

static void test_ld(int64_t m, int64_t n, double miss)
{
	snp_data_t d = {0};
	int8_t *g = malloc((size_t)(m * n) + 1);
	make_data(&d, g, m, n, miss);
	/* Every kernel, every pair, exact counts. */
	int64_t np = m * m;
	int64_t *ii = malloc(sizeof *ii * (size_t)np), *jj = malloc(sizeof *jj * (size_t)np);
	pg_ldcnt_t *c = malloc(sizeof *c * (size_t)np);
	for (int64_t k = 0; k < np; ++k) ii[k] = k / m, jj[k] = k % m;
	int kernels = 0;
	const pg_isa_t *cand[5] = {pg_isa_select(GVK_ISA_SCALAR), pg_isa_select(GVK_ISA_AVX512), pg_isa_word(),
	                           pg_isa_select(GVK_ISA_NEON), sve_set()};
	for (int v0 = 0; v0 < 5; ++v0) {
		const pg_isa_t *k = cand[v0];
		if (!k) continue;
		kernels++;
		const pg_isa_t *sets[2] = {k, v0 == 0 ? &pg_isa_scalar : NULL};
		for (int v = 0; v < 2 && sets[v]; ++v) {
			ld_counts_pairs(&d, sets[v], ii, jj, (size_t)np, c);
			for (int64_t p = 0; p < np; ++p) {
				pg_ldcnt_t w = naive(g, n, ii[p], jj[p]);
				CHECK(!memcmp(&w, &c[p], sizeof w), "%s %lldx%lld pair %lld,%lld: n %d/%d sx %d/%d sxy %d/%d\n",
				      sets[v]->name, (long long)m, (long long)n, (long long)ii[p], (long long)jj[p], c[p].n, w.n,
				      c[p].sx, w.sx, c[p].sxy, w.sxy);
			}
		}
	}
	/* The engine in every shape, with small stripes and several threads. */
	int shapes[4] = {LD_SQUARE, LD_TRIANGLE, LD_TABLE, LD_TABLE};
	for (int sh = 0; sh < 4; ++sh) {
		ld_opt_t o;
		ld_opt_init(&o);
		o.shape = shapes[sh];
		o.inter_chr = sh == 3;
		o.win_snps = 5;
		o.threads = 1 + sh % 3;
		o.stripe_cells = 37 + 100 * (size_t)sh;
		o.r2 = sh & 1;
		sink_t k = {g, n, m, o.r2, 0};
		gvk_err_t err;
		for (int64_t i = 0; i < m; ++i) d.var[i].chr = "1", d.var[i].bp = i;
		ld_run(&d, &o, sink, &k, NULL, &err);
		long want = sh == 0 ? (long)(m * m) : sh == 1 ? (long)(m * (m + 1) / 2) : sh == 3 ? (long)(m * (m - 1) / 2) : 0;
		if (sh == 2)
			for (int64_t i = 0; i < m; ++i) want += (long)((m - 1 - i) < 4 ? (m - 1 - i) : 4);
		CHECK(k.checked == want, "shape %d: %ld pairs, expected %ld\n", sh, k.checked, want);
	}
	printf("LD %lld SNPs x %lld samples, missing %.2f: %d kernel sets + engine shapes checked\n", (long long)m,
	       (long long)n, miss, kernels);
	free(ii), free(jj), free(c), free(g);
	snp_data_free(&d);
}

static int hit_cmp(const void *pa, const void *pb)
{
	const fid_hit_t *a = pa, *b = pb;
	if (a->q != b->q) return a->q < b->q ? -1 : 1;
	if (a->score != b->score) return a->score < b->score ? -1 : 1;
	return a->db < b->db ? -1 : a->db > b->db;
}

static void test_fastid(int64_t nq, int64_t nd, uint32_t ns, int topk, int64_t thr)
{
	fid_prof_t q, d;
	gvk_err_t err;
	fid_prof_alloc(&q, nq, ns, &err);
	fid_prof_alloc(&d, nd, ns, &err);
	fid_prof_t *ps[2] = {&q, &d};
	for (int t = 0; t < 2; ++t)
		for (int64_t i = 0; i < ps[t]->n; ++i)
			for (uint32_t j = 0; j < ns; ++j)
				if (unif() < 0.15) ps[t]->w[(size_t)i * (size_t)ps[t]->stride + j / 64] |= (uint64_t)1 << (j % 64);
	/* duplicates make ties */
	if (nd > 3) memcpy(d.w + 2 * (size_t)d.stride, d.w, 8 * (size_t)d.stride);
	fid_hit_t *all = malloc(sizeof *all * (size_t)(nq * nd));
	uint32_t *row = malloc(sizeof *row * (size_t)nd);
	for (int op = 0; op < 2; ++op) {
		pg_op_t o = op ? PG_ANDNOT : PG_XOR;
		for (int64_t i = 0; i < nq; ++i)
			for (int64_t j = 0; j < nd; ++j) {
				uint32_t s = 0;
				for (int w = 0; w < q.nw; ++w) {
					uint64_t a = q.w[(size_t)i * (size_t)q.stride + (size_t)w], b = d.w[(size_t)j * (size_t)d.stride + (size_t)w];
					s += (uint32_t)__builtin_popcountll(o == PG_XOR ? a ^ b : b & ~a);
				}
				all[i * nd + j] = (fid_hit_t){j, (uint32_t)i, s};
			}
		/* the engine runs the SVE set through AUTO, which takes it from 256 bits */
		static const int isas[4] = {GVK_ISA_SCALAR, GVK_ISA_AVX512, GVK_ISA_NEON, GVK_ISA_AUTO};
		for (int v = 0; v < 4; ++v) {
			const int isa = isas[v];
			const pg_isa_t *k = v < 3 ? pg_isa_select(isa) : sve_set();
			if (!k) continue;
			for (int64_t i = 0; i < nq; ++i) {
				k->fid_row(o, q.w + (size_t)i * (size_t)q.stride, d.w, (int)nd, d.stride, row);
				for (int64_t j = 0; j < nd; ++j)
					CHECK(row[j] == all[i * nd + j].score, "%s fastid %lld,%lld\n", k->name, (long long)i, (long long)j);
			}
			for (int th = 1; th <= 3; th += 2) {
				fid_job_t job = {&q, &d, o, topk, thr, th, isa, GVK_DEVICE_CPU, 0, {0}};
				fid_result_t res;
				if (fid_search(&job, &res, &err) < 0) {
					CHECK(0, "fid_search: %s\n", err.msg);
					continue;
				}
				fid_hit_t *sorted = malloc(sizeof *sorted * (size_t)(nq * nd));
				memcpy(sorted, all, sizeof *sorted * (size_t)(nq * nd));
				qsort(sorted, (size_t)(nq * nd), sizeof *sorted, hit_cmp);
				int k2 = topk < nd ? topk : (int)nd;
				CHECK(res.k == k2, "top-k size\n");
				for (int64_t i = 0; i < nq; ++i)
					for (int r = 0; r < k2; ++r) {
						fid_hit_t a = res.top[i * k2 + r], b = sorted[i * nd + r];
						CHECK(a.db == b.db && a.score == b.score && a.q == b.q, "top-k q %lld rank %d: db %lld/%lld\n",
						      (long long)i, r, (long long)a.db, (long long)b.db);
					}
				size_t nh = 0;
				for (int64_t x = 0; x < nq * nd; ++x)
					if (sorted[x].score <= (uint64_t)thr) {
						CHECK(nh < res.n_hits && !hit_cmp(&sorted[x], &res.hits[nh]), "threshold hit %zu\n", nh);
						nh++;
					}
				CHECK(nh == res.n_hits, "threshold hits %zu vs %zu\n", res.n_hits, nh);
				free(sorted);
				fid_result_free(&res);
			}
		}
	}
	printf("FastID %lld x %lld x %u SNPs: kernels, top-%d and threshold %lld checked\n", (long long)nq, (long long)nd, ns,
	       topk, (long long)thr);
	free(all), free(row);
	fid_prof_free(&q), fid_prof_free(&d);
}

/* PLINK's rounding as an independent oracle: printf's %g, except when the value scaled to six
 * digits (in long double) lies within PLINK's tie band of +-5e-9 of a half: then half to even,
 * obtained from printf on the value moved clearly to that side. 0 when too close to the band's
 * edge to tell (skipped). */
static int plink_g(char *out, double v)
{
	long double a = fabsl((long double)v);
	if (a == 0 || !isfinite(v)) return snprintf(out, 64, "%g", v), 1;
	int e = (int)floorl(log10l(a));
	long double sc = a * powl(10.0L, (long double)(5 - e));
	if (sc >= 999999.5L) sc /= 10; /* log10 just below an integer */
	if (sc < 99999.5L) sc *= 10;
	long double fl = floorl(sc), off = fabsl(sc - fl - 0.5L);
	if (off > 4.9e-9L && off < 5.1e-9L) return 0;
	if (off >= 5e-9L) return snprintf(out, 64, "%g", v), 1;
	int odd = (long long)fl & 1;
	return snprintf(out, 64, "%g", v * (odd ? 1 + 1e-11 : 1 - 1e-11)), 1;
}

/* The number formatter against the oracle on random values of every magnitude and on values
 * at and next to rounding ties and powers of ten. */
static void test_format(void)
{
	char a[64], b[64];
	long n = 0, ties = 0;
	for (int k = 0; k < 2000000; ++k) {
		double v;
		switch (k % 4) {
		case 0: v = unif(); break;
		case 1: v = pow(10.0, -8.0 + 15.0 * unif()) * (unif() < 0.5 ? -1 : 1); break;
		case 2: { /* 6-digit ties and their neighbours */
			double t = (double)(100000 + (long)(unif() * 899999)) + 0.5;
			v = t * pow(10.0, -(double)(1 + (long)(unif() * 10)));
			v = unif() < 0.33 ? nextafter(v, 0) : unif() < 0.5 ? nextafter(v, 1e9) : v;
			break;
		}
		default: v = pow(10.0, (double)((long)(unif() * 14) - 7)); v = unif() < 0.5 ? nextafter(v, 0) : v; break;
		}
		if (!plink_g(b, v)) continue;
		int l = ld_fmt_g(a, v);
		char p[64];
		snprintf(p, sizeof p, "%g", v);
		ties += strcmp(b, p) != 0;
		CHECK(!strcmp(a, b) && l == (int)strlen(b), "format %.17g: '%s' vs PLINK's '%s'\n", v, a, b);
		++n;
	}
	ld_fmt_g(a, -NAN);
	CHECK(!strcmp(a, "nan"), "nan\n");
	ld_fmt_g(a, -0.0);
	CHECK(!strcmp(a, "0"), "-0 as PLINK prints it: %s\n", a);
	printf("number format: %ld values as PLINK prints them (%ld of them unlike printf %%g)\n", n, ties);
}

/* A random fileset read back through both .bed decoders (every sample a founder: whole bytes;
 * with non-founders: sample by sample), with and without the minor-allele swap, against a
 * naive decode of the 2-bit codes. */
static void test_bed(const char *dir, int64_t n, int64_t m)
{
	char pre[1024], path[1100];
	snprintf(pre, sizeof pre, "%s/rnd", dir);
	uint8_t *codes = malloc((size_t)(n * m));
	int64_t bpr = (n + 3) / 4;
	snprintf(path, sizeof path, "%s.bed", pre);
	FILE *fp = fopen(path, "wb");
	fputc(0x6c, fp), fputc(0x1b, fp), fputc(0x01, fp);
	for (int64_t i = 0; i < m; ++i) {
		double p = unif();
		for (int64_t b = 0; b < bpr; ++b) {
			int byte = 0;
			for (int k = 0; k < 4 && 4 * b + k < n; ++k) {
				int x = (unif() < p) + (unif() < p), c = x == 2 ? 0 : x == 1 ? 2 : 3;
				if (unif() < 0.05) c = 1;
				codes[i * n + 4 * b + k] = (uint8_t)c;
				byte |= c << (2 * k);
			}
			fputc(byte, fp);
		}
	}
	fclose(fp);
	snprintf(path, sizeof path, "%s.bim", pre);
	fp = fopen(path, "w");
	for (int64_t i = 0; i < m; ++i) fprintf(fp, "1 s%lld 0 %lld A C\n", (long long)i, (long long)i + 1);
	fclose(fp);
	for (int fam = 0; fam < 2; ++fam) {
		snprintf(path, sizeof path, "%s.fam", pre);
		fp = fopen(path, "w");
		/* fam 1: samples 3, 6, 9, ... have sample 1 as father (so they are not founders). */
		for (int64_t s = 0; s < n; ++s)
			fprintf(fp, "F i%lld %s 0 1 -9\n", (long long)s, fam && s % 3 == 0 && s != 1 ? "i1" : "0");
		fclose(fp);
		for (int kao = 0; kao < 2; ++kao) {
			snp_data_t d = {0};
			snp_plink_opt_t o = {kao, 0};
			gvk_err_t err;
			if (snp_read_bfile(pre, &o, &d, &err) < 0) {
				CHECK(0, "read %s: %s\n", pre, err.msg);
				continue;
			}
			int64_t kept = 0;
			for (int64_t i = 0; i < m; ++i) {
				int64_t c[4] = {0, 0, 0, 0};
				for (int64_t s = 0; s < n; ++s)
					if (!(fam && s % 3 == 0 && s != 1)) c[codes[i * n + s]]++;
				int swap = !kao && 2 * c[3] + c[2] < 2 * c[0] + c[2];
				CHECK(!strcmp(d.var[i].a1, swap ? "C" : "A"), "bed %d/%d SNP %lld: A1 %s\n", fam, kao, (long long)i, d.var[i].a1);
				int64_t k = 0;
				for (int64_t s = 0; s < n; ++s) {
					if (fam && s % 3 == 0 && s != 1) continue;
					int cd = codes[i * n + s], x = cd == 1 ? -1 : cd == 0 ? 2 : cd == 2 ? 1 : 0;
					if (swap && x >= 0) x = 2 - x;
					int a = (int)(snp_plane(&d, i, SNP_PA)[k >> 6] >> (k & 63) & 1);
					int b = (int)(snp_plane(&d, i, SNP_PB)[k >> 6] >> (k & 63) & 1);
					int v = (int)(snp_plane(&d, i, SNP_PV)[k >> 6] >> (k & 63) & 1);
					CHECK(v == (x >= 0) && a == (x >= 1) && b == (x == 2), "bed %d/%d SNP %lld sample %lld\n", fam, kao,
					      (long long)i, (long long)s);
					++k;
				}
				kept = k;
				for (int64_t t = k; t < (int64_t)d.nw * 64; ++t)
					for (int p = 0; p < SNP_PLANES; ++p)
						CHECK(!(snp_plane(&d, i, p)[t >> 6] >> (t & 63) & 1), "bed padding bit %lld set\n", (long long)t);
			}
			CHECK(d.n_bits == kept, "bed columns %lld vs %lld\n", (long long)d.n_bits, (long long)kept);
			snp_data_free(&d);
		}
	}
	printf("PLINK .bed decode %lld samples x %lld SNPs: both decoders, with and without the A1 swap\n", (long long)n,
	       (long long)m);
	free(codes);
}

/* snp_chr_runs on 1..5 threads against a walk over the table: runs of random lengths (many of one
 * SNP), names shared by pointer within a run or only equal by content across a slice's edge, and
 * a chromosome that comes back later as a run of its own. */
static void test_chr_runs(int64_t m)
{
	static const char *names[] = {"1", "2", "X", "5"};
	char copy[2][2] = {"2", "2"};
	snp_data_t d = {0};
	d.n_snp = m;
	d.var = calloc((size_t)m + 1, sizeof *d.var);
	int64_t *want = malloc(sizeof *want * (size_t)(m + 1)), n_want = 0;
	for (int64_t i = 0, c = 0; i < m; ++c) {
		int64_t len = next() % 3 == 0 ? 1 : 1 + (int64_t)(next() % 5000);
		want[n_want++] = i;
		for (int64_t k = 0; k < len && i < m; ++k, ++i)
			d.var[i].chr = c % 4 == 1 ? copy[k & 1] : names[c % 4];
	}
	want[n_want] = m;
	for (int nt = 1; nt <= 5; ++nt) {
		int64_t *got = NULL, n = -1;
		if (snp_chr_runs(&d, nt, &got, &n) < 0 || n != n_want || memcmp(got, want, sizeof *got * (size_t)(n + 1))) {
			fprintf(stderr, "FAIL snp_chr_runs m=%lld threads=%d: %lld runs, want %lld\n", (long long)m, nt, (long long)n,
			        (long long)n_want);
			++fails;
		}
		free(got);
	}
	free(d.var), free(want);
}

/* Whether two orders are the same, field by field (bases bit for bit: -0 is not 0). */
static int same_order(const snp_bim_order_t *x, const snp_bim_order_t *y)
{
	if (x->n_run != y->n_run || x->split_line != y->split_line || x->n_base != y->n_base) return 0;
	if (x->split_line && strcmp(x->names + x->split_name, y->names + y->split_name)) return 0;
	for (int64_t k = 0; k < x->n_run; ++k) {
		const snp_bim_run_t *a = &x->run[k], *b = &y->run[k];
		if (a->line != b->line || a->bp_line != b->bp_line || a->cm_line != b->cm_line || strcmp(x->names + a->name, y->names + b->name))
			return 0;
	}
	return !memcmp(x->base_bp, y->base_bp, sizeof *x->base_bp * (size_t)x->n_base) &&
	       !memcmp(x->base_cm, y->base_cm, sizeof *x->base_cm * (size_t)x->n_base);
}

/* snp_bim_order_rows on 2-7 threads against one: runs of random lengths, a chromosome that comes
 * back, positions and cM values that mostly rise but sometimes fall, equal or negative positions,
 * cM fields "0", cM values 0 and -0, and (nan set) a cM value that is not a number. */
static void test_bim_order(int64_t m, int nan)
{
	static const char *names[] = {"1", "2", "X", "1", "25"};
	snp_var_t *v = calloc((size_t)m + 1, sizeof *v);
	uint8_t *flag = calloc((size_t)m + 1, 1);
	for (int64_t i = 0, c = 0; i < m; ++c) {
		/* a run falls at most once in position and once in cM, anywhere along it; every other run
		 * has only cM values 0 and -0 */
		int64_t len = next() % 4 == 0 ? 1 + (int64_t)(next() % 3) : 1 + (int64_t)(next() % 150000), bp = 0;
		int64_t fall_bp = (int64_t)(next() % (uint64_t)(2 * len)), fall_cm = (int64_t)(next() % (uint64_t)(2 * len));
		int zeros = c % 2;
		double cm = 0;
		for (int64_t k = 0; k < len && i < m; ++k, ++i) {
			uint64_t r = next();
			bp += k == fall_bp ? -1000 : (int64_t)(r % 100);
			cm += k == fall_cm ? -0.5 : (double)(r % 7) * 0.001;
			v[i].chr = names[c % 5], v[i].bp = r % 20 == 0 ? -1 : bp;
			v[i].cm = zeros ? (r >> 8 & 1 ? -0.0 : 0.0) : cm;
			flag[i] = r % 9 == 0;
			if (i % 64 == 0 && r >> 9 & 1) v[i].bp = -1, flag[i] = 1; /* where a slice may start: holds the state handed over */
		}
	}
	if (nan) v[m / 2].cm = NAN, flag[m / 2] = 0;
	snp_bim_order_t one = {0};
	if (snp_bim_order_rows(v, flag, 1, m, 1, &one) < 0) ++fails;
	for (int nt = 2; nt <= 7; ++nt) {
		snp_bim_order_t many = {0};
		if (snp_bim_order_rows(v, flag, 1, m, nt, &many) < 0 || !same_order(&one, &many)) {
			fprintf(stderr, "FAIL snp_bim_order_rows m=%lld nan=%d threads=%d differs from one thread\n", (long long)m, nan, nt);
			++fails;
		}
		snp_bim_order_free(&many);
	}
	snp_bim_order_free(&one);
	free(v), free(flag);
}

int main(int argc, char **argv)
{
	rng = argc > 1 ? strtoull(argv[1], NULL, 10) * 2654435761u + 88172645463325252ull : 88172645463325252ull;
	test_format();
	test_chr_runs(1);
	test_chr_runs(300000);
	test_bim_order(70000, 0);
	test_bim_order(400001, 0);
	test_bim_order(200000, 1);
	const char *dir = argc > 2 ? argv[2] : "/tmp";
	test_bed(dir, 203, 41);
	test_bed(dir, 64, 7);
	test_bed(dir, 13, 10);
	test_ld(1, 1, 0.0);
	test_ld(5, 13, 0.1);
	test_ld(37, 63, 0.02);
	test_ld(41, 65, 0.3);
	test_ld(23, 203, 0.02);
	test_ld(19, 577, 0.0);
	test_ld(13, 1000, 0.05);
	test_ld(3, 270001, 0.01); /* crosses the AVX-512 kernel's 4096-word chunk */
	test_fastid(7, 1, 1, 10, 0);
	test_fastid(9, 131, 63, 10, 5);
	test_fastid(13, 257, 200, 10, 20);
	test_fastid(5, 1000, 1025, 25, 160);
	if (fails) fprintf(stderr, "%d failures\n", fails);
	return fails != 0;
}
