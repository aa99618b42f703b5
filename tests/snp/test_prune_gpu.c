/* SPDX-License-Identifier: MIT */
/* --indep-pairwise's and --indep-pairphase's GPU path = the CPU path: a fileset pruned with the
 * GPU counting the pairs (ld_prune_gpu.h) and with the CPU counting them, over windows in
 * variants and in kb, steps, thresholds, thread counts and band sizes, from the fileset's planes
 * and streamed from the .bed; the pruned flags and the counts of pairs met compared exactly. Then the public
 * gvk_ld_prune_bfile with a GPU engine against a CPU one, list for list.
 * Exit 77 when no GPU is usable. Usage: test_prune_gpu PREFIX */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "common/err.h"
#include "ld/ld_prune.h"
#include "test_gpu_fileset.h"

static int fails;
#define CHECK(c, ...) do { if (!(c)) { if (fails++ < 10) fprintf(stderr, __VA_ARGS__); } } while (0)

typedef struct {
	int mode, kb, threads;
	int64_t win, step;
	double r2;
} grid_t;

static const grid_t grid[] = {
	{LD_PRUNE_PAIRWISE, 0, 1, 50, 5, 0.2},   {LD_PRUNE_PAIRWISE, 0, 3, 50, 5, 0.2},
	{LD_PRUNE_PAIRWISE, 0, 2, 10, 3, 0.5},   {LD_PRUNE_PAIRWISE, 0, 1, 2, 1, 0.1},
	{LD_PRUNE_PAIRWISE, 0, 2, 20, 1, 0},     {LD_PRUNE_PAIRWISE, 0, 2, 7, 7, 0.05},
	{LD_PRUNE_PAIRWISE, 1, 2, 30, 2, 0.3},   {LD_PRUNE_PAIRWISE, 1, 1, 100, 10, 0.8},
	{LD_PRUNE_PAIRWISE, 1, 2, 1, 1, 0.1},    {LD_PRUNE_PAIRPHASE, 0, 1, 50, 5, 0.2},
	{LD_PRUNE_PAIRPHASE, 0, 3, 10, 3, 0.5},  {LD_PRUNE_PAIRPHASE, 0, 2, 20, 1, 0},
	{LD_PRUNE_PAIRPHASE, 1, 2, 30, 2, 0.3},  {LD_PRUNE_PAIRPHASE, 1, 1, 100, 10, 0.8},
};

/* One run; 0 or -1 with the message printed. */
static int prune(const snp_data_t *d, const ld_prune_opt_t *o, uint8_t *pruned, uint8_t *skip, ld_prune_report_t *rep,
                 const char *what)
{
	gvk_err_t err = {0};
	if (ld_prune_pairwise(d, o, pruned, skip, rep, &err) == 0) return 0;
	return fprintf(stderr, "%s: %s\n", what, err.msg), -1;
}

