/* SPDX-License-Identifier: MIT */
/* The package's fast segmentation of one sI/NI vector (docs/cnv.md, Semantics 5): a Cyber-T breakpoint
 * statistic per position, initial cuts above its 95 % quantile, merging of gain and loss pieces. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cnv.h"

/* The regularized incomplete beta function's continued fraction (modified Lentz), on the side
 * where it converges, so that tiny tails keep their relative accuracy. */
static double beta_cf_d(double x, double a, double b)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1);
	if (fabs(d) < tiny) d = tiny;
	d = 1 / d;
	double h = d;
	for (int m = 1; m <= 100000; ++m) {
		double m2 = 2 * (double)m, num = m * (b - m) * x / ((a - 1 + m2) * (a + m2));
		d = 1 + num * d;
		if (fabs(d) < tiny) d = tiny;
		c = 1 + num / c;
		if (fabs(c) < tiny) c = tiny;
		d = 1 / d;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2));
		d = 1 + num * d;
		if (fabs(d) < tiny) d = tiny;
		c = 1 + num / c;
		if (fabs(c) < tiny) c = tiny;
		d = 1 / d;
		double del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-16) break;
	}
	return h;
}

/* Stirling's series of ln Gamma(z) beyond (z - 1/2) ln z - z + ln(2 pi) / 2, through z^-9. */
static double stirling_rest(double z)
{
	double r = 1 / z, r2 = r * r;
	return r * (1.0 / 12 - r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 * (1.0 / 1680 - r2 * (1.0 / 1188)))));
}

/* ln B(a, b). The t tail always has one argument 1/2: for the other >= 20, ln Gamma(b + 1/2) -
 * ln Gamma(b) from Stirling's series is accurate to ~1e-15 absolute, where the sum of three
 * lgamma() values loses up to ~1e-12 to cancellation; it is also cheaper. */
static double lbeta_d(double a, double b)
{
	if (b == 0.5) b = a, a = 0.5;
	if (a == 0.5 && b >= 20) {
		double d = b * log1p(0.5 / b) - 0.5 + 0.5 * log(b) + (stirling_rest(b + 0.5) - stirling_rest(b));
		return 0.572364942924700087071713675677 - d; /* ln Gamma(1/2) = ln(pi) / 2 */
	}
	return cnv_lgamma(a) + cnv_lgamma(b) - cnv_lgamma(a + b);
}

/* log I_x(a, b) (upper = 0) or log(1 - I_x(a, b)) (upper = 1) */
static double log_ibeta_d(double x, double a, double b, int upper)
{
	if (x <= 0) return upper ? 0 : -INFINITY;
	if (x >= 1) return upper ? -INFINITY : 0;
	double front = a * log(x) + b * log1p(-x) - lbeta_d(a, b);
	if (x < (a + 1) / (a + b + 2)) {
		double lo = front + log(beta_cf_d(x, a, b)) - log(a);
		return upper ? log1p(-exp(lo)) : lo;
	}
	double up = front + log(beta_cf_d(1 - x, b, a)) - log(b);
	return upper ? up : log1p(-exp(up));
}

/* log P(T_df > t) (R's pt(t, df, lower = 0, log = 1)) to ~1e-14 relative, the first pass; near
 * ties go to cnv_log_t_upper (cnv_ttail_dd.c), which takes the same branches on the same tests.
 * R rounds the log tail to double and subtracts log 2 in double: so does this. */
static double log_t_upper_d(double t, double n)
{
	double val;
	if (1 + (t / n) * t > 1e100)
		val = -0.5 * n * (2 * log(fabs(t)) - log(n)) - lbeta_d(n / 2, 0.5) - log(n / 2);
	else if (n > t * t)
		val = log_ibeta_d(t * t / (n + t * t), 0.5, n / 2, 1);
	else
		val = log_ibeta_d(1 / (1 + (t / n) * t), n / 2, 0.5, 0);
	return val - 0.693147180559945309417232121458;
}

/* Scores are log 2 - v with v = log(2 P(T > t)) <= 0. The double tail gets v to ~3e-14 relative
 * (error bound of its logs and of Stirling's series), so two scores closer than three times that,
 * plus a few ulps of the final subtraction (which R and gvk perform alike), may compare
 * differently in R and are re-evaluated in double-double (cnv_ttail_dd.c). */
