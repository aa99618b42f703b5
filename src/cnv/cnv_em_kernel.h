/* SPDX-License-Identifier: MIT */
/* The per-region EM of one GPU thread (docs/cnv.md, Semantics 3), written once for cnv_em_gpu.cu and for the
 * CPU emulation test (tests/cnv/test_cnv_em_gpu.c, mode emu). Every operation is cnv_em_cpu.c's, in the same
 * order; only the layout differs: every per-region array (inputs, outputs and scratch) is
 * region-fastest with stride ld, so that neighbouring threads touch neighbouring addresses.
 *
 * The includer defines CNV_K_FN (function qualifiers: __device__ or static inline). */
#ifndef GVK_CNV_EM_KERNEL_H
#define GVK_CNV_EM_KERNEL_H

#include "cnv_em.h"

#define CNV_K_FLOOR 1e-100

/* Mean of v[0], v[ld], ... as R's mean() gives it. R accumulates in long double with a correcting
 * pass, which the device does not have; a double-double sum divided with an exact remainder gives
 * the correctly rounded mean, as R's does but for rare double-rounding cases. */
CNV_K_FN double cnv_k_mean(const double *v, size_t ld, int n)
{
	double s = 0.0, c = 0.0;
	for (int i = 0; i < n; ++i) {
		double x = v[(size_t)i * ld], t = s + x, bp = t - s;
		c = c + ((s - (t - bp)) + (x - bp));
		s = t;
	}
	double hi = s + c, lo = c - (hi - s);
	double q = hi / n, r = fma(-q, (double)n, hi) + lo;
	return q + r / n;
}

/* Smallest of the strided values [k+1, n) after selection put the k-th in place. */
CNV_K_FN double cnv_k_next_up(const double *v, size_t ld, int n, int k)
{
	double u = v[(size_t)(k + 1) * ld];
	for (int i = k + 2; i < n; ++i)
		if (v[(size_t)i * ld] < u) u = v[(size_t)i * ld];
	return u;
}

/* The k-th smallest of the strided v (reordered), by Hoare selection with insertion sort at the
 * end: an order statistic is one value whatever the method, so this equals cnv_r_median's. */
CNV_K_FN double cnv_k_select(double *v, size_t ld, int n, int k)
{
	int lo = 0, hi = n - 1;
#define V(a) v[(size_t)(a) * ld]
#define SWP(a, b) (t = V(a), V(a) = V(b), V(b) = t)
	while (hi - lo >= 16) {
		int mid = lo + (hi - lo) / 2, i = lo - 1, j = hi + 1;
		double t;
		if (V(mid) < V(lo)) SWP(mid, lo);
		if (V(hi) < V(lo)) SWP(hi, lo);
		if (V(hi) < V(mid)) SWP(hi, mid);
		double piv = V(mid);
		for (;;) {
			do ++i; while (V(i) < piv);
			do --j; while (V(j) > piv);
			if (i >= j) break;
			SWP(i, j);
		}
		if (k <= j) hi = j;
		else lo = j + 1;
	}
	for (int i = lo + 1; i <= hi; ++i) {
		double u = V(i);
		int j = i;
		for (; j > lo && V(j - 1) > u; --j) V(j) = V(j - 1);
		V(j) = u;
	}
#undef SWP
#undef V
	return v[(size_t)k * ld];
}

/* m0 (docs/cnv.md, Semantics 3, start) from x / cov written into tmp (strided). */
CNV_K_FN double cnv_k_m0(const cnv_em_par_t *p, const double *x, const double *cov, double *tmp, size_t ld)
{
	int N = p->N;
	double m0;
	for (int k = 0; k < N; ++k) tmp[(size_t)k * ld] = x[(size_t)k * ld] / cov[k];
	if (N & 1) {
		m0 = cnv_k_select(tmp, ld, N, N / 2);
	} else {
		double two[2];
		two[0] = cnv_k_select(tmp, ld, N, N / 2 - 1);
		two[1] = cnv_k_next_up(tmp, ld, N, N / 2 - 1);
		m0 = cnv_k_mean(two, 1, 2);
	}
	if (m0 < 1e-10) {
		for (int k = 0; k < N; ++k) tmp[(size_t)k * ld] = x[(size_t)k * ld] / cov[k];
		m0 = cnv_k_mean(tmp, ld, N);
		if (!(m0 >= 1.0)) m0 = 1.0;
	}
	return m0;
}

/* The opt-in log-sum-exp E-step of one sample (shared with cnv_em_cpu.c): unnormalized terms
 * into w, their sum returned. */
CNV_K_FN double cnv_k_estep_log(int n, double xk, double ck, double lgk, const double *lam, const double *alpha,
                                double *w)
{
	double mx = -INFINITY, sum = 0.0;
	for (int i = 0; i < n; ++i) {
		double cl = ck * lam[i];
		w[i] = log(alpha[i]) + (xk * log(cl) - lgk - cl);
		if (w[i] > mx) mx = w[i];
	}
	for (int i = 0; i < n; ++i) sum += (w[i] = exp(w[i] - mx));
	return sum;
}

