/* SPDX-License-Identifier: MIT */
/* Pair-HMM benchmark: HaplotypeCaller-shaped work (and optionally equal-length batches) through
 * gvk's CPU engine on 1 and all threads, the GPU engine when present, and Intel GKL's own kernel
 * (gklbench, one thread) on the same input; prints a table, and appends it to a results file with --results. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gvk.h"
#include "common/threads.h"
#include "bench_results.h"
#include "phmm_workload.h"

typedef struct {
	char workload[48], engine[48];
	int threads;
	size_t pairs;
	double cells, sec;
} row_t;

typedef struct {
	row_t rows[64];
	int n;
	double base_gcups; /* gvk CPU, 1 thread, same workload */
} table_t;

static void add_row(table_t *t, const char *wl, const char *eng, int threads, size_t pairs, double cells, double sec)
{
	if (t->n == 64) return;
	row_t *r = &t->rows[t->n++];
	snprintf(r->workload, sizeof r->workload, "%s", wl);
	snprintf(r->engine, sizeof r->engine, "%s", eng);
	r->threads = threads, r->pairs = pairs, r->cells = cells, r->sec = sec;
}

static void print_table(FILE *fp, const table_t *t)
{
	fprintf(fp, "| workload | engine | threads | pairs | G cells | seconds | GCUPS | vs gvk CPU 1 thread |\n");
	fprintf(fp, "|---|---|---|---|---|---|---|---|\n");
	double base = 0;
	for (int i = 0; i < t->n; ++i) {
		const row_t *r = &t->rows[i];
		double g = r->cells * 1e-9 / r->sec;
		if (!strncmp(r->engine, "gvk cpu", 7) && r->threads == 1) base = g;
		fprintf(fp, "| %s | %s | %d | %zu | %.3f | %.4f | %.2f | %.2fx |\n", r->workload, r->engine, r->threads, r->pairs,
		        r->cells * 1e-9, r->sec, g, base > 0 ? g / base : 0.0);
	}
}

/* Runs the engine over the whole workload in chunks as the CLI does; returns seconds or <0. */
static double run_gvk(const phmm_workload_t *w, const gvk_pairhmm_opts_t *opt, double *out, char *name, size_t name_sz,
                      double *kernel_s)
{
	gvk_err_t err;
	gvk_pairhmm_t *e = gvk_pairhmm_create(opt, &err);
	if (!e) return fprintf(stderr, "bench: %s\n", err.msg), -1;
	snprintf(name, name_sz, "%s", gvk_pairhmm_device_name(e));
	const size_t chunk = 1 << 20;
	/* A small warm-up keeps one-time start-up (thread creation, GPU context) out of the figure. */
	gvk_pairhmm_out_t o = {out, NULL, NULL, NULL};
	gvk_pairhmm_pairs(e, w->reads, w->haps, w->pairs, w->n_pairs < 256 ? w->n_pairs : 256, &o, &err);
	gvk_pairhmm_stats_t st0, st1;
	gvk_pairhmm_stats(e, &st0);
	double t0 = gvk_seconds();
	for (size_t b = 0; b < w->n_pairs; b += chunk) {
		gvk_pairhmm_out_t oc = {out + b, NULL, NULL, NULL};
		size_t m = w->n_pairs - b < chunk ? w->n_pairs - b : chunk;
		if (gvk_pairhmm_pairs(e, w->reads, w->haps, w->pairs + b, m, &oc, &err) < 0) {
			fprintf(stderr, "bench: %s\n", err.msg);
			gvk_pairhmm_destroy(e);
			return -1;
		}
	}
	double dt = gvk_seconds() - t0;
	gvk_pairhmm_stats(e, &st1);
	if (kernel_s) *kernel_s = st1.gpu_kernel_s - st0.gpu_kernel_s;
	/* Pairs recomputed in double cost several float pairs each: say how many there were. */
	printf("%s: %llu of %zu pairs in double\n", name, (unsigned long long)(st1.double_pairs - st0.double_pairs),
	       w->n_pairs);
	gvk_pairhmm_destroy(e);
	return dt;
}

/* Times gklbench on the workload written as a file and checks that its values equal gvk's. */
static double run_gkl(const char *gkl, const phmm_workload_t *w, const double *ref, size_t *mismatch)
{
	char path[] = "/tmp/gvk_bench_XXXXXX";
	int fd = mkstemp(path);
	FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!fp) return -1;
	phmm_workload_write(w, fp);
	fclose(fp);
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "%s mc %s", gkl, path);
	double t0 = gvk_seconds();
	FILE *p = popen(cmd, "r");
	if (!p) return unlink(path), -1;
	char line[256];
	size_t k = 0;
	*mismatch = 0;
	while (fgets(line, sizeof line, p)) {
		if (line[0] == '#') continue;
		char want[64];
		snprintf(want, sizeof want, "%.17g", k < w->n_pairs ? ref[k] : 0.0);
		size_t n = strlen(want);
		if (k >= w->n_pairs || strncmp(line, want, n) || line[n] != ' ') ++*mismatch;
		++k;
	}
	int rc = pclose(p);
	double dt = gvk_seconds() - t0;
	unlink(path);
	if (k != w->n_pairs) *mismatch += 1;
	return rc == 0 ? dt : -1;
}