static int near_tie(double s1, double s2, double df)
{
	const double ln2 = 0.6931471805599453;
	double rel = df >= 40 ? 1e-13 : 1e-12; /* below 40 the lgamma() sum: ~3e-13 */
	return fabs(s1 - s2) <= rel * fabs(s1 - ln2) + 4e-16 * s1;
}

/* Best score over the window half-lengths at cut position i (docs/cnv.md, Semantics 5). precise = 1 uses the
 * double-double tail; *tie is set when two consecutive scores are a near tie, where the stall
 * counter could go either way in R. targ receives the (t, df) of the best score. */
static double position_score(int n, int i, const cnv_seg_par_t *p, double nu, double gv, const double *ps,
                             const double *pss, int precise, int *tie, double targ[2])
{
	const double eps1 = 1e-15;
	double best = 0, old = 0, old_t = -1;
	targ[0] = targ[1] = 0;
	for (int j = p->min_seg, d = 0; d <= p->delta && j <= p->max_int && i + j + 1 < n && i - j - 1 >= 0; ++j) {
		double nn = (double)j + nu - 1.0;
		double ml = (ps[i] - ps[i - j - 1]) / (j + 1);
		double vl = (pss[i] - pss[i - j - 1]) - (j + 1) * ml * ml;
		vl = (vl + nu * gv) / nn;
		double mr = (ps[i + j + 1] - ps[i]) / (j + 1);
		double vr = (pss[i + j + 1] - pss[i]) - (j + 1) * mr * mr;
		vr = (vr + nu * gv) / nn;
		double t = fabs(ml - mr) / sqrt(vl / (nn + 1.0) + vr / (nn + 1.0) + eps1);
		double a = vl / (nn + 1.0), b = vr / (nn + 1.0);
		double dof = (a + b) * (a + b) / ((a * a) / nn + (b * b) / nn);
		double score = -(precise ? cnv_log_t_upper(t, dof) : log_t_upper_d(t, dof));
		/* t = 0 gives exactly log 2 at any df, in R as here */
		if (near_tie(score, old, dof) && !(t == 0 && old_t == 0)) *tie = 1;
		if (score > best) best = score, targ[0] = t, targ[1] = dof;
		d = score > old ? 0 : d + 1;
		old = score, old_t = t;
	}
	return best;
}

