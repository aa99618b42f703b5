/* SPDX-License-Identifier: MIT */
/* --clump for gvk ld: its options as PLINK 1.9 takes them, PREFIX.clumped, and PLINK's warnings
 * for top variants the fileset lacks (the first three on stderr, all in the log). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_paths.h"
#include "ld_clump_cmd.h"
#include "../common/err.h"
#include "../common/threads.h"
#include "../ld/ld_clump.h"
#include "../snp/snp_gpu.h"

static int bad(const char *opt, const char *v, const char *why)
{
	return fprintf(stderr, "gvk ld: %s: invalid value '%s'; %s\n", opt, v, why), -1;
}

/* The value after argv[*i] as a number. */
static int number(int argc, char **argv, int *i, double *v)
{
	const char *opt = argv[*i];
	if (*i + 1 >= argc || (argv[*i + 1][0] == '-' && argv[*i + 1][1] == '-'))
		return fprintf(stderr, "gvk ld: %s needs a value\n", opt), -1;
	char *end;
	const char *s = argv[++*i];
	*v = strtod(s, &end);
	if (end == s || *end || isnan(*v)) return bad(opt, s, "give a number");
	return 0;
}

/* The values after argv[*i] up to the next option ("-x" / "--x"). */
static int values(int argc, char **argv, int *i, char ***v, int *n)
{
	int k = *i + 1;
	while (k < argc && !(argv[k][0] == '-' && argv[k][1] && !(argv[k][1] >= '0' && argv[k][1] <= '9'))) ++k;
	if (k == *i + 1) return fprintf(stderr, "gvk ld: %s needs at least one value\n", argv[*i]), -1;
	*v = argv + *i + 1, *n = k - *i - 1;
	*i = k - 1;
	return 0;
}

int ld_clump_parse(int argc, char **argv, int *i, ld_args_t *a)
{
	const char *s = argv[*i];
	ld_clump_opt_t *o = &a->clump;
	double v;
	if (!strcmp(s, "--clump")) {
		a->clump_set = 1;
		return values(argc, argv, i, &a->clump_files, &a->n_clump_files);
	}
	if (!strcmp(s, "--clump-p1") || !strcmp(s, "--clump-p2")) {
		if (number(argc, argv, i, &v) < 0) return -1;
		if (!(v > 0 && v <= 1)) return bad(s, argv[*i], "give a p-value in (0, 1]");
		*(s[9] == '1' ? &o->p1 : &o->p2) = v;
		return 0;
	}
	if (!strcmp(s, "--clump-r2")) {
		if (number(argc, argv, i, &v) < 0) return -1;
		if (!(v < 1)) return bad(s, argv[*i], "give an r^2 below 1");
		o->r2 = v;
		return 0;
	}
	if (!strcmp(s, "--clump-kb")) {
		if (number(argc, argv, i, &v) < 0) return -1;
		if (!(v >= 0.001)) return bad(s, argv[*i], "give a distance of at least 0.001 kb");
		o->bp_radius = ld_clump_kb_radius(v);
		return 0;
	}
	if (!strcmp(s, "--clump-field")) return values(argc, argv, i, &a->clump_field, &a->n_clump_field);
	if (!strcmp(s, "--clump-snp-field")) return values(argc, argv, i, &a->clump_snp_field, &a->n_clump_snp_field);
	if (!strcmp(s, "--clump-allow-overlap")) return o->allow_overlap = 1, 0;
	if (!strcmp(s, "--clump-verbose")) return a->clump_verbose = 1, 0;
	if (!strcmp(s, "--clump-index-first")) return o->index_first = 1, 0;
	if (!strcmp(s, "--clump-best") || !strcmp(s, "--clump-replicate") || !strcmp(s, "--clump-range") ||
	    !strcmp(s, "--clump-range-border") || !strcmp(s, "--clump-annotate"))
		return fprintf(stderr, "gvk ld: %s is not supported (PLINK 1.9 has it; gvk clumps without it)\n", s), -1;
	return fprintf(stderr, "gvk ld: unknown option %s\n", s), -1;
}

int ld_clump_check(const ld_args_t *a)
{
	const char *const opts[] = {"--clump-p1", "--clump-p2", "--clump-r2", "--clump-kb", "--clump-field",
	                            "--clump-snp-field", "--clump-allow-overlap", "--clump-verbose", "--clump-index-first"};
	for (int k = 1; !a->clump_set && k < a->argc; ++k)
		for (size_t q = 0; q < sizeof opts / sizeof *opts; ++q)
			if (!strcmp(a->argv[k], opts[q])) return fprintf(stderr, "gvk ld: %s must be used with --clump\n", opts[q]), -1;
	if (!a->clump_set) return 0;
	/* PLINK reads its options in name order, so p2 is checked against the final p1 */
	if (a->clump.p2 < a->clump.p1)
		return fprintf(stderr, "gvk ld: --clump-p2 (%g) must not be below --clump-p1 (%g)\n", a->clump.p2, a->clump.p1), -1;
	return 0;
}

/* --clump's file names: its arguments split at commas. */
static char **file_list(const ld_args_t *a, int *n)
{
	size_t len = 0;
	int cnt = 0;
	for (int k = 0; k < a->n_clump_files; ++k) {
		len += strlen(a->clump_files[k]) + 1;
		for (const char *p = a->clump_files[k]; *p; ++p) cnt += *p == ',';
		++cnt;
	}
	char **list = malloc(sizeof *list * (size_t)(cnt + 1) + len);
	if (!list) return NULL;
	char *pool = (char *)(list + cnt + 1);
	*n = 0;
	for (int k = 0; k < a->n_clump_files; ++k) {
		strcpy(pool, a->clump_files[k]);
		for (char *tok = pool, *next; tok; tok = next) {
			next = strchr(tok, ',');
			if (next) *next++ = 0;
			if (*tok) list[(*n)++] = tok;
		}
		pool += strlen(a->clump_files[k]) + 1;
	}
	return list;
}

