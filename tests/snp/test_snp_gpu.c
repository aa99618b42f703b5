/* SPDX-License-Identifier: MIT */
/* GPU = CPU exactly: LD values (every shape, r and r^2, bin4's float path, phased D/D'/r, striped
 * runs) compared bit for bit with both count kernels forced (CUDA cores, tensor cores), and FastID top-k lists and threshold hits (every operation, ties,
 * database blocks and query batches) compared entry for entry, on random inputs of odd sizes.
 * Exit 77 when no GPU is usable. Usage: test_snp_gpu SEED [small] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "fastid/fastid_engine.h"
#include "ld/ld_engine.h"
#include "snp/snp_data.h"
#include "snp/snp_gpu.h"

#include "test_planes.h"
#include "test_rng.h"

static int fails;
static long compared;
#define CHECK(c, ...) do { if (!(c)) { if (fails++ < 10) fprintf(stderr, __VA_ARGS__); } } while (0)

/* Genotypes, or haplotypes when phased (A = allele 1, B = 0); some SNPs full, monomorphic or
 * all heterozygous so that every epilogue branch is taken. */
static void make_data(snp_data_t *d, int64_t m, int64_t n, double miss, int phased)
{
	gvk_err_t err;
	if (snp_data_alloc_planes(d, m, n, &err) < 0 || !(d->var = calloc((size_t)m, sizeof *d->var))) exit(1);
	d->phased = phased;
	for (int64_t i = 0; i < m; ++i) {
		double p = unif(), mi = (i % 3 == 0) ? 0.0 : miss;
		if (i % 7 == 5) p = 0.0;
		d->var[i].chr = i < m / 2 ? "1" : "2";
		d->var[i].bp = i * 1000;
		d->var[i].cm = 0.01 * (double)i;
		for (int64_t s = 0; s < n; ++s) {
			if (unif() < mi) continue;
			int x = phased ? unif() < p : (unif() < p) + (unif() < p);
			if (!phased && i % 11 == 4) x = 1;
			test_put_call(d, i, s, x);
		}
		snp_data_set_full(d, i);
	}
}

typedef struct {
	double *v;
	size_t n, cap;
	int hap;
} vals_t;

static int push(vals_t *a, double x)
{
	if (a->n == a->cap) {
		size_t nc = a->cap ? 2 * a->cap : 4096;
		double *nv = realloc(a->v, nc * sizeof *nv);
		if (!nv) return -1;
		a->v = nv, a->cap = nc;
	}
	a->v[a->n++] = x;
	return 0;
}

static int collect(void *ctx, const ld_stripe_t *s, gvk_err_t *err)
{
	vals_t *a = ctx;
	for (int64_t i = s->i0; i < s->i1; ++i)
		for (int64_t j = s->jlo[i - s->i0]; j < s->jhi[i - s->i0]; ++j) {
			size_t c = (size_t)(i - s->i0) * (size_t)s->width + (size_t)(j - s->cbase);
			if (push(a, (double)i) < 0 || push(a, (double)j) < 0 || push(a, s->r[c]) < 0 ||
			    (a->hap && (push(a, s->d[c]) < 0 || push(a, s->dp[c]) < 0)))
				return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		}
	return 0;
}

static const char *path_name(int path) { return path == GVK_SNP_PATH_MMA ? "mma" : path == GVK_SNP_PATH_POPC ? "popc" : "auto"; }

/* The CPU against the GPU with its count kernel forced (path: GVK_SNP_PATH_*). */
static void run_ld_path(const snp_data_t *d, const ld_opt_t *base, const char *what0, int path)
{
	vals_t v[2] = {{0}, {0}};
	char what[200];
	snprintf(what, sizeof what, "%s [%s]", what0, path_name(path));
	for (int dev = 0; dev < 2; ++dev) {
		ld_opt_t o = *base;
		o.device = dev ? GVK_DEVICE_GPU : GVK_DEVICE_CPU;
		o.gpu.path = path;
		v[dev].hap = o.haplotype;
		gvk_err_t err;
		ld_report_t rep;
		if (ld_run(d, &o, collect, &v[dev], &rep, &err) < 0) {
			CHECK(0, "%s on %s: %s\n", what, dev ? "GPU" : "CPU", err.msg);
			free(v[0].v), free(v[1].v);
			return;
		}
		/* the report names the kernel that ran: "... popc" / "... bmma" when a count kernel ran */
		CHECK(!dev || rep.pairs == 0 || strstr(rep.kernel, path == GVK_SNP_PATH_MMA ? "bmma" : "popc"),
		      "%s: kernel reported as '%s'\n", what, rep.kernel);
	}
	CHECK(v[0].n == v[1].n, "%s: %zu values on the CPU, %zu on the GPU\n", what, v[0].n, v[1].n);
	if (v[0].n == v[1].n) {
		size_t bad = 0, first = 0;
		for (size_t k = 0; k < v[0].n; ++k)
			if (memcmp(&v[0].v[k], &v[1].v[k], sizeof(double)) != 0 && bad++ == 0) first = k;
		CHECK(bad == 0, "%s: %zu of %zu values differ, first at %zu: CPU %.17g GPU %.17g\n", what, bad, v[0].n, first,
		      v[0].v[first], v[1].v[first]);
		compared += (long)v[0].n;
	}
	free(v[0].v), free(v[1].v);
}

