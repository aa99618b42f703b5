/* SPDX-License-Identifier: MIT */
/* PREFIX.clumped as PLINK 1.9 writes it: fixed-width columns (the SNP column as wide as PLINK's
 * widest ID), p with 3 significant digits, members as ID(file), two blank lines at the end. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ld_clump.h"
#include "ld_write.h"

/* Half-to-even with PLINK's tie band of +-5e-9 on the scaled value (ld_fmt.c). */
static int64_t bround(double x)
{
	int64_t r = (int64_t)x;
	return r + (int64_t)((x - (double)r) + ((r & 1) ? 0.500000005 : 0.499999995));
}

int clump_fmt_p(char *s, double p)
{
	if (isnan(p)) return (int)(memcpy(s, "nan", 4), 3);
	if (p <= 0) return (int)(memcpy(s, "0", 2), 1);
	int xp = (int)floor(log10(p));
	/* three digits: p scaled into [100, 1000) in two steps, so no power of ten overflows */
	double x = p * pow(10.0, (2 - xp) / 2) * pow(10.0, (2 - xp) - (2 - xp) / 2);
	if (x < 99.9999995) x *= 10, --xp;
	else if (x >= 999.9999995) x /= 10, ++xp;
	int64_t r = bround(x);
	if (r >= 1000) r /= 10, ++xp;
	char dg[3] = {(char)('0' + r / 100), (char)('0' + r / 10 % 10), (char)('0' + r % 10)};
	int nd = 3, n = 0;
	while (nd > 1 && dg[nd - 1] == '0') --nd;
	if (xp < -4 || xp >= 3) {
		s[n++] = dg[0];
		if (nd > 1) s[n++] = '.', memcpy(s + n, dg + 1, (size_t)nd - 1), n += nd - 1;
		int e = xp < 0 ? -xp : xp;
		s[n++] = 'e', s[n++] = xp < 0 ? '-' : '+';
		if (e >= 100) s[n++] = (char)('0' + e / 100);
		s[n++] = (char)('0' + e / 10 % 10), s[n++] = (char)('0' + e % 10);
	} else if (xp < 0) {
		s[n++] = '0', s[n++] = '.';
		for (int k = -1; k > xp; --k) s[n++] = '0';
		memcpy(s + n, dg, (size_t)nd), n += nd;
	} else {
		memcpy(s, dg, (size_t)xp + 1), n = xp + 1;
		if (nd > n) s[n++] = '.', memcpy(s + n, dg + xp + 1, (size_t)(nd - xp - 1)), n += nd - xp - 1;
	}
	s[n] = 0;
	return n;
}

int clump_write(FILE *fp, const snp_data_t *d, const clump_recs_t *recs, const clump_result_t *res)
{
	int w = ld_plink_maxsnp(d);
	fprintf(fp, " CHR    F %*s         BP        P    TOTAL   NSIG    S05    S01   S001  S0001    SP2\n", w, "SNP");
	for (int64_t k = 0; k < res->n; ++k) {
		const clump_t *c = &res->c[k];
		const clump_rec_t *x = &recs->rec[c->index];
		const snp_var_t *v = &d->var[x->var];
		char p[32];
		clump_fmt_p(p, x->p);
		fprintf(fp, "%4s %4d %*s %10lld %10s %8lld", v->chr, x->file, w, v->id, (long long)v->bp, p, (long long)c->total);
		for (int b = 0; b < CLUMP_BINS; ++b) fprintf(fp, " %6lld", (long long)c->bins[b]);
		if (!c->nm) fputs(" NONE", fp);
		for (int64_t q = 0; q < c->nm; ++q) {
			const clump_rec_t *y = &recs->rec[res->member[c->m0 + q]];
			fprintf(fp, "%c%s(%d)", q ? ',' : ' ', d->var[y->var].id, y->file);
		}
		fputc('\n', fp);
	}
	fputs("\n\n", fp);
	return ferror(fp) ? -1 : 0;
}
