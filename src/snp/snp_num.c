/* SPDX-License-Identifier: MIT */
/* Decimal text to numbers. A decimal of at most 19 significant digits whose value m * 10^k has
 * m below 2^53 and |k| <= 22 is one multiplication or division of two exact doubles, which IEEE
 * rounds correctly, so it equals what a correctly rounding strtod returns (Clinger's fast path);
 * anything else (more digits, larger exponents, hex, inf, nan) goes to strtod itself. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "snp_num.h"

static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                       1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int digit(const char *p, const char *e) { return p < e && *p >= '0' && *p <= '9'; }

/* strtod on a NUL-terminated copy of the token. */
static double slow_double(const char *s, const char *e, const char **end)
{
	char small[64], *buf = small;
	size_t n = (size_t)(e - s);
	if (n >= sizeof small && !(buf = malloc(n + 1))) return *end = s, 0.0;
	memcpy(buf, s, n), buf[n] = 0;
	char *stop;
	double v = strtod(buf, &stop);
	*end = s + (stop - buf);
	if (buf != small) free(buf);
	return v;
}

double snp_num_double(const char *s, const char *e, const char **end)
{
	const char *p = s;
	int neg = 0, sig = 0, any = 0, frac = 0;
	uint64_t m = 0;
	if (p < e && (*p == '-' || *p == '+')) neg = *p++ == '-';
	if (p + 1 < e && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) return slow_double(s, e, end);
	for (; digit(p, e); ++p, any = 1)
		if (m || *p != '0') {
			if (++sig > 19) return slow_double(s, e, end);
			m = m * 10 + (uint64_t)(*p - '0');
		}
	if (p < e && *p == '.')
		for (++p; digit(p, e); ++p, ++frac, any = 1)
			if (m || *p != '0') {
				if (++sig > 19) return slow_double(s, e, end);
				m = m * 10 + (uint64_t)(*p - '0');
			}
	if (!any) return slow_double(s, e, end);
	int64_t ex = 0;
	if (p < e && (*p == 'e' || *p == 'E')) {
		const char *q = p + 1;
		int eneg = 0;
		if (q < e && (*q == '-' || *q == '+')) eneg = *q++ == '-';
		if (digit(q, e)) {
			for (; digit(q, e); ++q)
				if ((ex = ex * 10 + (*q - '0')) > 100000) return slow_double(s, e, end);
			if (eneg) ex = -ex;
			p = q;
		}
	}
	int64_t k = ex - frac;
	double v;
	if (m == 0) v = 0.0;
	else if (m > ((uint64_t)1 << 53) || k < -22 || k > 22) return slow_double(s, e, end);
	else v = k >= 0 ? (double)m * pow10_exact[k] : (double)m / pow10_exact[-k];
	*end = p;
	return neg ? -v : v;
}

int snp_num_i64(const char *s, const char *e, int64_t *v)
{
	const char *p = s;
	int neg = 0;
	if (p < e && (*p == '-' || *p == '+')) neg = *p++ == '-';
	if (p < e && e - p <= 18) {
		int64_t x = 0;
		const char *q = p;
		for (; digit(q, e); ++q) x = x * 10 + (*q - '0');
		if (q == e) return *v = neg ? -x : x, 0;
		return -1;
	}
	/* long tokens (leading zeros, or out of range) through strtoll */
	char small[64], *buf = small;
	size_t n = (size_t)(e - s);
	if (n == 0) return -1;
	if (n >= sizeof small && !(buf = malloc(n + 1))) return -1;
	memcpy(buf, s, n), buf[n] = 0;
	char *stop;
	errno = 0;
	long long x = strtoll(buf, &stop, 10);
	int rc = errno || stop == buf || *stop ? -1 : 0;
	if (buf != small) free(buf);
	if (rc == 0) *v = x;
	return rc;
}
