/* SPDX-License-Identifier: MIT */
/* A shared engine (gvk_pairhmm_opts_t.shared) called from many threads at once, one region per
 * call as GATK's native threads call it, gives every caller the bits an engine of its own gives.
 * Also: a call asking for raw sums (computed alone), used_double, and options out of range.
 * Usage: test_pairhmm_shared cpu|gpu [regions] [callers,callers...] [merge_wait_us] [contexts].
 * Exit 77: no GPU. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gvk.h"

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

typedef struct {
	int nr, nh;
	gvk_read_t *reads;
	gvk_hap_t *haps;
	double *want, *got;
	uint8_t *used;
} region_t;

/* Haplotypes of 30-400 bases, reads of 10-250 taken from them with substitutions; a few reads
 * with random qualities, which mostly underflow into the double pass. */
static void make_region(region_t *g, uint64_t *s)
{
	g->nh = 1 + (int)(rng(s) % 8), g->nr = 1 + (int)(rng(s) % 24);
	g->haps = calloc((size_t)g->nh, sizeof *g->haps);
	g->reads = calloc((size_t)g->nr, sizeof *g->reads);
	for (int h = 0; h < g->nh; ++h) {
		int H = 30 + (int)(rng(s) % 371);
		char *b = malloc((size_t)H);
		for (int k = 0; k < H; ++k) b[k] = "ACGT"[rng(s) % 4];
		g->haps[h] = (gvk_hap_t){H, b};
	}
	for (int r = 0; r < g->nr; ++r) {
		const gvk_hap_t *src = &g->haps[rng(s) % (uint64_t)g->nh];
		int R = 10 + (int)(rng(s) % 241);
		if (R > src->len) R = src->len;
		int at = (int)(rng(s) % (uint64_t)(src->len - R + 1)), noisy = rng(s) % 8 == 0;
		char *b = malloc((size_t)R);
		uint8_t *q = malloc(4 * (size_t)R);
		for (int k = 0; k < R; ++k) {
			b[k] = rng(s) % 50 == 0 ? "ACGT"[rng(s) % 4] : src->bases[at + k];
			q[k] = noisy ? (uint8_t)(rng(s) % 128) : (uint8_t)(20 + rng(s) % 21);
			q[R + k] = q[2 * R + k] = noisy ? (uint8_t)(rng(s) % 128) : 45;
			q[3 * R + k] = 10;
		}
		g->reads[r] = (gvk_read_t){R, b, q, q + R, q + 2 * R, q + 3 * R};
	}
	g->want = malloc((size_t)g->nr * (size_t)g->nh * sizeof(double));
	g->got = malloc((size_t)g->nr * (size_t)g->nh * sizeof(double));
	g->used = malloc((size_t)g->nr * (size_t)g->nh);
}

typedef struct {
	gvk_pairhmm_t *e;
	region_t *g;
	int n;
	atomic_int next, failed;
} job_t;

/* Each thread takes regions in turn; every third one through gvk_pairhmm_pairs with used_double,
 * every 50th asking for the raw float sums too (such a call is computed on its own). */
static void *caller(void *arg)
{
	job_t *j = arg;
	int i;
	while ((i = atomic_fetch_add(&j->next, 1)) < j->n) {
		region_t *g = &j->g[i];
		gvk_err_t err = {0, ""};
		int rc;
		if (i % 3 == 0) {
			size_t n = (size_t)g->nr * (size_t)g->nh;
			gvk_pair_t *p = malloc(n * sizeof *p);
			float *fs = i % 50 == 0 ? malloc(n * sizeof *fs) : NULL;
			for (int r = 0; r < g->nr; ++r)
				for (int h = 0; h < g->nh; ++h) p[(size_t)r * g->nh + h] = (gvk_pair_t){r, h};
			gvk_pairhmm_out_t o = {g->got, g->used, fs, NULL};
			rc = gvk_pairhmm_pairs(j->e, g->reads, g->haps, p, n, &o, &err);
			free(p), free(fs);
		} else
			rc = gvk_pairhmm_batch(j->e, g->reads, g->nr, g->haps, g->nh, g->got, &err);
		if (rc < 0) {
			fprintf(stderr, "region %d: %s\n", i, err.msg);
			atomic_store(&j->failed, 1);
		}
	}
	return NULL;
}

static int check_options(void)
{
	gvk_pairhmm_opts_t o;
	gvk_err_t err = {0, ""};
	int bad = 0;
	gvk_pairhmm_opts_init(&o);
	o.shared = 1, o.merge_wait_us = -1, o.device = GVK_DEVICE_CPU;
	if (gvk_pairhmm_create(&o, &err) || err.code != GVK_ERR_ARG || !strstr(err.msg, "merge_wait_us")) bad = 1;
	o.merge_wait_us = 0, o.merge_max_pairs = 0;
	if (gvk_pairhmm_create(&o, &err) || err.code != GVK_ERR_ARG) bad = 1;
	if (gvk_pairhmm_create(NULL, &err) || err.code != GVK_ERR_ARG) bad = 1;
	if (bad) fprintf(stderr, "options out of range were accepted (%s)\n", err.msg);
	return bad;
}

