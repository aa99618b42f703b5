/* SPDX-License-Identifier: MIT */
/* --indep-pairwise, --indep-pairphase and --indep for gvk ld: their arguments as PLINK 1.9 takes
 * them. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ld_args.h"

static const char *mode_name(int mode)
{
	return mode == GVK_LD_PRUNE_VIF ? "--indep" : mode == GVK_LD_PRUNE_PAIRPHASE ? "--indep-pairphase" : "--indep-pairwise";
}

static int bad(const gvk_ld_prune_opts_t *o, const char *what)
{
	return fprintf(stderr, "gvk ld: %s: %s\n", mode_name(o->mode), what), -1;
}

/* A whole number >= lo in s (with an optional "kb" suffix when kb is not NULL). */
static int whole(const char *s, int64_t lo, int64_t *v, int *kb)
{
	char *end;
	double x = strtod(s, &end);
	if (end == s || isnan(x)) return -1;
	if (kb && !strcasecmp(end, "kb") && end - s > 0) *kb = 1;
	else if (*end) return -1;
	if (x < (double)lo || x > 2147483647.0 || x != floor(x)) return -1;
	*v = (int64_t)x;
	return 0;
}

int ld_prune_parse(int argc, char **argv, int *i, ld_args_t *a)
{
	gvk_ld_prune_opts_t *o = &a->o.prune;
	if (a->o.prune_set) return fprintf(stderr, "gvk ld: give one of --indep-pairwise, --indep-pairphase and --indep\n"), -1;
	const char *s = argv[*i];
	o->mode = !strcmp(s, "--indep") ? GVK_LD_PRUNE_VIF : !strcmp(s, "--indep-pairphase") ? GVK_LD_PRUNE_PAIRPHASE : GVK_LD_PRUNE_PAIRWISE;
	int k = *i + 1, kb = 0;
	if (k >= argc || whole(argv[k], 1, &o->window, &kb) < 0)
		return bad(o, "window size must be a positive whole number, optionally followed by 'kb'");
	++k;
	/* PLINK 1.9's --indep takes kb only as a separate word */
	if (kb && o->mode == GVK_LD_PRUNE_VIF) return bad(o, "window size must be a whole number, with kb as a separate word");
	/* PLINK takes a window of 1 only as "1 kb" */
	if (o->window < 2 && !(k < argc && !strcasecmp(argv[k], "kb")))
		return bad(o, "window size must be at least 2 (or 1 kb, written '1 kb')");
	if (!kb && k < argc && !strcasecmp(argv[k], "kb")) kb = 1, ++k;
	o->window_kb = kb;
	if (k >= argc || whole(argv[k], 1, &o->step, NULL) < 0) return bad(o, "step size must be a positive whole number");
	++k;
	char *end;
	int vif = o->mode == GVK_LD_PRUNE_VIF;
	if (k >= argc || (o->r2 = strtod(argv[k], &end), end == argv[k] || *end || isnan(o->r2)))
		return bad(o, vif ? "VIF threshold must be a number" : "r^2 threshold must be a number");
	if (vif && o->r2 < 1) return bad(o, "VIF threshold must be at least 1");
	if (!vif && (o->r2 < 0 || o->r2 >= 1)) return bad(o, "r^2 threshold must be at least 0 and below 1");
	/* PLINK 1.9 accepts this but then writes past its window buffers, so its lists are not
	 * defined; gvk refuses it. */
	if (!kb && o->step > o->window) return bad(o, "step size must not exceed a window size given in variants");
	a->o.prune_set = 1;
	*i = k;
	return 0;
}
