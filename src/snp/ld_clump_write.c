/* SPDX-License-Identifier: MIT */
/* The .clumped report, byte for byte as PLINK 1.9 lays it out (docs/snp.md, "Clumping"): a
 * fixed-width table with the members as ID(file) in SP2, or with verbose one block per clump
 * listing each member's distance, r^2, allele pairing, file and p. Numbers use PLINK's 3-digit
 * rounding (half to even within a band of 5e-12 of a tie). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ld_clump.h"
#include "ld_write.h"
#include "../common/err.h"

/* Half-to-even rounding with PLINK's tie band for 3-digit output. */
static uint32_t bround3(double x)
{
	uint32_t r = (uint32_t)(int32_t)x;
	return r + (uint32_t)(int32_t)((x - (double)(int32_t)r) + ((r & 1) ? 0.500000000005 : 0.499999999995));
}

/* q in [100, 999] as d.dd without trailing zeros. */
static int put_1p2(char *s, uint32_t q)
{
	int n = 0;
	s[n++] = (char)('0' + q / 100);
	q %= 100;
	if (!q) return n;
	s[n++] = '.', s[n++] = (char)('0' + q / 10);
	if (q % 10) s[n++] = (char)('0' + q % 10);
	return n;
}

/* v in [1, 10) after scaling by 10^xp (sign given), as mantissa and exponent. */
static int put_exp3(char *s, double v, char sign, int xp)
{
	int n = put_1p2(s, bround3(v * 100));
	s[n++] = 'e', s[n++] = sign;
	if (xp >= 100) s[n++] = (char)('0' + xp / 100), xp %= 100;
	s[n++] = (char)('0' + xp / 10), s[n++] = (char)('0' + xp % 10);
	return n;
}

static const int xbits[] = {256, 128, 64, 32, 16, 8, 4, 2, 1};

static int small3(char *s, double v)
{
	static const double up[] = {1e256, 1e128, 1e64, 1e32, 1e16, 1e8, 1e4, 100, 10};
	static const double below[] = {9.9949999999999e-256, 9.9949999999999e-128, 9.9949999999999e-64, 9.9949999999999e-32,
	                               9.9949999999999e-16, 9.9949999999999e-8, 9.9949999999999e-4, 9.9949999999999e-2,
	                               9.9949999999999e-1};
	int xp = 0;
	if (v < below[4]) {
		if (v < below[1]) {
			int k = v < below[0] ? 0 : 1;
			v *= up[k], xp |= xbits[k];
		}
		for (int k = 2; k < 5; ++k)
			if (v < below[k]) v *= up[k], xp |= xbits[k];
	}
	for (int k = 5; k < 9; ++k)
		if (v < below[k]) v *= up[k], xp |= xbits[k];
	return put_exp3(s, v, '-', xp);
}

static int large3(char *s, double v)
{
	static const double down[] = {1e-256, 1e-128, 1e-64, 1e-32, 1e-16, 1e-8, 1e-4, 1e-2, 1e-1};
	static const double from[] = {9.9949999999999e255, 9.9949999999999e127, 9.9949999999999e63, 9.9949999999999e31,
	                              9.9949999999999e15, 9.9949999999999e7, 9.9949999999999e3, 9.9949999999999e1,
	                              9.9949999999999e0};
	int xp = 0;
	if (v >= from[4]) {
		if (v >= from[1]) {
			int k = v >= from[0] ? 0 : 1;
			v *= down[k], xp |= xbits[k];
		}
		for (int k = 2; k < 5; ++k)
			if (v >= from[k]) v *= down[k], xp |= xbits[k];
	}
	for (int k = 5; k < 9; ++k)
		if (v >= from[k]) v *= down[k], xp |= xbits[k];
	return put_exp3(s, v, '+', xp);
}

/* 0.9995 <= v < 999.5. */
static int mid3(char *s, double v)
{
	if (v < 9.9949999999999) return put_1p2(s, bround3(v * 100));
	if (v < 99.949999999999) {
		uint32_t q = bround3(v * 10);
		int n = snprintf(s, 8, "%02u", q / 10);
		if (q % 10) s[n++] = '.', s[n++] = (char)('0' + q % 10);
		return n;
	}
	return snprintf(s, 8, "%03u", bround3(v));
}

/* v < 0.9995: "0.", zeros, up to three digits. */
static int frac3(char *s, double v)
{
	int n = 2;
	memcpy(s, "0.", 2);
	if (v < 9.9949999999999e-3) v *= 100, s[n++] = '0', s[n++] = '0';
	if (v < 9.9949999999999e-2) v *= 10, s[n++] = '0';
	uint32_t q = bround3(v * 1000);
	s[n++] = (char)('0' + q / 100);
	q %= 100;
	if (q) {
		s[n++] = (char)('0' + q / 10);
		if (q % 10) s[n++] = (char)('0' + q % 10);
	}
	return n;
}

int ld_fmt_g3(char *s, double v, int w)
{
	char b[40];
	int n = 0;
	if (isnan(v)) n = 3, memcpy(b, "nan", 3);
	else {
		if (v < 0) b[n++] = '-', v = -v;
		if (v == 0.0) b[n++] = '0';
		else if (isinf(v)) memcpy(b + n, "inf", 3), n += 3;
		else if (v < 9.9949999999999e-5) n += small3(b + n, v);
		else if (v >= 999.49999999999) n += large3(b + n, v);
		else if (v >= 0.99949999999999) n += mid3(b + n, v);
		else n += frac3(b + n, v);
	}
	int pad = w > n ? w - n : 0;
	memset(s, ' ', (size_t)pad);
	memcpy(s + pad, b, (size_t)n);
	s[pad + n] = 0;
	return pad + n;
}

