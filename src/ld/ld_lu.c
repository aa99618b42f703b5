/* SPDX-License-Identifier: MIT */
/* The factorisation is the recursive one reference LAPACK uses below its block size (64) and the
 * inverse the unblocked column sweep; the BLAS steps are written out with the reference loop
 * order, since a different summation order changes the last bits of a VIF and, through ties
 * between equal VIFs, which variant is pruned. Above 64 rows LAPACK switches to blocked code,
 * whose sums may differ in the last bits; gvk keeps the unblocked order there too. The
 * condition number is taken from the computed inverse rather than LAPACK's estimate (which never
 * exceeds it), so the two can disagree only for a matrix at the edge of singularity. */
#include <float.h>
#include <math.h>
#include <stddef.h>

#include "ld_lu.h"

#define A_(i, j) a[(i) + (size_t)(j) * (size_t)lda]

/* First index of the largest |x_i|. */
static int first_absmax(int m, const double *x)
{
	int k = 0;
	double best = fabs(x[0]);
	for (int i = 1; i < m; ++i)
		if (fabs(x[i]) > best) best = fabs(x[i]), k = i;
	return k;
}

/* Row interchanges k1 .. k2-1 of ipiv applied to the n columns at a. */
static void swap_rows(int n, double *a, int lda, int k1, int k2, const int *ipiv)
{
	for (int i = k1; i < k2; ++i) {
		int p = ipiv[i];
		if (p == i) continue;
		for (int j = 0; j < n; ++j) {
			double t = A_(i, j);
			A_(i, j) = A_(p, j), A_(p, j) = t;
		}
	}
}

/* b (m x n) := inv(L) b, L the unit lower triangle of a (m x m). */
static void solve_unit_lower(int m, int n, const double *a, int lda, double *b, int ldb)
{
	for (int j = 0; j < n; ++j)
		for (int k = 0; k < m; ++k) {
			double bk = b[k + (size_t)j * ldb];
			if (bk == 0.0) continue;
			for (int i = k + 1; i < m; ++i) b[i + (size_t)j * ldb] -= bk * A_(i, k);
		}
}

/* c (m x n) -= a (m x k) * b (k x n), column by column, then over k. */
static void sub_product(int m, int n, int k, const double *a, int lda, const double *b, int ldb, double *c, int ldc)
{
	for (int j = 0; j < n; ++j)
		for (int l = 0; l < k; ++l) {
			double t = -b[l + (size_t)j * ldb];
			for (int i = 0; i < m; ++i) c[i + (size_t)j * ldc] += t * A_(i, l);
		}
}

/* LU of the m x n matrix a (m >= n) by recursive halving of the columns; ipiv 0-based. Returns
 * nonzero when a pivot is exactly zero. */
static int factor(int m, int n, double *a, int lda, int *ipiv)
{
	if (m == 1) {
		ipiv[0] = 0;
		return a[0] == 0.0;
	}
	if (n == 1) {
		int p = first_absmax(m, a);
		ipiv[0] = p;
		if (a[p] == 0.0) return 1;
		if (p) {
			double t = a[0];
			a[0] = a[p], a[p] = t;
		}
		if (fabs(a[0]) >= DBL_MIN) {
			double r = 1.0 / a[0];
			for (int i = 1; i < m; ++i) a[i] = r * a[i];
		} else {
			for (int i = 1; i < m; ++i) a[i] = a[i] / a[0];
		}
		return 0;
	}
	int mn = m < n ? m : n, n1 = mn / 2, n2 = n - n1;
	int bad = factor(m, n1, a, lda, ipiv);
	swap_rows(n2, &A_(0, n1), lda, 0, n1, ipiv);
	solve_unit_lower(n1, n2, a, lda, &A_(0, n1), lda);
	sub_product(m - n1, n2, n1, &A_(n1, 0), lda, &A_(0, n1), lda, &A_(n1, n1), lda);
	bad |= factor(m - n1, n2, &A_(n1, n1), lda, ipiv + n1);
	for (int i = n1; i < mn; ++i) ipiv[i] += n1;
	swap_rows(n1, a, lda, n1, mn, ipiv);
	return bad;
}

/* The upper triangle U of a replaced by inv(U), column by column. */
static void invert_upper(int n, double *a, int lda)
{
	for (int j = 0; j < n; ++j) {
		A_(j, j) = 1.0 / A_(j, j);
		double ajj = -A_(j, j);
		double *x = &A_(0, j);
		for (int q = 0; q < j; ++q) { /* x := U(0:j, 0:j) x, U already inverted */
			if (x[q] == 0.0) continue;
			double t = x[q];
			for (int i = 0; i < q; ++i) x[i] += t * A_(i, q);
			x[q] = x[q] * A_(q, q);
		}
		for (int i = 0; i < j; ++i) x[i] = ajj * x[i];
	}
}

/* Largest column sum of |a|. */
static double norm1(int n, const double *a, int lda)
{
	double best = 0;
	for (int j = 0; j < n; ++j) {
		double s = 0;
		for (int i = 0; i < n; ++i) s += fabs(A_(i, j));
		if (s > best || isnan(s)) best = s;
	}
	return best;
}

int ld_lu_invert(int n, double *a, int *ipiv, double *work)
{
	int lda = n;
	double anorm = norm1(n, a, lda);
	if (factor(n, n, a, lda, ipiv)) return 1;
	invert_upper(n, a, lda);
	/* inv(A) from inv(U) and L, last column first */
	for (int j = n - 1; j >= 0; --j) {
		for (int i = j + 1; i < n; ++i) work[i] = A_(i, j), A_(i, j) = 0.0;
		for (int q = j + 1; q < n; ++q) {
			double t = -work[q];
			for (int i = 0; i < n; ++i) A_(i, j) += t * A_(i, q);
		}
	}
	for (int j = n - 2; j >= 0; --j) {
		int p = ipiv[j];
		if (p == j) continue;
		for (int i = 0; i < n; ++i) {
			double t = A_(i, j);
			A_(i, j) = A_(i, p), A_(i, p) = t;
		}
	}
	double inorm = norm1(n, a, lda);
	if (anorm == 0.0 || inorm == 0.0) return 1;
	return (1.0 / inorm) / anorm < 1e-14;
}
