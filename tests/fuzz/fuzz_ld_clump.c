/* SPDX-License-Identifier: MIT */
/* The association reports of gvk ld --clump (src/ld/ld_clump_input.c) against a fixed set of
 * variant IDs: the input is one report, or two separated by FZ_SEP (--clump a,b); the size's low
 * bits pick --clump-index-first, p1/p2 pairs and other --clump-field / --clump-snp-field names.
 * Beyond no crash: an error names one of the files, and a result holds only entries of known
 * variants with p in [0, 1], each variant's list ending, file numbers in range, and the missing
 * top IDs sorted by p with p <= p1. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "ld/ld_clump.h"

static const char *const ids[] = {"rs1", "rs2", "rs3", "x1", "dup", "dup", "u-1", "rs9", "a(b)", "1"};
enum { N_VARS = sizeof ids / sizeof ids[0] };

static snp_data_t vars;

static void make_vars(void)
{
	long offs[4 * N_VARS];
	vars.var = calloc(N_VARS, sizeof *vars.var);
	for (int i = 0; i < N_VARS; ++i) {
		const char *f[4] = {i < 3 ? "1" : "2", ids[i], "A", "C"};
		for (int k = 0; k < 4; ++k) offs[4 * i + k] = snp_pool_add(&vars, f[k], strlen(f[k]));
		vars.var[i].bp = 100 * (i + 1);
	}
	vars.n_snp = N_VARS;
	snp_data_fix_strings(&vars, offs);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	make_vars();
	return 0;
}

static void check_input(const ld_clump_input_t *in, const ld_clump_opt_t *o, int n_files)
{
	if (in->n_snp != N_VARS || in->n_files != n_files) fz_fail("%lld variants, %d files", (long long)in->n_snp, in->n_files);
	int64_t seen = 0;
	for (int64_t v = 0; v < N_VARS; ++v)
		for (int64_t k = in->head[v], steps = 0; k >= 0; k = in->e[k].next, ++seen) {
			if (k >= in->n_e || ++steps > in->n_e) fz_fail("variant %lld: entry list runs off (%lld)", (long long)v, (long long)k);
			const ld_clump_entry_t *e = &in->e[k];
			if (!(e->p >= 0 && e->p <= 1)) fz_fail("variant %lld: p %g kept", (long long)v, e->p);
			if (e->fidx < 1 || e->fidx > n_files) fz_fail("variant %lld: file %d", (long long)v, e->fidx);
		}
	if (seen != in->n_e) fz_fail("%lld entries listed of %lld", (long long)seen, (long long)in->n_e);
	for (int64_t k = 0; k < in->n_miss; ++k) {
		if (!(in->miss[k].p <= o->p1) || !in->miss[k].id) fz_fail("missing top %lld: p %g", (long long)k, in->miss[k].p);
		if (k && in->miss[k].p < in->miss[k - 1].p) fz_fail("missing tops not sorted by p at %lld", (long long)k);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *part[2];
	size_t len[2];
	int n = fz_split(data, size, part, len, 2) > 1 && len[1] ? 2 : 1;
	fz_file_t f[2];
	const char *paths[2];
	for (int k = 0; k < n; ++k) fz_write(&f[k], part[k], len[k], k ? ".qassoc" : ".assoc"), paths[k] = f[k].path;
	ld_clump_opt_t o;
	ld_clump_opt_init(&o);
	o.index_first = size & 1;
	if (size & 2) o.p1 = 0.05, o.p2 = 0.5;
	static const char *const snp_names[] = {"ID", "SNP"}, *const p_names[] = {"P_BOLT", "P"};
	ld_clump_fields_t fields = {NULL, 0, NULL, 0};
	if (size & 4) fields = (ld_clump_fields_t){snp_names, 2, p_names, 2};
	ld_clump_input_t in;
	memset(&in, 0, sizeof in);
	gvk_err_t err = {0, ""};
	int rc = ld_clump_read(&vars, paths, n, &fields, &o, &in, &err);
	fz_check_err_any(rc, &err, paths, n);
	if (rc == 0) check_input(&in, &o, n);
	ld_clump_input_free(&in);
	for (int k = 0; k < n; ++k) fz_remove(&f[k]);
	return 0;
}
