/* SPDX-License-Identifier: MIT */
/* The .clumped report, byte for byte as PLINK 1.9 lays it out (docs/snp.md, "Clumping"): a
 * fixed-width table with the members as ID(file) in SP2, or with verbose one block per clump
 * listing each member's distance, r^2, allele pairing, file and p. Numbers use PLINK's 3-digit
 * rounding (ld_fmt_g3). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ld_clump.h"
#include "ld_write.h"
#include "../common/err.h"
#include "../common/text_parts.h"

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

/* The rows, formatted on the threads (gvk_text_parts). */
typedef struct {
	const snp_data_t *d;
	const ld_clump_result_t *r;
	int verbose, maxsnp;
} rows_t;

static void clump_row(void *arg, int64_t k, FILE **fp)
{
	const rows_t *w = arg;
	if (w->verbose) write_verbose(fp[0], w->d, w->r, &w->r->c[k], w->maxsnp);
	else write_table_row(fp[0], w->d, w->r, &w->r->c[k], w->maxsnp);
}

int ld_clump_write(FILE *fp, const snp_data_t *d, const ld_clump_input_t *in, const ld_clump_result_t *r, int verbose,
                   int threads)
{
	int maxsnp = d->id_width ? d->id_width : ld_plink_maxsnp(d);
	if (!verbose)
		fprintf(fp, " CHR    F %*s         BP        P    TOTAL   NSIG    S05    S01   S001  S0001    SP2\n", maxsnp, "SNP");
	/* a thread a few thousand clumps: fewer rows are formatted faster than threads start */
	rows_t w = {d, r, verbose, maxsnp};
	int rc = gvk_text_parts(&fp, 1, r->n, threads, 2048, clump_row, &w);
	if (rc < 0) return rc;
	fputc('\n', fp);
	for (int64_t k = 0; verbose && k < in->n_miss; ++k) fprintf(fp, "%s not found in dataset\n", in->miss[k].id);
	fputc('\n', fp);
	return ferror(fp) ? GVK_ERR_IO : 0;
}
