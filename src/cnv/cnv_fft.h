/* SPDX-License-Identifier: MIT */
/* Radix-2 FFT for the normalization's kernel density: a complex transform of n points and the
 * real transform of 2n points packed into it, so a length-2n real signal costs n complex slots. */
#ifndef GVK_CNV_FFT_H
#define GVK_CNV_FFT_H

#include <stddef.h>

/* The roots of unity of order 2n, kept as a quarter wave of cosines (n / 2 + 1 values): the real
 * transform of 2n points needs them all, the complex one of n points every other one. */
typedef struct {
	size_t n;   /* complex points, a power of two >= 2 */
	double *qc; /* qc[i] = cos(pi i / n), i = 0..n/2 */
} cnv_fft_t;

/* 0 or GVK_ERR_NOMEM (also for n not a power of two >= 2). */
int cnv_fft_init(cnv_fft_t *f, size_t n);
void cnv_fft_free(cnv_fft_t *f);

/* In place, unnormalized: z holds n complex values as (re, im) pairs. sign -1 computes
 * Z[k] = sum_j z[j] e^(-2 pi i jk/n), sign +1 the same with e^(+...). */
void cnv_fft_complex(const cnv_fft_t *f, double *z, int sign);

/* Forward real transform of x[0..2n-1] in place: X[k] = sum_j x[j] e^(-2 pi i jk/(2n)) for
 * k = 0..n, stored as x[0] = X[0], x[1] = X[n] (both real), x[2k], x[2k+1] = re, im of X[k]. */
void cnv_fft_real_forward(const cnv_fft_t *f, double *x);

/* From that layout back to the signal, unnormalized: x[j] = sum over k = 0..2n-1 of
 * X[k] e^(+2 pi i jk/(2n)), i.e. 2n times the signal whose transform X is. */
void cnv_fft_real_inverse(const cnv_fft_t *f, double *x);

#endif
