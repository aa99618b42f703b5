/* SPDX-License-Identifier: MIT */
/* The mode of the variance/mean ratios' kernel density (docs/cnv.md, Semantics 9), as R's density() and
 * approx() find it, for any magnitude of the data.
 *
 * The density at grid point t is sum_q y[q] k(|t - q|) over the binned values y. It is summed
 * directly, in R's order, wherever that is cheap: the kernel is cut where R's dnorm() is exactly
 * 0 and empty bins are skipped, which leaves every sum bit for bit what the full O(G^2) loop
 * gives. Where that would still cost more than a convolution, the density is convolved by FFT,
 * and only the user-grid points whose FFT value lies within the FFT's error bound of the maximum
 * are summed exactly; the first maximum among them is the first maximum of the exact curve. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "cnv.h"
#include "cnv_fft.h"

/* |x| / sigma beyond this: R's dnorm() returns exactly 0 (sqrt(2 ln 2 * 1074) = 38.567...). */
#define DNORM_CUT 38.6
/* Candidates within this relative distance of the FFT maximum are always summed exactly. */
#define FFT_REL_TOL 1e-8
/* Direct sums below this many multiply-adds are never worth a transform. */
#define DIRECT_MIN_COST 1e6
/* Cost of one FFT convolution (three transforms, the kernel's included), per grid point and bit of
 * log2(2G), in direct multiply-adds: the direct sums gather their kernel values, the transforms
 * stream through memory, so one transform step weighs about as much as one gathered term. */
#define FFT_COST_UNIT 3.0

/* R's dnorm(x, 0, sigma), including its split evaluation far in the tail. That split rounds x to
 * a multiple of 2^-16, which neighbouring kernel offsets share: memo keeps the factor of the last
 * rounded value (its x1 starts negative, never a rounded value). */
typedef struct {
	double x1, e1;
} dnorm_memo_t;

static double r_dnorm(double x, double sigma, dnorm_memo_t *memo)
{
	const double inv_sqrt_2pi = 0.398942280401432677939946059934;
	x = fabs(x / sigma);
	if (x >= 2 * sqrt(1.79769313486231570e308)) return 0.0;
	if (x < 5) return inv_sqrt_2pi * exp(-0.5 * x * x) / sigma;
	if (x > sqrt(-2 * 0.693147180559945309417232121458 * (-1021 + 1 - 53))) return 0.0;
	double x1 = ldexp(nearbyint(ldexp(x, 16)), -16), x2 = x - x1;
	if (x1 != memo->x1) memo->x1 = x1, memo->e1 = exp(-0.5 * x1 * x1);
	return inv_sqrt_2pi / sigma * (memo->e1 * exp((-0.5 * x2 - x1) * x2));
}

/* bw.nrd0: 0.9 * min(sd, IQR / 1.34) * n^-0.2 with R's fall-backs. */
static double bw_nrd0(const double *v, const double *sorted, size_t n)
{
	double hi = sqrt(cnv_r_var(v, n));
	double iqr = cnv_r_quantile7(sorted, n, 0.75) - cnv_r_quantile7(sorted, n, 0.25);
	double lo = fmin(hi, iqr / 1.34);
	if (!(lo != 0.0)) {
		lo = hi;
		if (lo == 0.0) lo = fabs(v[0]);
		if (lo == 0.0) lo = 1.0;
	}
	return 0.9 * lo * pow((double)n, -0.2);
}

/* The grids of one density: R's internal grid of G points on [lo, up], its kernel offsets and the
 * user grid of n_user points on [0, u]. */
typedef struct {
	size_t G, n_user;
	double u, bw, lo, up, delta, kstep, xstep, ustep;
} grid_t;

/* Internal grid point t (R sets the last one to up exactly). */
static double xo(const grid_t *g, size_t t)
{
	return t == g->G - 1 ? g->up : g->lo + (double)t * g->xstep;
}

/* User grid point j (start + j * step, the last one u exactly). */
static double xu(const grid_t *g, size_t j)
{
	return j == g->n_user - 1 ? g->u : (double)j * g->ustep;
}

_Static_assert(CNV_KDE_MAX_GRID <= UINT32_MAX, "grid indices are stored in 32 bits");

/* The non-empty bins in increasing order, each the sum of its shares in the order of v (grid
 * indices fit 32 bits under the grid's bound). */