/* The text of one clumped row up to its SP2 column. */
static void row_head(FILE *fp, const snp_data_t *d, const ld_clump_t *c, int maxsnp)
{
	const snp_var_t *v = &d->var[c->snp];
	char num[64];
	uint64_t tot = 0;
	for (int k = 0; k < 5; ++k) tot += c->histo[k];
	ld_fmt_g3(num, c->p, 10);
	fprintf(fp, "%4s %4d %*s %10lld %s %8llu ", v->chr, c->fidx, maxsnp, v->id, (long long)v->bp, num,
	        (unsigned long long)tot);
	for (int k = 0; k < 5; ++k) fprintf(fp, "%6llu ", (unsigned long long)c->histo[k]);
}

static void write_table_row(FILE *fp, const snp_data_t *d, const ld_clump_result_t *r, const ld_clump_t *c, int maxsnp)
{
	row_head(fp, d, c, maxsnp);
	if (!c->n) {
		fputs("NONE\n", fp);
		return;
	}
	for (int64_t k = 0; k < c->n; ++k) {
		const ld_clump_member_t *m = &r->m[c->first + k];
		fprintf(fp, "%s(%d)%s", d->var[m->snp].id, m->fidx, k + 1 < c->n ? "," : "");
	}
	fputc('\n', fp);
}

/* "chr" and the code, or a contig's own name. */
static void range_chr(FILE *fp, const char *chr)
{
	char *end;
	strtol(chr, &end, 10);
	fprintf(fp, "%s%s", *end || end == chr ? "" : "chr", chr);
}

/* PLINK's allele pair column: index A1 with the member's allele on the same haplotype, then A2
 * with the other, right-aligned in 8 when short. */
static void alleles(FILE *fp, const snp_var_t *iv, const snp_var_t *jv, double r2)
{
	const char *x = r2 > 0 ? jv->a1 : jv->a2, *y = r2 > 0 ? jv->a2 : jv->a1;
	int len = (int)(strlen(iv->a1) + strlen(iv->a2) + strlen(x) + strlen(y)) + 1;
	if (strlen(iv->a1) + strlen(iv->a2) < 5 && len < 8) fprintf(fp, "%*s", 8 - len, "");
	fprintf(fp, "%s%s/%s%s", iv->a1, x, iv->a2, y);
}

static void write_verbose(FILE *fp, const snp_data_t *d, const ld_clump_result_t *r, const ld_clump_t *c, int maxsnp)
{
	const snp_var_t *iv = &d->var[c->snp];
	char num[64], num2[64];
	fprintf(fp, "\n CHR    F %*s         BP          P    TOTAL   NSIG    S05    S01   S001  S0001\n", maxsnp, "SNP");
	row_head(fp, d, c, maxsnp);
	fputc('\n', fp);
	if (c->n) {
		int64_t lo = iv->bp, hi = iv->bp;
		const ld_clump_member_t *mf = &r->m[c->first], *ml = &r->m[c->first + c->n - 1];
		if (mf->snp < c->snp) lo = d->var[mf->snp].bp;
		if (ml->snp > c->snp) hi = d->var[ml->snp].bp;
		fprintf(fp, "\n%*sKB      RSQ  ALLELES    F            P \n  (INDEX) ", 19 + maxsnp, "");
		ld_fmt_g3(num, c->p, 12);
		size_t a1 = strlen(iv->a1);
		fprintf(fp, "%*s          0    1.000 %*s%s %4d %s \n\n", maxsnp, iv->id, a1 < 8 ? (int)(8 - a1) : 0, "", iv->a1,
		        c->fidx, num);
		for (int64_t k = 0; k < c->n; ++k) {
			const ld_clump_member_t *m = &r->m[c->first + k];
			const snp_var_t *jv = &d->var[m->snp];
			ld_fmt_g3(num, (double)((int32_t)jv->bp - (int32_t)iv->bp) * 0.001, 10);
			ld_fmt_g3(num2, fabs(m->r2), 8);
			fprintf(fp, "%10s%*s %s %s ", "", maxsnp, jv->id, num, num2);
			alleles(fp, iv, jv, m->r2);
			ld_fmt_g3(num, m->p, 12);
			fprintf(fp, " %4d %s \n", m->fidx, num);
		}
		fputs("\n          RANGE: ", fp);
		range_chr(fp, iv->chr);
		fprintf(fp, ":%lld..%lld\n           SPAN: %lldkb\n", (long long)lo, (long long)hi, (long long)((hi - lo + 1) / 1000));
	}
	fputs("\n------------------------------------------------------------------\n\n", fp);
}

int ld_clump_write(FILE *fp, const snp_data_t *d, const ld_clump_input_t *in, const ld_clump_result_t *r, int verbose)
{
	int maxsnp = d->id_width ? d->id_width : ld_plink_maxsnp(d);
	if (!verbose)
		fprintf(fp, " CHR    F %*s         BP        P    TOTAL   NSIG    S05    S01   S001  S0001    SP2\n", maxsnp, "SNP");
	for (int64_t k = 0; k < r->n; ++k) {
		if (verbose) write_verbose(fp, d, r, &r->c[k], maxsnp);
		else write_table_row(fp, d, r, &r->c[k], maxsnp);
	}
	fputc('\n', fp);
	for (int64_t k = 0; verbose && k < in->n_miss; ++k) fprintf(fp, "%s not found in dataset\n", in->miss[k].id);
	fputc('\n', fp);
	return ferror(fp) ? -1 : 0;
}
