/* SPDX-License-Identifier: MIT */
/* .bed codes to bit planes with PLINK 1.9's per-variant statistics and allele order. */
#include <stdlib.h>
#include <string.h>

#include "../common/cpu_features.h"
#include "snp_geno.h"
#include "snp_chrom.h"
#include "../common/err.h"

int snp_geno_ctx_init(snp_geno_ctx_t *c, const snp_samples_t *ss, int nonfounders, int keep_allele_order,
                      gvk_err_t *err)
{
	memset(c, 0, sizeof *c);
	c->n = ss->n;
	c->col = malloc(sizeof *c->col * (size_t)(ss->n + 1));
	c->role = malloc((size_t)ss->n + 1);
	if (!c->col || !c->role) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	c->keep_allele_order = keep_allele_order;
	c->plain = 1;
	for (int64_t s = 0; s < ss->n; ++s) {
		const snp_sample_t *p = &ss->s[s];
		int ld = p->kept && p->founder;
		c->col[s] = ld ? c->n_cols++ : -1;
		c->role[s] = (uint8_t)((p->kept ? SNP_ROLE_KEPT : 0) | (p->kept && (p->founder || nonfounders) ? SNP_ROLE_FREQ : 0) |
		                       (p->sex == 1 ? SNP_ROLE_MALE : 0));
		c->n_kept += p->kept;
		c->n_kept_male += p->kept && p->sex == 1;
		c->plain &= ld && (c->role[s] & SNP_ROLE_FREQ);
	}
	c->isa = pg_isa_select(GVK_ISA_AUTO);
	c->threads = 1;
	return 0;
}

void snp_geno_ctx_free(snp_geno_ctx_t *c)
{
	free(c->col);
	free(c->role);
	c->col = NULL;
	c->role = NULL;
}

/* d's statistics and male masks, with its planes when planes is set. */
static int alloc_geno(snp_data_t *d, int64_t n_snp, const snp_geno_ctx_t *c, int planes, gvk_err_t *err)
{
	int rc = planes ? snp_data_alloc_planes_unset(d, n_snp, c->n_cols, err) : snp_data_alloc_no_planes(d, n_snp, c->n_cols, err);
	if (rc < 0) return rc;
	d->a2f = malloc(sizeof *d->a2f * (size_t)(n_snp + 1));
	d->rate = malloc(sizeof *d->rate * (size_t)(n_snp + 1));
	d->male = calloc((size_t)d->nw, sizeof *d->male);
	d->male_raw = calloc((size_t)d->nw, sizeof *d->male_raw);
	if (!d->a2f || !d->rate || !d->male || !d->male_raw) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	for (int64_t s = 0; s < c->n; ++s) {
		if (!(c->role[s] & SNP_ROLE_MALE)) continue;
		if (c->col[s] >= 0) d->male[c->col[s] >> 6] |= (uint64_t)1 << (c->col[s] & 63);
		if (s < c->n_cols) d->male_raw[s >> 6] |= (uint64_t)1 << (s & 63);
	}
	return 0;
}

int snp_geno_alloc(snp_data_t *d, int64_t n_snp, const snp_geno_ctx_t *c, gvk_err_t *err)
{
	return alloc_geno(d, n_snp, c, 1, err);
}

int snp_geno_alloc_stats(snp_data_t *d, int64_t n_snp, const snp_geno_ctx_t *c, gvk_err_t *err)
{
	return alloc_geno(d, n_snp, c, 0, err);
}

/* Genotype counts of one row: diploid (code 00, 10, 11 = ll, lh, hh) and haploid male ones. */
typedef struct {
	int64_t ll, lh, hh, ml, mh, nm, nm_male;
	int flags; /* SNP_HH_* */
} tally_t;

static int code_at(const uint8_t *row, int64_t s) { return (row[s >> 2] >> (2 * (s & 3))) & 3; }

/* PLINK counts: frequencies over the counted samples (males once on X, only males on Y), calls
 * over the kept samples (only males on Y). */
