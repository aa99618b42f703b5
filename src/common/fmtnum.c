#include "fmtnum.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef unsigned __int128 u128;

/* The 17 significant digits of |x| (x = m * 2^-s, s > 0) scaled by 10^k, rounded to nearest with
 * ties to even as glibc's printf does: the product m * 10^k is exact in 128 bits for k <= 22. */
static uint64_t scaled_digits(uint64_t m, int s, int k)
{
	static const uint64_t pow10[20] = {1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
	                                   100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL,
	                                   1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
	                                   1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
	                                   1000000000000000000ULL, 10000000000000000000ULL};
	u128 n = (u128)m * (k <= 19 ? pow10[k] : pow10[19]);
	if (k > 19) n *= pow10[k - 19];
	u128 q = n >> s, r = n & (((u128)1 << s) - 1), half = (u128)1 << (s - 1);
	if (r > half || (r == half && (q & 1))) ++q;
	return (uint64_t)q;
}

int gvk_fmt_g17(char *buf, double x)
{
	const double ax = fabs(x);
	/* Outside this range (and for 0, inf, nan) the exponent form or the 128-bit bound is at stake:
	 * leave it to the C library. */
	if (!(ax >= 1e-4 && ax < 1e15)) return snprintf(buf, 32, "%.17g", x);
	int e2;
	double fr = frexp(ax, &e2); /* ax = fr * 2^e2, fr in [0.5, 1) */
	uint64_t m = (uint64_t)ldexp(fr, 53);
	int s = 53 - e2; /* ax = m * 2^-s; s >= 4 in this range */
	int E = (int)floor(log10(ax));
	uint64_t d;
	/* log10 may be off by one next to a power of ten, and rounding may carry into a new digit:
	 * settle E on the exact digits. */
	for (int tries = 0;; ++tries) {
		d = scaled_digits(m, s, 16 - E);
		if (d >= 100000000000000000ULL)
			++E;
		else if (d < 10000000000000000ULL)
			--E;
		else
			break;
		if (tries == 3 || E < -4 || E > 14) return snprintf(buf, 32, "%.17g", x);
	}
	if (E < -4 || E > 14) return snprintf(buf, 32, "%.17g", x);
	char dig[17];
	for (int i = 16; i >= 0; --i) dig[i] = (char)('0' + d % 10), d /= 10;
	int nd = 17;
	while (nd > 1 && dig[nd - 1] == '0') --nd; /* %g drops trailing zeros */
	char *p = buf;
	if (x < 0) *p++ = '-';
	if (E >= 0) {
		memcpy(p, dig, (size_t)E + 1), p += E + 1;
		if (nd > E + 1) *p++ = '.', memcpy(p, dig + E + 1, (size_t)(nd - E - 1)), p += nd - E - 1;
	} else {
		*p++ = '0', *p++ = '.';
		for (int i = 0; i < -E - 1; ++i) *p++ = '0';
		memcpy(p, dig, (size_t)nd), p += nd;
	}
	*p = 0;
	return (int)(p - buf);
}
