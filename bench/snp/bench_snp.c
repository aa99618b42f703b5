/* SPDX-License-Identifier: MIT */
/* Speed of the SNP engines on synthetic data, CPU and GPU in the same run: LD for every pair
 * (triangle, values computed but not written) with and without missing calls, and FastID top-10
 * identity / mixture searches. On a GPU, the popcount peaks are measured first (CUDA cores:
 * 64-bit AND + __popcll chains; tensor cores: m16n8k256 AND-popc MMAs), and each GPU row is given
 * for the whole call and for the kernel time alone, with both LD count kernels forced in turn.
 * Bit operations: LD does one AND-popcount product per plane pair per 64-bit word, 9 products
 * per pair with missing calls and 4 without (popgemm_body.h; the GPU kernels do the same);
 * FastID one XOR / AND-NOT per word; rate = pairs x words x 64 x products / s. "% peak" relates
 * that rate to the measured peak of the units the kernel runs on.
 * Usage: bench_snp [options]; --help lists them. Defaults: the sizes (LD 2000 samples x
 * 20,000 SNPs, FastID 1,000 queries x 20,000,000 profiles x 1,024 SNPs, all processors). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_results.h"
#include "common/threads.h"
#include "fastid/fastid_engine.h"
#include "ld/ld_engine.h"
#include "snp/snp_data.h"
#include "snp/snp_gpu.h"
#include "snp_peak.h"

typedef struct {
	char work[160], engine[360];
	int threads;
	uint64_t pairs;
	double sec, bitops, peak; /* peak <= 0: not a GPU row */
	double ref;               /* seconds of the CPU all-threads row of this workload */
} row_t;

typedef struct {
	row_t r[64];
	int n;
	double popc_peak, mma_peak;
	char gpu[300];
} table_t;

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng;
}
static double unif(void) { return (double)(next() >> 11) * (1.0 / 9007199254740992.0); }

static void add_row(table_t *t, const char *work, const char *engine, int threads, uint64_t pairs, double sec,
                    double bits_per_pair, double peak, double ref)
{
	if (t->n == (int)(sizeof t->r / sizeof t->r[0])) return;
	row_t *r = &t->r[t->n++];
	snprintf(r->work, sizeof r->work, "%s", work);
	snprintf(r->engine, sizeof r->engine, "%.340s", engine);
	r->threads = threads, r->pairs = pairs, r->sec = sec, r->bitops = (double)pairs * bits_per_pair / sec;
	r->peak = peak, r->ref = ref;
}

/* A GPU run as two rows: the whole call and the kernels alone, against the peak of the units used. */
static void add_gpu_rows(table_t *t, const char *work, const char *kernel, int threads, uint64_t pairs, double sec,
                         double kernel_s, double bits_per_pair, double peak, double ref)
{
	char e[360];
	snprintf(e, sizeof e, "%.320s (whole call)", kernel);
	add_row(t, work, e, threads, pairs, sec, bits_per_pair, peak, ref);
	snprintf(e, sizeof e, "%.320s (kernel time)", kernel);
	add_row(t, work, e, threads, pairs, kernel_s, bits_per_pair, peak, ref);
}

static void print_table(FILE *fp, const table_t *t)
{
	if (t->popc_peak > 0)
		fprintf(fp, "Measured peaks on %s: CUDA cores %.3g Tbit-ops/s (64-bit AND + popcount), tensor cores %.3g Tbit-ops/s "
		            "(binary MMA AND + popc).\n\n", t->gpu, t->popc_peak * 1e-12, t->mma_peak * 1e-12);
	fprintf(fp, "| workload | engine | threads | pairs | seconds | pairs/s | Tbit-ops/s | %% of peak | vs CPU all threads |\n");
	fprintf(fp, "|---|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < t->n; ++i) {
		const row_t *r = &t->r[i];
		char pk[32] = "-";
		if (r->peak > 0) snprintf(pk, sizeof pk, "%.1f %%", 100.0 * r->bitops / r->peak);
		fprintf(fp, "| %s | %s | %d | %llu | %.4f | %.3g | %.3g | %s | %.2fx |\n", r->work, r->engine, r->threads,
		        (unsigned long long)r->pairs, r->sec, (double)r->pairs / r->sec, r->bitops * 1e-12, pk,
		        r->ref > 0 ? r->ref / r->sec : 1.0);
	}
}

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
			if (miss > 0 && unif() < miss) continue;
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