/* The per-position statistic (docs/cnv.md, Semantics 5), local-maximum filter included. */
static void seg_stat(const double *x, int n, double eps, const cnv_seg_par_t *p, double *ps, double *pss,
                     double *pv, double *stat, double *targ, int *near)
{
	const double eps1 = 1e-15;
	double nu = p->cyber_weight < 0.01 ? 0.01 : p->cyber_weight;
	double mean = 0, m2 = 0;
	ps[0] = x[0], pss[0] = x[0] * x[0];
	for (int i = 0; i < n; ++i) {
		double d = x[i] - mean;
		mean = mean + d / (i + 1);
		m2 = m2 + d * (x[i] - mean);
		if (i > 0) ps[i] = ps[i - 1] + x[i], pss[i] = pss[i - 1] + x[i] * x[i];
	}
	double gv = m2 / (n - 1);
	if (gv < eps1) gv = eps1;
	int ms = p->min_seg;
	uint8_t *exact = (uint8_t *)stat; /* stat is free until the filter: marks double-double scores */
	memset(exact, 0, (size_t)n);
	for (int i = 0; i < n - 1; ++i) {
		pv[i] = 0, targ[2 * i] = targ[2 * i + 1] = 0;
		if (!(fabs(x[i + 1] - x[i]) > eps && i > ms && i < n - ms - 1)) continue;
		int tie = 0;
		pv[i] = position_score(n, i, p, nu, gv, ps, pss, 0, &tie, targ + 2 * i);
		if (tie) pv[i] = position_score(n, i, p, nu, gv, ps, pss, 1, &tie, targ + 2 * i), exact[i] = 1;
	}
	/* Neighbours with near-equal scores are decided by the local-maximum filter below: unless
	 * they come from the very same (t, df) at the same precision, recompute both with the
	 * near-correctly-rounded tail so that the tie falls as in R. */
	int w = ms > 2 ? ms / 2 : 0;
	for (int changed = w > 0; changed;) { /* until no recomputation exposes a new tie */
		changed = 0;
		for (int i = 0; i < n - 1; ++i) {
			if (pv[i] <= 0) continue;
			for (int j = 1; j <= w && i + j < n - 1; ++j) {
				int k = i + j, tie;
				if (pv[k] <= 0 || !near_tie(pv[i], pv[k], fmin(targ[2 * i + 1], targ[2 * k + 1]))) continue;
				*near = 1;
				if (exact[i] && exact[k]) continue;
				if (targ[2 * i] == targ[2 * k] && targ[2 * i + 1] == targ[2 * k + 1] && exact[i] == exact[k]) continue;
				if (!exact[i]) pv[i] = position_score(n, i, p, nu, gv, ps, pss, 1, &tie, targ + 2 * i), exact[i] = 1;
				if (!exact[k]) pv[k] = position_score(n, k, p, nu, gv, ps, pss, 1, &tie, targ + 2 * k), exact[k] = 1;
				changed = 1;
			}
		}
	}
	pv[n - 1] = 0;
	if (ms > 2) {
		for (int i = 0; i < n; ++i) {
			stat[i] = pv[i];
			if (i - w > 0 && i + w < n)
				for (int j = 1; j <= w; ++j)
					if (pv[i - j] > stat[i] || pv[i + j] > stat[i]) stat[i] = 0;
		}
	} else {
		memcpy(stat, pv, (size_t)n * sizeof *stat);
	}
}

typedef struct {
	int s, e;
} rng_t;

/* Appends [s, e] to out, merging it with the last range when they touch (IRanges::reduce). */
static void push_merge(rng_t *out, int *k, int s, int e)
{
	if (*k > 0 && out[*k - 1].e + 1 >= s) {
		if (e > out[*k - 1].e) out[*k - 1].e = e;
	} else {
		out[(*k)++] = (rng_t){s, e};
	}
}

static int piece_stats(const double *x, rng_t *r, int k, double *tmp, cnv_piece_t **out, int *n_out)
{
	cnv_piece_t *pc = malloc((size_t)(k > 0 ? k : 1) * sizeof *pc);
	if (!pc) return -1;
	for (int i = 0; i < k; ++i) {
		int len = r[i].e - r[i].s + 1;
		memcpy(tmp, x + r[i].s, (size_t)len * sizeof *x);
		pc[i].start = r[i].s, pc[i].end = r[i].e;
		pc[i].mean = cnv_r_mean(tmp, (size_t)len);
		pc[i].median = cnv_r_median(tmp, (size_t)len);
	}
	*out = pc, *n_out = k;
	return 0;
}

