/* SPDX-License-Identifier: MIT */
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

/* floor(log10(ax)) for a normal ax with binary exponent b: from b, then one comparison with the
 * next power of ten (the settling loop below repairs the rare miss next to a power of ten). */
static int decimal_exponent(double ax, int b)
{
	static const double p10[] = {1e-4, 1e-3, 1e-2, 1e-1, 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6, 1e7,
	                             1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17};
	/* floor(b * log10(2)) in integers (78913 / 2^18 = 0.3010292; offset so that the shift is of a
	 * non-negative number): a call to floor() cost a sixth of the formatting. */
	int E = ((b * 78913 + 324 * 262144) >> 18) - 324;
	if (E + 5 >= 0 && E + 5 < (int)(sizeof p10 / sizeof p10[0]) && ax >= p10[E + 5]) ++E; /* p10[E + 5] = 10^(E + 1) */
	return E;
}

int gvk_fmt_g17(char *buf, double x)
{
	const double ax = fabs(x);
	/* Outside this range (and for 0, inf, nan) the exponent form or the 128-bit bound is at stake:
	 * leave it to the C library. */
	if (!(ax >= 1e-4 && ax < 1e15)) return snprintf(buf, 32, "%.17g", x);
	uint64_t bits;
	memcpy(&bits, &ax, sizeof bits);
	const int be = (int)(bits >> 52);                         /* normal here: biased exponent */
	const uint64_t m = (bits & ((1ULL << 52) - 1)) | 1ULL << 52; /* ax = m * 2^-s */
	const int s = 1075 - be;                                  /* s >= 4 in this range */
	int E = decimal_exponent(ax, be - 1023);
	uint64_t d;
	/* Rounding may carry into a new digit, and the estimate may miss next to a power of ten:
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
	/* Two digits at a time. */
	static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	                            "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	                            "8081828384858687888990919293949596979899";
	char dig[18];
	const uint64_t lo16 = d % 10000000000000000ULL;
	uint32_t hi8 = (uint32_t)(lo16 / 100000000u), lo8 = (uint32_t)(lo16 % 100000000u); /* 32-bit from here */
	dig[0] = (char)('0' + d / 10000000000000000ULL);
	for (int i = 7; i >= 1; i -= 2) {
		const uint32_t a = hi8 % 100, b = lo8 % 100;
		hi8 /= 100, lo8 /= 100;
		dig[i] = pairs[2 * a], dig[i + 1] = pairs[2 * a + 1];
		dig[i + 8] = pairs[2 * b], dig[i + 9] = pairs[2 * b + 1];
	}
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