/* One LD run; path (GPU only) forces the count kernel, mem (bytes, 0 = all) lowers the GPU memory
 * planned with. */
static double run_ld(const snp_data_t *d, int threads, int gpu, int path, size_t mem, ld_report_t *rep)
{
	ld_opt_t o;
	ld_opt_init(&o);
	o.shape = LD_TRIANGLE;
	o.threads = threads;
	o.device = gpu ? GVK_DEVICE_GPU : GVK_DEVICE_CPU;
	o.r2 = 1;
	o.gpu.path = path;
	o.gpu.mem = mem;
	double sum = 0, t0 = gvk_seconds();
	gvk_err_t err;
	if (ld_run(d, &o, sink, &sum, rep, &err) < 0) {
		fprintf(stderr, "ld: %s\n", err.msg);
		exit(1);
	}
	return gvk_seconds() - t0;
}

static void bench_ld(table_t *t, int64_t n, int64_t m, double miss, int all, int single, int gpu)
{
	snp_data_t d = {0};
	make_ld(&d, m, n, miss);
	char work[160];
	snprintf(work, sizeof work, "LD all pairs, %lld samples x %lld SNPs, %.0f %% missing", (long long)n, (long long)m,
	         100.0 * miss);
	const double bits = (double)d.nw * 64.0 * (miss > 0 ? 9.0 : 4.0);
	ld_report_t rep;
	double ref = 0;
	for (int th = single ? 1 : all; th <= all; th = th == all ? all + 1 : all) {
		double s = run_ld(&d, th, 0, GVK_SNP_PATH_AUTO, 0, &rep);
		if (th == all) ref = s;
		add_row(t, work, rep.kernel, th, rep.pairs, s, bits, 0, 0);
	}
	for (int i = 0; i < t->n; ++i)
		if (!strcmp(t->r[i].work, work)) t->r[i].ref = ref;
	for (int p = 0; gpu && p < 2; ++p) {
		int path = p ? GVK_SNP_PATH_MMA : GVK_SNP_PATH_POPC;
		run_ld(&d, all, 1, path, 0, &rep); /* warm-up: device start, first allocations */
		double s = run_ld(&d, all, 1, path, 0, &rep);
		add_gpu_rows(t, work, rep.kernel, all, rep.pairs, s, rep.kernel_s, bits, p ? t->mma_peak : t->popc_peak, ref);
	}
	if (gpu) { /* the planes streamed as for data beyond GPU memory (pretended: 1.9 times the planes, half of which is used) */
		char w2[200];
		size_t mem = (size_t)m * SNP_PLANES * (size_t)d.nw * 8 * 19 / 10;
		run_ld(&d, all, 1, GVK_SNP_PATH_POPC, mem, &rep);
		double s = run_ld(&d, all, 1, GVK_SNP_PATH_POPC, mem, &rep);
		snprintf(w2, sizeof w2, "%s, planes streamed", work);
		add_gpu_rows(t, w2, rep.kernel, all, rep.pairs, s, rep.kernel_s, bits, t->popc_peak, ref);
	}
	snp_data_free(&d);
}

/* One FastID top-10 search; path (GPU only) forces the kernel. */
static double run_fastid(const fid_prof_t *q, const fid_prof_t *db, pg_op_t op, int threads, int gpu, int path,
                         fid_result_t *res)
{
	fid_job_t job = {q, db, op, 10, -1, threads, GVK_ISA_AUTO, gpu ? GVK_DEVICE_GPU : GVK_DEVICE_CPU, 0, {.path = path}};
	gvk_err_t err;
	double t0 = gvk_seconds();
	if (fid_search(&job, res, &err) < 0) {
		fprintf(stderr, "fastid: %s\n", err.msg);
		exit(1);
	}
	return gvk_seconds() - t0;
}