static void tally(const uint8_t *row, const snp_geno_ctx_t *c, int cls, tally_t *t)
{
	memset(t, 0, sizeof *t);
	for (int64_t s = 0; s < c->n; ++s) {
		int r = c->role[s], code = code_at(row, s);
		if (!(r & SNP_ROLE_KEPT) || code == 1) continue;
		int male = r & SNP_ROLE_MALE;
		if (cls == SNP_CHR_X && male && code == 2) t->flags |= SNP_HH_X;
		if (cls == SNP_CHR_Y && (!male || code == 2)) t->flags |= SNP_HH_Y;
		t->nm += cls != SNP_CHR_Y || male;
		t->nm_male += male != 0;
		if (!(r & SNP_ROLE_FREQ)) continue;
		if (cls == SNP_CHR_AUTO || (cls == SNP_CHR_X && !male)) {
			t->ll += code == 0, t->lh += code == 2, t->hh += code == 3;
		} else if (male) {
			t->ml += code == 0, t->mh += code == 3;
		}
	}
}

/* PLINK's A2 frequency (before any swap) and genotyping rate from the counts. */
static void stats(const tally_t *t, const snp_geno_ctx_t *c, int cls, double *a2f, double *rate)
{
	int64_t den = 2 * (t->ll + t->lh + t->hh) + t->ml + t->mh, num = 2 * t->hh + t->lh + t->mh;
	*a2f = den ? (double)num / (double)den : 0.5;
	int64_t n = cls == SNP_CHR_Y ? c->n_kept_male : c->n_kept;
	*rate = n ? (double)(cls == SNP_CHR_Y ? t->nm_male : t->nm) * (1.0 / (double)n) : 0.0;
}

/* Every sample a column: the whole row through the kernel set's decoder. */
static void decode_plain(snp_data_t *d, int64_t i, const uint8_t *row, const snp_geno_ctx_t *c)
{
	c->isa->bed_row(row, c->n, snp_plane(d, i, SNP_PA), snp_plane(d, i, SNP_PB), snp_plane(d, i, SNP_PV));
}

/* Counts of the planes decode_plain filled (every sample kept and counted, diploid). */
static void tally_plain(const snp_data_t *d, int64_t i, const snp_geno_ctx_t *c, tally_t *t)
{
	int64_t ca = c->isa->popcount(snp_plane(d, i, SNP_PA), d->nw), cb = c->isa->popcount(snp_plane(d, i, SNP_PB), d->nw);
	int64_t cv = c->isa->popcount(snp_plane(d, i, SNP_PV), d->nw);
	memset(t, 0, sizeof *t);
	t->ll = cb, t->lh = ca - cb, t->hh = cv - ca, t->nm = cv;
}

/* A1 <-> A2 on the planes: x -> 2 - x, A' = V & ~B, B' = V & ~A. */
static void flip_planes(snp_data_t *d, int64_t i)
{
	uint64_t *pa = snp_plane(d, i, SNP_PA), *pb = snp_plane(d, i, SNP_PB), *pv = snp_plane(d, i, SNP_PV);
	for (int w = 0; w < d->nw; ++w) {
		uint64_t a = pa[w], b = pb[w];
		pa[w] = pv[w] & ~b, pb[w] = pv[w] & ~a;
	}
}

/* Column planes one sample at a time. X males: heterozygous calls missing, otherwise one copy
 * or none (PLINK's haploid coding); Y: only males, heterozygous calls missing. */
static void decode_cols(snp_data_t *d, int64_t i, const uint8_t *row, const snp_geno_ctx_t *c, int cls, int swap)
{
	uint64_t *pa = snp_plane(d, i, SNP_PA), *pb = snp_plane(d, i, SNP_PB), *pv = snp_plane(d, i, SNP_PV);
	for (int64_t s = 0; s < c->n; ++s) {
		int64_t k = c->col[s];
		int code = code_at(row, s);
		if (k < 0 || code == 1) continue;
		int male = c->role[s] & SNP_ROLE_MALE, hap = !c->raw && cls != SNP_CHR_AUTO;
		if (hap && cls == SNP_CHR_Y && !male) continue;
		if (hap && male && code == 2) continue;
		int x = code == 0 ? 2 : code == 2 ? 1 : 0; /* copies of the file's A1 */
		if (swap) x = 2 - x;
		if (hap && cls == SNP_CHR_X && male) x /= 2;
		uint64_t bit = (uint64_t)1 << (k & 63);
		pv[k >> 6] |= bit;
		if (x >= 1) pa[k >> 6] |= bit;
		if (x == 2) pb[k >> 6] |= bit;
	}
}