typedef struct {
	size_t n;
	uint32_t *idx;
	double *w;
} bins_t;

static void bins_free(bins_t *b)
{
	free(b->idx), free(b->w);
	b->idx = NULL, b->w = NULL, b->n = 0;
}

/* R's BinDist: value v goes to bin ix = floor((v - lo) / delta) with weight w (1 - fx) and to
 * ix + 1 with w fx; the ends keep only the share that falls inside. Returns the number of shares
 * (0, 1 or 2) written to bin[] and share[]. */
static int bin_shares(const grid_t *g, double v, double w, long bin[2], double share[2])
{
	if (!isfinite(v)) return 0;
	double pos = (v - g->lo) / g->delta, fl = floor(pos), fx = pos - fl;
	if (!(fl >= -1) || !(fl <= (double)g->G - 1)) return 0;
	long ix = (long)fl, G = (long)g->G;
	if (ix >= 0 && ix <= G - 2) {
		bin[0] = ix, share[0] = w * (1 - fx), bin[1] = ix + 1, share[1] = w * fx;
		return 2;
	}
	if (ix == -1) bin[0] = 0, share[0] = w * fx;
	else bin[0] = ix, share[0] = w * (1 - fx);
	return 1;
}

static int bins_alloc(bins_t *b, size_t n)
{
	b->n = 0;
	b->idx = malloc((n ? n : 1) * sizeof *b->idx), b->w = malloc((n ? n : 1) * sizeof *b->w);
	return b->idx && b->w ? 0 : GVK_ERR_NOMEM;
}

/* Few bins per value: accumulate on the whole grid, then keep the non-zero ones. */
static int bin_dense(const grid_t *g, const double *v, size_t n, bins_t *b)
{
	double *y = calloc(g->G, sizeof *y), w = 1.0 / (double)n, sh[2];
	if (!y) return GVK_ERR_NOMEM;
	size_t nz = 0;
	for (size_t i = 0; i < n; ++i) {
		long bi[2];
		int k = bin_shares(g, v[i], w, bi, sh);
		for (int e = 0; e < k; ++e) y[bi[e]] += sh[e];
	}
	for (size_t t = 0; t < g->G; ++t) nz += y[t] != 0.0;
	int rc = bins_alloc(b, nz);
	for (size_t t = 0; rc == 0 && t < g->G; ++t)
		if (y[t] != 0.0) b->idx[b->n] = (uint32_t)t, b->w[b->n++] = y[t];
	free(y);
	return rc;
}

typedef struct {
	size_t bin, ord;
	double share;
} share_t;

static int cmp_share(const void *pa, const void *pb)
{
	const share_t *a = pa, *b = pb;
	if (a->bin != b->bin) return a->bin < b->bin ? -1 : 1;
	return a->ord < b->ord ? -1 : a->ord > b->ord;
}

/* A grid much longer than the data: sort the shares by bin (then by their order in v) and add
 * them up, which is the dense sum without the grid-sized array. */
static int bin_sparse(const grid_t *g, const double *v, size_t n, bins_t *b)
{
	share_t *s = malloc(2 * n * sizeof *s);
	if (!s) return GVK_ERR_NOMEM;
	double w = 1.0 / (double)n, sh[2];
	size_t k = 0;
	for (size_t i = 0; i < n; ++i) {
		long bi[2];
		int c = bin_shares(g, v[i], w, bi, sh);
		for (int e = 0; e < c; ++e) s[k].bin = (size_t)bi[e], s[k].ord = k, s[k].share = sh[e], ++k;
	}
	qsort(s, k, sizeof *s, cmp_share);
	int rc = bins_alloc(b, k);
	for (size_t i = 0; rc == 0 && i < k;) {
		double y = 0.0;
		size_t t = s[i].bin;
		for (; i < k && s[i].bin == t; ++i) y += s[i].share;
		if (y != 0.0) b->idx[b->n] = (uint32_t)t, b->w[b->n++] = y;
	}
	free(s);
	return rc;
}

/* Kernel values k[d] = dnorm(d * kstep, bw) for the offsets below reach, up to the last one that
 * is not exactly 0. */
typedef struct {
	size_t band;
	double *k;
} kernel_t;

