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
#include "../common/threads.h"

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

static int64_t pop(uint64_t x) { return __builtin_popcountll(x); }

/* Whether SNP i (planes p) passes --hwe at thr. */
static int hwe_keeps(const snp_data_t *d, int64_t i, const uint64_t *p, double thr, int midp)
{
	int cls = snp_chr_class(d->var[i].chr);
	if (cls == SNP_CHR_Y || !strcmp(d->var[i].chr, "26")) return 1;
	const uint64_t *a = p + (size_t)SNP_PA * d->nw, *b = p + (size_t)SNP_PB * d->nw, *v = p + (size_t)SNP_PV * d->nw;
	int64_t hom1 = 0, het = 0, hom2 = 0;
	for (int w = 0; w < d->nw; ++w) {
		uint64_t m = cls == SNP_CHR_X && d->male ? ~d->male[w] : ~(uint64_t)0;
		hom1 += pop(b[w] & m), het += pop(a[w] & ~b[w] & m), hom2 += pop(v[w] & ~a[w] & m);
	}
	return !(snp_hwe_p(het, hom1, hom2, midp) < thr);
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
	for (int64_t i = 0; i < d->n_snp; ++i) keep[i] = (uint8_t)hwe_keeps(d, i, snp_plane(d, i, 0), p * (1 - QC_EPS), midp);
	hwe_select(d, keep, src, n_removed);
	free(keep);
	return 0;
}

/* SNPs in blocks that threads take in turn, each block's rows read (at once where they are
 * consecutive) and decoded by its thread. */
#define HWE_BLOCK 256

typedef struct {
	const snp_data_t *d;
	const char *bed;
	int64_t n_rows, n_samples;
	const snp_geno_ctx_t *c;
	const int64_t *src;
	double thr;
	int midp;
	uint8_t *keep;
	int64_t next;   /* the next block (atomic) */
	int64_t failed; /* the first SNP whose row could not be read, or n_snp (atomic minimum) */
	int nomem;      /* (atomic) */
} hwe_job_t;

static void hwe_worker(void *arg, int tid)
{
	hwe_job_t *j = arg;
	const snp_data_t *d = j->d;
	(void)tid;
	snp_rows_t rows;
	uint64_t *planes = aligned_alloc(64, (size_t)SNP_PLANES * (size_t)d->nw * 8);
	size_t bytes = (size_t)HWE_BLOCK * (size_t)((j->n_samples + 3) / 4);
	if (!planes || snp_rows_open(&rows, j->bed, j->n_rows, j->n_samples, bytes, NULL) < 0) {
		__atomic_store_n(&j->nomem, 1, __ATOMIC_RELAXED);
		free(planes);
		return;
	}
	for (int64_t b; (b = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED)) * HWE_BLOCK < d->n_snp;)
		for (int64_t i = b * HWE_BLOCK; i < d->n_snp && i < (b + 1) * HWE_BLOCK; ++i) {
			const uint8_t *row = snp_rows_get(&rows, j->src[i]);
			if (!row) {
				for (int64_t f = __atomic_load_n(&j->failed, __ATOMIC_RELAXED);
				     i < f && !__atomic_compare_exchange_n(&j->failed, &f, i, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);) {}
				break;
			}
			snp_geno_row_to(d, i, row, j->c, planes, 0);
			j->keep[i] = (uint8_t)hwe_keeps(d, i, planes, j->thr, j->midp);
		}
	snp_rows_close(&rows);
	free(planes);
}

int snp_qc_hwe_bed(snp_data_t *d, const char *bed, int64_t n_rows, int64_t n_samples, const snp_geno_ctx_t *c, double p,
                   int midp, int threads, int64_t *src, int64_t *n_removed, gvk_err_t *err)
{
	hwe_job_t j = {d, bed, n_rows, n_samples, c, src, p * (1 - QC_EPS), midp, malloc((size_t)d->n_snp + 1), 0, d->n_snp, 0};
	if (!j.keep) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	int64_t blocks = (d->n_snp + HWE_BLOCK - 1) / HWE_BLOCK;
	int nt = threads > 1 ? threads : 1;
	if (blocks > 0) gvk_parallel(nt < blocks ? nt : (int)blocks, hwe_worker, &j);
	int rc = 0;
	if (j.nomem) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory, or %s could not be opened again", bed);
	else if (j.failed < d->n_snp)
		rc = gvk_err_set(err, GVK_ERR_IO, "%s: read error in the block of variant %lld", bed, (long long)src[j.failed] + 1);
	else hwe_select(d, j.keep, src, n_removed);
	free(j.keep);
	return rc;
}