/* Whether A1 and A2 swap for A2 frequency f2 (PLINK makes A1 the minor allele). */
static int swaps(double f2, const snp_geno_ctx_t *c) { return !c->keep_allele_order && f2 < 0.5; }

/* SNP i's rate, A2 frequency and allele order from its counts; whether A1 and A2 swapped. */
static int settle(const snp_data_t *d, int64_t i, const tally_t *t, const snp_geno_ctx_t *c, int cls)
{
	double f2;
	stats(t, c, cls, &f2, &d->rate[i]);
	int swap = swaps(f2, c);
	d->a2f[i] = swap ? 1.0 - f2 : f2;
	if (swap) {
		const char *a = d->var[i].a1;
		d->var[i].a1 = d->var[i].a2;
		d->var[i].a2 = a;
	}
	return swap;
}

/* Codes 00, 10 and 11 among the first whole words of 32 codes of row (*k codes on return). */
static inline __attribute__((always_inline)) void count_words(const uint8_t *row, int64_t n, int64_t *k, int64_t cnt[3])
{
	const uint64_t lo = 0x5555555555555555ull;
	int64_t c0 = 0, c2 = 0, c3 = 0, at = 0;
	for (; at + 32 <= n; at += 32) {
		uint64_t x;
		memcpy(&x, row + at / 4, 8);
		uint64_t l = x & lo, h = x >> 1 & lo;
		c0 += __builtin_popcountll(~(l | h) & lo), c2 += __builtin_popcountll(h & ~l), c3 += __builtin_popcountll(h & l);
	}
	cnt[0] = c0, cnt[1] = c2, cnt[2] = c3, *k = at;
}

static void count_portable(const uint8_t *row, int64_t n, int64_t *k, int64_t cnt[3]) { count_words(row, n, k, cnt); }

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("popcnt"))) static void count_popcnt(const uint8_t *row, int64_t n, int64_t *k, int64_t cnt[3])
{
	count_words(row, n, k, cnt);
}
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8
#define GENO_AVX512 1
__attribute__((target("avx512f,avx512vpopcntdq,popcnt"))) static void count_avx512(const uint8_t *row, int64_t n, int64_t *k,
                                                                                   int64_t cnt[3])
{
	count_words(row, n, k, cnt);
}
#endif

/* tally_plain's counts straight from the row's codes. */
static void tally_row_plain(const uint8_t *row, int64_t n, tally_t *t)
{
	int64_t k, cnt[3];
#ifdef GENO_AVX512
	if (cpu_has(CPUF_AVX512F | CPUF_AVX512VPOPCNTDQ)) count_avx512(row, n, &k, cnt);
	else
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (cpu_has(CPUF_POPCNT)) count_popcnt(row, n, &k, cnt);
	else
#endif
		count_portable(row, n, &k, cnt);
	for (; k < n; ++k) {
		int code = code_at(row, k);
		cnt[0] += code == 0, cnt[1] += code == 2, cnt[2] += code == 3;
	}
	memset(t, 0, sizeof *t);
	t->ll = cnt[0], t->lh = cnt[1], t->hh = cnt[2], t->nm = cnt[0] + cnt[1] + cnt[2];
}

void snp_geno_plane_counts(const snp_data_t *d, int cls, const uint64_t *p, uint32_t out[3])
{
	const uint64_t *a = p + (size_t)SNP_PA * d->nw, *b = p + (size_t)SNP_PB * d->nw, *v = p + (size_t)SNP_PV * d->nw;
	int64_t hom1 = 0, het = 0, hom2 = 0;
	for (int w = 0; w < d->nw; ++w) {
		uint64_t m = cls == SNP_CHR_X && d->male ? ~d->male[w] : ~(uint64_t)0;
		hom1 += __builtin_popcountll(b[w] & m), het += __builtin_popcountll(a[w] & ~b[w] & m);
		hom2 += __builtin_popcountll(v[w] & ~a[w] & m);
	}
	out[0] = (uint32_t)hom1, out[1] = (uint32_t)het, out[2] = (uint32_t)hom2;
}

