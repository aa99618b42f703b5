/* SPDX-License-Identifier: MIT */
/* --indep-pairwise and --indep-pairphase with chromosomes split into pieces over the threads
 * (ld_prune_split.c, prune_split_plan and join_chrom) = one run per chromosome: over windows in variants and
 * in kb, steps, thresholds, piece sizes and the windows a piece runs before its own (none, so that
 * the pieces seldom meet the one run at once and the joins go on from the true state; and the
 * default), from the fileset's planes and streamed from the .bed with the statistics set as rows
 * are decoded. The pruned flags, each chromosome's count and (streamed) every SNP's A2 frequency,
 * rate and allele order are compared exactly. Usage: test_prune_split PREFIX */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "ld/ld_prune.h"
#include "snp/plink_io.h"

static int fails;
#define CHECK(c, ...) do { if (!(c)) { if (fails++ < 10) fprintf(stderr, __VA_ARGS__); } } while (0)

typedef struct {
	int mode, kb;
	int64_t win, step;
	double r2;
} grid_t;

static const grid_t grid[] = {
	{LD_PRUNE_PAIRWISE, 0, 50, 5, 0.2},  {LD_PRUNE_PAIRWISE, 0, 10, 3, 0.5},  {LD_PRUNE_PAIRWISE, 0, 20, 1, 0},
	{LD_PRUNE_PAIRWISE, 0, 7, 7, 0.05},  {LD_PRUNE_PAIRWISE, 1, 30, 2, 0.3},  {LD_PRUNE_PAIRWISE, 1, 1, 1, 0.1},
	{LD_PRUNE_PAIRPHASE, 0, 50, 5, 0.2}, {LD_PRUNE_PAIRPHASE, 0, 10, 3, 0.5}, {LD_PRUNE_PAIRPHASE, 1, 30, 2, 0.3},
};

/* The splits tried besides the one run: SNPs a piece takes and piece_lead. */
static const struct { int64_t piece; int lead; } splits[] = {{40, -1}, {97, -1}, {250, 0}, {331, -1}, {600, 2}};

/* A fileset as the prune step takes it: planes (d) or rows to stream (ds, src). */
typedef struct {
	snp_data_t d, ds;
	snp_geno_ctx_t gc;
	int64_t *row, n_rows;
	char bed[4096];
	snp_bed_src_t src;
} fileset_t;

static int fileset_open(const char *prefix, fileset_t *f)
{
	gvk_err_t err = {0, ""};
	snp_plink_opt_t po = {0, 0};
	memset(f, 0, sizeof *f);
	snprintf(f->bed, sizeof f->bed, "%s.bed", prefix);
	if (snp_read_bfile(prefix, &po, &f->d, &err) < 0 ||
	    snp_read_bfile_rows(prefix, &po, 0, &f->ds, &f->gc, &f->row, &f->n_rows, &err) < 0)
		return fprintf(stderr, "%s\n", err.msg), -1;
	f->src = (snp_bed_src_t){f->bed, f->row, f->n_rows, f->ds.n_samples, &f->gc, 1};
	return 0;
}

static void fileset_close(fileset_t *f)
{
	snp_data_free(&f->d), snp_data_free(&f->ds);
	snp_geno_ctx_free(&f->gc);
	free(f->row);
}

/* One prune of a fresh fileset (the streamed statistics are set once per reading); the flags and
 * counts into pruned / rep, the streamed run's statistics into a2f, rate and swapped. */
typedef struct {
	uint8_t *pruned, *skip, *swapped;
	double *a2f, *rate;
	int64_t n;
	ld_prune_report_t rep;
} result_t;

static int run(const char *prefix, const grid_t *t, int streamed, int threads, int64_t piece, int lead, result_t *r)
{
	fileset_t f;
	if (fileset_open(prefix, &f) < 0) return -1;
	const snp_data_t *d = streamed ? &f.ds : &f.d;
	size_t m = (size_t)d->n_snp + 1;
	memset(r, 0, sizeof *r);
	r->n = d->n_snp;
	r->pruned = malloc(m), r->skip = malloc(m), r->swapped = malloc(m);
	r->a2f = malloc(m * sizeof *r->a2f), r->rate = malloc(m * sizeof *r->rate);
	gvk_err_t err = {0, ""};
	ld_prune_opt_t o = {.win = t->win, .kb = t->kb, .step = t->step, .r2 = t->r2, .threads = threads, .mode = t->mode,
	                    .src = streamed ? &f.src : NULL, .piece = piece, .piece_lead = lead};
	int rc = r->pruned && r->skip && r->swapped && r->a2f && r->rate ? ld_prune_pairwise(d, &o, r->pruned, r->skip, &r->rep, &err) : -1;
	if (rc < 0) fprintf(stderr, "prune: %s\n", err.msg[0] ? err.msg : "out of memory");
	for (int64_t i = 0; rc == 0 && i < d->n_snp; ++i)
		r->a2f[i] = d->a2f[i], r->rate[i] = d->rate[i], r->swapped[i] = strcmp(d->var[i].a1, f.d.var[i].a1) != 0;
	/* the chromosome names point into the fileset, about to go */
	for (int64_t k = 0; k < r->rep.n_chrom; ++k) r->rep.chrom[k].chr = NULL;
	fileset_close(&f);
	return rc;
}

