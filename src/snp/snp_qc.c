/* SPDX-License-Identifier: MIT */
/* --mind and --hwe with PLINK 1.9's counts and thresholds. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snp_qc.h"
#include "snp_chrom.h"
#include "plink_io.h"
#include "../common/err.h"

/* PLINK's relative epsilon (2^-44) for thresholds. */
#define QC_EPS 0.00000000000005684341886080801486968994140625

/* Adds a row's missing calls (code 01, rare) to miss[], 32 codes a word; on Y only males'. */
static void row_missing(const uint8_t *row, int64_t n, int y, const snp_samples_t *ss, int64_t *miss)
{
	for (int64_t at = 0; at < n; at += 32) {
		uint64_t x = 0;
		size_t bytes = n - at >= 32 ? 8 : (size_t)((n - at + 3) / 4);
		memcpy(&x, row + at / 4, bytes); /* little-endian: sample at + k in bits 2k, 2k + 1 */
		for (uint64_t m = x & ~(x >> 1) & 0x5555555555555555ull; m; m &= m - 1) {
			int64_t s = at + __builtin_ctzll(m) / 2;
			if (s < n && (!y || ss->s[s].sex == 1)) ++miss[s];
		}
	}
}

/* Missing calls per sample over the selected rows [i0, i1) (src increasing). */
static int count_missing(const char *bed, const int64_t *src, int64_t i0, int64_t i1, const snp_data_t *d,
                         const snp_samples_t *ss, int64_t *miss, gvk_err_t *err)
{
	if (i1 <= i0) return 0;
	snp_rows_t rows;
	int rc = snp_rows_open(&rows, bed, src[i1 - 1] + 1, ss->n, 1 << 20, err);
	for (int64_t i = i0; i < i1 && rc == 0; ++i) {
		const uint8_t *row = snp_rows_get(&rows, src[i]);
		if (!row) rc = gvk_err_set(err, GVK_ERR_IO, "%s: read error in the block of variant %lld", bed, (long long)src[i] + 1);
		else row_missing(row, ss->n, snp_chr_class(d->var[i].chr) == SNP_CHR_Y, ss, miss);
	}
	snp_rows_close(&rows);
	return rc;
}

int snp_qc_mind_count(const char *bed, const int64_t *src, int64_t i0, int64_t i1, const snp_data_t *d,
                      const snp_samples_t *ss, int64_t *miss, gvk_err_t *err)
{
	memset(miss, 0, sizeof *miss * (size_t)ss->n);
	FILE *fp = fopen(bed, "rb");
	if (!fp) return gvk_err_set(err, GVK_ERR_IO, "%s: cannot open: %s", bed, strerror(errno));
	uint8_t magic[3] = {0, 0, 0};
	int rc = 0;
	if (fread(magic, 1, 3, fp) != 3 || magic[0] != 0x6c || magic[1] != 0x1b || magic[2] != 0x01)
		rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: not a SNP-major PLINK 1 .bed file (it must start with 6c 1b 01)", bed);
	fclose(fp);
	if (rc == 0) rc = count_missing(bed, src, i0, i1, d, ss, miss, err);
	return rc;
}

void snp_qc_mind_apply(const snp_data_t *d, snp_samples_t *ss, double mind, const int64_t *miss, uint8_t *removed,
                       int64_t *n_removed)
{
	*n_removed = 0;
	memset(removed, 0, (size_t)ss->n);
	int64_t all = d->n_snp, nony = 0;
	for (int64_t i = 0; i < d->n_snp; ++i) nony += snp_chr_class(d->var[i].chr) != SNP_CHR_Y;
	/* PLINK's integer thresholds: males over every variant, the others over the non-Y ones */
	int64_t t_male = (int64_t)(int32_t)(mind * (double)all * (1 + QC_EPS));
	int64_t t_other = (int64_t)(int32_t)(mind * (double)nony * (1 + QC_EPS));
	for (int64_t s = 0; s < ss->n; ++s) {
		if (!ss->s[s].kept) continue;
		if (miss[s] > (ss->s[s].sex == 1 ? t_male : t_other)) removed[s] = 1, ss->s[s].kept = 0, ++*n_removed;
	}
}

int snp_qc_mind(const char *bed, const int64_t *src, int64_t n_rows, const snp_data_t *d, snp_samples_t *ss,
                double mind, uint8_t *removed, int64_t *n_removed, gvk_err_t *err)
{
	(void)n_rows;
	*n_removed = 0;
	memset(removed, 0, (size_t)ss->n);
	int64_t *miss = calloc((size_t)ss->n + 1, sizeof *miss);
	if (!miss) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	int rc = snp_qc_mind_count(bed, src, 0, d->n_snp, d, ss, miss, err);
	if (rc == 0) snp_qc_mind_apply(d, ss, mind, miss, removed, n_removed);
	free(miss);
	return rc;
}

