/* Speed of the SNP engines on synthetic data: LD for every pair (triangle, results computed
 * but not written) and FastID top-10 searches, on 1 thread and on all threads of the CPU, then
 * on the GPU when one is usable (same inputs, same run). Each row gives pairs/s and the
 * bit-operation rate: LD does 9 AND-popcount products per 64-bit word pair (popgemm_body.h's
 * general path), FastID one XOR / AND-NOT per word; rate = pairs x words x 64 x products / s.
 * Usage: bench_snp [samples SNPs missing_rate queries db_profiles profile_snps threads]
 * Defaults: 2000 10000 0.02 100 1000000 1024 <all processors>. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/threads.h"
#include "snp/fastid_engine.h"
#include "snp/ld_engine.h"
#include "snp/snp_data.h"
#include "snp/snp_gpu.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng;
}
static double unif(void) { return (double)(next() >> 11) * (1.0 / 9007199254740992.0); }

static void make_ld(snp_data_t *d, int64_t m, int64_t n, double miss)
{
	gvk_err_t err;
	if (snp_data_alloc_planes(d, m, n, &err) < 0 || !(d->var = calloc((size_t)m, sizeof *d->var))) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	for (int64_t i = 0; i < m; ++i) {
		double p = 0.05 + 0.45 * unif();
		d->var[i].chr = "1", d->var[i].bp = i;
		uint64_t *a = snp_plane(d, i, SNP_PA), *b = snp_plane(d, i, SNP_PB), *v = snp_plane(d, i, SNP_PV);
		for (int64_t s = 0; s < n; ++s) {
			if (unif() < miss) continue;
			int x = (unif() < p) + (unif() < p);
			uint64_t bit = (uint64_t)1 << (s & 63);
			v[s >> 6] |= bit;
			if (x >= 1) a[s >> 6] |= bit;
			if (x == 2) b[s >> 6] |= bit;
		}
		snp_data_set_full(d, i);
	}
}

static int sink(void *ctx, const ld_stripe_t *s, gvk_err_t *err)
{
	double *sum = ctx;
	(void)err;
	for (int64_t i = s->i0; i < s->i1; ++i) {
		double r = s->r[(size_t)(i - s->i0) * (size_t)s->width];
		if (!isnan(r)) *sum += r;
	}
	return 0;
}

static void bench_ld(const snp_data_t *d, int threads, double miss, const char *gpu)
{
	ld_opt_t o;
	ld_opt_init(&o);
	o.shape = LD_TRIANGLE;
	o.threads = threads;
	o.device = gpu ? GVK_DEVICE_GPU : GVK_DEVICE_CPU;
	o.r2 = 1;
	double sum = 0, t0 = gvk_seconds();
	uint64_t pairs = 0;
	gvk_err_t err;
	if (ld_run(d, &o, sink, &sum, &pairs, &err) < 0) {
		fprintf(stderr, "ld: %s\n", err.msg);
		exit(1);
	}
	double dt = gvk_seconds() - t0;
	printf("ld\t%lld samples x %lld SNPs, missing %.2f\t%d threads\t%s\t%llu pairs\t%.3f s\t%.4g pairs/s\t%.4g Tbitops/s\n",
	       (long long)d->n_bits, (long long)d->n_snp, miss, threads, gpu ? gpu : ld_device_name(&o),
	       (unsigned long long)pairs, dt, (double)pairs / dt, (double)pairs * d->nw * 64.0 * 9.0 / dt * 1e-12);
}

static void bench_fastid(const fid_prof_t *q, const fid_prof_t *db, pg_op_t op, int threads, const char *gpu)
{
	fid_job_t job = {q, db, op, 10, -1, threads, GVK_ISA_AUTO, gpu ? GVK_DEVICE_GPU : GVK_DEVICE_CPU, 0};
	fid_result_t res;
	gvk_err_t err;
	double t0 = gvk_seconds();
	if (fid_search(&job, &res, &err) < 0) {
		fprintf(stderr, "fastid: %s\n", err.msg);
		exit(1);
	}
	double dt = gvk_seconds() - t0;
	printf("fastid-%s\t%lld queries x %lld profiles x %u SNPs, top-10\t%d threads\t%s\t%llu pairs\t%.3f s\t%.4g pairs/s\t%.4g Tbitops/s\n",
	       op == PG_XOR ? "identity" : "mixture", (long long)q->n, (long long)db->n, db->n_snp, threads,
	       gpu ? gpu : fid_device_name(GVK_ISA_AUTO), (unsigned long long)res.pairs, dt, (double)res.pairs / dt,
	       (double)res.pairs * db->stride * 64.0 / dt * 1e-12);
	fid_result_free(&res);
}

int main(int argc, char **argv)
{
	int64_t n = argc > 1 ? atoll(argv[1]) : 2000, m = argc > 2 ? atoll(argv[2]) : 10000;
	double miss = argc > 3 ? atof(argv[3]) : 0.02;
	int64_t nq = argc > 4 ? atoll(argv[4]) : 100, nd = argc > 5 ? atoll(argv[5]) : 1000000;
	uint32_t ns = argc > 6 ? (uint32_t)atol(argv[6]) : 1024;
	int all = argc > 7 ? atoi(argv[7]) : gvk_ncpu();
	/* The GPU rows use the GPU's name; the GPU is opened once here only to find it. */
	gvk_err_t gerr;
	snp_gpu_t *g = snp_gpu_open(&gerr);
	char gname[300] = "";
	const char *gpu = NULL;
	if (g) snprintf(gname, sizeof gname, "%s", snp_gpu_name(g)), gpu = gname;
	else fprintf(stderr, "bench_snp: no GPU rows: %s\n", gerr.msg);
	snp_gpu_close(g);
	snp_data_t d = {0};
	make_ld(&d, m, n, miss);
	bench_ld(&d, 1, miss, NULL);
	if (all > 1) bench_ld(&d, all, miss, NULL);
	if (gpu) bench_ld(&d, all, miss, gpu);
	snp_data_free(&d);
	make_ld(&d, m, n, 0.0);
	bench_ld(&d, 1, 0.0, NULL);
	if (all > 1) bench_ld(&d, all, 0.0, NULL);
	if (gpu) bench_ld(&d, all, 0.0, gpu);
	snp_data_free(&d);

	fid_prof_t q, db;
	gvk_err_t err;
	if (fid_prof_alloc(&q, nq, ns, &err) < 0 || fid_prof_alloc(&db, nd, ns, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	fid_prof_t *ps[2] = {&q, &db};
	for (int t = 0; t < 2; ++t)
		for (int64_t i = 0; i < ps[t]->n; ++i)
			for (uint32_t j = 0; j < ns; ++j)
				if (unif() < 0.2) ps[t]->w[(size_t)i * (size_t)ps[t]->stride + j / 64] |= (uint64_t)1 << (j % 64);
	for (int op = 0; op < 2; ++op) {
		bench_fastid(&q, &db, op ? PG_ANDNOT : PG_XOR, 1, NULL);
		if (all > 1) bench_fastid(&q, &db, op ? PG_ANDNOT : PG_XOR, all, NULL);
		if (gpu) bench_fastid(&q, &db, op ? PG_ANDNOT : PG_XOR, all, gpu);
	}
	fid_prof_free(&q);
	fid_prof_free(&db);
	return 0;
}