int snp_geno_row_stats(const snp_data_t *d, int64_t i, const uint8_t *row, const snp_geno_ctx_t *c, uint64_t *scratch,
                       uint32_t geno[3])
{
	int cls = snp_chr_class(d->var[i].chr);
	if (!c->plain || cls != SNP_CHR_AUTO) {
		int hh = snp_geno_row_to(d, i, row, c, scratch, 1);
		if (geno) snp_geno_plane_counts(d, cls, scratch, geno);
		return hh;
	}
	tally_t t;
	tally_row_plain(row, c->n, &t);
	settle(d, i, &t, c, cls);
	d->full[i] = t.nm == c->n;
	if (geno) geno[0] = (uint32_t)t.ll, geno[1] = (uint32_t)t.lh, geno[2] = (uint32_t)t.hh;
	return t.flags;
}

void snp_geno_plain_counts(const snp_data_t *d, int64_t i, int64_t ll, int64_t lh, int64_t hh, const snp_geno_ctx_t *c)
{
	tally_t t = {.ll = ll, .lh = lh, .hh = hh, .nm = ll + lh + hh};
	settle(d, i, &t, c, SNP_CHR_AUTO);
	d->full[i] = t.nm == c->n;
}

double snp_geno_plain_a2f(int64_t ll, int64_t lh, int64_t hh, const snp_geno_ctx_t *c)
{
	tally_t t = {.ll = ll, .lh = lh, .hh = hh, .nm = ll + lh + hh};
	double f2, rate;
	stats(&t, c, SNP_CHR_AUTO, &f2, &rate);
	return swaps(f2, c) ? 1.0 - f2 : f2;
}

int snp_geno_row_hh(snp_data_t *d, int64_t i, const uint8_t *row, const snp_geno_ctx_t *c)
{
	int cls = snp_chr_class(d->var[i].chr);
	tally_t t;
	int plain = c->plain && cls == SNP_CHR_AUTO;
	/* the planes start unset: the decoder writes the words that hold samples, the rest are 0 */
	int64_t used = plain ? (c->n + 63) / 64 : 0;
	for (int p = 0; p < SNP_PLANES; ++p) memset(snp_plane(d, i, p) + used, 0, sizeof(uint64_t) * (size_t)(d->nw - used));
	if (plain) decode_plain(d, i, row, c), tally_plain(d, i, c, &t);
	else tally(row, c, cls, &t);
	int swap = settle(d, i, &t, c, cls);
	if (plain && swap) flip_planes(d, i);
	if (!plain) decode_cols(d, i, row, c, cls, swap);
	snp_data_set_full(d, i);
	return t.flags;
}

void snp_geno_row(snp_data_t *d, int64_t i, const uint8_t *row, const snp_geno_ctx_t *c)
{
	d->hh |= snp_geno_row_hh(d, i, row, c);
}

int snp_geno_row_to(const snp_data_t *d, int64_t i, const uint8_t *row, const snp_geno_ctx_t *c, uint64_t *planes, int stats)
{
	double a2f;
	if (!stats) return snp_geno_row_apart(d, i, row, c, planes, &a2f);
	/* a view of SNP i alone whose planes are the caller's */
	snp_data_t v = *d;
	v.w = planes, v.var = d->var + i, v.a2f = d->a2f + i, v.rate = d->rate + i, v.full = d->full + i;
	return snp_geno_row_hh(&v, 0, row, c);
}

int snp_geno_row_apart(const snp_data_t *d, int64_t i, const uint8_t *row, const snp_geno_ctx_t *c, uint64_t *planes,
                       double *a2f)
{
	/* the swap follows from the row's counts alone, so a copy holding the chromosome will do */
	snp_var_t var = {0};
	double rate;
	uint8_t full;
	var.chr = d->var[i].chr;
	snp_data_t v = *d;
	v.w = planes, v.var = &var, v.a2f = a2f, v.rate = &rate, v.full = &full;
	return snp_geno_row_hh(&v, 0, row, c);
}