/* The GPU for the tables with device gpu (NULL for the CPU; -1 when it finds none). Device auto
 * stays on the CPU, as pruning does: a clump's rows are few per index variant and the host's
 * reading of the fileset and report is most of the work, so the GPU's tables made a large panel
 * slower than the CPU's threads (docs/snp.md, "Clumping"). */
static int open_gpu(const ld_args_t *a, snp_gpu_t **gpu, gvk_err_t *err)
{
	*gpu = NULL;
	if (a->ld.device != GVK_DEVICE_GPU) return 0;
	return (*gpu = snp_gpu_open(&a->ld.gpu, err)) ? 0 : -1;
}

/* PLINK's warnings for the top variants the fileset lacks (not with verbose, which lists them in
 * the file). */
static void log_missing(const ld_args_t *a, const ld_clump_input_t *in, ld_log_t *log)
{
	if (!in->n_miss) return;
	if (a->clump_verbose) {
		ld_log_printf(log, "%lld top variant ID%s missing; see the end of the .clumped file.\n", (long long)in->n_miss,
		              in->n_miss == 1 ? "" : "s");
		return;
	}
	for (int64_t k = 0; k < in->n_miss; ++k) {
		ld_log_printf(log, "Warning: '%s' is missing from the main dataset, and is a top variant.\n", in->miss[k].id);
		if (k < 3 && !a->quiet)
			fprintf(stderr, "gvk ld: warning: '%s' is missing from the main dataset, and is a top variant.\n", in->miss[k].id);
	}
	if (in->n_miss > 3 && !a->quiet)
		fprintf(stderr, "gvk ld: %lld more top variant ID%s missing; see the log.\n", (long long)(in->n_miss - 3),
		        in->n_miss == 4 ? "" : "s");
}

int ld_clump_cmd_write(const ld_args_t *a, const snp_data_t *d, const snp_bed_src_t *src, gvk_outset_t *os,
                       ld_log_t *log, int64_t *n_clumps, gvk_err_t *err)
{
	int n_files = 0;
	char **files = file_list(a, &n_files);
	if (!files) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (!n_files) return free(files), gvk_err_set(err, GVK_ERR_ARG, "--clump: no file named");
	ld_clump_opt_t o = a->clump;
	o.threads = a->ld.threads;
	o.src = src;
	if (o.index_first && n_files == 1) {
		ld_log_printf(log, "Warning: --clump-index-first has no effect when there is only one --clump file.\n");
		o.index_first = 0;
	}
	ld_clump_fields_t f = {(const char *const *)a->clump_snp_field, a->n_clump_snp_field,
	                       (const char *const *)a->clump_field, a->n_clump_field};
	ld_clump_input_t in;
	ld_clump_result_t r = {0};
	double t = gvk_seconds();
	int rc = ld_clump_read(d, (const char *const *)files, n_files, &f, &o, &in, err);
	if (rc < 0) return free(files), rc;
	ld_log_phase(a->verbose, "reading the reports", &t);
	if (!in.n_snp || !d->n_bits) {
		ld_log_printf(log, "Warning: Skipping --clump since there are no founders.\n");
	} else if (!d->n_snp || !memchr(in.top, 1, (size_t)in.n_snp)) {
		ld_log_printf(log, "Warning: No significant --clump results.  Skipping.\n");
		if (!a->quiet) fprintf(stderr, "gvk ld: warning: no significant --clump results; no .clumped file written\n");
	} else {
		snp_gpu_t *gpu = NULL;
		rc = open_gpu(a, &gpu, err) < 0 ? err->code : 0;
		o.gpu = gpu;
		if (rc == 0) rc = ld_clump_run(d, &in, &o, &r, err);
		snp_gpu_close(gpu);
		ld_log_phase(a->verbose && rc == 0, "clumping", &t);
		char *path = rc == 0 ? cli_with_ext(a->out_prefix, ".clumped") : NULL;
		if (rc == 0 && !path) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		FILE *fp = rc == 0 ? gvk_outset_open(os, path, err) : NULL;
		if (rc == 0 && !fp) rc = GVK_ERR_IO;
		int wr = rc == 0 ? ld_clump_write(fp, d, &in, &r, a->clump_verbose, a->ld.threads) : 0;
		if (wr == GVK_ERR_NOMEM) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory writing %s", path);
		else if (wr < 0) rc = gvk_err_set(err, GVK_ERR_IO, "cannot write %s", path);
		ld_log_phase(a->verbose && rc == 0, "writing the clumps", &t);
		if (rc == 0) log_missing(a, &in, log);
		if (rc == 0) {
			ld_log_printf(log, "--clump: %lld clump%s formed from %lld top variant%s.\n", (long long)r.n, r.n == 1 ? "" : "s",
			              (long long)r.n_top, r.n_top == 1 ? "" : "s");
			ld_log_printf(log, "Results written to %s .\n", path);
		}
		if (n_clumps) *n_clumps = r.n;
		free(path);
	}
	ld_clump_result_free(&r);
	ld_clump_input_free(&in);
	free(files);
	return rc;
}
