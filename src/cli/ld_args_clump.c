/* SPDX-License-Identifier: MIT */
/* --clump's options for gvk ld, as PLINK 1.9 takes them. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ld_args.h"

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
static int values(int argc, char **argv, int *i, const char *const **v, int *n)
{
	int k = *i + 1;
	while (k < argc && !(argv[k][0] == '-' && argv[k][1] && !(argv[k][1] >= '0' && argv[k][1] <= '9'))) ++k;
	if (k == *i + 1) return fprintf(stderr, "gvk ld: %s needs at least one value\n", argv[*i]), -1;
	*v = (const char *const *)(argv + *i + 1), *n = k - *i - 1;
	*i = k - 1;
	return 0;
}

int ld_clump_parse(int argc, char **argv, int *i, ld_args_t *a)
{
	const char *s = argv[*i];
	double v;
	if (!strcmp(s, "--clump")) {
		a->o.clump_set = 1;
		return values(argc, argv, i, &a->o.clump_files, &a->o.n_clump_files);
	}
	if (!strcmp(s, "--clump-p1") || !strcmp(s, "--clump-p2")) {
		if (number(argc, argv, i, &v) < 0) return -1;
		if (!(v > 0 && v <= 1)) return bad(s, argv[*i], "give a p-value in (0, 1]");
		*(s[9] == '1' ? &a->o.clump_p1 : &a->o.clump_p2) = v;
		return 0;
	}
	if (!strcmp(s, "--clump-r2")) {
		if (number(argc, argv, i, &v) < 0) return -1;
		if (!(v < 1)) return bad(s, argv[*i], "give an r^2 below 1");
		a->o.clump_r2 = v;
		return 0;
	}
	if (!strcmp(s, "--clump-kb")) {
		if (number(argc, argv, i, &v) < 0) return -1;
		if (!(v >= 0.001)) return bad(s, argv[*i], "give a distance of at least 0.001 kb");
		a->o.clump_kb = v;
		return 0;
	}
	if (!strcmp(s, "--clump-field")) return values(argc, argv, i, &a->o.clump_field, &a->o.n_clump_field);
	if (!strcmp(s, "--clump-snp-field")) return values(argc, argv, i, &a->o.clump_snp_field, &a->o.n_clump_snp_field);
	if (!strcmp(s, "--clump-allow-overlap")) return a->o.clump_allow_overlap = 1, 0;
	if (!strcmp(s, "--clump-verbose")) return a->o.clump_verbose = 1, 0;
	if (!strcmp(s, "--clump-index-first")) return a->o.clump_index_first = 1, 0;
	if (!strcmp(s, "--clump-best") || !strcmp(s, "--clump-replicate") || !strcmp(s, "--clump-range") ||
	    !strcmp(s, "--clump-range-border") || !strcmp(s, "--clump-annotate"))
		return fprintf(stderr, "gvk ld: %s is not supported (PLINK 1.9 has it; gvk clumps without it)\n", s), -1;
	return fprintf(stderr, "gvk ld: unknown option %s\n", s), -1;
}

int ld_clump_check(const ld_args_t *a)
{
	const char *const opts[] = {"--clump-p1", "--clump-p2", "--clump-r2", "--clump-kb", "--clump-field",
	                            "--clump-snp-field", "--clump-allow-overlap", "--clump-verbose", "--clump-index-first"};
	for (int k = 1; !a->o.clump_set && k < a->o.argc; ++k)
		for (size_t q = 0; q < sizeof opts / sizeof *opts; ++q)
			if (!strcmp(a->o.argv[k], opts[q])) return fprintf(stderr, "gvk ld: %s must be used with --clump\n", opts[q]), -1;
	if (!a->o.clump_set) return 0;
	/* PLINK reads its options in name order, so p2 is checked against the final p1 */
	if (a->o.clump_p2 < a->o.clump_p1)
		return fprintf(stderr, "gvk ld: --clump-p2 (%g) must not be below --clump-p1 (%g)\n", a->o.clump_p2, a->o.clump_p1), -1;
	return 0;
}