static int kernel_make(const grid_t *g, size_t reach, kernel_t *kr)
{
	double cut = DNORM_CUT * g->bw / g->kstep + 2;
	size_t band = cut < (double)reach ? (size_t)cut : reach;
	kr->k = malloc((band ? band : 1) * sizeof *kr->k);
	if (!kr->k) return GVK_ERR_NOMEM;
	dnorm_memo_t memo = {-1.0, 0.0};
	for (size_t d = 0; d < band; ++d) kr->k[d] = r_dnorm((double)d * g->kstep, g->bw, &memo);
	while (band > 1 && kr->k[band - 1] == 0.0) --band;
	kr->band = band;
	return 0;
}

/* Exact density at grid points, mostly taken in increasing order: first is the first bin that can
 * reach the last point summed, so each sum runs over the same non-zero terms, in the same order,
 * as R's. */
typedef struct {
	const bins_t *b;
	const kernel_t *kr;
	size_t first, last;
	size_t t_cached[2];
	double d_cached[2];
	size_t n_sums;
} exact_t;

static double exact_sum(exact_t *e, size_t t)
{
	const bins_t *b = e->b;
	const double *k = e->kr->k;
	size_t band = e->kr->band;
	if (t < e->last) e->first = 0;
	e->last = t;
	while (e->first < b->n && b->idx[e->first] + band <= t) ++e->first;
	double s = 0.0;
	for (size_t i = e->first; i < b->n && b->idx[i] < t + band; ++i) {
		size_t q = b->idx[i];
		s += b->w[i] * k[t > q ? t - q : q - t];
	}
	++e->n_sums;
	return s > 0 ? s : 0.0;
}

/* Exact density at t, remembering the last two points (neighbouring user points share them). */
static double exact_at(exact_t *e, size_t t)
{
	for (int c = 0; c < 2; ++c)
		if (e->t_cached[c] == t) return e->d_cached[c];
	double d = exact_sum(e, t);
	e->t_cached[0] = e->t_cached[1], e->d_cached[0] = e->d_cached[1];
	e->t_cached[1] = t, e->d_cached[1] = d;
	return d;
}

/* approx() between grid points a and b = a + 1 with densities da and db. */
static double interp(const grid_t *g, size_t a, double xv, double da, double db)
{
	double xa = xo(g, a), xb = xo(g, a + 1);
	if (xv == xb) return db;
	if (xv == xa) return da;
	return da + (db - da) * ((xv - xa) / (xb - xa));
}

/* approx() of the exact density at xv in [xo(a), xo(a + 1)]; a never decreases from one call to
 * the next, and a is summed before a + 1, as exact_sum needs. */
static double exact_interp(const grid_t *g, exact_t *e, size_t a, double xv)
{
	double da = exact_at(e, a);
	double db = exact_at(e, a + 1);
	return interp(g, a, xv, da, db);
}

/* approx()'s bracket: the last grid point a <= G - 2 with xo(a) <= xv, found by walking from the
 * previous one (the user points increase); the same point as R's bisection on the grid. */
static size_t bracket(const grid_t *g, size_t a, double xv)
{
	while (a + 1 <= g->G - 2 && xo(g, a + 1) <= xv) ++a;
	return a;
}

/* The same without a previous point: from the nearest grid point, corrected either way. */
static size_t bracket_at(const grid_t *g, double xv)
{
	double p = (xv - g->lo) / g->xstep;
	size_t a = !(p > 0) ? 0 : p >= (double)(g->G - 2) ? g->G - 2 : (size_t)p;
	while (a > 0 && xo(g, a) > xv) --a;
	return bracket(g, a, xv);
}

static int in_range(const grid_t *g, double xv)
{
	return !(xv < xo(g, 0) || xv > xo(g, g->G - 1));
}

/* The first maximum of the exactly summed density over the user grid. */
static double mode_direct(const grid_t *g, exact_t *e)
{
	double best = -1.0, mode = NAN;
	size_t a = 0;
	for (size_t j = 0; j < g->n_user; ++j) {
		double xv = xu(g, j);
		if (!in_range(g, xv)) continue;
		a = bracket(g, a, xv);
		double yv = exact_interp(g, e, a, xv);
		if (yv > best) best = yv, mode = xv;
	}
	return mode;
}

/* Sum over the bins of their overlap with the kernel's reach inside [t0, t1]: the multiply-adds
 * of the direct evaluation of those grid points. */