/* One run of T callers on a fresh shared engine; 0 when every result has the reference's bits. */
static int run_callers(gvk_pairhmm_opts_t o, region_t *g, int n, int T, int gpu)
{
	gvk_err_t err = {0, ""};
	gvk_pairhmm_t *e = gvk_pairhmm_create(&o, &err);
	if (!e) {
		printf("SKIP: shared %s engine unavailable: %s\n", gpu ? "GPU" : "CPU", err.msg);
		return gpu ? 77 : 1;
	}
	for (int i = 0; i < n; ++i) memset(g[i].got, 0, (size_t)g[i].nr * (size_t)g[i].nh * sizeof(double));
	job_t j = {e, g, n, 0, 0};
	struct timespec t0, t1;
	pthread_t th[256];
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int t = 0; t < T; ++t) pthread_create(&th[t], NULL, caller, &j);
	for (int t = 0; t < T; ++t) pthread_join(th[t], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	const double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
	gvk_pairhmm_stats_t st;
	gvk_pairhmm_stats(e, &st);
	size_t diff = 0, pairs = 0;
	for (int i = 0; i < n; ++i) {
		size_t m = (size_t)g[i].nr * (size_t)g[i].nh;
		pairs += m;
		for (size_t k = 0; k < m; ++k) diff += memcmp(&g[i].want[k], &g[i].got[k], sizeof(double)) != 0;
	}
	printf("shared %s engine (%s), %d callers, merge wait %d us, %d contexts: %d regions, %zu pairs (%llu counted), "
	       "%zu differ (%.3f s, %.0f regions/s, %.1f GCUPS)\n",
	       gpu ? "GPU" : "CPU", gvk_pairhmm_device_name(e), T, o.merge_wait_us, o.merge_contexts, n, pairs,
	       (unsigned long long)st.pairs, diff, secs, n / secs, 1e-9 * (double)st.cells / secs);
	gvk_pairhmm_destroy(e);
	return j.failed || diff || st.pairs != pairs;
}

static void free_region(region_t *g)
{
	for (int r = 0; r < g->nr; ++r) free((void *)g->reads[r].bases), free((void *)g->reads[r].qual);
	for (int h = 0; h < g->nh; ++h) free((void *)g->haps[h].bases);
	free(g->reads), free(g->haps), free(g->want), free(g->got), free(g->used);
}

int main(int argc, char **argv)
{
	const int gpu = argc > 1 && !strcmp(argv[1], "gpu");
	const int n = argc > 2 ? atoi(argv[2]) : 3000;
	const char *callers = argc > 3 ? argv[3] : "8";
	const int wait = argc > 4 ? atoi(argv[4]) : 0, nctx = argc > 5 ? atoi(argv[5]) : 0;
	gvk_err_t err = {0, ""};
	gvk_pairhmm_opts_t o;
	if (gpu) { /* skip at once, before the CPU reference, where there is no GPU */
		gvk_pairhmm_opts_init(&o);
		o.device = GVK_DEVICE_GPU;
		gvk_pairhmm_t *probe = gvk_pairhmm_create(&o, &err);
		if (!probe) return printf("SKIP: GPU engine unavailable: %s\n", err.msg), 77;
		gvk_pairhmm_destroy(probe);
	}
	uint64_t s = 0x9e3779b97f4a7c15ull;
	region_t *g = calloc((size_t)n, sizeof *g);
	for (int i = 0; i < n; ++i) make_region(&g[i], &s);

	gvk_pairhmm_opts_init(&o);
	o.device = GVK_DEVICE_CPU, o.threads = 0;
	gvk_pairhmm_t *ref = gvk_pairhmm_create(&o, &err);
	if (!ref) return fprintf(stderr, "%s\n", err.msg), 1;
	for (int i = 0; i < n; ++i)
		if (gvk_pairhmm_batch(ref, g[i].reads, g[i].nr, g[i].haps, g[i].nh, g[i].want, &err) < 0)
			return fprintf(stderr, "%s\n", err.msg), 1;
	gvk_pairhmm_destroy(ref);

	o.device = gpu ? GVK_DEVICE_GPU : GVK_DEVICE_CPU, o.shared = 1, o.merge_wait_us = wait, o.threads = 1;
	if (nctx > 0) o.merge_contexts = nctx;
	int rc = 0;
	for (const char *c = callers; *c;) {
		int T = atoi(c);
		T = T < 1 ? 1 : T > 256 ? 256 : T;
		int r = run_callers(o, g, n, T, gpu);
		if (r == 77) {
			rc = 77;
			break;
		}
		rc |= r;
		c = strchr(c, ',') ? strchr(c, ',') + 1 : c + strlen(c);
	}
	for (int i = 0; i < n; ++i) free_region(&g[i]);
	free(g);
	return rc == 77 ? 77 : rc | check_options();
}
