/* SPDX-License-Identifier: MIT */
/* A synthetic cohort with the counts of real whole-genome data, written straight to a count matrix
 * file without holding the matrix: ~1 kb windows over 24 sequences sized like the human ones,
 * mean count ~5,000 (a ~30x genome), window effects, per-sample size factors, negative-binomial
 * over-dispersion and planted CNVs. Every count is a function of (seed, window, sample) only, so
 * the file is the same whatever the thread count. */
#ifndef GVK_BENCH_REAL_COHORT_H
#define GVK_BENCH_REAL_COHORT_H

/* Writes m windows x N samples to path with `threads` threads; 0 or -1 (message on stderr). */
int real_cohort_write(const char *path, int m, int N, int threads);

#endif
