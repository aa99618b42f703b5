/* SPDX-License-Identifier: MIT */
/* Pair-HMM traffic as GATK's HaplotypeCaller sends it: each of its native threads hands over one
 * active region at a time (~55 pairs) and waits for the answer. T caller threads take regions from
 * a shared counter and make one synchronous gvk_pairhmm_batch call per region; the table gives
 * throughput and the calls' latency for CPU engines (one per caller) and the GPU (one engine
 * shared by all callers where the library merges their calls, else one per caller). With --device
 * both, every GPU value must equal the CPU's bit for bit. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gvk.h"
#include "bench_results.h"
#include "phmm_workload.h"

enum { MAX_CALLER_COUNTS = 16, MAX_ROWS = 2 * MAX_CALLER_COUNTS + 2 };

typedef struct {
	const phmm_workload_t *w;
	size_t *read0, *hap0, *pair0; /* per region: its first read, haplotype and pair */
} regions_t;

/* One timed pass: callers threads share the counter; engines[t] (or engines[0] when shared). */
typedef struct {
	const regions_t *rg;
	gvk_pairhmm_t **engines;
	int shared;
	double *out;        /* n_pairs values, pair order */
	double *lat;        /* per region: seconds of its call */
	atomic_size_t next; /* the next region to take */
	atomic_int failed;
	gvk_err_t err;      /* the first failure */
} pass_t;

typedef struct {
	char mode[48];
	int callers, engines;
	size_t pairs, regions;
	double cells, sec, p50, p99, max, kernel_s;
} row_t;

/* --profile: the GPU engine's pass lines (gpu_profile 1) summed: passes, then milliseconds of sort,
 * prepare, pack, wait, scatter and kernels. */
typedef struct {
	pthread_mutex_t lock;
	double passes, ms[6];
} profile_t;

