/* SPDX-License-Identifier: MIT */
/* The software x87 format (src/cnv/cnv_xf80.c) against the x87 itself, bit for bit: add, sub, mul,
 * div and the conversions on random operands of every kind (doubles of any exponent, subnormal
 * ones, counts, 64-bit significands near each other for cancellation, exact ties, results that
 * overflow or become x87 denormals, zeros, infinities, NaNs) and along long sums as R's mean()
 * takes them. Every result also goes into a hash, and the hash must be the one written below, so
 * that a build without the x87 (aarch64) checks that its software results are the x86 ones.
 * Usage: test_cnv_xf80 [print]   (print: show the hash instead of checking it) */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/splitmix.h"
#include "cnv/cnv_xf80.h"

#define HAVE_X87 (LDBL_MANT_DIG == 64)
#define WANT_HASH 0x1d46b8ab1bd75d91ull

static uint64_t hash = 0xcbf29ce484222325ull;
static long n_checked, n_failed;

static void hash_u64(uint64_t v)
{
	for (int i = 0; i < 8; ++i) hash = (hash ^ (v >> 8 * i & 0xff)) * 0x100000001b3ull;
}

#if HAVE_X87
static void show(const char *tag, cnv_xf80_t v)
{
	uint64_t sig;
	uint16_t se;
	cnv_xf80_pack(v, &sig, &se);
	fprintf(stderr, " %s=%04x:%016llx", tag, se, (unsigned long long)sig);
}

static long double native(cnv_xf80_t a)
{
	unsigned char b[sizeof(long double)] = {0};
	uint64_t sig;
	uint16_t se;
	cnv_xf80_pack(a, &sig, &se);
	memcpy(b, &sig, 8), memcpy(b + 8, &se, 2);
	long double x;
	memcpy(&x, b, sizeof x);
	return x;
}

static cnv_xf80_t soft_of(long double x)
{
	unsigned char b[sizeof(long double)];
	memcpy(b, &x, sizeof x);
	uint64_t sig;
	uint16_t se;
	memcpy(&sig, b, 8), memcpy(&se, b + 8, 2);
	return cnv_xf80_unpack(sig, se);
}

static int same(cnv_xf80_t a, cnv_xf80_t b)
{
	uint64_t sa, sb;
	uint16_t ea, eb;
	cnv_xf80_pack(a, &sa, &ea), cnv_xf80_pack(b, &sb, &eb);
	return sa == sb && ea == eb;
}
#endif

/* One binary operation: the software result into the hash and, with an x87, against it. */
static void check_op(char op, cnv_xf80_t a, cnv_xf80_t b)
{
	cnv_xf80_t r = op == '+' ? cnv_xf80_add(a, b) : op == '-' ? cnv_xf80_sub(a, b) : op == '*' ? cnv_xf80_mul(a, b)
	                                                                                             : cnv_xf80_div(a, b);
	uint64_t sig;
	uint16_t se;
	cnv_xf80_pack(r, &sig, &se);
	hash_u64(sig), hash_u64(se);
	++n_checked;
#if HAVE_X87
	volatile long double x = native(a), y = native(b);
	long double z = op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x / y;
	cnv_xf80_t want = soft_of(z);
	if (same(r, want)) return;
	if (n_failed++ < 20) {
		fprintf(stderr, "%c:", op);
		show("a", a), show("b", b), show("soft", r), show("x87", want);
		fputc('\n', stderr);
	}
#endif
}

/* The conversion to double of a, and those from double and from a count. */
static void check_conv(cnv_xf80_t a, double d, uint64_t n)
{
	double r = cnv_xf80_double(a);
	uint64_t u;
	memcpy(&u, &r, sizeof u);
	hash_u64(u);
	cnv_xf80_t fd = cnv_xf80_of_double(d), fn = cnv_xf80_of_u64(n);
	uint64_t sig;
	uint16_t se;
	cnv_xf80_pack(fd, &sig, &se), hash_u64(sig ^ se);
	cnv_xf80_pack(fn, &sig, &se), hash_u64(sig ^ se);
	n_checked += 3;
#if HAVE_X87
	volatile long double x = native(a);
	volatile double dv = d;
	volatile uint64_t nv = n;
	double want = (double)x;
	uint64_t w;
	memcpy(&w, &want, sizeof w);
	int ok = w == u && same(fd, soft_of(dv)) && same(fn, soft_of((long double)nv));
	if (ok) return;
	if (n_failed++ < 20) {
		fprintf(stderr, "conv:");
		show("a", a);
		fprintf(stderr, " double %016llx (x87 %016llx) of_double(%a) of_u64(%llu)\n", (unsigned long long)u,
		        (unsigned long long)w, d, (unsigned long long)n);
	}
#endif
}

