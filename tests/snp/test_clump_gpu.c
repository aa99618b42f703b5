/* SPDX-License-Identifier: MIT */
/* --clump's GPU tables = the CPU's: a fileset and association reports clumped with the tables
 * counted on the GPU (snp_gpu_clump_counts) and on the CPU (ld_clump_r2_row), the clumps, their
 * counts and every member's file and r^2 compared exactly, with and without overlap and on X;
 * from the fileset's planes, and streamed (only the windows' SNPs read, a component at a time)
 * on the GPU and on the CPU.
 * Exit 77 when no GPU is usable. Usage: test_clump_gpu PREFIX ASSOC... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "ld/ld_clump.h"
#include "test_gpu_fileset.h"
#include "ld/ld_gpu.h"

static int fails;
#define CHECK(c, ...) do { if (!(c)) { if (fails++ < 10) fprintf(stderr, __VA_ARGS__); } } while (0)

static void compare(const ld_clump_result_t *a, const ld_clump_result_t *b, const char *what)
{
	CHECK(a->n == b->n && a->n_m == b->n_m, "%s: %lld clumps / %lld members on the GPU, %lld / %lld on the CPU\n", what,
	      (long long)a->n, (long long)a->n_m, (long long)b->n, (long long)b->n_m);
	for (int64_t k = 0; k < a->n && k < b->n; ++k) {
		const ld_clump_t *x = &a->c[k], *y = &b->c[k];
		CHECK(x->snp == y->snp && x->n == y->n && x->first == y->first && !memcmp(x->histo, y->histo, sizeof x->histo),
		      "%s: clump %lld differs\n", what, (long long)k);
	}
	for (int64_t k = 0; k < a->n_m && k < b->n_m; ++k)
		CHECK(a->m[k].snp == b->m[k].snp && a->m[k].fidx == b->m[k].fidx && a->m[k].r2 == b->m[k].r2,
		      "%s: member %lld: %g on the GPU, %g on the CPU\n", what, (long long)k, a->m[k].r2, b->m[k].r2);
}

int main(int argc, char **argv)
{
	if (argc < 3) return fprintf(stderr, "usage: test_clump_gpu PREFIX ASSOC...\n"), 2;
	gvk_err_t err = {0, ""};
	gpu_fileset_t f;
	int frc = gpu_fileset_open(argv[1], &f);
	if (frc) return frc;
	snp_gpu_t *gpu = f.gpu;
	snp_data_t *d = &f.d, *ds = &f.ds;
	for (int overlap = 0; overlap < 2; ++overlap)
		for (int kr = 0; kr < 2; ++kr) {
			ld_clump_opt_t o;
			ld_clump_opt_init(&o);
			o.allow_overlap = overlap, o.r2 = kr ? 0.05 : 0.5, o.p2 = kr ? 0.5 : 0.01, o.threads = 2;
			ld_clump_input_t in;
			ld_clump_result_t rc = {0}, rg = {0};
			if (ld_clump_read(d, (const char *const *)argv + 2, argc - 2, NULL, &o, &in, &err) < 0 ||
			    ld_clump_run(d, &in, &o, &rc, &err) < 0)
				return fprintf(stderr, "CPU: %s\n", err.msg), 1;
			o.gpu = gpu;
			if (ld_clump_run(d, &in, &o, &rg, &err) < 0) return fprintf(stderr, "GPU: %s\n", err.msg), 1;
			char what[96];
			snprintf(what, sizeof what, "overlap %d, r2 %g", overlap, o.r2);
			compare(&rg, &rc, what);
			CHECK(rc.n > 0 && rc.pairs > 0, "%s: no clumps formed, nothing compared\n", what);
			printf("%s: %lld clumps, %llu pairs\n", what, (long long)rc.n, (unsigned long long)rc.pairs);
			for (int on_gpu = 0; on_gpu < 2; ++on_gpu) { /* streamed from the .bed */
				ld_clump_result_t rs = {0};
				o.gpu = on_gpu ? gpu : NULL, o.src = &f.src;
				if (ld_clump_run(ds, &in, &o, &rs, &err) < 0) return fprintf(stderr, "streamed: %s\n", err.msg), 1;
				snprintf(what, sizeof what, "overlap %d, r2 %g, streamed on the %s", overlap, o.r2, on_gpu ? "GPU" : "CPU");
				compare(&rs, &rc, what);
				ld_clump_result_free(&rs);
			}
			o.src = NULL;
			ld_clump_result_free(&rc), ld_clump_result_free(&rg);
			ld_clump_input_free(&in);
		}
	gpu_fileset_close(&f);
	printf("%s\n", fails ? "FAILED" : "GPU tables = CPU tables");
	return fails ? 1 : 0;
}
