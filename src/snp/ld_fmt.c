/* SPDX-License-Identifier: MIT */
/* Numbers as PLINK 1.9 prints them in .ld files. Its routine is not printf's %g: the layout is the
 * same (6 significant digits, trailing zeros dropped, e-05 style exponents), but rounding is
 * half-to-even on the scaled value with a tie band of +-5e-9, so a value printf rounds up because
 * its binary value lies a hair above a decimal tie may be rounded to even by PLINK. The value is
 * scaled as PLINK scales it (the same multiplications, so the same doubles) and rounded the same
 * way; the digits are then written with integer arithmetic, without printf. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ld_write.h"

/* Half-to-even with the +-5e-9 tie band. */
static uint32_t bround(double x)
{
	uint32_t r = (uint32_t)(int32_t)x;
	return r + (uint32_t)(int32_t)((x - (double)(int32_t)r) + ((r & 1) ? 0.500000005 : 0.499999995));
}

/* The `len` digits of n (zero-padded on the left) without trailing zeros; at least one. */
static int put_digits(char *s, uint32_t n, int len)
{
	char d[8];
	for (int k = len - 1; k >= 0; --k) d[k] = (char)('0' + n % 10), n /= 10;
	while (len > 1 && d[len - 1] == '0') --len;
	memcpy(s, d, (size_t)len);
	return len;
}

/* n's six digits with the point after `intd` of them, trailing fraction zeros (and point) dropped. */
static int put_fixed(char *s, uint32_t n, int intd)
{
	char d[6];
	for (int k = 5; k >= 0; --k) d[k] = (char)('0' + n % 10), n /= 10;
	int last = 5;
	while (last >= intd && d[last] == '0') --last;
	memcpy(s, d, (size_t)intd);
	if (last < intd) return intd;
	s[intd] = '.';
	memcpy(s + intd + 1, d + intd, (size_t)(last - intd + 1));
	return last + 2;
}

/* v in [1, 10) as mantissa, then the exponent (at least two digits). */
static int put_exp(char *s, double v, char sign, int xp)
{
	int n = put_fixed(s, bround(v * 100000), 1);
	s[n++] = 'e', s[n++] = sign;
	if (xp >= 100) s[n++] = (char)('0' + xp / 100), xp %= 100;
	s[n++] = (char)('0' + xp / 10), s[n++] = (char)('0' + xp % 10);
	return n;
}

static const int exp_bits[] = {256, 128, 64, 32, 16, 8, 4, 2, 1};

/* v < 1e-4: scaled up into [1, 10) by the powers PLINK multiplies with. */
static int fmt_small(char *s, double v)
{
	static const double up[] = {1.0e256, 1.0e128, 1.0e64, 1.0e32, 1.0e16, 100000000, 10000, 100, 10};
	static const double below[] = {9.9999949999999e-256, 9.9999949999999e-128, 9.9999949999999e-64,
	                               9.9999949999999e-32, 9.9999949999999e-16, 9.9999949999999e-8,
	                               9.9999949999999e-4, 9.9999949999999e-2, 9.9999949999999e-1};
	int xp = 0;
	if (v < below[4]) {
		if (v < below[1]) {
			int k = v < below[0] ? 0 : 1;
			v *= up[k], xp |= exp_bits[k];
		}
		for (int k = 2; k < 5; ++k)
			if (v < below[k]) v *= up[k], xp |= exp_bits[k];
	}
	for (int k = 5; k < 9; ++k)
		if (v < below[k]) v *= up[k], xp |= exp_bits[k];
	return put_exp(s, v, '-', xp);
}

/* v >= 999999.5: scaled down into [1, 10). */
static int fmt_large(char *s, double v)
{
	static const double down[] = {1.0e-256, 1.0e-128, 1.0e-64, 1.0e-32, 1.0e-16, 1.0e-8, 1.0e-4, 1.0e-2, 1.0e-1};
	static const double from[] = {9.9999949999999e255, 9.9999949999999e127, 9.9999949999999e63, 9.9999949999999e31,
	                              9.9999949999999e15, 9.9999949999999e7, 9.9999949999999e3, 9.9999949999999e1,
	                              9.9999949999999e0};
	if (v == INFINITY) return (int)(memcpy(s, "inf", 3), 3);
	int xp = 0;
	if (v >= from[4]) {
		if (v >= from[1]) {
			int k = v >= from[0] ? 0 : 1;
			v *= down[k], xp |= exp_bits[k];
		}
		for (int k = 2; k < 5; ++k)
			if (v >= from[k]) v *= down[k], xp |= exp_bits[k];
	}
	for (int k = 5; k < 9; ++k)
		if (v >= from[k]) v *= down[k], xp |= exp_bits[k];
	return put_exp(s, v, '+', xp);
}

/* 1 <= v < 999999.5: six digits with the point after the integer part. */
static int fmt_mid(char *s, double v)
{
	static const double below[] = {9.9999949999999, 99.999949999999, 999.99949999999, 9999.9949999999,
	                               99999.949999999};
	static const double scale[] = {100000, 10000, 1000, 100, 10};
	for (int k = 0; k < 5; ++k)
		if (v < below[k]) return put_fixed(s, bround(v * scale[k]), k + 1);
	return put_fixed(s, bround(v), 6);
}

/* v < 1: "0.", the zeros, and six digits. */
static int fmt_frac(char *s, double v)
{
	int n = 2;
	memcpy(s, "0.", 2);
	if (v < 9.9999949999999e-3) v *= 100, s[n++] = '0', s[n++] = '0';
	if (v < 9.9999949999999e-2) v *= 10, s[n++] = '0';
	return n + put_digits(s + n, bround(v * 1000000), 6);
}

int ld_fmt_g(char *s, double v)
{
	int n = 0;
	if (isnan(v)) return (int)(memcpy(s, "nan", 4), 3);
	if (v < 0) s[n++] = '-', v = -v;
	if (v == 0.0) s[n++] = '0';
	else if (v < 9.9999949999999e-5) n += fmt_small(s + n, v);
	else if (v >= 999999.49999999) n += fmt_large(s + n, v);
	else if (v >= 0.99999949999999) n += fmt_mid(s + n, v);
	else n += fmt_frac(s + n, v);
	s[n] = 0;
	return n;
}
