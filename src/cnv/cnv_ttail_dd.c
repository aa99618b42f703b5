/* SPDX-License-Identifier: MIT */
/* The Student-t upper tail for near ties of the segmentation scores (cnv_segment.c), in
 * double-double arithmetic: about 106 significant bits, so that the double it returns is the
 * correctly rounded log tail but in cases far rarer than a near tie. Every step is an IEEE
 * operation on doubles (+, -, *, /, fma, and the exact frexp, ldexp and floor), with no libm
 * approximation, so the bits are the same on every target: the elementary functions (log,
 * log1p, exp, ln Gamma(b + 1/2) - ln Gamma(b)) are this file's own series. */
#include <math.h>

#include "cnv.h"

typedef struct {
	double hi, lo; /* hi = hi + lo rounded to double */
} dd_t;

static const dd_t LN2 = {0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56};
static const dd_t LGAMMA_HALF = {0x1.250d048e7a1bdp-1, 0x1.7abf2ad8d5088p-58}; /* ln Gamma(1/2) = ln(pi) / 2 */

static dd_t dd(double x)
{
	return (dd_t){x, 0.0};
}

/* a + b where |a| >= |b| or a = 0, exactly as hi + lo */
static dd_t fast_two_sum(double a, double b)
{
	double s = a + b;
	return (dd_t){s, b - (s - a)};
}

static dd_t two_sum(double a, double b)
{
	double s = a + b, bb = s - a;
	return (dd_t){s, (a - (s - bb)) + (b - bb)};
}

/* An infinite or NaN hi makes the low parts NaN: such results stop at hi. */
static dd_t add(dd_t a, dd_t b)
{
	dd_t s = two_sum(a.hi, b.hi), t = two_sum(a.lo, b.lo);
	if (!isfinite(s.hi)) return dd(s.hi);
	s = fast_two_sum(s.hi, s.lo + t.hi);
	return fast_two_sum(s.hi, s.lo + t.lo);
}

static dd_t neg(dd_t a)
{
	return (dd_t){-a.hi, -a.lo};
}

static dd_t sub(dd_t a, dd_t b)
{
	return add(a, neg(b));
}

static dd_t mul(dd_t a, dd_t b)
{
	double p = a.hi * b.hi, e = fma(a.hi, b.hi, -p);
	if (!isfinite(p)) return dd(p);
	return fast_two_sum(p, e + (a.hi * b.lo + a.lo * b.hi));
}

static dd_t mul_d(dd_t a, double b)
{
	return mul(a, dd(b));
}

/* long division: three quotient digits, each from the remainder left by the ones before */
static dd_t divide(dd_t a, dd_t b)
{
	double q1 = a.hi / b.hi;
	if (!isfinite(q1)) return dd(q1);
	dd_t r = sub(a, mul_d(b, q1));
	double q2 = r.hi / b.hi;
	r = sub(r, mul_d(b, q2));
	double q3 = r.hi / b.hi;
	return add(fast_two_sum(q1, q2), dd(q3));
}

/* 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...) for |s| <= 0.172: 23 terms reach 1e-34 */
static dd_t two_atanh(dd_t s)
{
	dd_t s2 = mul(s, s), p = dd(0.0);
	for (int k = 22; k >= 0; --k) p = add(divide(dd(1.0), dd(2.0 * k + 1)), mul(s2, p));
	return mul_d(mul(s, p), 2.0);
}

/* ln x = e ln 2 + ln y with y = x 2^-e in [sqrt(1/2), sqrt(2)), ln y = 2 atanh((y - 1) / (y + 1)) */
static dd_t dd_log(dd_t x)
{
	if (!(x.hi > 0)) return dd(x.hi == 0 ? -INFINITY : NAN);
	if (!isfinite(x.hi)) return x;
	int e;
	frexp(x.hi, &e);
	dd_t y = {ldexp(x.hi, -e), ldexp(x.lo, -e)};
	if (y.hi < 0.70710678118654752) y.hi *= 2, y.lo *= 2, --e;
	dd_t s = divide(sub(y, dd(1.0)), add(y, dd(1.0)));
	return add(two_atanh(s), mul_d(LN2, (double)e));
}

/* ln(1 + x), through atanh(x / (2 + x)) near 0 where 1 + x would lose x's low bits */
static dd_t dd_log1p(dd_t x)
{
	if (fabs(x.hi) < 0.25) return two_atanh(divide(x, add(dd(2.0), x)));
	return dd_log(add(dd(1.0), x));
}

/* e^x = 2^k e^r, r = x - k ln 2, e^r = (e^(r/64))^64 with e^(r/64) from 14 Taylor terms */
static dd_t dd_exp(dd_t x)
{
	if (x.hi < -746) return dd(0.0);
	if (x.hi > 710) return dd(INFINITY);
	double k = floor(x.hi / LN2.hi + 0.5);
	dd_t r = sub(x, mul_d(LN2, k));
	r = (dd_t){ldexp(r.hi, -6), ldexp(r.lo, -6)};
	dd_t p = dd(1.0);
	for (int n = 14; n >= 1; --n) p = add(dd(1.0), divide(mul(r, p), dd((double)n)));
	for (int i = 0; i < 6; ++i) p = mul(p, p);
	return (dd_t){ldexp(p.hi, (int)k), ldexp(p.lo, (int)k)};
}