static cnv_xf80_t xf(int neg, int32_t exp, uint64_t sig)
{
	return cnv_xf80_unpack(sig, (uint16_t)(neg << 15 | (exp + 16383)));
}

static double any_double(uint64_t *s)
{
	uint64_t u = gvk_splitmix64(s);
	double x;
	memcpy(&x, &u, sizeof x);
	return x;
}

/* A random operand of one of several kinds; near: an operand close to x (cancellation, ties). */
static cnv_xf80_t operand(uint64_t *s, cnv_xf80_t near)
{
	uint64_t r = gvk_splitmix64(s), sig = gvk_splitmix64(s) | 1ull << 63;
	int neg = (int)(r >> 63);
	switch (r % 12) {
	case 0: return cnv_xf80_of_double(any_double(s)); /* any double: subnormal, huge, inf, NaN */
	case 1: return cnv_xf80_of_double((double)(gvk_splitmix64(s) % 100000)); /* counts */
	case 2: return cnv_xf80_of_double(ldexp(gvk_splitmix_unif(s), -1074 + (int)(r % 60))); /* subnormal doubles */
	case 3: return xf(neg, (int32_t)(r >> 8 & 127) - 64, sig);                              /* moderate */
	case 4: return xf(neg, (int32_t)((r >> 8) % 32766) - 16382, sig); /* any exponent */
	case 5: return xf(neg, -16382 + (int32_t)(r >> 8 & 63), sig);                            /* near the denormals */
	case 6: return xf(neg, 16383 - (int32_t)(r >> 8 & 63), sig);                             /* near overflow */
	case 7: return cnv_xf80_unpack(gvk_splitmix64(s) >> (1 + (r >> 8 & 62)), (uint16_t)(neg << 15)); /* x87 denormals */
	case 8: /* near the other operand: the same exponent, a few units apart, or one bit of it */
		if (near.cls == CNV_XF80_FINITE && (near.sig >> 63)) {
			cnv_xf80_t v = near;
			v.neg ^= (uint8_t)(r >> 1 & 1);
			if (r & 4) v.sig += (r >> 8 & 7), v.sig |= 1ull << 63;
			else v.sig -= (r >> 8 & 7), v.sig |= 1ull << 63;
			if (r & 8) v.exp -= (int32_t)(r >> 12 & 127); /* a tie or near-tie in the last bit */
			if (v.exp < -16382) v.exp = -16382;
			if (r & 16) v.sig = 1ull << 63;
			return v;
		}
		return xf(neg, 0, sig);
	case 9: return xf(neg, (int32_t)(r >> 8 & 3), 1ull << 63 | (r >> 16 & 1)); /* short significands: exact ties */
	case 10: {
		static const double sp[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 0x1p-1074, 0x1p-1022, 0x1.fffffffffffffp1023};
		return cnv_xf80_of_double(sp[(r >> 8) % (sizeof sp / sizeof *sp)]);
	}
	default: { /* NaNs of either kind, quiet or signalling, and the largest and smallest */
		static const uint64_t sg[] = {0xc000000000000000ull, 0x8000000000000001ull, 0xc123456789abcdefull, 0x8fffffffffffffffull,
		                              0xffffffffffffffffull, 0x8000000000000000ull};
		uint64_t g = sg[(r >> 8) % (sizeof sg / sizeof *sg)];
		uint16_t e = (r >> 16 & 1) ? 0x7ffe : (r >> 17 & 1) ? 0x7fff : 0x0001;
		return cnv_xf80_unpack(g, (uint16_t)(neg << 15 | e));
	}
	}
}

/* Where rounding meets a boundary: conversions to double around its overflow and its subnormals,
 * products and quotients that become x87 denormals, with significands whose cut falls on a tie,
 * just above it (a 1 far below: the sticky bit) or just below it. */
