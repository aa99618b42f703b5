/* SPDX-License-Identifier: MIT */
/* gvk_fmt_g17 against the C library's "%.17g" on random bit patterns, scaled values, short exact
 * binary fractions (decimal ties), neighbours of powers of ten and floats widened to double (the
 * float pass's results). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/fmtnum.h"

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000, bad = 0;
	uint64_t s = 88172645463325252ULL;
	char a[64], b[64];
	for (long i = 0; i < n; ++i) {
		uint64_t r = next(&s);
		double x;
		switch (i % 5) {
		case 0: memcpy(&x, &r, sizeof x); break;
		case 4: x = (double)(float)(-(double)(r >> 11) * 0x1p-53 * 70.0); break; /* float-path log10 values */
		case 1: x = -(double)(r >> 11) * 0x1p-53 * pow(10, (int)(next(&s) % 24) - 7); break;
		case 2: x = (double)(r % 100000) / 1024.0 + (double)(next(&s) % 7) * 0x1p-40; break;
		default: x = nextafter(pow(10, (int)(r % 22) - 5), (r & 1) ? 0 : 1e300); break;
		}
		int la = gvk_fmt_g17(a, x), lb = snprintf(b, sizeof b, "%.17g", x);
		if (la != lb || strcmp(a, b)) {
			if (bad++ < 10) printf("x = %a: gvk_fmt_g17 '%s', printf '%s'\n", x, a, b);
		}
	}
	printf("%ld of %ld values formatted differently from printf\n", bad, n);
	return bad != 0;
}