/* ln Gamma(b + 1/2) - ln Gamma(b), b > 0: shifted to z = b + K >= 60 by ln Gamma(w + 1) = ln Gamma(w) + ln w,
 * then Stirling's series, whose terms B_2k / (2k (2k - 1) w^(2k - 1)) through k = 11 leave < 1e-36 at 60:
 * z ln(1 + 1/(2z)) + ln(z) / 2 - 1/2 + S(z + 1/2) - S(z). */
static dd_t stirling_sum(dd_t w)
{
	static const double num[11] = {1, -1, 1, -1, 1, -691, 1, -3617, 43867, -174611, 854513};
	static const double den[11] = {12, 360, 1260, 1680, 1188, 360360, 156, 122400, 244188, 125400, 63756};
	dd_t r = divide(dd(1.0), w), r2 = mul(r, r), p = dd(0.0);
	for (int k = 10; k >= 0; --k) p = add(divide(dd(num[k]), dd(den[k])), mul(r2, p));
	return mul(r, p);
}

static dd_t lgamma_half_step(double b)
{
	dd_t ratio = dd(1.0), z = dd(b);
	while (z.hi < 60) {
		ratio = mul(ratio, divide(add(z, dd(0.5)), z));
		z = add(z, dd(1.0));
	}
	dd_t d = mul(z, dd_log1p(divide(dd(0.5), z)));
	d = add(d, mul_d(dd_log(z), 0.5));
	d = sub(d, dd(0.5));
	d = add(d, sub(stirling_sum(add(z, dd(0.5))), stirling_sum(z)));
	return ratio.hi == 1.0 && ratio.lo == 0 ? d : sub(d, dd_log(ratio));
}

/* ln B(1/2, b) */
static dd_t lbeta_half(double b)
{
	return sub(LGAMMA_HALF, lgamma_half_step(b));
}

/* The continued fraction of I_x(a, b) (modified Lentz), as cnv_segment.c's double one. */
static dd_t beta_cf(dd_t x, double a, double b)
{
	const double tiny = 1e-300;
	dd_t one = dd(1.0), c = one, ab = add(dd(a), dd(b));
	dd_t d = sub(one, divide(mul(ab, x), add(dd(a), one)));
	if (fabs(d.hi) < tiny) d = dd(tiny);
	d = divide(one, d);
	dd_t h = d;
	for (int m = 1; m <= 100000; ++m) {
		dd_t m2 = dd(2.0 * m), am2 = add(dd(a), m2);
		dd_t num = divide(mul(mul_d(sub(dd(b), dd(m)), m), x), mul(add(sub(dd(a), one), m2), am2));
		d = add(one, mul(num, d));
		if (fabs(d.hi) < tiny) d = dd(tiny);
		c = add(one, divide(num, c));
		if (fabs(c.hi) < tiny) c = dd(tiny);
		d = divide(one, d);
		h = mul(h, mul(d, c));
		num = neg(divide(mul(mul(add(dd(a), dd(m)), add(ab, dd(m))), x), mul(am2, add(am2, one))));
		d = add(one, mul(num, d));
		if (fabs(d.hi) < tiny) d = dd(tiny);
		c = add(one, divide(num, c));
		if (fabs(c.hi) < tiny) c = dd(tiny);
		d = divide(one, d);
		dd_t del = mul(d, c);
		h = mul(h, del);
		if (fabs(sub(del, one).hi) < 1e-31) break;
	}
	return h;
}

/* log I_x(a, b) (upper = 0) or log(1 - I_x(a, b)) (upper = 1); one of a, b is 1/2 */
static dd_t log_ibeta(dd_t x, double a, double b, int upper)
{
	if (!(x.hi > 0)) return dd(upper ? 0 : -INFINITY);
	if (x.hi >= 1) return dd(upper ? -INFINITY : 0);
	dd_t one = dd(1.0);
	dd_t front = add(mul_d(dd_log(x), a), mul_d(dd_log1p(neg(x)), b));
	front = sub(front, lbeta_half(a == 0.5 ? b : a));
	if (x.hi < (a + 1) / (a + b + 2)) {
		dd_t lo = sub(add(front, dd_log(beta_cf(x, a, b))), dd_log(dd(a)));
		return upper ? dd_log1p(neg(dd_exp(lo))) : lo;
	}
	dd_t up = sub(add(front, dd_log(beta_cf(sub(one, x), b, a))), dd_log(dd(b)));
	return upper ? up : dd_log1p(neg(dd_exp(up)));
}

/* The branches of cnv_segment.c's double tail, on the same double tests of t and n; R rounds the
 * log tail to double and subtracts log 2 in double, and so does this. */
double cnv_log_t_upper(double t, double n)
{
	dd_t val, lt = dd(t), ln = dd(n), t2 = mul(lt, lt);
	if (1 + (t / n) * t > 1e100) {
		dd_t l = sub(mul_d(dd_log(dd(fabs(t))), 2.0), dd_log(ln));
		val = mul(mul_d(ln, -0.5), l);
		val = sub(sub(val, lbeta_half(n / 2)), dd_log(dd(n / 2)));
	} else if (n > t * t) {
		val = log_ibeta(divide(t2, add(ln, t2)), 0.5, n / 2, 1);
	} else {
		val = log_ibeta(divide(dd(1.0), add(dd(1.0), mul(divide(lt, ln), lt))), n / 2, 0.5, 0);
	}
	return val.hi - 0.693147180559945309417232121458;
}