static void run_ld(const snp_data_t *d, const ld_opt_t *base, const char *what)
{
	run_ld_path(d, base, what, GVK_SNP_PATH_POPC);
	run_ld_path(d, base, what, GVK_SNP_PATH_MMA);
}

static void test_ld(int64_t m, int64_t n, double miss, int phased)
{
	snp_data_t d = {0};
	make_data(&d, m, n, miss, phased);
	static const char *shape_name[] = {"table", "square", "square0", "triangle"};
	for (int shape = LD_TABLE; shape <= LD_TRIANGLE; ++shape)
		for (int r2 = 0; r2 < 2; ++r2)
			for (int single = 0; single < 2 - phased; ++single)
				for (int striped = 0; striped < 2; ++striped) {
					ld_opt_t o;
					ld_opt_init(&o);
					o.shape = shape, o.r2 = r2, o.single = single, o.haplotype = phased, o.threads = 2;
					if (shape == LD_TABLE) o.inter_chr = striped, o.win_snps = 37, o.win_bp = 20000;
					if (striped) o.stripe_cells = 1000; /* many stripes, rows not a multiple of the tile */
					char what[160];
					snprintf(what, sizeof what, "ld %lld SNPs x %lld %s, %s %s%s%s%s", (long long)m, (long long)n,
					         phased ? "haplotypes" : "samples", shape_name[shape], r2 ? "r2" : "r", single ? " bin4" : "",
					         striped ? " striped" : "", shape == LD_TABLE ? (striped ? " inter-chr" : " window") : "");
					run_ld(&d, &o, what);
				}
	/* SNP planes beyond the (pretended) GPU memory: each stripe's rows in groups, its columns
	 * streamed through slices of one SNP or more */
	ld_opt_t o;
	ld_opt_init(&o);
	o.shape = LD_SQUARE, o.r2 = 1, o.threads = 2, o.stripe_cells = 1500, o.haplotype = phased;
	char what[160];
	snprintf(what, sizeof what, "ld %lld SNPs x %lld, square, planes beyond GPU memory", (long long)m, (long long)n);
	o.gpu.mem = (size_t)(m * SNP_PLANES * d.nw * 8 * 2 / 3); /* a third of the SNPs at a time */
	run_ld(&d, &o, what);
	snp_data_free(&d);
}

static void random_profiles(fid_prof_t *p, int64_t n, uint32_t ns, double dens)
{
	gvk_err_t err;
	if (fid_prof_alloc(p, n, ns, &err) < 0) exit(1);
	for (int64_t i = 0; i < n; ++i)
		for (uint32_t j = 0; j < ns; ++j)
			if (unif() < dens) p->w[(size_t)i * (size_t)p->stride + j / 64] |= (uint64_t)1 << (j % 64);
}

static int same_hits(const fid_hit_t *a, const fid_hit_t *b, size_t n)
{
	for (size_t i = 0; i < n; ++i)
		if (a[i].db != b[i].db || a[i].q != b[i].q || a[i].score != b[i].score) return 0;
	return 1;
}

/* FastID XOR / AND-NOT / AND, several top-k and thresholds, on the CPU and on the GPU with its
 * kernel forced (path: GVK_SNP_PATH_POPC, _MMA) or picked (_AUTO); db_block and q_batch (0: automatic)
 * force small device blocks and query batches. */