double snp_hwe_p(int64_t het, int64_t hom1, int64_t hom2, int midp)
{
	int64_t rare_hom = hom1 < hom2 ? hom1 : hom2, common_hom = hom1 < hom2 ? hom2 : hom1;
	int64_t n = het + rare_hom + common_hom, rare = 2 * rare_hom + het;
	if (n == 0) return 1.0;
	double *p = calloc((size_t)rare + 1, sizeof *p);
	if (!p) return NAN;
	/* start at the most likely heterozygote count, with the parity of rare */
	int64_t mid = (int64_t)((double)rare * (double)(2 * n - rare) / (double)(2 * n));
	if ((mid & 1) != (rare & 1)) ++mid;
	if (mid > rare) mid -= 2;
	p[mid] = 1.0;
	double sum = 1.0;
	int64_t hets = mid, homr = (rare - mid) / 2, homc = n - hets - homr;
	for (; hets >= 2; hets -= 2, ++homr, ++homc) {
		p[hets - 2] = p[hets] * (double)hets * (double)(hets - 1) / (4.0 * (double)(homr + 1) * (double)(homc + 1));
		sum += p[hets - 2];
	}
	hets = mid, homr = (rare - mid) / 2, homc = n - hets - homr;
	for (; hets <= rare - 2; hets += 2, --homr, --homc) {
		p[hets + 2] = p[hets] * 4.0 * (double)homr * (double)homc / ((double)(hets + 2) * (double)(hets + 1));
		sum += p[hets + 2];
	}
	double obs = p[het], tail = 0.0;
	for (int64_t k = rare & 1; k <= rare; k += 2)
		if (p[k] <= obs * (1 + QC_EPS)) tail += p[k];
	if (midp) tail -= 0.5 * obs;
	free(p);
	double r = tail / sum;
	return r > 1.0 ? 1.0 : r;
}

/* The relative probabilities q(h) = P(h) / P(observed) of the heterozygote counts, walked from the
 * observed count: a walk's state and its step to the next count. */
typedef struct {
	double het, homr, homc, q;
} hwe_walk_t;

/* One step to two heterozygotes fewer (dir < 0) or more; 0 when there is none. */
static int hwe_step(hwe_walk_t *w, int dir)
{
	if (dir < 0) {
		if (w->het < 2) return 0;
		w->q *= w->het * (w->het - 1) / (4 * (w->homr + 1) * (w->homc + 1));
		w->het -= 2, w->homr += 1, w->homc += 1;
	} else {
		if (w->homr < 1) return 0;
		w->q *= 4 * w->homr * w->homc / ((w->het + 2) * (w->het + 1));
		w->het += 2, w->homr -= 1, w->homc -= 1;
	}
	return 1;
}

/* The ratio of the next step's q to the current one (0 when there is no next step). */
static double hwe_ratio(hwe_walk_t w, int dir)
{
	double q = w.q;
	return q > 0 && hwe_step(&w, dir) ? w.q / q : 0.0;
}

/* A tail of the distribution being summed: the sum so far, its last term and the next ratio. */
typedef struct {
	hwe_walk_t w;
	int dir, live;
	double sum;
} hwe_tail_t;

/* What is left of a tail at most: its terms fall at least as fast as its next ratio, so their sum
 * is below a geometric series. */
static double tail_rest(const hwe_tail_t *t)
{
	if (!t->live) return 0.0;
	double r = hwe_ratio(t->w, t->dir);
	return r < 1 ? t->w.q * r / (1 - r) : INFINITY;
}

static void tail_next(hwe_tail_t *t)
{
	if (!(t->live = hwe_step(&t->w, t->dir) && t->w.q > 0)) return;
	t->sum += t->w.q;
}

/* Whether q is too near the tail's bound 1 + 2^-44 to be classed with certainty. */
static int gray(double q) { return fabs(q - (1 + QC_EPS)) < 1e-9; }

/* snp_hwe_p(het, hom1, hom2, midp) < thr decided without the whole distribution: the counts more
 * likely than the observed one (the centre C, relative to it) are summed walking from it towards
 * the mode, and the two tails T (at most as likely) only until T (1 - thr) - midp / 2 - thr C has
 * a sign beyond doubt; 1, 0, or -1 when it stays in doubt (a q near the bound, or a sum near the
 * threshold), for the exact computation to decide. */
