/* SPDX-License-Identifier: MIT */
/* --clump for gvk ld: PLINK 1.9's option names and ranges, its warnings on top variants the
 * fileset lacks (three on the terminal, all in the log), and PREFIX.clumped. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ld_clump_cmd.h"
#include "../common/err.h"

/* Warnings on missing top variants shown on the terminal; the log has them all. */
#define CLUMP_WARN_MAX 3

void ld_clump_args_init(ld_clump_args_t *c)
{
	memset(c, 0, sizeof *c);
	c->o = (clump_opt_t){.p1 = 0.0001, .p2 = 0.01, .r2 = 0.5, .kb = 250};
}

/* Where a list of file or column names ends: at the next option, long (PLINK's) or short (-t). */
static int is_option(const char *arg) { return arg[0] == '-' && arg[1] != '\0'; }

static int number(int argc, char **argv, int *i, double *v)
{
	const char *s = argv[*i];
	char *end;
	if (*i + 1 >= argc || !strncmp(argv[*i + 1], "--", 2)) return fprintf(stderr, "gvk ld: %s needs a value\n", s), -1;
	const char *x = argv[++*i];
	*v = strtod(x, &end);
	if (end == x || *end || isnan(*v)) return fprintf(stderr, "gvk ld: %s: '%s' is not a number\n", s, x), -1;
	return 0;
}

/* The names after argv[*i] up to the next option, into names (at most LD_CLUMP_MAX_FIELDS). */
static int names(int argc, char **argv, int *i, const char **out, int *n)
{
	const char *s = argv[*i];
	*n = 0;
	while (*i + 1 < argc && !is_option(argv[*i + 1])) {
		if (*n == LD_CLUMP_MAX_FIELDS) return fprintf(stderr, "gvk ld: %s: too many names\n", s), -1;
		out[(*n)++] = argv[++*i];
	}
	return *n ? 0 : (fprintf(stderr, "gvk ld: %s needs at least one column name\n", s), -1);
}

static int range_err(const char *opt, double v, const char *range)
{
	return fprintf(stderr, "gvk ld: %s: invalid value %g (PLINK 1.9 takes %s)\n", opt, v, range), -1;
}

int ld_clump_parse(int argc, char **argv, int *i, ld_args_t *a)
{
	const char *s = argv[*i];
	ld_clump_args_t *c = &a->clump;
	double v;
	if (strncmp(s, "--clump", 7)) return 0;
	if (!a->clump_set && !c->n_p_fields) ld_clump_args_init(c);
	if (!strcmp(s, "--clump")) {
		if (c->files) return fprintf(stderr, "gvk ld: --clump given twice\n"), -1;
		c->files = argv + *i + 1;
		while (*i + 1 < argc && !is_option(argv[*i + 1])) ++*i, ++c->n_files;
		if (!c->n_files) return fprintf(stderr, "gvk ld: --clump needs FILE[,FILE...]\n"), -1;
		a->clump_set = 1;
	} else if (!strcmp(s, "--clump-p1") || !strcmp(s, "--clump-p2")) {
		if (number(argc, argv, i, &v) < 0) return -1;
		if (!(v > 0 && v <= 1)) return range_err(s, v, "values in (0, 1]");
		*(s[9] == '1' ? &c->o.p1 : &c->o.p2) = v;
	} else if (!strcmp(s, "--clump-r2")) {
		if (number(argc, argv, i, &v) < 0) return -1;
		if (!(v >= 0 && v < 1)) return range_err(s, v, "values in [0, 1)");
		c->o.r2 = v;
	} else if (!strcmp(s, "--clump-kb")) {
		if (number(argc, argv, i, &v) < 0) return -1;
		if (!(v > 0 && v < 2147483.647)) return range_err(s, v, "a positive distance in kb");
		c->o.kb = v;
	} else if (!strcmp(s, "--clump-field")) {
		if (names(argc, argv, i, c->p_fields, &c->n_p_fields) < 0) return -1;
	} else if (!strcmp(s, "--clump-snp-field")) {
		if (names(argc, argv, i, c->snp_fields, &c->n_snp_fields) < 0) return -1;
	} else if (!strcmp(s, "--clump-allow-overlap")) {
		c->o.allow_overlap = 1;
	} else {
		return fprintf(stderr, "gvk ld: %s is not supported; gvk ld -h lists the --clump options it takes\n", s), -1;
	}
	return 1;
}