static double direct_cost(const bins_t *b, size_t band, size_t t0, size_t t1)
{
	double cost = 0;
	for (size_t i = 0; i < b->n; ++i) {
		size_t q = b->idx[i], lo = q + 1 > band ? q + 1 - band : 0, hi = q + band - 1;
		if (lo < t0) lo = t0;
		if (hi > t1) hi = t1;
		if (lo <= hi) cost += (double)(hi - lo + 1);
	}
	return cost;
}

/* The circular convolution of the bins with the kernel on 2G points by FFT: dens[t], t < G, in the
 * first G slots of the returned array (2G long). *err_bound gets a bound on |dens - exact|. */
static double *fft_density(const grid_t *g, const bins_t *b, const kernel_t *kr, double *err_bound)
{
	size_t G = g->G, L = 2 * G;
	cnv_fft_t f;
	double *x = calloc(L, sizeof *x), *kh = malloc((G + 1) * sizeof *kh);
	if (!x || !kh || cnv_fft_init(&f, G) < 0) {
		free(x), free(kh);
		return NULL;
	}
	/* The kernel at offsets 0..G-1 and their mirror images; offset G is never used for t < G. */
	double k1 = kr->k[0], k2 = kr->k[0] * kr->k[0];
	x[0] = kr->k[0];
	for (size_t d = 1; d < kr->band; ++d) {
		x[d] = x[L - d] = kr->k[d];
		k1 += 2 * kr->k[d], k2 += 2 * kr->k[d] * kr->k[d];
	}
	cnv_fft_real_forward(&f, x);
	/* A symmetric kernel has a real transform: keep the real parts only. */
	kh[0] = x[0], kh[G] = x[1];
	for (size_t k = 1; k < G; ++k) kh[k] = x[2 * k];
	memset(x, 0, L * sizeof *x);
	double y1 = 0, y2 = 0;
	for (size_t i = 0; i < b->n; ++i) {
		x[b->idx[i]] = b->w[i];
		y1 += b->w[i], y2 += b->w[i] * b->w[i];
	}
	cnv_fft_real_forward(&f, x);
	x[0] *= kh[0], x[1] *= kh[G];
	for (size_t k = 1; k < G; ++k) x[2 * k] *= kh[k], x[2 * k + 1] *= kh[k];
	cnv_fft_real_inverse(&f, x);
	double scale = 1.0 / (double)L;
	for (size_t t = 0; t < G; ++t) x[t] *= scale;
	free(kh);
	cnv_fft_free(&f);
	/* Forward and inverse radix-2 transforms stay within about 7 log2(L) units of rounding of
	 * the norms (Higham, Accuracy and Stability, 24.1), so the convolution within
	 * 3 delta (||y||_2 ||k||_1 + ||y||_1 ||k||_2); this is that bound with a margin of 3. */
	double delta = 32 * DBL_EPSILON * (log2((double)L) + 2);
	*err_bound = delta * (sqrt(y2) * k1 + y1 * sqrt(k2));
	return x;
}

/* approx() on the FFT density (clipped at 0 like the exact one). */
static double fft_interp(const grid_t *g, const double *dens, size_t a, double xv)
{
	return interp(g, a, xv, fmax(dens[a], 0.0), fmax(dens[a + 1], 0.0));
}

/* The FFT density picks the candidates, their exact sums the first maximum among them. Any user
 * point whose exact value reaches the exact maximum has an FFT value within 2 err of the FFT
 * maximum, so it is a candidate. */
static double mode_fft(const grid_t *g, const double *dens, double err, exact_t *e)
{
	double top = -1.0;
	size_t a = 0;
	for (size_t j = 0; j < g->n_user; ++j) {
		double xv = xu(g, j);
		if (!in_range(g, xv)) continue;
		a = bracket(g, a, xv);
		top = fmax(top, fft_interp(g, dens, a, xv));
	}
	double tol = fmax(FFT_REL_TOL * top, 2 * err + 8 * DBL_EPSILON * top);
	double best = -1.0, mode = NAN;
	a = 0;
	for (size_t j = 0; j < g->n_user; ++j) {
		double xv = xu(g, j);
		if (!in_range(g, xv)) continue;
		a = bracket(g, a, xv);
		if (fft_interp(g, dens, a, xv) < top - tol) continue;
		double yv = exact_interp(g, e, a, xv);
		if (yv > best) best = yv, mode = xv;
	}
	return mode;
}

