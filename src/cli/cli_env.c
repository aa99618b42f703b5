/* SPDX-License-Identifier: MIT */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli_env.h"
#include "../common/parse_num.h"

int cli_env_long(const char *cmd, const char *name, long lo, long hi, long *v)
{
	const char *s = getenv(name);
	if (!s || !*s) return 0;
	if (gvk_parse_long(s, lo, hi, v) == 0) return 0;
	if (hi == LONG_MAX) fprintf(stderr, "gvk %s: %s must be a whole number >= %ld, not '%s'\n", cmd, name, lo, s);
	else fprintf(stderr, "gvk %s: %s must be a whole number from %ld to %ld, not '%s'\n", cmd, name, lo, hi, s);
	return -1;
}