/* The grid on d (streamed from src when not NULL): GPU against CPU. */
static int run_grid(const snp_data_t *d, const snp_bed_src_t *src, snp_gpu_t *gpu, const char *how)
{
	size_t m = (size_t)d->n_snp + 1;
	uint8_t *pc = malloc(m), *pg = malloc(m), *sc = malloc(m), *sg = malloc(m);
	if (!pc || !pg || !sc || !sg) return fprintf(stderr, "out of memory\n"), -1;
	int rc = 0;
	for (size_t k = 0; rc == 0 && k < sizeof grid / sizeof *grid; ++k) {
		const grid_t *t = &grid[k];
		ld_prune_opt_t o = {.win = t->win, .kb = t->kb, .step = t->step, .r2 = t->r2, .threads = t->threads, .mode = t->mode, .src = src};
		ld_prune_report_t rc_ = {0}, rg = {0};
		char what[128];
		snprintf(what, sizeof what, "%s %s %lld%s %lld %g, %d threads, bands of %lld", how, ld_prune_mode_name(t->mode),
		         (long long)t->win, t->kb ? "kb" : "", (long long)t->step, t->r2, t->threads, (long long)(k % 3) * 7);
		if (prune(d, &o, pc, sc, &rc_, what) < 0) rc = -1;
		o.gpu = gpu, o.gpu_band = (int64_t)(k % 3) * 7; /* automatic, 7 and 14 rows a band */
		if (rc == 0 && prune(d, &o, pg, sg, &rg, what) < 0) rc = -1;
		if (rc == 0) {
			CHECK(!memcmp(pc, pg, m - 1) && !memcmp(sc, sg, m - 1), "%s: the lists differ (%lld / %lld pruned)\n", what,
			      (long long)rg.pruned, (long long)rc_.pruned);
			CHECK(rc_.pairs == rg.pairs, "%s: %lld pairs met on the GPU, %lld on the CPU\n", what, (long long)rg.pairs,
			      (long long)rc_.pairs);
			CHECK(rc_.pruned > 0 && rc_.pruned < d->n_snp, "%s: %lld of %lld pruned, nothing to compare\n", what,
			      (long long)rc_.pruned, (long long)d->n_snp);
			printf("%s: %lld pruned, %lld pairs\n", what, (long long)rc_.pruned, (long long)rc_.pairs);
		}
		ld_prune_report_free(&rc_), ld_prune_report_free(&rg);
	}
	free(pc), free(pg), free(sc), free(sg);
	return rc;
}

/* gvk_ld_prune_bfile with an engine of device (GPU or CPU); NULL with the message printed. */
static gvk_ld_prune_result_t *api_prune(const char *prefix, int device, int mode)
{
	gvk_err_t err = {0};
	gvk_ld_opts_t eo;
	gvk_ld_opts_init(&eo);
	eo.device = device, eo.threads = 2;
	gvk_ld_t *e = gvk_ld_create(&eo, &err);
	gvk_ld_prune_opts_t po;
	gvk_ld_prune_opts_init(&po);
	po.mode = mode;
	gvk_ld_prune_result_t *r = NULL;
	if (!e || gvk_ld_prune_bfile(e, prefix, &po, &r, &err) < 0) fprintf(stderr, "gvk_ld_prune_bfile: %s\n", err.msg);
	gvk_ld_destroy(e);
	return r;
}

static void api_compare(const char *prefix, int mode)
{
	gvk_ld_prune_result_t *g = api_prune(prefix, GVK_DEVICE_GPU, mode), *c = api_prune(prefix, GVK_DEVICE_CPU, mode);
	CHECK(g && c, "gvk_ld_prune_bfile failed\n");
	if (g && c) {
		int same = g->n_kept == c->n_kept && g->n_removed == c->n_removed;
		for (int64_t k = 0; same && k < g->n_kept; ++k) same = !strcmp(g->kept[k], c->kept[k]);
		for (int64_t k = 0; same && k < g->n_removed; ++k) same = !strcmp(g->removed[k], c->removed[k]);
		CHECK(same && c->n_removed > 0, "gvk_ld_prune_bfile %s: %lld / %lld removed on the GPU / CPU, or the lists differ\n",
		      ld_prune_mode_name(mode), (long long)g->n_removed, (long long)c->n_removed);
	}
	gvk_ld_prune_free(g), gvk_ld_prune_free(c);
}

int main(int argc, char **argv)
{
	if (argc != 2) return fprintf(stderr, "usage: test_prune_gpu PREFIX\n"), 2;
	gpu_fileset_t f;
	int rc = gpu_fileset_open(argv[1], &f);
	if (rc) return rc;
	rc = run_grid(&f.d, NULL, f.gpu, "planes");
	if (rc == 0) rc = run_grid(&f.ds, &f.src, f.gpu, "streamed");
	snp_gpu_close(f.gpu), f.gpu = NULL; /* the library's engines open their own */
	if (rc == 0) api_compare(argv[1], LD_PRUNE_PAIRWISE), api_compare(argv[1], LD_PRUNE_PAIRPHASE);
	gpu_fileset_close(&f);
	printf("%s\n", rc || fails ? "FAILED" : "GPU pruning = CPU pruning");
	return rc || fails ? 1 : 0;
}
