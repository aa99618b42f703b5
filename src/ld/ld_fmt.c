/* SPDX-License-Identifier: MIT */
/* Numbers as PLINK 1.9 prints them: in .ld files with 6 significant digits (ld_fmt_g), in
 * .clumped files with 3 (ld_fmt_g3). Its routine is not printf's %g: the layout is the same
 * (trailing zeros dropped, e-05 style exponents), but rounding is half-to-even on the scaled value
 * with a tie band (+-5e-9 for 6 digits, +-5e-12 for 3), so a value printf rounds up because its
 * binary value lies a hair above a decimal tie may be rounded to even by PLINK. The value is
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

/* v below 1 scaled up into [1, 10) by the powers PLINK multiplies with, the exponent in *xp.
 * below[k]: the bound under which PLINK applies the k-th power, 10^-(exp_bits[k]) less half a unit
 * of the last digit it prints. */
static double scale_up(double v, const double below[9], int *xp)
{
	static const double up[] = {1.0e256, 1.0e128, 1.0e64, 1.0e32, 1.0e16, 100000000, 10000, 100, 10};
	*xp = 0;
	if (v < below[4]) {
		if (v < below[1]) {
			int k = v < below[0] ? 0 : 1;
			v *= up[k], *xp |= exp_bits[k];
		}
		for (int k = 2; k < 5; ++k)
			if (v < below[k]) v *= up[k], *xp |= exp_bits[k];
	}
	for (int k = 5; k < 9; ++k)
		if (v < below[k]) v *= up[k], *xp |= exp_bits[k];
	return v;
}

