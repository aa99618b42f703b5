/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "parse_num.h"

int gvk_parse_long(const char *s, long lo, long hi, long *v)
{
	char *end;
	errno = 0;
	const long x = strtol(s, &end, 10);
	if (errno || end == s || *end || x < lo || x > hi) return -1;
	*v = x;
	return 0;
}

int gvk_parse_real(const char *s, double lo, double *v)
{
	char *end;
	errno = 0;
	const double x = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(x) || x < lo) return -1;
	*v = x;
	return 0;
}