/* Pairs of a sweep batch of length L: about `cells` cells, at most 8 M pairs. */
static size_t sweep_length_pairs(double cells, int L)
{
	size_t n = (size_t)(cells / ((double)L * L)) + 256;
	return n > 8000000 ? 8000000 : n;
}

static void usage(void)
{
	fprintf(stderr,
	        "Usage: bench_pairhmm [options]\n"
	        "  -n N            pairs of HaplotypeCaller shape (default 200000)\n"
	        "  -t N            threads for the all-threads run (default: all processors)\n"
	        "  --gkl PATH      also time Intel GKL's kernel through gklbench, a driver built with GKL\n"
	        "  --device D      cpu, gpu or auto: which engines to time besides the CPU (default auto)\n"
	        "  --sweep[=CELLS] equal-length batches, read = haplotype length 16..1024, CELLS cells each (1e10)\n"
	        "  --length L      the sweep's batch of length L alone (with --write: write that batch)\n"
	        "  --flavour F     avx512 (default) or avx2\n"
	        "  --results FILE  also append the table to FILE, e.g. bench/history/2026-11.md (default '-': print only)\n"
	        "  --note TEXT     a line to record with the figures\n"
	        "  --write FILE    only write the HaplotypeCaller-shaped work to FILE (group format) and exit\n"
	        "  --gpu-only      skip the single-thread CPU and the CPU sweep rows (GPU tuning)\n"
	        "  --indel45       insertion and deletion qualities 45 at every base (GATK4 without BI/BD\n"
	        "                  tags and with --pcr-indel-model NONE) instead of 45 at 90 %% of bases and 10-44 elsewhere\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {{"gkl", required_argument, NULL, 1}, {"device", required_argument, NULL, 2},
	                                   {"sweep", optional_argument, NULL, 3},     {"results", required_argument, NULL, 4},
	                                   {"flavour", required_argument, NULL, 5}, {"note", required_argument, NULL, 6},
	                                   {"write", required_argument, NULL, 7},
	                                   {"gpu-only", no_argument, NULL, 8},
	                                   {"indel45", no_argument, NULL, 9}, {"length", required_argument, NULL, 10},
	                                   {NULL, 0, NULL, 0}};
	size_t npairs = 200000;
	double sweep_cells = 1e10;
	int gpu_only = 0, wflags = 0, only_len = 0;
	int threads = gvk_ncpu(), sweep = 0, flavour = GVK_PHMM_FMA, device = GVK_DEVICE_AUTO;
	const char *gkl = NULL, *results = "-", *note = "", *write_to = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "n:t:h", lo, NULL)) != -1) {
		if (c == 'n') npairs = (size_t)atol(optarg);
		else if (c == 't') threads = atoi(optarg);
		else if (c == 1) gkl = optarg;
		else if (c == 2) device = !strcmp(optarg, "cpu") ? GVK_DEVICE_CPU : !strcmp(optarg, "gpu") ? GVK_DEVICE_GPU : GVK_DEVICE_AUTO;
		else if (c == 3) sweep = 1, sweep_cells = optarg ? atof(optarg) : sweep_cells;
		else if (c == 4) results = optarg;
		else if (c == 5) flavour = strcmp(optarg, "avx2") ? GVK_PHMM_FMA : GVK_PHMM_NOFMA;
		else if (c == 6) note = optarg;
		else if (c == 7) write_to = optarg;
		else if (c == 8) gpu_only = 1;
		else if (c == 9) wflags |= PHMM_WL_INDEL45;
		else if (c == 10) {
			only_len = atoi(optarg), sweep = 1;
			if (only_len < 1 || only_len > 100000) return fprintf(stderr, "bench: --length must be 1-100000\n"), 1;
		}
		else return usage(), c == 'h' ? 0 : 1;
	}
	table_t t = {.n = 0};
	double ksec = 0;
	phmm_workload_t w;
	int rc0 = write_to && only_len ? phmm_workload_equal(&w, sweep_length_pairs(sweep_cells, only_len), only_len, only_len, 7, wflags)
	                               : phmm_workload_hc(&w, npairs, 1, wflags);
	if (rc0 < 0) return fprintf(stderr, "bench: out of memory\n"), 1;
	if (write_to) {
		FILE *fp = fopen(write_to, "w");
		int rc = fp ? phmm_workload_write(&w, fp) : GVK_ERR_IO;
		if (fp && fclose(fp) != 0) rc = GVK_ERR_IO;
		printf("wrote %zu pairs (%zu groups, %.4g G cells) to %s\n", w.n_pairs, w.n_regions, w.cells * 1e-9, write_to);
		phmm_workload_free(&w);
		return rc < 0;
	}
	double *ref = malloc(w.n_pairs * sizeof *ref), *out = malloc(w.n_pairs * sizeof *out);
	gvk_pairhmm_opts_t opt;
	gvk_pairhmm_opts_init(&opt);
	opt.flavour = flavour, opt.device = GVK_DEVICE_CPU, opt.threads = 1;
	char name[96], gpu_name[96] = "";
	const char *wl = wflags & PHMM_WL_INDEL45 ? "HaplotypeCaller-shaped, indel Q45" : "HaplotypeCaller-shaped";
	char eng[128];
	double sec;
	/* --gpu-only skips the CPU rows (and the checks against them) when tuning GPU kernels. */
	if (!gpu_only) {
		if ((sec = run_gvk(&w, &opt, ref, name, sizeof name, &ksec)) < 0) return 1;
		snprintf(eng, sizeof eng, "gvk cpu (%s)", name + 4);
		add_row(&t, wl, eng, 1, w.n_pairs, w.cells, sec);
	}
	opt.threads = threads;
	if ((sec = run_gvk(&w, &opt, gpu_only ? ref : out, name, sizeof name, &ksec)) < 0) return 1;
	snprintf(eng, sizeof eng, "gvk cpu (%s)", name + 4);
	if (!gpu_only) add_row(&t, wl, eng, threads, w.n_pairs, w.cells, sec);
	if (!gpu_only && memcmp(out, ref, w.n_pairs * sizeof *out)) fprintf(stderr, "bench: WARNING: thread counts disagree\n");
	if (device != GVK_DEVICE_CPU) {
		opt.device = GVK_DEVICE_GPU;
		gvk_err_t err;
		gvk_pairhmm_t *probe = gvk_pairhmm_create(&opt, &err);
		if (probe) {
			gvk_pairhmm_destroy(probe);
			if ((sec = run_gvk(&w, &opt, out, gpu_name, sizeof gpu_name, &ksec)) > 0) {
				add_row(&t, wl, "gvk gpu (whole call)", threads, w.n_pairs, w.cells, sec);
				add_row(&t, wl, "gvk gpu (kernel time)", threads, w.n_pairs, w.cells, ksec);
			}
			size_t bad = 0;
			for (size_t k = 0; k < w.n_pairs; ++k) bad += memcmp(&out[k], &ref[k], 8) != 0;
			printf("GPU vs CPU: %zu of %zu values differ\n", bad, w.n_pairs);
		} else if (device == GVK_DEVICE_GPU) {
			fprintf(stderr, "bench: %s\n", err.msg);
		}
		opt.device = GVK_DEVICE_CPU;
	}
	if (gkl) {
		size_t bad;
		if ((sec = run_gkl(gkl, &w, ref, &bad)) > 0) {
			add_row(&t, wl, "Intel GKL 0.8.10 (gklbench, incl. parsing)", 1, w.n_pairs, w.cells, sec);
			printf("GKL vs gvk: %zu of %zu values differ\n", bad, w.n_pairs);
		} else {
			fprintf(stderr, "bench: gklbench failed\n");
		}
	}
	if (sweep) {
		static const int all[] = {16, 32, 64, 128, 256, 512, 1024};
		const int *lens = only_len ? &only_len : all;
		const size_t nlens = only_len ? 1 : sizeof all / sizeof all[0];
		for (size_t i = 0; i < nlens; ++i) {
			phmm_workload_t e;
			if (phmm_workload_equal(&e, sweep_length_pairs(sweep_cells, lens[i]), lens[i], lens[i], 7, wflags) < 0) break;
			double *o = malloc(e.n_pairs * sizeof *o);
			char label[48];
			snprintf(label, sizeof label, "equal lengths %d x %d%s", lens[i], lens[i], wflags & PHMM_WL_INDEL45 ? ", indel Q45" : "");
			opt.device = GVK_DEVICE_CPU, opt.threads = threads;
			if (!gpu_only && (sec = run_gvk(&e, &opt, o, name, sizeof name, &ksec)) > 0)
				add_row(&t, label, eng, threads, e.n_pairs, e.cells, sec);
			if (gpu_name[0]) {
				opt.device = GVK_DEVICE_GPU;
				if ((sec = run_gvk(&e, &opt, o, name, sizeof name, &ksec)) > 0) {
					add_row(&t, label, "gvk gpu (whole call)", threads, e.n_pairs, e.cells, sec);
					add_row(&t, label, "gvk gpu (kernel time)", threads, e.n_pairs, e.cells, ksec);
				}
			}
			free(o);
			phmm_workload_free(&e);
		}
	}
	print_table(stdout, &t);
	if (strcmp(results, "-")) {
		FILE *fp = bench_results_open(results, "bench_pairhmm");
		if (!fp) return 1;
		char cpu[128];
		bench_host_cpu(cpu, sizeof cpu);
		fprintf(fp, "Host: %s, %d threads; GPU: %s; flavour %s. %s\n\n", cpu, threads, gpu_name[0] ? gpu_name : "none",
		        flavour == GVK_PHMM_FMA ? "avx512" : "avx2", note);
		print_table(fp, &t);
		fclose(fp);
	}
	free(ref), free(out);
	phmm_workload_free(&w);
	return 0;
}
