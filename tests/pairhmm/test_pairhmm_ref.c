/* SPDX-License-Identifier: MIT */
/* Reproduces a GKL expected file bit-for-bit: value (%.17g), double-pass flag, raw float sum and raw
 * double sum of every pair, plus the forced-double value, on every CPU kernel (or on the GPU).
 * Usage: test_pairhmm_ref INPUT EXPECTED avx512|avx2 cpu|gpu. Exit 77 = skipped (no GPU). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "common/lineio.h"
#include "pairhmm/pairhmm_engine.h"
#include "pairhmm/pairhmm_io.h"

typedef struct {
	char val[64];
	int dbl;
	uint32_t fbits;
	uint64_t dbits;
} expect_t;

static expect_t *load_expected(const char *path, size_t *n)
{
	gvk_err_t err;
	gvk_lr_t *lr = gvk_lr_open(path, &err);
	if (!lr) return fprintf(stderr, "%s\n", err.msg), NULL;
	size_t cap = 1024;
	expect_t *e = malloc(cap * sizeof *e);
	char *line;
	size_t len;
	*n = 0;
	while (gvk_lr_next(lr, &line, &len, &err) == 1) {
		if (line[0] == '#' || len == 0) continue;
		if (*n == cap) e = realloc(e, (cap *= 2) * sizeof *e);
		expect_t *x = &e[*n];
		if (sscanf(line, "%63s %d %" SCNx32 " %" SCNx64, x->val, &x->dbl, &x->fbits, &x->dbits) != 4) {
			fprintf(stderr, "%s: bad expected line %zu\n", path, *n + 1);
			exit(2);
		}
		++*n;
	}
	gvk_lr_close(lr);
	return e;
}

static int check(const char *input, const expect_t *ex, size_t n_ex, gvk_pairhmm_opts_t *opt, const char *label)
{
	gvk_err_t err = {0, ""};
	gvk_pairhmm_t *eng = gvk_pairhmm_create(opt, &err);
	if (!eng && opt->device == GVK_DEVICE_GPU) return printf("SKIP: %s\n", err.msg), 77;
	if (!eng) return fprintf(stderr, "%s: %s\n", label, err.msg), 1;
	phmm_reader_t *rd = phmm_reader_open(input, PHMM_FMT_AUTO, &err);
	if (!rd) return fprintf(stderr, "%s\n", err.msg), 1;
	phmm_chunk_t c = {0};
	size_t base = 0, bad = 0;
	long n;
	/* A small chunk size exercises the chunking as well. */
	while ((n = phmm_reader_next(rd, &c, 5000, &err)) > 0) {
		double *v = malloc(n * sizeof *v), *ds = malloc(n * sizeof *ds), *vd = malloc(n * sizeof *vd);
		float *fs = malloc(n * sizeof *fs);
		uint8_t *ud = malloc(n);
		gvk_pairhmm_out_t o = {v, ud, fs, ds};
		if (gvk_pairhmm_pairs(eng, c.reads, c.haps, c.pairs, c.n_pairs, &o, &err) < 0)
			return fprintf(stderr, "%s: %s\n", label, err.msg), 1;
		opt->force_double = 1;
		gvk_pairhmm_t *engd = gvk_pairhmm_create(opt, &err);
		opt->force_double = 0;
		gvk_pairhmm_out_t od = {vd, NULL, NULL, NULL};
		if (!engd || gvk_pairhmm_pairs(engd, c.reads, c.haps, c.pairs, c.n_pairs, &od, &err) < 0)
			return fprintf(stderr, "%s: %s\n", label, err.msg), 1;
		gvk_pairhmm_destroy(engd);
		for (long k = 0; k < n; ++k) {
			size_t i = base + (size_t)k;
			if (i >= n_ex) return fprintf(stderr, "%s: more pairs than expected lines\n", label), 1;
			char got[64];
			snprintf(got, sizeof got, "%.17g", v[k]);
			uint32_t fb;
			uint64_t db;
			memcpy(&fb, &fs[k], 4);
			memcpy(&db, &ds[k], 8);
			double dx;
			memcpy(&dx, &ex[i].dbits, 8);
			double want_d = phmm_final_double(dx);
			int ok = !strcmp(got, ex[i].val) && ud[k] == ex[i].dbl && fb == ex[i].fbits && db == ex[i].dbits &&
			         memcmp(&vd[k], &want_d, 8) == 0;
			if (!ok && bad++ < 5)
				fprintf(stderr, "%s: pair %zu: got %s %d %08" PRIx32 " %016" PRIx64 " (double mode %.17g), want %s %d %08" PRIx32 " %016" PRIx64 "\n",
				        label, i + 1, got, ud[k], fb, db, vd[k], ex[i].val, ex[i].dbl, ex[i].fbits, ex[i].dbits);
		}
		base += (size_t)n;
		free(v), free(ds), free(vd), free(fs), free(ud);
	}
	if (n < 0) return fprintf(stderr, "%s\n", err.msg), 1;
	if (base != n_ex) return fprintf(stderr, "%s: %zu pairs, %zu expected\n", label, base, n_ex), 1;
	phmm_chunk_free(&c);
	phmm_reader_close(rd);
	printf("%s: %zu pairs, %zu mismatches (%s)\n", label, base, bad, gvk_pairhmm_device_name(eng));
	gvk_pairhmm_destroy(eng);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc != 5) return fprintf(stderr, "usage: %s INPUT EXPECTED avx512|avx2 cpu|gpu\n", argv[0]), 2;
	size_t n_ex;
	expect_t *ex = load_expected(argv[2], &n_ex);
	if (!ex) return 1;
	gvk_pairhmm_opts_t opt;
	gvk_pairhmm_opts_init(&opt);
	opt.flavour = strcmp(argv[3], "avx2") ? GVK_PHMM_FMA : GVK_PHMM_NOFMA;
	opt.threads = 2;
	int rc = 0;
	if (!strcmp(argv[4], "gpu")) {
		opt.device = GVK_DEVICE_GPU;
		rc = check(argv[1], ex, n_ex, &opt, "gpu");
	} else {
		opt.device = GVK_DEVICE_CPU;
		static const struct { int isa; const char *name; } isas[] = {
		    {GVK_ISA_SCALAR, "cpu-scalar"}, {GVK_ISA_AVX512, "cpu-avx512"}, {GVK_ISA_NEON, "cpu-neon"}};
		for (int k = 0; k < 3; ++k) {
			opt.isa = isas[k].isa;
			gvk_err_t err;
			gvk_pairhmm_t *probe = gvk_pairhmm_create(&opt, &err);
			if (!probe) {
				printf("%s: not available here, skipped (%s)\n", isas[k].name, err.msg);
				continue;
			}
			gvk_pairhmm_destroy(probe);
			rc |= check(argv[1], ex, n_ex, &opt, isas[k].name);
		}
		/* a kernel only AUTO takes (SVE at this CPU's vector length), when there is one */
		opt.isa = GVK_ISA_AUTO;
		gvk_err_t err;
		gvk_pairhmm_t *probe = gvk_pairhmm_create(&opt, &err);
		if (probe) {
			char name[64];
			snprintf(name, sizeof name, "%s", gvk_pairhmm_device_name(probe));
			gvk_pairhmm_destroy(probe);
			int seen = 0;
			for (int k = 0; k < 3; ++k) seen |= !strcmp(name, isas[k].name);
			if (!seen) rc |= check(argv[1], ex, n_ex, &opt, name);
		}
	}
	free(ex);
	return rc;
}
