/* SPDX-License-Identifier: MIT */
/* The x87 80-bit format in software (cnv_xf80.h). Every operation works on the exact result held
 * in 128 bits, the bits shifted out folded into the lowest one (sticky), and rounds once. NaNs
 * follow the x87's rules: the QNaN operand (quieted), of two the one with the larger
 * significand (equal ones: the positive); an invalid operation gives the x87's default NaN. */
#include <string.h>

#include "cnv_xf80.h"

__extension__ typedef unsigned __int128 u128;

#define EMIN (-16382)
#define EMAX 16383
#define QUIET (1ull << 62)
#define TOP (1ull << 63)

static cnv_xf80_t mk(uint8_t cls, uint8_t neg, int32_t exp, uint64_t sig)
{
	return (cnv_xf80_t){sig, exp, neg, cls};
}

static cnv_xf80_t default_nan(void)
{
	return mk(CNV_XF80_NAN, 1, 0, TOP | QUIET);
}

static int clz128(u128 m)
{
	uint64_t hi = (uint64_t)(m >> 64);
	return hi ? __builtin_clzll(hi) : 64 + __builtin_clzll((uint64_t)m);
}

/* m >> s, with a 1 in the lowest bit when a 1 was shifted out */
static u128 shr_sticky(u128 m, int32_t s)
{
	if (s <= 0) return m;
	if (s >= 128) return m != 0;
	return (m >> s) | ((m << (128 - s)) != 0);
}

/* m * 2^(e - 127), m's top bit set, rounded to the format: denormal below EMIN, infinity above EMAX. */
static cnv_xf80_t round_pack(uint8_t neg, int32_t e, u128 m)
{
	if (e < EMIN) {
		m = shr_sticky(m, EMIN - e);
		e = EMIN;
	}
	uint64_t hi = (uint64_t)(m >> 64), lo = (uint64_t)m;
	if (lo > TOP || (lo == TOP && (hi & 1))) {
		if (++hi == 0) hi = TOP, ++e;
	}
	if (e > EMAX) return mk(CNV_XF80_INF, neg, 0, TOP);
	if (!hi) return mk(CNV_XF80_ZERO, neg, 0, 0);
	return mk(CNV_XF80_FINITE, neg, e, hi);
}

/* A finite non-zero value's significand with its top bit set, and the exponent that goes with it. */
static uint64_t normalized(cnv_xf80_t a, int32_t *e)
{
	int s = __builtin_clzll(a.sig);
	*e = a.exp - s;
	return a.sig << s;
}

static cnv_xf80_t nan_result(cnv_xf80_t a, cnv_xf80_t b)
{
	cnv_xf80_t r = a.cls != CNV_XF80_NAN ? b : a;
	if (a.cls == CNV_XF80_NAN && b.cls == CNV_XF80_NAN) {
		if ((a.sig & QUIET) != (b.sig & QUIET)) r = a.sig & QUIET ? a : b; /* a QNaN before an SNaN */
		else if (a.sig != b.sig) r = a.sig > b.sig ? a : b;
		else r = a.neg ? b : a; /* equal significands: the positive one */
	}
	r.sig |= QUIET;
	return r;
}

cnv_xf80_t cnv_xf80_of_double(double x)
{
	uint64_t u;
	memcpy(&u, &x, sizeof u);
	uint8_t neg = (uint8_t)(u >> 63);
	int32_t ef = (int32_t)(u >> 52 & 0x7ff);
	uint64_t f = u & ((1ull << 52) - 1);
	if (ef == 0x7ff) return f ? mk(CNV_XF80_NAN, neg, 0, TOP | QUIET | f << 11) : mk(CNV_XF80_INF, neg, 0, TOP);
	if (ef == 0) {
		if (!f) return mk(CNV_XF80_ZERO, neg, 0, 0);
		int s = __builtin_clzll(f);
		return mk(CNV_XF80_FINITE, neg, -1011 - s, f << s);
	}
	return mk(CNV_XF80_FINITE, neg, ef - 1023, TOP | f << 11);
}

cnv_xf80_t cnv_xf80_of_u64(uint64_t n)
{
	if (!n) return mk(CNV_XF80_ZERO, 0, 0, 0);
	int s = __builtin_clzll(n);
	return mk(CNV_XF80_FINITE, 0, 63 - s, n << s);
}

double cnv_xf80_double(cnv_xf80_t a)
{
	uint64_t u = (uint64_t)a.neg << 63;
	if (a.cls == CNV_XF80_NAN) u |= 0x7ffull << 52 | 1ull << 51 | (a.sig >> 11 & ((1ull << 52) - 1));
	else if (a.cls == CNV_XF80_INF) u |= 0x7ffull << 52;
	else if (a.cls == CNV_XF80_FINITE) {
		int32_t e;
		u128 m = (u128)normalized(a, &e) << 64;
		if (e < -1022) m = shr_sticky(m, -1022 - e), e = -1022;
		uint64_t hi = (uint64_t)(m >> 75);
		u128 rest = m & (((u128)1 << 75) - 1), half = (u128)1 << 74;
		if (rest > half || (rest == half && (hi & 1)))
			if (++hi == 1ull << 53) hi = 1ull << 52, ++e;
		if (e > 1023) u |= 0x7ffull << 52;
		else if (hi >> 52) u |= (uint64_t)(e + 1023) << 52 | (hi & ((1ull << 52) - 1));
		else u |= hi; /* a denormal double, or zero */
	}
	double x;
	memcpy(&x, &u, sizeof x);
	return x;
}

