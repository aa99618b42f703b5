/* SPDX-License-Identifier: MIT */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli_env.h"
#include "../common/parse_num.h"
#include "../common/threads.h"
#ifdef GVK_MPI
#include "mpi/mpi_world.h"
#endif

int cli_env_long(const char *cmd, const char *name, long lo, long hi, long *v)
{
	const char *s = getenv(name);
	if (!s || !*s) return 0;
	if (gvk_parse_long(s, lo, hi, v) == 0) return 0;
	if (hi == LONG_MAX) fprintf(stderr, "gvk %s: %s must be a whole number >= %ld, not '%s'\n", cmd, name, lo, s);
	else fprintf(stderr, "gvk %s: %s must be a whole number from %ld to %ld, not '%s'\n", cmd, name, lo, hi, s);
	return -1;
}

int gvk_cli_default_threads(void)
{
	int n = gvk_ncpu();
#ifdef GVK_MPI
	long share = 0;
	const char *v = getenv("GVK_MPI_CHILD");
	if (v && gvk_parse_long(v, 1, 1 << 20, &share) == 0 && share > 1) return (int)share;
	if (v) return n;
	return gvk_mpi_node_threads(n);
#else
	return n;
#endif
}