static void check_boundaries(uint64_t *s)
{
	const uint64_t top = 1ull << 63;
	for (int e = -1080; e <= 1026; e = e == -1016 ? 1018 : e + 1)
		for (int k = 0; k < 8; ++k) {
			uint64_t r = gvk_splitmix64(s), sig[8] = {top, top | 1ull << 10, top | 3ull << 10, top | 1ull << 10 | 1, top | 0x3ffull,
			                                         ~0ull, top | r >> 1, top | 1ull << 11};
			int sh = e < -1022 ? -1022 - e : 0; /* the cut moves up in the subnormals */
			if (k == 1 || k == 3) sig[k] = top | (sh < 53 ? 1ull << (10 + sh) : 0) | (k == 3);
			check_conv(xf((int)(r & 1), e, sig[k]), 0.0, 0);
		}
	/* (2^63 + 1)^2 has bits 126, 64 and 0: shifted 2 into the denormals, the half bit is set,
	 * the ones below it clear and bit 0, shifted out, makes it more than half */
	for (int k = 0; k < 70; ++k)
		for (int j = 0; j < 3; ++j) check_op('*', xf(0, -8192, top | 1), xf(j & 1, -16382 - k + 8192 - j, top | (uint64_t)j));
	for (int i = 0; i < 20000; ++i) {
		uint64_t r = gvk_splitmix64(s);
		int32_t below = (int32_t)(r % 70) - 2, ea = -8191 + (int32_t)(r >> 8 & 15), eb = -16382 - below - ea;
		/* a short first significand and a second with a low bit now and then: exact ties below the cut */
		uint64_t sa = top | (gvk_splitmix64(s) >> 40 << 20), sb = top | (r >> 20 & 1 ? 1 : gvk_splitmix64(s) >> 50 << 30);
		check_op('*', xf(0, ea, sa), xf((int)(r >> 30 & 1), eb, sb));
		check_op('/', xf(0, -16382 + (int32_t)(r >> 31 & 31), sa), xf(0, below + (int32_t)(r >> 36 & 31), sb));
	}
}

/* Sums of many doubles as cnv_r_mean() takes them: the running sums, the mean, its correction. */
static void check_long_sums(uint64_t *s)
{
	for (int k = 0; k < 6; ++k) {
		size_t n = k < 3 ? 1000 : 200000;
		cnv_xf80_t sum = cnv_xf80_of_u64(0);
		double scale = ldexp(1.0, (int)(gvk_splitmix64(s) % 200) - 100);
		double shift = k & 1 ? 0.0 : 0.3; /* mixed signs, or all positive */
		for (size_t i = 0; i < n; ++i) {
			double v = (gvk_splitmix_unif(s) - shift) * scale;
			if (k == 2) v = (double)(gvk_splitmix64(s) % 1000); /* counts */
			cnv_xf80_t d = cnv_xf80_of_double(v);
			if (i % 97 == 0) check_op('+', sum, d);
			sum = cnv_xf80_add(sum, d);
		}
		cnv_xf80_t nn = cnv_xf80_of_u64(n);
		check_op('/', sum, nn);
		cnv_xf80_t mean = cnv_xf80_div(sum, nn);
		check_conv(mean, cnv_xf80_double(mean), n);
		check_op('-', cnv_xf80_of_double(scale), mean);
		check_op('*', cnv_xf80_sub(cnv_xf80_of_double(scale), mean), cnv_xf80_sub(cnv_xf80_of_double(scale), mean));
	}
}

int main(int argc, char **argv)
{
	int print = argc > 1 && !strcmp(argv[1], "print");
	uint64_t s = 44;
	const char ops[4] = {'+', '-', '*', '/'};
	cnv_xf80_t prev = cnv_xf80_of_double(1.0);
	for (int i = 0; i < 1000000; ++i) {
		cnv_xf80_t a = operand(&s, prev), b = operand(&s, a);
		check_op(ops[i & 3], a, b);
		if ((i & 3) == 0) { /* one draw per statement: the same inputs whatever the compiler's order */
			double d = any_double(&s);
			uint64_t n = gvk_splitmix64(&s);
			check_conv(a, d, n >> (gvk_splitmix64(&s) & 63));
		}
		prev = b;
	}
	check_boundaries(&s);
	check_long_sums(&s);
	if (print) {
		printf("hash %016llx over %ld results\n", (unsigned long long)hash, n_checked);
		return 0;
	}
	if (n_failed) {
		fprintf(stderr, "%ld of %ld results differ from the x87's\n", n_failed, n_checked);
		return 1;
	}
	if (hash != WANT_HASH) {
		fprintf(stderr, "hash %016llx of %ld results, expected %016llx (the x87's, computed on x86-64)\n",
		        (unsigned long long)hash, n_checked, (unsigned long long)WANT_HASH);
		return 1;
	}
	printf("%ld results equal to the x87's%s\n", n_checked, HAVE_X87 ? "" : " (by the hash of the x86 run)");
	return 0;
}
