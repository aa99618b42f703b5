/* SPDX-License-Identifier: MIT */
/* Times one gvk Pair-HMM engine on an input file (any format gvk pairhmm reads), for comparisons
 * with other GPU Pair-HMMs on the same file (scripts/gpu-check.sh peers): the file is parsed once,
 * then computed --reps times after a warm-up; prints the best whole-call and GPU kernel times.
 * -o writes the values (one per pair, input order, %.17g) as gvk pairhmm does. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "common/threads.h"
#include "pairhmm/pairhmm_io.h"

enum { MAX_CHUNKS = 4096 };

static void usage(FILE *fp)
{
	fprintf(fp, "Usage: bench_pairhmm_file [--device cpu|gpu] [--reps N] [-t THREADS] [-o FILE] INPUT\n"
	            "  --device D   cpu or gpu (default gpu)\n"
	            "  --reps N     timed runs after one warm-up; the best is printed (default 3)\n"
	            "  -t N         engine threads (default: the library's)\n"
	            "  -o FILE      write the values of the last run to FILE\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {{"device", required_argument, NULL, 1}, {"reps", required_argument, NULL, 2},
	                                   {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	int device = GVK_DEVICE_GPU, reps = 3, threads = 0, c;
	const char *out_path = NULL;
	while ((c = getopt_long(argc, argv, "o:t:h", lo, NULL)) != -1) {
		if (c == 1) device = !strcmp(optarg, "cpu") ? GVK_DEVICE_CPU : GVK_DEVICE_GPU;
		else if (c == 2) reps = atoi(optarg);
		else if (c == 't') threads = atoi(optarg);
		else if (c == 'o') out_path = optarg;
		else return usage(c == 'h' ? stdout : stderr), c != 'h';
	}
	if (optind + 1 != argc || reps < 1) return usage(stderr), 1;
	gvk_err_t err = {0, ""};
	phmm_reader_t *rd = phmm_reader_open(argv[optind], PHMM_FMT_AUTO, &err);
	if (!rd) return fprintf(stderr, "bench_pairhmm_file: %s\n", err.msg), 1;
	/* The whole file in memory first, so that parsing stays out of the times. */
	static phmm_chunk_t ch[MAX_CHUNKS];
	int nc = 0;
	size_t pairs = 0;
	double cells = 0;
	long n;
	while (nc < MAX_CHUNKS && (n = phmm_reader_next(rd, &ch[nc], (size_t)1 << 22, &err)) > 0)
		pairs += (size_t)n, cells += (double)ch[nc].cells, ++nc;
	phmm_reader_close(rd);
	if (n < 0) return fprintf(stderr, "bench_pairhmm_file: %s\n", err.msg), 1;
	if (nc == MAX_CHUNKS) return fprintf(stderr, "bench_pairhmm_file: input too large\n"), 1;
	double *v = malloc((pairs ? pairs : 1) * sizeof *v);
	gvk_pairhmm_opts_t opt;
	gvk_pairhmm_opts_init(&opt);
	opt.device = device;
	if (threads > 0) opt.threads = threads;
	gvk_pairhmm_t *e = v ? gvk_pairhmm_create(&opt, &err) : NULL;
	if (!e) return fprintf(stderr, "bench_pairhmm_file: %s\n", v ? err.msg : "out of memory"), 1;
	double best_call = 0, best_kernel = 0;
	uint64_t dbl = 0;
	for (int r = 0; r <= reps; ++r) {
		gvk_pairhmm_stats_t s0, s1;
		gvk_pairhmm_stats(e, &s0);
		double t0 = gvk_seconds();
		size_t off = 0;
		for (int k = 0; k < nc; ++k) {
			gvk_pairhmm_out_t o = {v + off, NULL, NULL, NULL};
			if (gvk_pairhmm_pairs(e, ch[k].reads, ch[k].haps, ch[k].pairs, ch[k].n_pairs, &o, &err) < 0)
				return fprintf(stderr, "bench_pairhmm_file: %s\n", err.msg), 1;
			off += ch[k].n_pairs;
		}
		double dt = gvk_seconds() - t0;
		gvk_pairhmm_stats(e, &s1);
		double ks = s1.gpu_kernel_s - s0.gpu_kernel_s;
		dbl = s1.double_pairs - s0.double_pairs;
		/* Run 0 is the warm-up (first launches, lazy module loading). */
		if (r == 1 || (r > 1 && dt < best_call)) best_call = dt;
		if (r == 1 || (r > 1 && ks < best_kernel)) best_kernel = ks;
	}
	printf("gvk %s: %zu pairs, %.4g G cells, %llu pairs in double; best of %d: call %.6f s (%.2f GCUPS), "
	       "GPU kernels %.6f s (%.2f GCUPS)\n",
	       gvk_pairhmm_device_name(e), pairs, cells * 1e-9, (unsigned long long)dbl, reps, best_call,
	       cells * 1e-9 / best_call, best_kernel, best_kernel > 0 ? cells * 1e-9 / best_kernel : 0.0);
	int rc = 0;
	if (out_path) {
		FILE *fp = fopen(out_path, "w");
		for (size_t k = 0; fp && k < pairs; ++k) fprintf(fp, "%.17g\n", v[k]);
		if (!fp || fclose(fp) != 0) fprintf(stderr, "bench_pairhmm_file: cannot write %s\n", out_path), rc = 1;
	}
	gvk_pairhmm_destroy(e);
	for (int k = 0; k < nc; ++k) phmm_chunk_free(&ch[k]);
	free(v);
	return rc;
}