/* Random profiles, about 25 % of the bits set; the first queries are database profiles with a few
 * bits flipped, so that top-10 lists hold real matches. */
static void make_profiles(fid_prof_t *q, fid_prof_t *db, int64_t nq, int64_t nd, uint32_t ns)
{
	gvk_err_t err;
	if (fid_prof_alloc(q, nq, ns, &err) < 0 || fid_prof_alloc(db, nd, ns, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		exit(1);
	}
	const int w = db->stride;
	const uint64_t last = ns % 64 ? ((uint64_t)1 << (ns % 64)) - 1 : ~(uint64_t)0;
	fid_prof_t *ps[2] = {q, db};
	for (int t = 0; t < 2; ++t)
		for (int64_t i = 0; i < ps[t]->n; ++i) {
			uint64_t *p = ps[t]->w + (size_t)i * (size_t)w;
			for (uint32_t k = 0; k < (ns + 63) / 64; ++k) p[k] = next() & next();
			p[(ns - 1) / 64] &= last;
		}
	for (int64_t i = 0; i < nq / 2 && nd > 0; ++i) {
		uint64_t *p = q->w + (size_t)i * (size_t)w;
		memcpy(p, db->w + (size_t)(next() % (uint64_t)nd) * (size_t)w, (size_t)w * sizeof *p);
		for (int f = 0; f < 5; ++f) {
			uint32_t b = (uint32_t)(next() % ns);
			p[b / 64] ^= (uint64_t)1 << (b % 64);
		}
	}
}

static void bench_fastid(table_t *t, int64_t nq, int64_t nd, uint32_t ns, int all, int single, int gpu)
{
	fid_prof_t q, db;
	make_profiles(&q, &db, nq, nd, ns);
	const double bits = (double)db.stride * 64.0;
	for (int op = 0; op < 2; ++op) {
		char work[160];
		snprintf(work, sizeof work, "FastID %s, %lld queries x %lld profiles x %u SNPs, top-10", op ? "mixture" : "identity",
		         (long long)nq, (long long)nd, ns);
		fid_result_t res, cpu;
		double ref = 0;
		int first = t->n;
		memset(&cpu, 0, sizeof cpu);
		for (int th = single ? 1 : all; th <= all; th = th == all ? all + 1 : all) {
			double s = run_fastid(&q, &db, op ? PG_ANDNOT : PG_XOR, th, 0, GVK_SNP_PATH_AUTO, &res);
			add_row(t, work, res.kernel, th, res.pairs, s, bits, 0, 0);
			if (th == all) ref = s, cpu = res;
			else fid_result_free(&res);
		}
		for (int i = first; i < t->n; ++i) t->r[i].ref = ref;
		for (int p = 0; gpu && p < 2; ++p) { /* each kernel forced: CUDA cores, tensor cores */
			double s = run_fastid(&q, &db, op ? PG_ANDNOT : PG_XOR, all, 1, p ? GVK_SNP_PATH_MMA : GVK_SNP_PATH_POPC, &res);
			if (res.k != cpu.k || memcmp(res.top, cpu.top, (size_t)nq * (size_t)res.k * sizeof *res.top)) {
				fprintf(stderr, "FastID %s: the GPU's top-10 lists differ from the CPU's\n", res.kernel);
				exit(1);
			}
			add_gpu_rows(t, work, res.kernel, all, res.pairs, s, res.kernel_s, bits, p ? t->mma_peak : t->popc_peak, ref);
			fid_result_free(&res);
		}
		fid_result_free(&cpu);
	}
	fid_prof_free(&q);
	fid_prof_free(&db);
}

static void usage(void)
{
	printf("Usage: bench_snp [options]\n"
	       "  --ld-samples N     LD samples (2000)\n"
	       "  --ld-snps M        LD SNPs (20000); 0 = no LD rows\n"
	       "  --missing R        missing-call rate of the first LD data set (0.02); the second has none\n"
	       "  --queries Q        FastID queries (1000)\n"
	       "  --profiles P       FastID database profiles (20000000); 0 = no FastID rows\n"
	       "  --profile-snps S   SNPs per profile (1024)\n"
	       "  -t N               CPU threads of the CPU rows (all processors)\n"
	       "  --single           also CPU rows on one thread\n"
	       "  --cpu-only         no GPU rows even when a GPU is usable\n"
	       "  --results FILE     also append the table to FILE, e.g. bench/history/2026-11.md\n"
	       "  --note TEXT        a line for the results entry\n");
}

int main(int argc, char **argv)
{
	int64_t n = 2000, m = 20000, nq = 1000, nd = 20000000;
	double miss = 0.02;
	uint32_t ns = 1024;
	int all = gvk_ncpu(), single = 0, cpu_only = 0;
	const char *results = NULL, *note = "";
	static const struct option lo[] = {{"ld-samples", required_argument, NULL, 1}, {"ld-snps", required_argument, NULL, 2},
	                                   {"missing", required_argument, NULL, 3},    {"queries", required_argument, NULL, 4},
	                                   {"profiles", required_argument, NULL, 5},   {"profile-snps", required_argument, NULL, 6},
	                                   {"single", no_argument, NULL, 7},           {"cpu-only", no_argument, NULL, 8},
	                                   {"results", required_argument, NULL, 9},    {"note", required_argument, NULL, 10},
	                                   {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0}};
	for (int c; (c = getopt_long(argc, argv, "t:h", lo, NULL)) != -1;) {
		switch (c) {
		case 1: n = atoll(optarg); break;
		case 2: m = atoll(optarg); break;
		case 3: miss = atof(optarg); break;
		case 4: nq = atoll(optarg); break;
		case 5: nd = atoll(optarg); break;
		case 6: ns = (uint32_t)atol(optarg); break;
		case 7: single = 1; break;
		case 8: cpu_only = 1; break;
		case 9: results = optarg; break;
		case 10: note = optarg; break;
		case 't': all = atoi(optarg); break;
		case 'h': usage(); return 0;
		default: usage(); return 1;
		}
	}
	if (all < 1 || n < 1 || ns < 1) return fprintf(stderr, "bench_snp: bad sizes\n"), 1;
	table_t *t = calloc(1, sizeof *t);
	if (!t) return 1;
	gvk_err_t err;
	snp_gpu_t *g = cpu_only ? NULL : snp_gpu_open(NULL, &err);
	if (g) {
		snprintf(t->gpu, sizeof t->gpu, "%s", snp_gpu_name(g));
		if (snp_peak(0, &t->popc_peak, &t->mma_peak, &err) < 0) {
			fprintf(stderr, "bench_snp: peak: %s\n", err.msg);
			return 1;
		}
	} else if (!cpu_only) {
		fprintf(stderr, "bench_snp: no GPU rows: %s\n", err.msg);
	}
	const int gpu = g != NULL;
	snp_gpu_close(g);
	if (m > 0) {
		bench_ld(t, n, m, miss, all, single, gpu);
		if (miss > 0) bench_ld(t, n, m, 0.0, all, single, gpu);
	}
	if (nd > 0 && nq > 0) bench_fastid(t, nq, nd, ns, all, single, gpu);
	print_table(stdout, t);
	if (results) {
		FILE *fp = bench_results_open(results, "bench_snp");
		if (!fp) return 1;
		char cpu[128];
		bench_host_cpu(cpu, sizeof cpu);
		fprintf(fp, "Host: %s, %d threads; GPU: %s. %s\n\n", cpu, all, gpu ? t->gpu : "none", note);
		print_table(fp, t);
		fclose(fp);
	}
	free(t);
	return 0;
}