static void test_fastid_path(int64_t nq, int64_t nd, uint32_t ns, int64_t db_block, int64_t q_batch, int path)
{
	fid_prof_t q, d;
	random_profiles(&q, nq, ns, 0.3);
	random_profiles(&d, nd, ns, 0.3);
	snp_gpu_opt_t gpu = {.path = path, .db_block = db_block, .q_batch = q_batch};
	static const int topks[] = {10, 1, 0, 257}; /* 257: lists no thread fills, and k > the 5-profile database */
	for (int op = PG_XOR; op <= PG_AND; ++op)
		for (int t = 0; t < 4; ++t) {
			int64_t thr = t == 2 ? (int64_t)ns / 2 : t == 1 ? (int64_t)ns / 3 : -1;
			fid_result_t r[2];
			int ok = 1;
			for (int dev = 0; dev < 2; ++dev) {
				fid_job_t job = {&q, &d, (pg_op_t)op, topks[t], thr, 2, GVK_ISA_AUTO,
				                 dev ? GVK_DEVICE_GPU : GVK_DEVICE_CPU, 12345, gpu};
				gvk_err_t err;
				if (fid_search(&job, &r[dev], &err) < 0) {
					CHECK(0, "fastid on %s: %s\n", dev ? "GPU" : "CPU", err.msg);
					ok = 0;
				}
			}
			if (!ok) continue;
			char what[200];
			snprintf(what, sizeof what, "fastid %s op %d, %lld queries x %lld profiles x %u SNPs, top-%d, threshold %lld%s%s",
			         path_name(path), op, (long long)nq, (long long)nd, ns, topks[t], (long long)thr, db_block ? " db blocks" : "",
			         q_batch ? " query batches" : "");
			CHECK(r[0].k == r[1].k, "%s: k %d vs %d\n", what, r[0].k, r[1].k);
			CHECK(r[0].pairs == r[1].pairs, "%s: pairs differ\n", what);
			if (r[0].k == r[1].k) {
				CHECK(same_hits(r[0].top, r[1].top, (size_t)nq * (size_t)r[0].k), "%s: top lists differ\n", what);
				compared += (long)(nq * r[0].k);
			}
			CHECK(r[0].n_hits == r[1].n_hits, "%s: %zu hits on the CPU, %zu on the GPU\n", what, r[0].n_hits, r[1].n_hits);
			if (r[0].n_hits == r[1].n_hits) {
				CHECK(same_hits(r[0].hits, r[1].hits, r[0].n_hits), "%s: threshold hits differ\n", what);
				compared += (long)r[0].n_hits;
			}
			fid_result_free(&r[0]);
			fid_result_free(&r[1]);
		}
	fid_prof_free(&q);
	fid_prof_free(&d);
}

static void test_fastid(int64_t nq, int64_t nd, uint32_t ns, int64_t db_block, int64_t q_batch)
{
	static const int paths[] = {GVK_SNP_PATH_POPC, GVK_SNP_PATH_MMA, GVK_SNP_PATH_AUTO};
	for (int p = 0; p < 3; ++p) test_fastid_path(nq, nd, ns, db_block, q_batch, paths[p]);
}

int main(int argc, char **argv)
{
	rng = 0x9e3779b97f4a7c15ull ^ (argc > 1 ? (uint64_t)atoll(argv[1]) * 0x2545f4914f6cdd1dull : 0);
	gvk_err_t err;
	snp_gpu_t *g = snp_gpu_open(NULL, &err);
	if (!g) {
		printf("skipped: %s\n", err.msg);
		return 77;
	}
	printf("GPU: %s\n", snp_gpu_name(g));
	snp_gpu_close(g);
	if (argc > 2 && !strcmp(argv[2], "small")) { /* for the CPU emulation (gpu_backend_emu.sh) */
		test_ld(37, 77, 0.05, 0);
		test_ld(21, 1001, 0.02, 0);
		test_ld(18, 700, 0.0, 0);
		test_ld(33, 515, 0.03, 1);
		test_fastid(11, 503, 1000, 0, 0);
		test_fastid(9, 211, 21, 0, 0);
		test_fastid(13, 301, 200, 77, 5);
		test_fastid(9, 5, 130, 0, 0);
	} else {
		test_ld(203, 77, 0.05, 0);     /* one word of samples */
		test_ld(131, 1001, 0.02, 0);   /* 16 words: several shared-memory stages on small GPUs */
		test_ld(97, 4099, 0.0, 0);     /* no missing call: the CPU's plane-total shortcut */
		test_ld(261, 2111, 0.0, 0);    /* no missing call, 33 words: several MMA stages and tiles */
		test_ld(150, 515, 0.03, 1);    /* phased haplotypes */
		test_fastid(37, 5003, 1000, 0, 0);
		test_fastid(19, 2011, 21, 0, 0);         /* 21 SNPs: many ties */
		test_fastid(29, 3001, 200, 777, 5);      /* database blocks and query batches */
		test_fastid(9, 5, 130, 0, 0);            /* database smaller than k */
		test_fastid(70, 4097, 65, 0, 0);         /* 2 words, 3 query groups, tiles cut at the end */
		test_fastid(33, 1999, 333, 1000, 32);    /* 6 words: a partial 256-bit chunk */
	}
	printf("%ld values compared, %d failures\n", compared, fails);
	return fails ? 1 : 0;
}