/* E-step of sample k into P (strided, posterior (k, i) at (k * n + i) * ld). */
CNV_K_FN void cnv_k_estep(const cnv_em_par_t *p, int n, double xk, double ck, double lgk, const double *lam,
                          const double *loglam, const double *alpha, double *P, size_t ld, int k)
{
	double w[GVK_CNV_MAX_CLASSES], sum = 0.0;
	if (p->log_domain) {
		sum = cnv_k_estep_log(n, xk, ck, lgk, lam, alpha, w);
	} else {
		for (int i = 0; i < n; ++i) {
			double cl = ck * lam[i];
			double z = xk * (p->cov_is_one ? loglam[i] : log(cl)) - lgk - cl;
			double wi = alpha[i] * exp(z);
			if (wi < CNV_K_FLOOR) wi = CNV_K_FLOOR;
			w[i] = wi;
			sum = sum + wi;
		}
	}
	for (int i = 0; i < n; ++i) P[((size_t)k * n + i) * ld] = w[i] / sum;
}

/* M-step from the posteriors P ((k, i) at (k * n + i) * ld; the CPU back end passes ld = 1). */
CNV_K_FN void cnv_k_mstep(const cnv_em_par_t *p, int n, double meanx, const double *cov, const double *P, size_t ld,
                          double *lambda, double *alpha)
{
	int N = p->N;
	double abar[GVK_CNV_MAX_CLASSES];
	double sumI = 0.0;
	for (int i = 0; i < n; ++i) {
		double a = 0.0;
		for (int k = 0; k < N; ++k) {
			double pik = P[((size_t)k * n + i) * ld];
			a = a + pik;
			sumI = sumI + p->I[i] * pik * cov[k];
		}
		abar[i] = a / N;
	}
	for (int i = 0; i < n; ++i) {
		lambda[i] = N * meanx / sumI * p->I[i];
		alpha[i] = (p->prior[i] + abar[i]) / (1 + p->prior_sum);
	}
}

/* The whole region: EM, then the derived calls (docs/cnv.md, Semantics 4). Pointers are already offset to the
 * region (element c at c * ld). lg and tmp are N-deep scratch; P is n * N deep (the posterior
 * output when one is kept). The minReadCount shortcut is not tested here: the host overwrites
 * those regions (docs/cnv.md, Semantics 8), so that no warp diverges on it. */
CNV_K_FN void cnv_k_region(const cnv_em_par_t *p, int n, size_t ld, const double *x, const double *cov, double *lg,
                           double *tmp, double *P, double *lam_out, double *alp_out, double *sini, double *ini,
                           uint8_t *cls)
{
	int N = p->N;
	double meanx = 0.0, lambda[GVK_CNV_MAX_CLASSES], alpha[GVK_CNV_MAX_CLASSES], loglam[GVK_CNV_MAX_CLASSES];
	for (int k = 0; k < N; ++k) {
		double xk = x[(size_t)k * ld];
		lg[(size_t)k * ld] = lgamma(xk + 1);
		meanx = meanx + xk;
	}
	meanx = meanx / N;
	double m0 = cnv_k_m0(p, x, cov, tmp, ld);
	for (int i = 0; i < n; ++i) {
		lambda[i] = p->I[i] * m0 * p->I[i];
		alpha[i] = p->alpha_init[i];
	}
	for (int cyc = 0; cyc < p->cyc; ++cyc) {
		if (p->cov_is_one)
			for (int i = 0; i < n; ++i) loglam[i] = log(lambda[i]);
		for (int k = 0; k < N; ++k)
			cnv_k_estep(p, n, x[(size_t)k * ld], cov[k], lg[(size_t)k * ld], lambda, loglam, alpha, P, ld, k);
		cnv_k_mstep(p, n, meanx, cov, P, ld, lambda, alpha);
	}
	for (int i = 0; i < n; ++i) lam_out[(size_t)i * ld] = lambda[i], alp_out[(size_t)i * ld] = alpha[i];
	/* lg is free now: it takes the per-sample sums of |log2 I| * p for I/NI */
	for (int k = 0; k < N; ++k) {
		const double *pk = P + (size_t)k * n * ld;
		int best = 0;
		double s = 0.0, a = 0.0, pb = pk[0];
		for (int i = 0; i < n; ++i) {
			double pi = pk[(size_t)i * ld];
			if (pi > pb) best = i, pb = pi;
			s = s + p->log2I[i] * pi;
			a = a + p->abs_log2I[i] * pi;
		}
		sini[(size_t)k * ld] = s;
		cls[(size_t)k * ld] = (uint8_t)best;
		lg[(size_t)k * ld] = a;
	}
	*ini = cnv_k_mean(lg, ld, N);
}

#endif
