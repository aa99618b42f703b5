/* SPDX-License-Identifier: MIT */
/* Iterative radix-2 FFT (decimation in time) and the packed real transform built on it. */
#include <math.h>
#include <stdlib.h>

#include "gvk.h"
#include "cnv_fft.h"

static const double pi = 3.14159265358979323846264338327950288;

int cnv_fft_init(cnv_fft_t *f, size_t n)
{
	f->n = 0, f->qc = NULL;
	if (n < 2 || (n & (n - 1))) return GVK_ERR_NOMEM;
	size_t h = n / 2;
	double *qc = malloc((h + 1) * sizeof *qc);
	if (!qc) return GVK_ERR_NOMEM;
	/* Small arguments on both halves: cos near 0, and cos(pi/2 - a) = sin(a) near pi/2, so every
	 * entry is within an ulp or so of the true root. */
	for (size_t i = 0; i <= h; ++i)
		qc[i] = 2 * i <= h ? cos(pi * (double)i / (double)n) : sin(pi * (double)(h - i) / (double)n);
	f->n = n, f->qc = qc;
	return 0;
}

void cnv_fft_free(cnv_fft_t *f)
{
	free(f->qc);
	f->qc = NULL, f->n = 0;
}

static void bit_reverse(double *z, size_t n)
{
	for (size_t i = 1, j = 0; i < n; ++i) {
		size_t bit = n >> 1;
		for (; j & bit; bit >>= 1) j ^= bit;
		j ^= bit;
		if (i < j) {
			double r = z[2 * i], m = z[2 * i + 1];
			z[2 * i] = z[2 * j], z[2 * i + 1] = z[2 * j + 1];
			z[2 * j] = r, z[2 * j + 1] = m;
		}
	}
}

/* b <- a - w b, a <- a + w b with w = (wr, wi). */
static inline void butterfly(double *a, double *b, double wr, double wi)
{
	double tr = wr * b[0] - wi * b[1], ti = wr * b[1] + wi * b[0];
	b[0] = a[0] - tr, b[1] = a[1] - ti;
	a[0] += tr, a[1] += ti;
}

/* The butterflies of one block of m points. Root j is e^(sign 2 pi i j / m), index j * stride of
 * the order-2n table: the first quarter circle reads qc forwards, the second backwards. */
static void block(const cnv_fft_t *f, double *z, size_t m, int sign)
{
	size_t h = m / 2, stride = 2 * f->n / m, q = f->n / 2;
	const double *qc = f->qc;
	double sg = sign < 0 ? -1.0 : 1.0;
	size_t j = 0;
	for (; j <= h / 2 && j < h; ++j) butterfly(z + 2 * j, z + 2 * (j + h), qc[j * stride], sg * qc[q - j * stride]);
	for (; j < h; ++j) butterfly(z + 2 * j, z + 2 * (j + h), -qc[f->n - j * stride], sg * qc[j * stride - q]);
}

/* The first two stages at once on blocks of 4 points, whose roots are 1 and -+i: no products. */
static void first_stages(double *z, size_t len, int sign)
{
	double sg = sign < 0 ? 1.0 : -1.0;
	for (size_t k = 0; k + 4 <= len; k += 4) {
		double *p = z + 2 * k;
		double ar = p[0] + p[2], ai = p[1] + p[3], br = p[0] - p[2], bi = p[1] - p[3];
		double cr = p[4] + p[6], ci = p[5] + p[7], dr = p[4] - p[6], di = p[5] - p[7];
		/* d times -i (forward) or +i (inverse) */
		double er = sg * di, ei = -sg * dr;
		p[0] = ar + cr, p[1] = ai + ci, p[4] = ar - cr, p[5] = ai - ci;
		p[2] = br + er, p[3] = bi + ei, p[6] = br - er, p[7] = bi - ei;
	}
}

/* Points whose stages run together while they stay in cache (256 KiB of complex values). */
enum { FFT_CHUNK = 1 << 14 };

void cnv_fft_complex(const cnv_fft_t *f, double *z, int sign)
{
	size_t n = f->n, chunk = n < FFT_CHUNK ? n : FFT_CHUNK, m0 = 2;
	bit_reverse(z, n);
	if (n >= 4) first_stages(z, n, sign), m0 = 8;
	/* The stages up to the chunk's size touch one chunk each: all of them chunk by chunk. */
	for (size_t c = 0; c < n; c += chunk)
		for (size_t m = m0; m <= chunk; m <<= 1)
			for (size_t k = c; k < c + chunk; k += m) block(f, z + 2 * k, m, sign);
	for (size_t m = 2 * chunk > m0 ? 2 * chunk : m0; m <= n; m <<= 1)
		for (size_t k = 0; k < n; k += m) block(f, z + 2 * k, m, sign);
}

void cnv_fft_real_forward(const cnv_fft_t *f, double *x)
{
	size_t n = f->n, q = n / 2;
	cnv_fft_complex(f, x, -1);
	double r0 = x[0], i0 = x[1];
	x[0] = r0 + i0, x[1] = r0 - i0;
	/* X[k] = E + W^k O and X[n-k] = conj(E - W^k O), with E, O the transforms of the even and odd
	 * samples recovered from Z[k] and Z[n-k], W = e^(-i pi / n). */
	for (size_t k = 1; k <= q; ++k) {
		double *zk = x + 2 * k, *zn = x + 2 * (n - k);
		double a = zk[0], b = zk[1], c = zn[0], d = zn[1];
		double er = 0.5 * (a + c), ei = 0.5 * (b - d), or_ = 0.5 * (b + d), oi = -0.5 * (a - c);
		double wc = f->qc[k], ws = f->qc[q - k];
		double tr = wc * or_ + ws * oi, ti = wc * oi - ws * or_;
		zn[0] = er - tr, zn[1] = -(ei - ti);
		zk[0] = er + tr, zk[1] = ei + ti;
	}
}

void cnv_fft_real_inverse(const cnv_fft_t *f, double *x)
{
	size_t n = f->n, q = n / 2;
	double x0 = x[0], xn = x[1];
	x[0] = x0 + xn, x[1] = x0 - xn;
	/* The forward pairing undone, each side doubled (which makes the result 2n times the signal). */
	for (size_t k = 1; k <= q; ++k) {
		double *zk = x + 2 * k, *zn = x + 2 * (n - k);
		double a = zk[0], b = zk[1], c = zn[0], d = zn[1];
		double er = a + c, ei = b - d, dr = a - c, di = b + d;
		double wc = f->qc[k], ws = f->qc[q - k];
		double or_ = wc * dr - ws * di, oi = wc * di + ws * dr;
		zn[0] = er + oi, zn[1] = -ei + or_;
		zk[0] = er - oi, zk[1] = ei + or_;
	}
	cnv_fft_complex(f, x, +1);
}