/* Sizes and steps of the grids exactly as density.default() and approx() compute them. */
static void grid_init(grid_t *g, double u, double bw, size_t G, size_t n_user)
{
	g->G = G, g->n_user = n_user, g->u = u, g->bw = bw;
	g->lo = 0.0 - 4 * bw, g->up = u + 4 * bw;
	g->delta = (g->up - g->lo) / (double)(G - 1);
	g->kstep = 2 * (g->up - g->lo) / (double)(2 * G - 1);
	g->xstep = (g->up - g->lo) / (double)(G - 1);
	g->ustep = n_user > 1 ? u / (double)(n_user - 1) : 0.0;
}

/* The grid points [t0, t1] that approx() reads for the user grid. */
static void user_span(const grid_t *g, size_t *t0, size_t *t1)
{
	*t0 = bracket_at(g, 0.0), *t1 = bracket_at(g, g->u) + 1;
}

static int choose_fft(const grid_t *g, const bins_t *b, size_t band, int method)
{
	if (method != CNV_KDE_AUTO) return method == CNV_KDE_FFT;
	size_t t0, t1;
	user_span(g, &t0, &t1);
	double direct = direct_cost(b, band, t0, t1);
	double fft = FFT_COST_UNIT * (double)g->G * log2(2.0 * (double)g->G);
	return direct > DIRECT_MIN_COST && direct > fft;
}

/* Offsets beyond the distance from the bins to the user span are never summed. */
static size_t kernel_reach(const grid_t *g, const bins_t *b)
{
	if (!b->n) return 1;
	size_t t0, t1, q0 = b->idx[0], q1 = b->idx[b->n - 1];
	user_span(g, &t0, &t1);
	size_t r = t1 > q0 ? t1 - q0 : 0;
	if (q1 > t0 && q1 - t0 > r) r = q1 - t0;
	return r + 1 < g->G ? r + 1 : g->G;
}

static int mode_of(const grid_t *g, const double *v, size_t n, int method, cnv_kde_t *out)
{
	bins_t b = {0, NULL, NULL};
	kernel_t kr = {0, NULL};
	int rc = (double)g->G <= 8.0 * (double)n + 4096 ? bin_dense(g, v, n, &b) : bin_sparse(g, v, n, &b);
	if (rc == 0) rc = kernel_make(g, kernel_reach(g, &b), &kr);
	if (rc == 0) {
		exact_t e = {&b, &kr, 0, 0, {SIZE_MAX, SIZE_MAX}, {0, 0}, 0};
		out->method = choose_fft(g, &b, kr.band, method) ? CNV_KDE_FFT : CNV_KDE_DIRECT;
		if (out->method == CNV_KDE_DIRECT) {
			out->mode = mode_direct(g, &e);
		} else {
			double err = 0, *dens = fft_density(g, &b, &kr, &err);
			if (!dens) rc = GVK_ERR_NOMEM;
			else out->mode = mode_fft(g, dens, err, &e);
			free(dens);
		}
		out->n_exact = e.n_sums;
	}
	bins_free(&b);
	free(kr.k);
	return rc;
}

int cnv_density_mode(const double *v, size_t n, double u, int method, cnv_kde_t *out)
{
	double nu = u * 100.0;
	out->mode = out->bw = NAN, out->n_user = 0, out->grid = 0, out->method = 0, out->n_exact = 0;
	if (n < 2 || !(nu > 0) || !isfinite(nu)) return 0;
	out->grid = nu > 512 ? ldexp(1.0, (int)ceil(log2(nu))) : 512;
	out->n_user = ceil(nu);
	if (out->grid > (double)CNV_KDE_MAX_GRID) return GVK_ERR_FORMAT;
	double *sorted = malloc(n * sizeof *sorted);
	if (!sorted) return GVK_ERR_NOMEM;
	memcpy(sorted, v, n * sizeof *v);
	cnv_sort(sorted, n);
	out->bw = bw_nrd0(v, sorted, n);
	free(sorted);
	if (!(out->bw > 0) || !isfinite(out->bw)) return 0;
	grid_t g;
	grid_init(&g, u, out->bw, (size_t)out->grid, (size_t)out->n_user);
	return mode_of(&g, v, n, method, out);
}
