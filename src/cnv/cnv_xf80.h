/* SPDX-License-Identifier: MIT */
/* R accumulates means and variances in long double, and the reference outputs come from R on
 * x86-64, where long double is the x87 80-bit format (64-bit significand). Other targets (aarch64:
 * IEEE quad) get different last bits, so there the x87 format is computed in software: add, sub,
 * mul and div rounded to nearest-even at 64 bits and over the x87 exponent range, exactly as the
 * x87 does under its default precision control; conversions from double and from 64-bit counts
 * are exact, to double rounds once, as fstp does.
 *
 * cnv_ld_t and cnv_ld_*() are what the statistics are written with: the native long double where
 * it is the x87 format (LDBL_MANT_DIG == 64), the software one elsewhere or when
 * GVK_CNV_SOFT_XF80 is defined (to check the software path against the x87 on x86). */
#ifndef GVK_CNV_XF80_H
#define GVK_CNV_XF80_H

#include <float.h>
#include <stddef.h>
#include <stdint.h>

enum { CNV_XF80_ZERO, CNV_XF80_FINITE, CNV_XF80_INF, CNV_XF80_NAN };

/* sig * 2^(exp - 63), sig holding the explicit integer bit. Finite values are normal (bit 63 set,
 * exp in [-16382, 16383]) or denormal (bit 63 clear, exp = -16382); a NaN carries its payload in
 * sig; exp is unused for zero, infinity and NaN. */
typedef struct {
	uint64_t sig;
	int32_t exp;
	uint8_t neg, cls;
} cnv_xf80_t;

cnv_xf80_t cnv_xf80_of_double(double x);
cnv_xf80_t cnv_xf80_of_u64(uint64_t n);
double cnv_xf80_double(cnv_xf80_t a);
cnv_xf80_t cnv_xf80_add(cnv_xf80_t a, cnv_xf80_t b);
cnv_xf80_t cnv_xf80_sub(cnv_xf80_t a, cnv_xf80_t b);
cnv_xf80_t cnv_xf80_mul(cnv_xf80_t a, cnv_xf80_t b);
cnv_xf80_t cnv_xf80_div(cnv_xf80_t a, cnv_xf80_t b);
/* The 80-bit memory image: the significand and the sign/exponent word. */
cnv_xf80_t cnv_xf80_unpack(uint64_t sig, uint16_t se);
void cnv_xf80_pack(cnv_xf80_t a, uint64_t *sig, uint16_t *se);

#if LDBL_MANT_DIG == 64 && !defined(GVK_CNV_SOFT_XF80)
typedef long double cnv_ld_t;
static inline cnv_ld_t cnv_ld(double x) { return x; }
static inline cnv_ld_t cnv_ld_n(size_t n) { return (long double)n; }
static inline double cnv_ld_double(cnv_ld_t a) { return (double)a; }
static inline cnv_ld_t cnv_ld_add(cnv_ld_t a, cnv_ld_t b) { return a + b; }
static inline cnv_ld_t cnv_ld_sub(cnv_ld_t a, cnv_ld_t b) { return a - b; }
static inline cnv_ld_t cnv_ld_mul(cnv_ld_t a, cnv_ld_t b) { return a * b; }
static inline cnv_ld_t cnv_ld_div(cnv_ld_t a, cnv_ld_t b) { return a / b; }
#else
typedef cnv_xf80_t cnv_ld_t;
static inline cnv_ld_t cnv_ld(double x) { return cnv_xf80_of_double(x); }
static inline cnv_ld_t cnv_ld_n(size_t n) { return cnv_xf80_of_u64((uint64_t)n); }
static inline double cnv_ld_double(cnv_ld_t a) { return cnv_xf80_double(a); }
static inline cnv_ld_t cnv_ld_add(cnv_ld_t a, cnv_ld_t b) { return cnv_xf80_add(a, b); }
static inline cnv_ld_t cnv_ld_sub(cnv_ld_t a, cnv_ld_t b) { return cnv_xf80_sub(a, b); }
static inline cnv_ld_t cnv_ld_mul(cnv_ld_t a, cnv_ld_t b) { return cnv_xf80_mul(a, b); }
static inline cnv_ld_t cnv_ld_div(cnv_ld_t a, cnv_ld_t b) { return cnv_xf80_div(a, b); }
#endif

#endif