static void profile_log(void *arg, int level, const char *msg)
{
	profile_t *p = arg;
	double v[6];
	(void)level;
	const char *at = strstr(msg, "GPU pass of ");
	if (!at || !(at = strstr(at, "s: sort ")) ||
	    sscanf(at, "s: sort %lf ms, prepare %lf, pack %lf, wait %lf, scatter %lf, kernels %lf", &v[0], &v[1], &v[2], &v[3],
	           &v[4], &v[5]) != 6)
		return;
	pthread_mutex_lock(&p->lock);
	p->passes += 1;
	for (int k = 0; k < 6; ++k) p->ms[k] += v[k];
	pthread_mutex_unlock(&p->lock);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int regions_index(regions_t *rg, const phmm_workload_t *w)
{
	rg->w = w;
	rg->read0 = malloc((w->n_regions + 1) * sizeof(size_t));
	rg->hap0 = malloc((w->n_regions + 1) * sizeof(size_t));
	rg->pair0 = malloc((w->n_regions + 1) * sizeof(size_t));
	if (!rg->read0 || !rg->hap0 || !rg->pair0) return GVK_ERR_NOMEM;
	rg->read0[0] = rg->hap0[0] = rg->pair0[0] = 0;
	for (size_t k = 0; k < w->n_regions; ++k) {
		rg->read0[k + 1] = rg->read0[k] + (size_t)w->region_reads[k];
		rg->hap0[k + 1] = rg->hap0[k] + (size_t)w->region_haps[k];
		rg->pair0[k + 1] = rg->pair0[k] + (size_t)w->region_reads[k] * (size_t)w->region_haps[k];
	}
	return 0;
}

static void regions_free(regions_t *rg) { free(rg->read0), free(rg->hap0), free(rg->pair0); }

/* Region k through engine e: the workload lists a region's pairs read-major, as the batch call
 * returns them, so its values land in place. */
static int call_region(const regions_t *rg, gvk_pairhmm_t *e, size_t k, double *out, gvk_err_t *err)
{
	const phmm_workload_t *w = rg->w;
	return gvk_pairhmm_batch(e, w->reads + rg->read0[k], w->region_reads[k], w->haps + rg->hap0[k], w->region_haps[k],
	                         out + rg->pair0[k], err);
}

static void caller_main(void *arg, int t)
{
	pass_t *p = arg;
	gvk_pairhmm_t *e = p->engines[p->shared ? 0 : t];
	gvk_err_t err;
	for (;;) {
		size_t k = atomic_fetch_add(&p->next, 1);
		if (k >= p->rg->w->n_regions || atomic_load(&p->failed)) break;
		double t0 = now_s();
		int rc = call_region(p->rg, e, k, p->out, &err);
		p->lat[k] = now_s() - t0;
		if (rc < 0) {
			if (atomic_exchange(&p->failed, 1) == 0) p->err = err;
			break;
		}
	}
}

typedef struct {
	pass_t *p;
	int t;
	pthread_t th;
} caller_t;

static void *caller_thread(void *arg)
{
	caller_t *c = arg;
	caller_main(c->p, c->t);
	return NULL;
}

/* The callers on threads of their own with the system's default stack, as a JVM's native
 * threads call the library (gvk_parallel's workers have small stacks); caller 0 is this thread.
 * Callers that cannot be started leave their regions to the others. */
static void run_callers(pass_t *p, int callers)
{
	caller_t *c = calloc((size_t)callers, sizeof *c);
	int started = 1;
	for (; c && started < callers; ++started) {
		c[started].p = p, c[started].t = started;
		if (pthread_create(&c[started].th, NULL, caller_thread, &c[started]) != 0) break;
	}
	caller_main(p, 0);
	for (int t = 1; t < started; ++t) pthread_join(c[t].th, NULL);
	free(c);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The latencies' percentiles (q in [0, 1]) in ms, from a sorted copy. */
static void latency_stats(const double *lat, size_t n, row_t *r)
{
	double *s = malloc(n * sizeof *s);
	if (!s || n == 0) {
		free(s);
		return;
	}
	memcpy(s, lat, n * sizeof *s);
	qsort(s, n, sizeof *s, cmp_double);
	r->p50 = 1e3 * s[(n - 1) / 2], r->p99 = 1e3 * s[(size_t)((double)(n - 1) * 0.99)], r->max = 1e3 * s[n - 1];
	free(s);
}

/* Makes the engines, warms each up on the first region (thread and CUDA start-up stay out of the
 * figure), then times all regions through `callers` threads. Returns 0 or a negative code. */
static int run_pass(const regions_t *rg, const gvk_pairhmm_opts_t *opt, int callers, int shared, double *out,
                    const char *mode, row_t *row)
{
	const phmm_workload_t *w = rg->w;
	const int ne = shared ? 1 : callers;
	gvk_pairhmm_t **eng = calloc((size_t)ne, sizeof *eng);
	pass_t p = {.rg = rg, .engines = eng, .shared = shared, .out = out};
	p.lat = malloc(w->n_regions * sizeof *p.lat);
	int rc = eng && p.lat ? 0 : GVK_ERR_NOMEM;
	gvk_err_t err = {0, ""};
	for (int k = 0; rc == 0 && k < ne; ++k) {
		if (!(eng[k] = gvk_pairhmm_create(opt, &err))) rc = err.code ? err.code : GVK_ERR_ARG;
		else if (w->n_regions > 0) rc = call_region(rg, eng[k], 0, out, &err);
	}
	if (rc < 0) {
		fprintf(stderr, "bench_pairhmm_gatk: %s: %s\n", mode, err.msg[0] ? err.msg : gvk_strerror(rc));
	} else {
		gvk_pairhmm_stats_t st;
		double k0 = 0, k1 = 0;
		for (int k = 0; k < ne; ++k) gvk_pairhmm_stats(eng[k], &st), k0 += st.gpu_kernel_s;
		atomic_init(&p.next, 0), atomic_init(&p.failed, 0);
		double t0 = now_s();
		run_callers(&p, callers);
		double dt = now_s() - t0;
		for (int k = 0; k < ne; ++k) gvk_pairhmm_stats(eng[k], &st), k1 += st.gpu_kernel_s;
		if (atomic_load(&p.failed)) {
			rc = p.err.code ? p.err.code : GVK_ERR_ARG;
			fprintf(stderr, "bench_pairhmm_gatk: %s, %d callers: %s\n", mode, callers, p.err.msg);
		} else {
			memset(row, 0, sizeof *row);
			snprintf(row->mode, sizeof row->mode, "%s", mode);
			row->callers = callers, row->engines = ne, row->pairs = w->n_pairs, row->regions = w->n_regions;
			row->cells = w->cells, row->sec = dt, row->kernel_s = k1 - k0;
			latency_stats(p.lat, w->n_regions, row);
		}
	}
	for (int k = 0; eng && k < ne; ++k) gvk_pairhmm_destroy(eng[k]);
	free(eng), free(p.lat);
	return rc;
}

/* run_pass `rounds` times; the row of the fastest (the host's load moves single runs by a fifth). */
static int best_pass(int rounds, const regions_t *rg, const gvk_pairhmm_opts_t *opt, int callers, int shared, double *out,
                     const char *mode, row_t *row)
{
	row_t r;
	for (int i = 0; i < rounds; ++i) {
		int rc = run_pass(rg, opt, callers, shared, out, mode, &r);
		if (rc < 0) return rc;
		if (i == 0 || r.sec < row->sec) *row = r;
	}
	return 0;
}

static void print_header(FILE *fp)
{
	fprintf(fp, "| mode | callers | engines | pairs | seconds | GCUPS | regions/s | call p50 ms | call p99 ms "
	            "| call max ms | GPU kernel s | vs CPU all cores |\n");
	fprintf(fp, "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
}

static void print_row(FILE *fp, const row_t *r, double base_gcups)
{
	double g = r->cells * 1e-9 / r->sec;
	char ratio[32] = "-";
	if (base_gcups > 0) snprintf(ratio, sizeof ratio, "%.2fx", g / base_gcups);
	fprintf(fp, "| %s | %d | %d | %zu | %.3f | %.2f | %.0f | %.3f | %.3f | %.3f | %.3f | %s |\n", r->mode, r->callers,
	        r->engines, r->pairs, r->sec, g, (double)r->regions / r->sec, r->p50, r->p99, r->max, r->kernel_s, ratio);
}

static void usage(FILE *fp)
{
	fprintf(fp,
	        "Usage: bench_pairhmm_gatk [options]\n"
	        "  -n N               pairs of HaplotypeCaller shape, ~55 per region (default 2000000)\n"
	        "  --callers LIST     caller threads, one count or a list such as 1,4,16,64 (default 16)\n"
	        "  --device D         cpu, gpu or both (default both; both checks GPU = CPU bit for bit)\n"
	        "  --merge-wait US    the shared GPU engine's longest wait for other callers, microseconds\n"
	        "                     (default: the library's)\n"
	        "  --contexts N       the shared GPU engine's merged batches in flight (default: the library's)\n"
	        "  --gpu-per-caller   one GPU engine per caller instead of one shared engine\n"
	        "  --gpu-threads N    host threads of each GPU engine (default: the library's)\n"
	        "  --flavour F        avx512 (default) or avx2\n"
	        "  --indel45          insertion and deletion qualities 45 at every base\n"
	        "  --input FILE       regions from a Pair-HMM input file instead: its groups (GATK's batches),\n"
	        "                     repeated to at least -n pairs\n"
	        "  --cpu-threads N    threads of each CPU engine in the rows after the baseline (default 1)\n"
	        "  --profile          the GPU engine's host and kernel time per call, by phase\n"
	        "  --rounds N         each row the fastest of N runs (default 1)\n"
	        "  --results FILE     append the table to FILE (default '-': none)\n"
	        "  --note TEXT        a line to record with the figures\n"
	        "CPU rows: one engine of 1 thread per caller, and as many callers as host cores (the\n"
	        "baseline of the last column).\n");
}

static int parse_callers(const char *s, int *c, int max)
{
	int n = 0;
	while (*s) {
		char *end;
		long v = strtol(s, &end, 10);
		if (end == s || v < 1 || v > 4096 || n == max) return -1;
		c[n++] = (int)v;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',') return -1;
	}
	return n;
}

/* Differing values between a GPU pass and the CPU reference (bit patterns). */
static size_t count_diff(const double *a, const double *b, size_t n)
{
	if (!memcmp(a, b, n * sizeof *a)) return 0;
	size_t d = 0;
	for (size_t k = 0; k < n; ++k) d += memcmp(&a[k], &b[k], sizeof *a) != 0;
	return d;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {{"callers", required_argument, NULL, 1},    {"device", required_argument, NULL, 2},
	                                   {"merge-wait", required_argument, NULL, 3}, {"gpu-per-caller", no_argument, NULL, 4},
	                                   {"flavour", required_argument, NULL, 5},    {"indel45", no_argument, NULL, 6},
	                                   {"results", required_argument, NULL, 7},    {"note", required_argument, NULL, 8},
	                                   {"gpu-threads", required_argument, NULL, 9}, {"help", no_argument, NULL, 'h'},
	                                   {"contexts", required_argument, NULL, 10}, {"input", required_argument, NULL, 11},
	                                   {"cpu-threads", required_argument, NULL, 12}, {"profile", no_argument, NULL, 13},
	                                   {"rounds", required_argument, NULL, 14},
	                                   {NULL, 0, NULL, 0}};
	size_t npairs = 2000000;
	int callers[MAX_CALLER_COUNTS] = {16}, ncallers = 1, do_cpu = 1, do_gpu = 1, per_caller = 0, wflags = 0;
	int flavour = GVK_PHMM_FMA, gpu_threads = 0, contexts = 0, cpu_threads = 1, profile = 0, rounds = 1;
	const char *input = NULL;
	long merge_wait = -1;
	const char *results = "-", *note = "";
	int c;
	while ((c = getopt_long(argc, argv, "n:h", lo, NULL)) != -1) {
		if (c == 'n') npairs = (size_t)atol(optarg);
		else if (c == 1) {
			if ((ncallers = parse_callers(optarg, callers, MAX_CALLER_COUNTS)) < 1)
				return fprintf(stderr, "bench_pairhmm_gatk: --callers takes up to %d counts 1-4096, comma-separated\n",
				               MAX_CALLER_COUNTS), 1;
		} else if (c == 2) {
			if (!strcmp(optarg, "cpu")) do_cpu = 1, do_gpu = 0;
			else if (!strcmp(optarg, "gpu")) do_cpu = 0, do_gpu = 1;
			else if (!strcmp(optarg, "both")) do_cpu = 1, do_gpu = 1;
			else return fprintf(stderr, "bench_pairhmm_gatk: --device must be cpu, gpu or both\n"), 1;
		} else if (c == 3) merge_wait = atol(optarg);
		else if (c == 4) per_caller = 1;
		else if (c == 5) flavour = strcmp(optarg, "avx2") ? GVK_PHMM_FMA : GVK_PHMM_NOFMA;
		else if (c == 6) wflags |= PHMM_WL_INDEL45;
		else if (c == 7) results = optarg;
		else if (c == 8) note = optarg;
		else if (c == 9) gpu_threads = atoi(optarg);
		else if (c == 10) contexts = atoi(optarg);
		else if (c == 11) input = optarg;
		else if (c == 12) cpu_threads = atoi(optarg);
		else if (c == 13) profile = 1;
		else if (c == 14) rounds = atoi(optarg);
		else return usage(c == 'h' ? stdout : stderr), c != 'h';
	}
	if (npairs < 1 || merge_wait < -1 || gpu_threads < 0 || cpu_threads < 1 || rounds < 1)
		return fprintf(stderr, "bench_pairhmm_gatk: -n, --merge-wait, --gpu-threads, --cpu-threads and --rounds need "
		                       "positive numbers\n"), 1;
#ifndef GVK_PAIRHMM_HAS_SHARED
	/* A library without the shared engine: each caller gets a GPU engine of its own. */
	if (do_gpu && !per_caller)
		printf("note: this gvk has no shared GPU engine (gvk_pairhmm_opts_t.shared); one GPU engine per caller\n");
	if (merge_wait >= 0) printf("note: --merge-wait ignored: this gvk has no shared GPU engine\n");
	per_caller = 1;
#endif
	phmm_workload_t w;
	regions_t rg;
	char msg[300] = "out of memory";
	if ((input ? phmm_workload_read(&w, input, npairs, msg, sizeof msg) : phmm_workload_hc(&w, npairs, 1, wflags)) < 0 ||
	    regions_index(&rg, &w) < 0)
		return fprintf(stderr, "bench_pairhmm_gatk: %s%s%s\n", input ? input : "", input ? ": " : "", msg), 1;
	double *ref = malloc(w.n_pairs * sizeof *ref), *out = malloc(w.n_pairs * sizeof *out);
	if (!ref || !out) return fprintf(stderr, "bench_pairhmm_gatk: out of memory\n"), 1;
	const int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN) > 0 ? (int)sysconf(_SC_NPROCESSORS_ONLN) : 1;
	printf("workload: %zu pairs in %zu regions (%.1f pairs per region), %.4g G cells; host: %d cores\n", w.n_pairs,
	       w.n_regions, (double)w.n_pairs / (double)w.n_regions, w.cells * 1e-9, ncpu);
	fflush(stdout);

	row_t rows[MAX_ROWS];
	int nrows = 0, failed = 0;
	double base = 0;
	size_t bad_total = 0;
	char gpu_name[96] = "";
	gvk_pairhmm_opts_t opt;
	gvk_pairhmm_opts_init(&opt);
	opt.flavour = flavour;
	if (do_cpu) {
		opt.device = GVK_DEVICE_CPU, opt.threads = 1;
		/* The baseline first: as many callers as cores, its values the reference for the GPU. */
		if (best_pass(rounds, &rg, &opt, ncpu, 0, ref, "cpu (all host cores)", &rows[nrows]) < 0) return 1;
		base = rows[nrows].cells * 1e-9 / rows[nrows].sec;
		print_row(stdout, &rows[nrows++], base);
		opt.threads = cpu_threads;
		char cmode[48];
		snprintf(cmode, sizeof cmode, "cpu (%d thread%s per engine)", cpu_threads, cpu_threads > 1 ? "s" : "");
		for (int i = 0; i < ncallers; ++i) {
			if (callers[i] == ncpu && cpu_threads == 1) continue;
			if (best_pass(rounds, &rg, &opt, callers[i], 0, out, cmode, &rows[nrows]) < 0) return 1;
			print_row(stdout, &rows[nrows++], base);
			/* Every caller count computes the same values. */
			if (count_diff(out, ref, w.n_pairs))
				fprintf(stderr, "bench_pairhmm_gatk: WARNING: CPU values depend on the callers\n"), failed = 1;
		}
	}
	if (do_gpu) {
		gvk_pairhmm_opts_init(&opt);
		opt.flavour = flavour, opt.device = GVK_DEVICE_GPU;
		if (gpu_threads > 0) opt.threads = gpu_threads;
		static profile_t prof = {PTHREAD_MUTEX_INITIALIZER, 0, {0}};
		if (profile) opt.gpu_profile = 1, opt.log = (gvk_log_t){profile_log, &prof, GVK_LOG_INFO};
#ifdef GVK_PAIRHMM_HAS_SHARED
		opt.shared = !per_caller;
		if (merge_wait >= 0) opt.merge_wait_us = (int)merge_wait;
		if (contexts > 0) opt.merge_contexts = contexts;
#endif
		gvk_err_t err;
		gvk_pairhmm_t *probe = gvk_pairhmm_create(&opt, &err);
		if (!probe) {
			fprintf(stderr, "bench_pairhmm_gatk: GPU: %s\n", err.msg);
			return 1;
		}
		snprintf(gpu_name, sizeof gpu_name, "%s", gvk_pairhmm_device_name(probe));
		gvk_pairhmm_destroy(probe);
		const char *mode = per_caller ? "gpu (engine per caller)" : "gpu (shared engine)";
		for (int i = 0; i < ncallers; ++i) {
			prof.passes = 0, memset(prof.ms, 0, sizeof prof.ms);
			if (best_pass(rounds, &rg, &opt, callers[i], !per_caller, out, mode, &rows[nrows]) < 0) return 1;
			print_row(stdout, &rows[nrows++], base);
			if (profile && prof.passes > 0) {
				/* Per call, over every round: the warm-up call's passes are in the sums too. */
				const double calls = ((double)w.n_regions + 1) * rounds, us = 1e3 / calls;
				printf("GPU phases per call, %d callers (%.2f passes per call), us: sort %.1f, prepare %.1f, pack %.1f, "
				       "wait %.1f, scatter %.1f, kernels %.1f; call p50 %.1f\n", callers[i], prof.passes / calls,
				       us * prof.ms[0], us * prof.ms[1], us * prof.ms[2], us * prof.ms[3], us * prof.ms[4], us * prof.ms[5],
				       1e3 * rows[nrows - 1].p50);
			}
			if (do_cpu) {
				size_t bad = count_diff(out, ref, w.n_pairs);
				bad_total += bad;
				if (bad) printf("GPU vs CPU, %d callers: %zu of %zu values differ\n", callers[i], bad, w.n_pairs);
			}
			fflush(stdout);
		}
	}
	printf("\n");
	print_header(stdout);
	for (int i = 0; i < nrows; ++i) print_row(stdout, &rows[i], base);
	if (do_cpu && do_gpu) {
		if (bad_total) printf("GPU vs CPU: %zu values differ in all\n", bad_total), failed = 1;
		else printf("GPU vs CPU: identical (%d GPU passes of %zu values)\n", ncallers, w.n_pairs);
	}
	if (strcmp(results, "-")) {
		FILE *fp = bench_results_open(results, "bench_pairhmm_gatk");
		if (!fp) return 1;
		char cpu[128], mw[64] = "default";
		bench_host_cpu(cpu, sizeof cpu);
		if (merge_wait >= 0 && !per_caller) snprintf(mw, sizeof mw, "%ld us", merge_wait);
		if (contexts > 0 && !per_caller) snprintf(mw + strlen(mw), sizeof mw - strlen(mw), ", %d contexts", contexts);
		fprintf(fp, "HaplotypeCaller-shaped regions%s, one synchronous batch call per region per caller. Host: %s, %d cores; "
		        "GPU: %s; flavour %s; merge wait %s; each row the fastest of %d run%s. %s\n\n",
		        wflags & PHMM_WL_INDEL45 ? " (indel Q45)" : "", cpu, ncpu, gpu_name[0] ? gpu_name : "none",
		        flavour == GVK_PHMM_FMA ? "avx512" : "avx2", mw, rounds, rounds > 1 ? "s" : "", note);
		print_header(fp);
		for (int i = 0; i < nrows; ++i) print_row(fp, &rows[i], base);
		if (do_cpu && do_gpu) fprintf(fp, "\nGPU vs CPU: %s\n", bad_total ? "values DIFFER" : "identical");
		fclose(fp);
	}
	free(ref), free(out);
	regions_free(&rg);
	phmm_workload_free(&w);
	return failed;
}