static void result_free(result_t *r)
{
	free(r->pruned), free(r->skip), free(r->swapped), free(r->a2f), free(r->rate);
	ld_prune_report_free(&r->rep);
}

static void compare(const result_t *one, const result_t *split, int64_t n, int streamed, const char *what)
{
	CHECK(!memcmp(one->pruned, split->pruned, (size_t)n) && !memcmp(one->skip, split->skip, (size_t)n),
	      "%s: the lists differ (%lld / %lld pruned)\n", what, (long long)split->rep.pruned, (long long)one->rep.pruned);
	CHECK(one->rep.n_chrom == split->rep.n_chrom && one->rep.pruned == split->rep.pruned, "%s: the counts differ\n", what);
	for (int64_t k = 0; k < one->rep.n_chrom && k < split->rep.n_chrom; ++k)
		CHECK(one->rep.chrom[k].pruned == split->rep.chrom[k].pruned && one->rep.chrom[k].n == split->rep.chrom[k].n,
		      "%s: chromosome %lld: %lld pruned, %lld in one run\n", what, (long long)k,
		      (long long)split->rep.chrom[k].pruned, (long long)one->rep.chrom[k].pruned);
	if (streamed)
		CHECK(!memcmp(one->a2f, split->a2f, (size_t)n * sizeof *one->a2f) &&
		      !memcmp(one->rate, split->rate, (size_t)n * sizeof *one->rate) && !memcmp(one->swapped, split->swapped, (size_t)n),
		      "%s: the statistics set while streaming differ\n", what);
}

int main(int argc, char **argv)
{
	if (argc != 2) return fprintf(stderr, "usage: test_prune_split PREFIX\n"), 2;
	int rc = 0, n_cases = 0;
	int64_t pieces = 0, resumed = 0;
	for (size_t g = 0; rc == 0 && g < sizeof grid / sizeof *grid; ++g)
		for (int streamed = 0; rc == 0 && streamed < 2; ++streamed) {
			const grid_t *t = &grid[g];
			result_t one;
			if ((rc = run(argv[1], t, streamed, 1, 0, 0, &one)) < 0) break;
			int64_t n = one.n;
			CHECK(one.rep.pruned > 0 && one.rep.pruned < n, "%s %lld: %lld of %lld pruned, nothing to compare\n",
			      ld_prune_mode_name(t->mode), (long long)t->win, (long long)one.rep.pruned, (long long)n);
			for (size_t s = 0; rc == 0 && s < sizeof splits / sizeof *splits; ++s) {
				char what[160];
				snprintf(what, sizeof what, "%s %lld%s %lld %g, %s, pieces of %lld, lead %d", ld_prune_mode_name(t->mode),
				         (long long)t->win, t->kb ? "kb" : "", (long long)t->step, t->r2, streamed ? "streamed" : "planes",
				         (long long)splits[s].piece, splits[s].lead);
				result_t split;
				if ((rc = run(argv[1], t, streamed, 3 + (int)(s % 2), splits[s].piece, splits[s].lead, &split)) == 0) {
					compare(&one, &split, n, streamed, what);
					++n_cases, pieces += split.rep.pieces, resumed += split.rep.resumed;
				}
				result_free(&split);
			}
			printf("%s %lld%s %lld %g, %s: %lld pruned, the same in every split\n", ld_prune_mode_name(t->mode),
			       (long long)t->win, t->kb ? "kb" : "", (long long)t->step, t->r2, streamed ? "streamed" : "planes",
			       (long long)one.rep.pruned);
			result_free(&one);
		}
	/* the joins must have met both cases: a piece taken as it ran, and the one run going on */
	CHECK(rc || (pieces > 0 && resumed > 0 && resumed < pieces), "%lld pieces, %lld joined by going on from the true state\n",
	      (long long)pieces, (long long)resumed);
	printf("%s (%d splits, %lld pieces, %lld of them joined by going on from the true state)\n",
	       rc || fails ? "FAILED" : "split pruning = one run", n_cases, (long long)pieces, (long long)resumed);
	return rc || fails ? 1 : 0;
}