static int hwe_fails_fast(int64_t het, int64_t hom1, int64_t hom2, double thr, int midp)
{
	int64_t homr = hom1 < hom2 ? hom1 : hom2, homc = hom1 < hom2 ? hom2 : hom1, rare = 2 * homr + het;
	hwe_walk_t w0 = {(double)het, (double)homr, (double)homc, 1.0};
	int dir = hwe_ratio(w0, 1) > 1 ? 1 : -1;
	double center = 0, tmax = (double)(rare / 2 + 1) * (1 + 2 * QC_EPS), m = midp ? 0.5 : 0.0;
	hwe_tail_t far = {w0, dir, 0, 0};
	for (;;) {
		if (!hwe_step(&far.w, dir) || far.w.q == 0) break;
		if (gray(far.w.q) || !isfinite(far.w.q)) return -1;
		if (far.w.q < 1 + QC_EPS) {
			far.live = 1, far.sum = far.w.q;
			break;
		}
		center += far.w.q;
		if (tmax * (1 - thr) - m - thr * center < -1e-9 * center) return 1;
	}
	if (!isfinite(center)) return -1;
	hwe_tail_t near = {w0, -dir, 1, 1.0};
	if (gray(hwe_ratio(w0, -dir))) return -1; /* a tie with the observed count, classed by rounding */
	for (int k = 0; k < 1 << 22; ++k) {
		double lo = near.sum + far.sum, hi = lo + tail_rest(&near) + tail_rest(&far), margin = 1e-9 * (lo + center + 1);
		if (lo * (1 - thr) - m - thr * center > margin) return 0;
		if (hi * (1 - thr) - m - thr * center < -margin) return 1;
		if (hi == lo) return -1; /* nothing left that the sums could still gain */
		double rn = tail_rest(&near), rf = tail_rest(&far);
		tail_next(!far.live || (near.live && rn >= rf) ? &near : &far);
	}
	return -1;
}

int snp_hwe_fails(int64_t het, int64_t hom1, int64_t hom2, double thr, int midp)
{
	if (het + hom1 + hom2 == 0) return 0;
	int f = hwe_fails_fast(het, hom1, hom2, thr, midp);
	return f >= 0 ? f : snp_hwe_p(het, hom1, hom2, midp) < thr;
}


/* Whether SNP i passes --hwe at thr, from its counts (snp_geno_plane_counts); Y and MT are not
 * tested. */
static int hwe_keeps(const snp_data_t *d, int64_t i, const uint32_t g[3], double thr, int midp)
{
	int cls = snp_chr_class(d->var[i].chr);
	if (cls == SNP_CHR_Y || !strcmp(d->var[i].chr, "26")) return 1;
	return !snp_hwe_fails(g[1], g[0], g[2], thr, midp);
}

/* Keeps the SNPs of d with keep[i], and src (may be NULL) in step. */
static void hwe_select(snp_data_t *d, const uint8_t *keep, int64_t *src, int64_t *n_removed)
{
	int64_t m0 = d->n_snp, k = 0;
	if (src)
		for (int64_t i = 0; i < m0; ++i)
			if (keep[i]) src[k++] = src[i];
	snp_data_select(d, keep);
	*n_removed = m0 - d->n_snp;
}

int snp_qc_hwe(snp_data_t *d, double p, int midp, int64_t *src, int64_t *n_removed, gvk_err_t *err)
{
	uint8_t *keep = malloc((size_t)d->n_snp + 1);
	if (!keep) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	for (int64_t i = 0; i < d->n_snp; ++i) {
		uint32_t g[3];
		snp_geno_plane_counts(d, snp_chr_class(d->var[i].chr), snp_plane(d, i, 0), g);
		keep[i] = (uint8_t)hwe_keeps(d, i, g, p * (1 - QC_EPS), midp);
	}
	hwe_select(d, keep, src, n_removed);
	free(keep);
	return 0;
}

int snp_qc_hwe_counts(snp_data_t *d, const uint32_t *geno, double p, int midp, int64_t *src, int64_t *n_removed,
                      gvk_err_t *err)
{
	uint8_t *keep = malloc((size_t)d->n_snp + 1);
	if (!keep) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	for (int64_t i = 0; i < d->n_snp; ++i) keep[i] = (uint8_t)hwe_keeps(d, i, geno + 3 * src[i], p * (1 - QC_EPS), midp);
	hwe_select(d, keep, src, n_removed);
	free(keep);
	return 0;
}