/* Reads every report named by --clump, numbering the files from 1. */
static int read_reports(const ld_args_t *a, const snp_data_t *d, clump_recs_t *recs, gvk_err_t *err)
{
	const ld_clump_args_t *c = &a->clump;
	static const char *const def_snp[] = {"SNP"}, *const def_p[] = {"P"};
	const char *const *sf = c->n_snp_fields ? c->snp_fields : def_snp, *const *pf = c->n_p_fields ? c->p_fields : def_p;
	int nsf = c->n_snp_fields ? c->n_snp_fields : 1, npf = c->n_p_fields ? c->n_p_fields : 1;
	clump_ids_t ix = {0};
	int rc = clump_id_index(d, &ix, err), file = 0;
	for (int k = 0; rc == 0 && k < c->n_files; ++k) {
		char *list = strdup(c->files[k]), *save = NULL;
		if (!list) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		for (char *p = list ? strtok_r(list, ",", &save) : NULL; rc == 0 && p; p = strtok_r(NULL, ",", &save))
			rc = clump_read(p, ++file, d, &ix, sf, nsf, pf, npf, c->o.p1, recs, err);
		free(list);
	}
	clump_id_free(&ix);
	return rc;
}

static void warn_missing(const clump_recs_t *recs, const clump_result_t *res, ld_log_t *log)
{
	for (int64_t k = 0; k < res->n_missing; ++k) {
		const char *id = recs->rec[res->missing[k]].id;
		ld_log_printf(log, "Warning: '%s' is missing from the main dataset, and is a top variant.\n", id);
		if (k < CLUMP_WARN_MAX) fprintf(stderr, "gvk ld: warning: '%s' is missing from the main dataset, and is a top variant\n", id);
	}
	if (res->n_missing > CLUMP_WARN_MAX)
		fprintf(stderr, "gvk ld: %lld more top variant IDs missing; see the log\n", (long long)(res->n_missing - CLUMP_WARN_MAX));
}

int ld_clump_write(const ld_args_t *a, const snp_data_t *d, gvk_outset_t *os, ld_log_t *log, int64_t *n_clumps,
                   gvk_err_t *err)
{
	clump_recs_t recs = {0};
	clump_result_t res = {0};
	clump_opt_t o = a->clump.o;
	o.threads = a->ld.threads;
	o.pool = o.threads > 1 ? gvk_pool_create(o.threads) : NULL;
	int rc = read_reports(a, d, &recs, err);
	if (rc == 0) rc = clump_run(d, &recs, &o, &res, err);
	if (rc == 0) warn_missing(&recs, &res, log);
	size_t n = strlen(a->out_prefix) + 16;
	char *path = malloc(n);
	if (rc == 0 && !path) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (rc == 0 && res.n == 0) {
		ld_log_printf(log, "Warning: No significant --clump results.  Skipping.\n");
		fprintf(stderr, "gvk ld: warning: no significant --clump results; no .clumped file written\n");
	} else if (rc == 0) {
		snprintf(path, n, "%s.clumped", a->out_prefix);
		ld_log_printf(log, "--clump: %lld clump%s formed from %lld top variant%s.\n", (long long)res.n, res.n == 1 ? "" : "s",
		              (long long)res.n_top, res.n_top == 1 ? "" : "s");
		FILE *fp = gvk_outset_open(os, path, err);
		if (!fp) rc = GVK_ERR_IO;
		else if (clump_write(fp, d, &recs, &res) < 0) rc = gvk_err_set(err, GVK_ERR_IO, "cannot write %s", path);
		if (rc == 0) ld_log_printf(log, "Results written to %s .\n", path);
	}
	if (rc == 0 && n_clumps) *n_clumps = res.n;
	gvk_pool_destroy(o.pool);
	free(path);
	clump_result_free(&res);
	clump_recs_free(&recs);
	return rc;
}
