/* SPDX-License-Identifier: MIT */
/* LD statistics from the integer sums: the products are formed in int64 (they pass 2^31 from
 * about 23,000 samples, docs/snp.md, Semantics 5) and only the last division is in double. */
#include <math.h>

#include "ld_engine.h"

double ld_r_genotype(const pg_ldcnt_t *c) { return ld_value_genotype(c, 0, 0); }

/* PLINK 1.9 forms cov and the variance product in double (exact here) and takes r = cov /
 * sqrt(vx * vy), r^2 = cov^2 / (vx * vy). For bin4 it does the same arithmetic in float on its
 * ternary codes x' = 1 - x (A2 copies - 1), so the float path below repeats those steps to get
 * the same roundings. r^2 keeps the sign of r (|cov| cov / (vx vy), as PLINK does for in-phase);
 * writers print its absolute value. */
double ld_value_genotype(const pg_ldcnt_t *c, int r2, int single)
{
	int64_t n = c->n;
	int64_t cov = n * c->sxy - (int64_t)c->sx * c->sy;
	int64_t vx = n * c->sxx - (int64_t)c->sx * c->sx;
	int64_t vy = n * c->syy - (int64_t)c->sy * c->sy;
	if (n == 0 || vx <= 0 || vy <= 0) return -NAN;
	if (!single) {
		double v = (double)vx * (double)vy, cv = (double)cov;
		return r2 ? fabs(cv) * cv / v : cv / sqrt(v);
	}
	/* Ternary sums on the pair's samples: sum x', sum x'^2, sum x'y'. */
	int64_t tx = n - c->sx, ty = n - c->sy;
	int64_t txx = n - 2 * (int64_t)c->sx + c->sxx, tyy = n - 2 * (int64_t)c->sy + c->syy;
	int64_t txy = n - c->sx - c->sy + c->sxy;
	float nf = (float)n, fx = (float)tx, fy = (float)ty;
	float a = (float)txy * nf, b = fx * fy;
	float fcov = a - b;
	float ux = (float)(-txx) * nf, uy = (float)(-tyy) * nf, wx = fx * fx, wy = fy * fy;
	float vxf = ux + wx, vyf = uy + wy;
	float v = vxf * vyf;
	float r = r2 ? (fabsf(fcov) * fcov) / v : fcov / sqrtf(v);
	return (double)r;
}

void ld_haplotype(const pg_ldcnt_t *c, double *r, double *dd, double *dprime)
{
	int64_t h = c->n, ni = c->sx, nj = c->sy, nij = c->sxy;
	int64_t k = h * nij - ni * nj;
	double hd = (double)h;
	/* D itself stays defined (0) for a constant SNP; r and D' do not. */
	*dd = h ? (double)k / (hd * hd) : -NAN;
	if (h == 0 || ni == 0 || ni == h || nj == 0 || nj == h) {
		*r = *dprime = -NAN;
		return;
	}
	*r = (double)k / sqrt((double)(ni * (h - ni)) * (double)(nj * (h - nj)));
	int64_t a, b;
	if (k > 0) a = ni * (h - nj), b = (h - ni) * nj;
	else a = ni * nj, b = (h - ni) * (h - nj);
	*dprime = k == 0 ? 0.0 : (double)k / (double)(a < b ? a : b);
}