int cnv_segment(const double *xin, int n, const cnv_seg_par_t *par, double *stat, cnv_piece_t **pieces,
                int *n_pieces, double diag[3], int *n_init, int *near_tie)
{
	int near = 0;
	cnv_seg_par_t p = *par;
	if (p.min_seg < 2) p.min_seg = 2;
	if (p.max_int < p.min_seg + 5) p.max_int = p.min_seg + 5;
	if (p.cyber_weight < 0) p.cyber_weight = 0;
	double *x = malloc((size_t)n * 8 * sizeof *x);
	rng_t *init = malloc((size_t)n * 3 * sizeof *init);
	int *cut = malloc((size_t)n * sizeof *cut);
	if (!x || !init || !cut || n < 1) {
		free(x), free(init), free(cut);
		return -1;
	}
	double *tmp = x + n, *ps = x + 2 * (size_t)n, *pss = x + 3 * (size_t)n, *pv = x + 4 * (size_t)n;
	double *st = x + 5 * (size_t)n;
	rng_t *fin = init + n, *keep = init + 2 * (size_t)n;
	double fmax = -INFINITY, fmin = INFINITY;
	for (int i = 0; i < n; ++i)
		if (isfinite(xin[i])) fmax = fmax > xin[i] ? fmax : xin[i], fmin = fmin < xin[i] ? fmin : xin[i];
	for (int i = 0; i < n; ++i)
		x[i] = isnan(xin[i]) ? 0.0 : xin[i] == INFINITY ? fmax : xin[i] == -INFINITY ? fmin : xin[i];
	double sd = n > 1 ? sqrt(cnv_r_var(x, (size_t)n)) : NAN, thr = 2 * sd;
	double eps = NAN;
	if (n > 1) {
		for (int i = 0; i < n - 1; ++i) tmp[i] = fabs(x[i + 1] - x[i]);
		eps = cnv_r_quantile7_sel(tmp, (size_t)(n - 1), 0.75);
	}
	if (n > 1) seg_stat(x, n, eps, &p, ps, pss, pv, st, x + 6 * (size_t)n, &near);
	if (near_tie) *near_tie = near;
	else st[0] = 0;
	memcpy(stat, st, (size_t)n * sizeof *st);
	/* Initial cuts: positions whose score is above the (1 - alpha) quantile. */
	int nc = 0;
	double theta = NAN;
	if (p.alpha >= 1) {
		int want = (int)p.alpha;
		uint8_t *used = calloc((size_t)n, 1);
		if (!used) {
			free(x), free(init), free(cut);
			return -1;
		}
		for (int c = 0; c < want && c < n; ++c) {
			int b = -1;
			for (int i = 0; i < n; ++i)
				if (!used[i] && (b < 0 || st[i] > st[b])) b = i;
			used[b] = 1;
		}
		for (int i = 0; i < n; ++i)
			if (used[i]) cut[nc++] = i;
		free(used);
	} else {
		memcpy(tmp, st, (size_t)n * sizeof *st);
		theta = cnv_r_quantile7_sel(tmp, (size_t)n, 1 - p.alpha);
		for (int i = 0; i < n; ++i)
			if (st[i] > theta) cut[nc++] = i;
	}
	int ni = 0, s0 = 0;
	for (int c = 0; c < nc; ++c) init[ni++] = (rng_t){s0, cut[c]}, s0 = cut[c] + 1;
	if (s0 <= n - 1) init[ni++] = (rng_t){s0, n - 1};
	/* Kept pieces: merged gain runs and loss runs of length >= minSeg; or, when both thresholds
	 * are 0 (constant input), the initial pieces of length >= minSeg. */
	int nk = 0;
	if (!(thr != 0)) {
		for (int i = 0; i < ni; ++i)
			if (init[i].e - init[i].s + 1 >= p.min_seg) keep[nk++] = init[i];
	} else {
		int ng = 0, nl = 0;
		rng_t *gain = fin, *loss = malloc((size_t)ni * sizeof *loss);
		if (!loss) {
			free(x), free(init), free(cut);
			return -1;
		}
		for (int i = 0; i < ni; ++i) {
			int len = init[i].e - init[i].s + 1;
			memcpy(tmp, x + init[i].s, (size_t)len * sizeof *x);
			double med = cnv_r_median(tmp, (size_t)len);
			if (med > thr) push_merge(gain, &ng, init[i].s, init[i].e);
			if (med < -thr) push_merge(loss, &nl, init[i].s, init[i].e);
		}
		for (int a = 0, b = 0; a < ng || b < nl;) {
			rng_t r = (b >= nl || (a < ng && gain[a].s < loss[b].s)) ? gain[a++] : loss[b++];
			if (r.e - r.s + 1 >= p.min_seg) keep[nk++] = r;
		}
		free(loss);
	}
	int nf = 0, pos = 0;
	for (int i = 0; i < nk; ++i) {
		if (keep[i].s > pos) fin[nf++] = (rng_t){pos, keep[i].s - 1};
		fin[nf++] = keep[i];
		pos = keep[i].e + 1;
	}
	if (pos <= n - 1) fin[nf++] = (rng_t){pos, n - 1};
	int rc = piece_stats(x, fin, nf, tmp, pieces, n_pieces);
	if (diag) diag[0] = eps, diag[1] = sd, diag[2] = theta;
	if (n_init) *n_init = nc;
	free(x), free(init), free(cut);
	return rc;
}
