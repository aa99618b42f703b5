/* SPDX-License-Identifier: MIT */
/* Statistics with R's arithmetic: long double accumulation and the second correcting pass of
 * mean() and var(), type-7 quantiles. Normalization must match R bit for bit, and these are the
 * operations it is built from. R's long double is x87's on x86-64, where the reference outputs
 * come from; cnv_ld_t is that format on every target (cnv_xf80.h). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cnv.h"
#include "cnv_xf80.h"

double cnv_r_mean(const double *x, size_t n)
{
	cnv_ld_t s = cnv_ld(0.0), nl = cnv_ld_n(n);
	for (size_t i = 0; i < n; ++i) s = cnv_ld_add(s, cnv_ld(x[i]));
	s = cnv_ld_div(s, nl);
	if (isfinite(cnv_ld_double(s))) {
		cnv_ld_t t = cnv_ld(0.0);
		for (size_t i = 0; i < n; ++i) t = cnv_ld_add(t, cnv_ld_sub(cnv_ld(x[i]), s));
		s = cnv_ld_add(s, cnv_ld_div(t, nl));
	}
	return cnv_ld_double(s);
}

double cnv_r_var(const double *x, size_t n)
{
	if (n < 2) return NAN;
	cnv_ld_t xm = cnv_ld(cnv_r_mean(x, n)), s = cnv_ld(0.0); /* R keeps the mean as a double */
	for (size_t i = 0; i < n; ++i) {
		cnv_ld_t d = cnv_ld_sub(cnv_ld(x[i]), xm);
		s = cnv_ld_add(s, cnv_ld_mul(d, d));
	}
	return cnv_ld_double(cnv_ld_div(s, cnv_ld_n(n - 1)));
}

static void insertion_sort(double *x, size_t n)
{
	for (size_t i = 1; i < n; ++i) {
		double v = x[i];
		size_t j = i;
		for (; j > 0 && x[j - 1] > v; --j) x[j] = x[j - 1];
		x[j] = v;
	}
}

/* Stable merge sort of x[0..n) using t as scratch: equal values (+0 and -0) keep their order, as
 * with glibc's qsort, so quantiles come out the same to the sign of zero. */
static void merge_sort(double *x, double *t, size_t n)
{
	if (n <= 32) {
		insertion_sort(x, n);
		return;
	}
	size_t h = n / 2;
	merge_sort(x, t, h);
	merge_sort(x + h, t, n - h);
	if (!(x[h - 1] > x[h])) return; /* already in order */
	memcpy(t, x, h * sizeof *x);
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n) x[k++] = x[j] < t[i] ? x[j++] : t[i++];
	while (i < h) x[k++] = t[i++];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

void cnv_sort(double *x, size_t n)
{
	if (n <= 32) {
		insertion_sort(x, n);
		return;
	}
	double *t = malloc((n / 2 + 1) * sizeof *t);
	if (!t) {
		qsort(x, n, sizeof *x, cmp_double);
		return;
	}
	merge_sort(x, t, n);
	free(t);
}

/* The k-th smallest of x[0..n) (0-based) by Hoare selection; x is reordered so that every
 * element before k is <= x[k] and every element after is >= x[k]. */
static double select_k(double *x, size_t n, size_t k)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1;
	while (hi - lo >= 16) {
		ptrdiff_t mid = lo + (hi - lo) / 2, i = lo - 1, j = hi + 1;
		double t;
#define SWAP(a, b) (t = x[a], x[a] = x[b], x[b] = t)
		if (x[mid] < x[lo]) SWAP(mid, lo);
		if (x[hi] < x[lo]) SWAP(hi, lo);
		if (x[hi] < x[mid]) SWAP(hi, mid);
		double piv = x[mid];
		for (;;) {
			do ++i; while (x[i] < piv);
			do --j; while (x[j] > piv);
			if (i >= j) break;
			SWAP(i, j);
		}
#undef SWAP
		if ((ptrdiff_t)k <= j) hi = j;
		else lo = j + 1;
	}
	insertion_sort(x + lo, (size_t)(hi - lo + 1));
	return x[k];
}

/* Smallest of x[k+1..n), after select_k(x, n, k): the next order statistic. */
static double next_up(const double *x, size_t n, size_t k)
{
	double v = x[k + 1];
	for (size_t i = k + 2; i < n; ++i)
		if (x[i] < v) v = x[i];
	return v;
}

double cnv_r_median(double *x, size_t n)
{
	if (n == 0) return NAN;
	if (n & 1) return select_k(x, n, n / 2);
	double two[2];
	two[0] = select_k(x, n, n / 2 - 1);
	two[1] = next_up(x, n, n / 2 - 1);
	return cnv_r_mean(two, 2);
}

double cnv_r_quantile7_sel(double *v, size_t n, double p)
{
	if (n == 0) return NAN;
	double index = 1.0 + (double)(n - 1) * p;
	double lo = floor(index);
	size_t k = (size_t)lo - 1;
	double qs = select_k(v, n, k);
	if (index > lo) {
		double xh = next_up(v, n, k), h = index - lo;
		if (xh != qs) qs = (1.0 - h) * qs + h * xh;
	}
	return qs;
}

double cnv_r_quantile7(const double *v, size_t n, double p)
{
	if (n == 0) return NAN;
	double index = 1.0 + (double)(n - 1) * p;
	double lo = floor(index), hi = ceil(index);
	double qs = v[(size_t)lo - 1], xh = v[(size_t)hi - 1];
	if (index > lo && xh != qs) {
		double h = index - lo;
		qs = (1.0 - h) * qs + h * xh;
	}
	return qs;
}