/* The same downwards for large v; from[k]: the bound from which the k-th power applies. */
static double scale_down(double v, const double from[9], int *xp)
{
	static const double down[] = {1.0e-256, 1.0e-128, 1.0e-64, 1.0e-32, 1.0e-16, 1.0e-8, 1.0e-4, 1.0e-2, 1.0e-1};
	*xp = 0;
	if (v >= from[4]) {
		if (v >= from[1]) {
			int k = v >= from[0] ? 0 : 1;
			v *= down[k], *xp |= exp_bits[k];
		}
		for (int k = 2; k < 5; ++k)
			if (v >= from[k]) v *= down[k], *xp |= exp_bits[k];
	}
	for (int k = 5; k < 9; ++k)
		if (v >= from[k]) v *= down[k], *xp |= exp_bits[k];
	return v;
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

/* Half-to-even with the +-5e-12 tie band of 3-digit output. */
static uint32_t bround3(double x)
{
	uint32_t r = (uint32_t)(int32_t)x;
	return r + (uint32_t)(int32_t)((x - (double)(int32_t)r) + ((r & 1) ? 0.500000000005 : 0.499999999995));
}

/* q in [100, 999] as d.dd without trailing zeros. */
static int put_1p2(char *s, uint32_t q)
{
	int n = 0;
	s[n++] = (char)('0' + q / 100);
	q %= 100;
	if (!q) return n;
	s[n++] = '.', s[n++] = (char)('0' + q / 10);
	if (q % 10) s[n++] = (char)('0' + q % 10);
	return n;
}

/* v in [1, 10) after scaling by 10^xp (sign given), as mantissa and exponent. */
static int put_exp3(char *s, double v, char sign, int xp)
{
	int n = put_1p2(s, bround3(v * 100));
	s[n++] = 'e', s[n++] = sign;
	if (xp >= 100) s[n++] = (char)('0' + xp / 100), xp %= 100;
	s[n++] = (char)('0' + xp / 10), s[n++] = (char)('0' + xp % 10);
	return n;
}

/* Scaling bounds (see scale_up / scale_down) for 6 and for 3 digits: the largest value that rounds
 * below the next power of ten at that many digits (m, 1 - 5e-7 and 1 - 5e-4 in every digit), at
 * each power the scaling steps by. Pasted as literals so that the compiler's correctly rounded
 * conversion makes them. */
#define BELOW(m) {m##e##-##256, m##e##-##128, m##e##-##64, m##e##-##32, m##e##-##16, m##e##-##8, m##e##-##4, m##e##-##2, m##e##-##1}
#define FROM(m) {m##e##255, m##e##127, m##e##63, m##e##31, m##e##15, m##e##7, m##e##3, m##e##1, m##e##0}
static const double below6[] = BELOW(9.9999949999999), from6[] = FROM(9.9999949999999);
static const double below3[] = BELOW(9.9949999999999), from3[] = FROM(9.9949999999999);
#undef BELOW
#undef FROM

/* A value too small or too large for the fixed forms (below 1e-4, or from 999999.5 with 6 digits
 * and 999.5 with 3), as mantissa and exponent. */
static int exp_form(char *s, double v, int three)
{
	int xp, up = v < 1;
	v = up ? scale_up(v, three ? below3 : below6, &xp) : scale_down(v, three ? from3 : from6, &xp);
	return three ? put_exp3(s, v, up ? '-' : '+', xp) : put_exp(s, v, up ? '-' : '+', xp);
}

int ld_fmt_g(char *s, double v)
{
	int n = 0;
	if (isnan(v)) return (int)(memcpy(s, "nan", 4), 3);
	if (v < 0) s[n++] = '-', v = -v;
	if (v == 0.0) s[n++] = '0';
	else if (v == INFINITY) n += (int)(memcpy(s + n, "inf", 4), 3);
	else if (v < 9.9999949999999e-5 || v >= 999999.49999999) n += exp_form(s + n, v, 0);
	else if (v >= 0.99999949999999) n += fmt_mid(s + n, v);
	else n += fmt_frac(s + n, v);
	s[n] = 0;
	return n;
}

/* 0.9995 <= v < 999.5: d.dd, dd.d or ddd, trailing fraction zeros dropped. */
static int mid3(char *s, double v)
{
	if (v < 9.9949999999999) return put_1p2(s, bround3(v * 100));
	uint32_t q = bround3(v < 99.949999999999 ? v * 10 : v);
	s[0] = (char)('0' + q / 100), s[1] = (char)('0' + q / 10 % 10);
	if (v >= 99.949999999999) return s[2] = (char)('0' + q % 10), 3;
	if (!(q % 10)) return 2;
	s[2] = '.', s[3] = (char)('0' + q % 10);
	return 4;
}

/* v < 0.9995: "0.", zeros, up to three digits. */
static int frac3(char *s, double v)
{
	int n = 2;
	memcpy(s, "0.", 2);
	if (v < 9.9949999999999e-3) v *= 100, s[n++] = '0', s[n++] = '0';
	if (v < 9.9949999999999e-2) v *= 10, s[n++] = '0';
	uint32_t q = bround3(v * 1000);
	s[n++] = (char)('0' + q / 100);
	q %= 100;
	if (q) {
		s[n++] = (char)('0' + q / 10);
		if (q % 10) s[n++] = (char)('0' + q % 10);
	}
	return n;
}

int ld_fmt_g3(char *s, double v, int w)
{
	char b[40];
	int n = 0;
	if (isnan(v)) n = 3, memcpy(b, "nan", 3);
	else {
		if (v < 0) b[n++] = '-', v = -v;
		if (v == 0.0) b[n++] = '0';
		else if (isinf(v)) memcpy(b + n, "inf", 3), n += 3;
		else if (v < 9.9949999999999e-5 || v >= 999.49999999999) n += exp_form(b + n, v, 1);
		else if (v >= 0.99949999999999) n += mid3(b + n, v);
		else n += frac3(b + n, v);
	}
	int pad = w > n ? w - n : 0;
	memset(s, ' ', (size_t)pad);
	memcpy(s + pad, b, (size_t)n);
	s[pad + n] = 0;
	return pad + n;
}
