/* SPDX-License-Identifier: MIT */
/* ln Gamma(x) for x > 0 with the same bits on every platform. The C libraries' lgamma() differ:
 * x86-64 glibc evaluates Sun's fdlibm approximation without fused multiply-adds, aarch64 glibc
 * compiles the same source with them, and a quarter of all counts + 1 then differ in the last
 * bit, which the EM carries into its calls. This is that approximation (reduction to [2, 3) or
 * Stirling's series beyond 8, its published minimax coefficients) in this file's own code; the
 * build's -ffp-contract=off keeps every product and sum separately rounded, so the results are
 * x86-64 glibc's on any CPU. Arguments outside (0, inf) go to the C library. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cnv.h"

/* The upper 32 bits of x, the way the approximation picks its intervals. */
static uint32_t high_word(double x)
{
	uint64_t u;
	memcpy(&u, &x, sizeof u);
	return (uint32_t)(u >> 32);
}

/* ln Gamma(1 + y) - ... on [0.9, 2]: three pieces around the minimum at 1.4616 (piece 0 near 2
 * in y = 2 - x, piece 1 around the minimum, piece 2 near 1 in y = x - 1); also used below 0.9
 * after ln Gamma(x) = ln Gamma(x + 1) - ln x. */
static double near_one_two(int piece, double y)
{
	static const double a[12] = {7.72156649015328655494e-02, 3.22467033424113591611e-01, 6.73523010531292681824e-02,
	                             2.05808084325167332806e-02, 7.38555086081402883957e-03, 2.89051383673415629091e-03,
	                             1.19270763183362067845e-03, 5.10069792153511336608e-04, 2.20862790713908385557e-04,
	                             1.08011567247583939954e-04, 2.52144565451257326939e-05, 4.48640949618915160150e-05};
	static const double t[15] = {4.83836122723810047042e-01,  -1.47587722994593911752e-01, 6.46249402391333854778e-02,
	                             -3.27885410759859649565e-02, 1.79706750811820387126e-02,  -1.03142241298341437450e-02,
	                             6.10053870246291332635e-03,  -3.68452016781138256760e-03, 2.25964780900612472250e-03,
	                             -1.40346469989232843813e-03, 8.81081882437654011382e-04,  -5.38595305356740546715e-04,
	                             3.15632070903625950361e-04,  -3.12754168375120860518e-04, 3.35529192635519073543e-04};
	static const double u[6] = {-7.72156649015328655494e-02, 6.32827064025093366517e-01, 1.45492250137234768737e+00,
	                            9.77717527963372745603e-01,  2.28963728064692451092e-01, 1.33810918536787660377e-02};
	static const double v[6] = {1.0, 2.45597793713041134822e+00, 2.12848976379893395361e+00, 7.69285150456672783825e-01,
	                            1.04222645593369134254e-01, 3.21709242282423911810e-03};
	/* ln Gamma at its minimum (tf), and the part of that value below tf's last bit (-tt) */
	const double tf = -1.21486290535849611461e-01, tt = -3.63867699703950536541e-18;
	if (piece == 0) {
		double z = y * y;
		double even = a[0] + z * (a[2] + z * (a[4] + z * (a[6] + z * (a[8] + z * a[10]))));
		double odd = z * (a[1] + z * (a[3] + z * (a[5] + z * (a[7] + z * (a[9] + z * a[11])))));
		return (y * even + odd) - 0.5 * y;
	}
	if (piece == 1) {
		double z = y * y, w = z * y;
		double p0 = t[0] + w * (t[3] + w * (t[6] + w * (t[9] + w * t[12])));
		double p1 = t[1] + w * (t[4] + w * (t[7] + w * (t[10] + w * t[13])));
		double p2 = t[2] + w * (t[5] + w * (t[8] + w * (t[11] + w * t[14])));
		return tf + (z * p0 - (tt - w * (p1 + y * p2)));
	}
	double num = y * (u[0] + y * (u[1] + y * (u[2] + y * (u[3] + y * (u[4] + y * u[5])))));
	double den = v[0] + y * (v[1] + y * (v[2] + y * (v[3] + y * (v[4] + y * v[5]))));
	return -0.5 * y + num / den;
}

/* [2, 8): ln Gamma(2 + y) as 0.5 y + P(y) / Q(y), then the factors x - 1, x - 2, ... down to 2 + y. */
static double two_to_eight(double x)
{
	static const double s[7] = {-7.72156649015328655494e-02, 2.14982415960608852501e-01, 3.25778796408930981787e-01,
	                            1.46350472652464452805e-01,  2.66422703033638609560e-02, 1.84028451407337715652e-03,
	                            3.19475326584100867617e-05};
	static const double r[7] = {1.0, 1.39200533467621045958e+00, 7.21935547567138069525e-01, 1.71933865632803078993e-01,
	                            1.86459191715652901344e-02, 7.77942496381893596434e-04, 7.32668430744625636189e-06};
	int n = (int)x;
	double y = x - (double)n;
	double p = y * (s[0] + y * (s[1] + y * (s[2] + y * (s[3] + y * (s[4] + y * (s[5] + y * s[6]))))));
	double q = r[0] + y * (r[1] + y * (r[2] + y * (r[3] + y * (r[4] + y * (r[5] + y * r[6])))));
	double res = 0.5 * y + p / q;
	if (n < 3) return res;
	double prod = 1.0;
	for (int k = n - 1; k >= 2; --k) prod *= y + (double)k; /* (y + n - 1) first, as the sum is formed */
	return res + log(prod);
}

/* [8, 2^58): (x - 1/2)(ln x - 1) plus Stirling's remainder as an odd series in 1/x. */
static double stirling(double x)
{
	static const double w[7] = {4.18938533204672725052e-01,  8.33333333333329678849e-02, -2.77777777728775536470e-03,
	                            7.93650558643019558500e-04,  -5.95187557450339963135e-04, 8.36339918996282139126e-04,
	                            -1.63092934096575273989e-03};
	double lx = log(x), z = 1.0 / x, z2 = z * z;
	double rest = w[0] + z * (w[1] + z2 * (w[2] + z2 * (w[3] + z2 * (w[4] + z2 * (w[5] + z2 * w[6])))));
	return (x - 0.5) * (lx - 1.0) + rest;
}

double cnv_lgamma(double x)
{
	if (!(x > 0) || isinf(x)) return lgamma(x);
	uint32_t hw = high_word(x);
	if (hw < 0x3b900000u) return -log(x); /* x < 2^-70 */
	if (x == 1.0 || x == 2.0) return 0.0;
	if (hw < 0x40000000u) { /* x < 2 */
		if (hw <= 0x3feccccc) { /* x < 0.9: ln Gamma(x + 1) - ln x */
			double lnx = -log(x);
			if (hw >= 0x3fe76944u) return lnx + near_one_two(0, 1.0 - x);
			if (hw >= 0x3fcda661u) return lnx + near_one_two(1, x - (1.46163214496836224576e+00 - 1.0));
			return lnx + near_one_two(2, x);
		}
		if (hw >= 0x3ffbb4c3u) return 0.0 + near_one_two(0, 2.0 - x); /* 0.0 + : no -0 */
		if (hw >= 0x3ff3b4c4u) return 0.0 + near_one_two(1, x - 1.46163214496836224576e+00);
		return 0.0 + near_one_two(2, x - 1.0);
	}
	if (hw < 0x40200000u) return two_to_eight(x);
	if (hw < 0x43900000u) return stirling(x);
	return x * (log(x) - 1.0);
}