/* a + b for finite non-zero operands of signs na and nb */
static cnv_xf80_t add_finite(cnv_xf80_t a, cnv_xf80_t b)
{
	int32_t ea, eb;
	uint64_t sa = normalized(a, &ea), sb = normalized(b, &eb);
	uint8_t na = a.neg, nb = b.neg;
	if (ea < eb || (ea == eb && sa < sb)) {
		uint64_t ts = sa;
		int32_t te = ea;
		uint8_t tn = na;
		sa = sb, ea = eb, na = nb, sb = ts, eb = te, nb = tn;
	}
	/* 63 guard bits below each significand; the larger one's top bit at 126 stands for 2^ea */
	u128 x = (u128)sa << 63, y = shr_sticky((u128)sb << 63, ea - eb);
	u128 s = na == nb ? x + y : x - y;
	if (!s) return mk(CNV_XF80_ZERO, 0, 0, 0); /* x - x is +0 when rounding to nearest */
	int lz = clz128(s);
	return round_pack(na, ea + 1 - lz, s << lz);
}

cnv_xf80_t cnv_xf80_add(cnv_xf80_t a, cnv_xf80_t b)
{
	if (a.cls == CNV_XF80_NAN || b.cls == CNV_XF80_NAN) return nan_result(a, b);
	if (a.cls == CNV_XF80_INF || b.cls == CNV_XF80_INF) {
		if (a.cls == CNV_XF80_INF && b.cls == CNV_XF80_INF && a.neg != b.neg) return default_nan();
		return a.cls == CNV_XF80_INF ? a : b;
	}
	if (a.cls == CNV_XF80_ZERO) return b.cls == CNV_XF80_ZERO ? mk(CNV_XF80_ZERO, a.neg & b.neg, 0, 0) : b;
	if (b.cls == CNV_XF80_ZERO) return a;
	return add_finite(a, b);
}

cnv_xf80_t cnv_xf80_sub(cnv_xf80_t a, cnv_xf80_t b)
{
	if (b.cls != CNV_XF80_NAN) b.neg ^= 1; /* a NaN operand comes back with its own sign */
	return cnv_xf80_add(a, b);
}

cnv_xf80_t cnv_xf80_mul(cnv_xf80_t a, cnv_xf80_t b)
{
	if (a.cls == CNV_XF80_NAN || b.cls == CNV_XF80_NAN) return nan_result(a, b);
	uint8_t neg = a.neg ^ b.neg;
	if (a.cls == CNV_XF80_INF || b.cls == CNV_XF80_INF) {
		if (a.cls == CNV_XF80_ZERO || b.cls == CNV_XF80_ZERO) return default_nan();
		return mk(CNV_XF80_INF, neg, 0, TOP);
	}
	if (a.cls == CNV_XF80_ZERO || b.cls == CNV_XF80_ZERO) return mk(CNV_XF80_ZERO, neg, 0, 0);
	int32_t ea, eb;
	u128 p = (u128)normalized(a, &ea) * normalized(b, &eb); /* exact: [2^126, 2^128) */
	int lz = clz128(p);
	return round_pack(neg, ea + eb + 1 - lz, p << lz);
}

cnv_xf80_t cnv_xf80_div(cnv_xf80_t a, cnv_xf80_t b)
{
	if (a.cls == CNV_XF80_NAN || b.cls == CNV_XF80_NAN) return nan_result(a, b);
	uint8_t neg = a.neg ^ b.neg;
	if (a.cls == CNV_XF80_INF) return b.cls == CNV_XF80_INF ? default_nan() : mk(CNV_XF80_INF, neg, 0, TOP);
	if (b.cls == CNV_XF80_INF) return mk(CNV_XF80_ZERO, neg, 0, 0);
	if (b.cls == CNV_XF80_ZERO) return a.cls == CNV_XF80_ZERO ? default_nan() : mk(CNV_XF80_INF, neg, 0, TOP);
	if (a.cls == CNV_XF80_ZERO) return mk(CNV_XF80_ZERO, neg, 0, 0);
	int32_t ea, eb;
	uint64_t sa = normalized(a, &ea), sb = normalized(b, &eb);
	/* 128 quotient bits, the first of them the leading one, and the remainder as the sticky bit */
	int32_t e = ea - eb;
	u128 n = (u128)sa << 64;
	if (sa >= sb) n >>= 1;
	else --e;
	u128 q1 = n / sb, r = n % sb;
	u128 q2 = (r << 64) / sb, r2 = (r << 64) % sb;
	return round_pack(neg, e, q1 << 64 | q2 | (r2 != 0));
}

cnv_xf80_t cnv_xf80_unpack(uint64_t sig, uint16_t se)
{
	uint8_t neg = (uint8_t)(se >> 15);
	int32_t ef = se & 0x7fff;
	if (ef == 0x7fff) return (sig << 1) ? mk(CNV_XF80_NAN, neg, 0, sig) : mk(CNV_XF80_INF, neg, 0, TOP);
	if (!sig) return mk(CNV_XF80_ZERO, neg, 0, 0);
	return mk(CNV_XF80_FINITE, neg, ef ? ef - 16383 : EMIN, sig);
}

void cnv_xf80_pack(cnv_xf80_t a, uint64_t *sig, uint16_t *se)
{
	uint16_t e = 0;
	if (a.cls == CNV_XF80_NAN || a.cls == CNV_XF80_INF) e = 0x7fff;
	else if (a.cls == CNV_XF80_FINITE && (a.sig & TOP)) e = (uint16_t)(a.exp + 16383);
	*sig = a.cls == CNV_XF80_ZERO ? 0 : a.sig;
	*se = (uint16_t)(a.neg << 15 | e);
}
