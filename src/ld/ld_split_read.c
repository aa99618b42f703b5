/* SPDX-License-Identifier: MIT */
/* A split job's reading: each process decodes only the .bed rows it computes on. The .bim and
 * .fam are read whole by every process (small); the genotypes a process decodes are its rows plus
 * the window overlap (tables) or its row and column blocks (matrices), at most two runs of SNPs,
 * into a data set of their own (the part). --mind counts are summed over the processes' rows;
 * --geno, --hwe and --maf are per SNP, so each process tests an equal share of the rows and they
 * exchange what they keep before the part is read. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ld_job_split.h"
#include "../common/err.h"
#include "../common/work_split.h"
#include "../snp/plink_io.h"
#include "../snp/snp_qc.h"
#include "../snp/snp_select.h"

int ld_split_mind(const gvk_ld_split_t *sp, const char *bed, const int64_t *src, const snp_data_t *d,
                  const snp_samples_t *ss, int64_t *miss, gvk_err_t *err)
{
	int64_t i0, i1;
	gvk_work_split(d->n_snp, sp->size, sp->rank, NULL, NULL, &i0, &i1);
	int rc = sp->agree(sp->ctx, snp_qc_mind_count(bed, src, i0, i1, d, ss, miss, err), err);
	if (rc == 0) sp->reduce(sp->ctx, miss, ss->n, GVK_LD_SPLIT_SUM);
	return rc;
}

/* A data set of d's SNPs [lo, lo + n) (and [lo2, lo2 + n2)) for decoding: the variants copied
 * (their strings stay in d's pool), their .bed rows in *src. */
static int sub_vars(const snp_data_t *d, const int64_t *src_all, const int64_t *lo, const int64_t *n, snp_data_t *s,
                    int64_t **src, gvk_err_t *err)
{
	int64_t k = n[0] + n[1];
	memset(s, 0, sizeof *s);
	s->var = malloc(sizeof *s->var * (size_t)(k + 1));
	*src = malloc(sizeof **src * (size_t)(k + 1));
	if (!s->var || !*src) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	for (int r = 0, at = 0; r < 2; ++r)
		for (int64_t i = 0; i < n[r]; ++i, ++at) s->var[at] = d->var[lo[r] + i], (*src)[at] = src_all[lo[r] + i];
	s->n_snp = k;
	s->id_width = d->id_width;
	return 0;
}

/* Decodes the runs into part (its variants with the alleles as decoded). */
static int decode_runs(const ld_split_bed_t *b, const snp_data_t *d, const int64_t *lo, const int64_t *n,
                       snp_data_t *part, gvk_err_t *err)
{
	int64_t *src = NULL;
	int rc = sub_vars(d, b->src, lo, n, part, &src, err);
	if (rc == 0) rc = snp_read_bed(b->bed, src, b->n_rows, b->n_samples, b->c, part, err);
	free(src);
	return rc;
}

/* Each process's bytes of an equal split of n items of size bytes, and their starts, for gather. */
static int equal_counts(const gvk_ld_split_t *sp, int64_t n, int64_t size, int64_t **cnt, int64_t **at)
{
	*cnt = malloc(sizeof **cnt * (size_t)sp->size), *at = malloc(sizeof **at * (size_t)sp->size);
	if (!*cnt || !*at) return -1;
	for (int r = 0; r < sp->size; ++r) {
		int64_t a, z;
		gvk_work_split(n, sp->size, r, NULL, NULL, &a, &z);
		(*cnt)[r] = (z - a) * size, (*at)[r] = a * size;
	}
	return 0;
}

/* --geno, --hwe, --maf on this process's share: keep[i] for its SNPs [i0, i1) (others untouched),
 * n[3] the SNPs each filter removed, rates[i] the genotyping rates before the filters. */
static int qc_share(const ld_split_bed_t *b, const snp_data_t *d, const ld_split_qc_t *q, int64_t i0, int64_t i1,
                    uint8_t *keep, double *rates, int64_t n[3], gvk_err_t *err)
{
	snp_data_t s;
	int64_t lo[2] = {i0, 0}, len[2] = {i1 - i0, 0};
	int64_t *pos = malloc(sizeof *pos * (size_t)(i1 - i0 + 1));
	memset(&s, 0, sizeof s);
	int rc = pos ? decode_runs(b, d, lo, len, &s, err) : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	for (int64_t i = 0; rc == 0 && i < i1 - i0; ++i) pos[i] = i0 + i, rates[i0 + i] = s.rate[i];
	/* a filter that empties this share is no error: the whole set decides */
	int64_t none = 0;
	if (rc == 0 && s.n_snp && snp_select_qc(&s, q->geno, 0.0, &n[0], &none, pos, err) < 0 && s.n_snp) rc = err->code;
	if (rc == 0 && s.n_snp && q->hwe > 0) rc = snp_qc_hwe(&s, q->hwe, q->midp, pos, &n[1], err);
	if (rc == 0 && s.n_snp && q->maf > 0 && snp_select_qc(&s, 1.0, q->maf, &none, &n[2], pos, err) < 0 && s.n_snp)
		rc = err->code;
	if (rc == 0) {
		memset(keep + i0, 0, (size_t)(i1 - i0));
		for (int64_t k = 0; k < s.n_snp; ++k) keep[pos[k]] = 1;
		err->code = 0, err->msg[0] = 0;
	}
	free(pos);
	snp_data_free(&s);
	return rc;
}

/* The one-process message of the first filter (in its order) that removed every SNP of m0. */
static int qc_none_left(const ld_split_qc_t *q, const int64_t n[3], int64_t m0, gvk_err_t *err)
{
	if (q->geno < 1 && n[0] == m0) return gvk_err_set(err, GVK_ERR_ARG, "--geno %g removed every variant", q->geno);
	if (q->hwe > 0 && n[0] + n[1] == m0) return gvk_err_set(err, GVK_ERR_ARG, "--hwe %g removed every variant", q->hwe);
	if (q->maf > 0 && n[0] + n[1] + n[2] == m0)
		return gvk_err_set(err, GVK_ERR_ARG, "--maf %g removed every variant", q->maf);
	return 0;
}

int ld_split_qc(const gvk_ld_split_t *sp, const ld_split_bed_t *b, const snp_data_t *d, const ld_split_qc_t *q,
                uint8_t *keep, double *rates, int64_t n[3], gvk_err_t *err)
{
	int64_t i0, i1, m0 = d->n_snp;
	gvk_work_split(m0, sp->size, sp->rank, NULL, NULL, &i0, &i1);
	n[0] = n[1] = n[2] = 0;
	int64_t *cnt = NULL, *at = NULL, *cnt8 = NULL, *at8 = NULL;
	int rc = equal_counts(sp, m0, 1, &cnt, &at) < 0 || equal_counts(sp, m0, sizeof *rates, &cnt8, &at8) < 0
	         ? gvk_err_set(err, GVK_ERR_NOMEM, "out of memory")
	         : 0;
	if (rc == 0) rc = qc_share(b, d, q, i0, i1, keep, rates, n, err);
	rc = sp->agree(sp->ctx, rc, err);
	if (rc == 0) {
		sp->gather(sp->ctx, keep, cnt, at);
		sp->gather(sp->ctx, rates, cnt8, at8);
		sp->reduce(sp->ctx, n, 3, GVK_LD_SPLIT_SUM);
		rc = qc_none_left(q, n, m0, err);
	}
	free(cnt), free(at), free(cnt8), free(at8);
	return rc;
}

/* The last SNP a table row i's window can reach (dir 1) or the first (dir -1), at least: the
 * engine cuts the window by its own rules inside this extent. */
static int64_t reach(const snp_data_t *d, const ld_opt_t *o, int64_t i, int dir)
{
	int64_t m = d->n_snp, j = i;
	if (o->inter_chr) return dir > 0 ? m - 1 : 0;
	for (;;) {
		int64_t k = j + dir;
		if (k < 0 || k >= m || !snp_same_chr(d, k, i)) break;
		/* a cM window goes by values the engine reads from the input: the chromosome is the bound */
		int64_t dist = d->var[k].bp > d->var[i].bp ? d->var[k].bp - d->var[i].bp : d->var[i].bp - d->var[k].bp;
		if (o->win_cm < 0 && ((k - i) * dir > o->win_snps || dist > o->win_bp)) break;
		j = k;
	}
	return j;
}

/* The runs of SNPs the tile of rows [r0, r1) x columns [c0, c1) reads: one when they overlap or
 * touch, else two in position order (so that the part's order is the set's and "column <= row"
 * holds in both). */
static void tile_runs(const ld_split_part_t *p, const snp_data_t *d, const ld_opt_t *o, int both_sides, int64_t *lo,
                      int64_t *n)
{
	int64_t r0 = p->r0, r1 = p->r1, c0 = p->c0, c1 = p->c1;
	n[0] = n[1] = lo[0] = lo[1] = 0;
	if (r1 <= r0) return;
	if (o->shape == LD_TABLE) {
		lo[0] = both_sides ? reach(d, o, r0, -1) : r0;
		n[0] = reach(d, o, r1 - 1, 1) + 1 - lo[0];
		return;
	}
	if ((o->shape == LD_TRIANGLE || o->shape == LD_SQUARE0) && c1 > r1) c1 = r1;
	if (c1 <= c0 || (c0 <= r1 && r0 <= c1)) {
		lo[0] = c1 > c0 && c0 < r0 ? c0 : r0;
		n[0] = (c1 > c0 && c1 > r1 ? c1 : r1) - lo[0];
		return;
	}
	int cols_first = c1 <= r0;
	lo[0] = cols_first ? c0 : r0, n[0] = cols_first ? c1 - c0 : r1 - r0;
	lo[1] = cols_first ? r0 : c0, n[1] = cols_first ? r1 - r0 : c1 - c0;
}

/* Every SNP of the part back into d's per-SNP entries: the alleles as decoded, frequencies, rates. */
static int merge_back(const ld_split_part_t *p, snp_data_t *d, gvk_err_t *err)
{
	int64_t m = d->n_snp;
	free(d->a2f), free(d->rate);
	d->a2f = calloc((size_t)m + 1, sizeof *d->a2f);
	d->rate = calloc((size_t)m + 1, sizeof *d->rate);
	if (!d->a2f || !d->rate) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	for (int r = 0, k = 0; r < 2; ++r)
		for (int64_t i = 0; i < p->n[r]; ++i, ++k) {
			int64_t g = p->lo[r] + i;
			d->var[g] = p->d.var[k], d->a2f[g] = p->d.a2f[k], d->rate[g] = p->d.rate[k];
		}
	d->n_bits = p->d.n_bits, d->nw = p->d.nw, d->hh |= p->d.hh;
	return 0;
}

/* Every SNP's genotyping rate into rates from the process whose rows hold it (the first column
 * block of each row block), for the log. */
static int gather_rates(const gvk_ld_split_t *sp, const ld_split_part_t *p, const snp_data_t *d, double *rates,
                        gvk_err_t *err)
{
	int64_t n = p->b == 0 ? p->r1 - p->r0 : 0, *cnt = NULL, *at = NULL;
	int rc = ld_split_spans(sp, n, p->r0, sizeof *rates, &cnt, &at, err);
	if (rc == 0) {
		if (n) memcpy(rates + p->r0, d->rate + p->r0, sizeof *rates * (size_t)n);
		sp->gather(sp->ctx, rates, cnt, at);
	}
	free(cnt), free(at);
	return rc;
}

int ld_split_read(const gvk_ld_split_t *sp, const ld_split_bed_t *b, snp_data_t *d, const ld_opt_t *o, int mode,
                  const char *path, int gz, ld_split_part_t **out, double *rates, gvk_err_t *err)
{
	ld_split_part_t *p = calloc(1, sizeof *p);
	int rc = p ? 0 : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	int shared = mode == LD_SPLIT_CHROMS ? 0 : ld_split_shared(sp, path, gz);
	if (rc == 0 && mode == LD_SPLIT_CHROMS) rc = ld_split_prune_plan(sp, d, p, err);
	else if (rc == 0) rc = ld_split_plan(sp, sp->rank, o->shape, d->n_snp, shared, p, err);
	if (rc == 0 && mode == LD_SPLIT_CHROMS) {
		p->lo[0] = p->r0, p->n[0] = p->r1 - p->r0;
		rc = decode_runs(b, d, p->lo, p->n, &p->d, err);
	} else if (rc == 0) {
		tile_runs(p, d, o, mode == LD_SPLIT_BOTH_SIDES, p->lo, p->n);
		rc = decode_runs(b, d, p->lo, p->n, &p->d, err);
	}
	if (rc == 0) rc = merge_back(p, d, err);
	rc = sp->agree(sp->ctx, rc, err);
	if (rc == 0 && rates) rc = gather_rates(sp, p, d, rates, err);
	if (rc < 0) ld_split_part_free(p), p = NULL;
	*out = p;
	return rc;
}

void ld_split_say(const gvk_ld_split_t *sp, const ld_split_part_t *p, int64_t m)
{
	if (!sp->note) return;
	char runs[96] = "", line[256];
	for (int k = 0, at = 0; k < 2; ++k)
		if (p->n[k]) at += snprintf(runs + at, sizeof runs - (size_t)at, "%s%lld-%lld", at ? ", " : "", (long long)p->lo[k] + 1,
		                            (long long)(p->lo[k] + p->n[k]));
	snprintf(line, sizeof line, "gvk ld: rank %d of %d decodes %lld of %lld SNPs (%s) for rows %lld-%lld", sp->rank,
	         sp->size, (long long)(p->n[0] + p->n[1]), (long long)m, runs[0] ? runs : "none", (long long)p->r0 + 1,
	         (long long)p->r1);
	sp->note(sp->ctx, line);
}

void ld_split_part_free(ld_split_part_t *p)
{
	if (!p) return;
	snp_data_free(&p->d);
	free(p);
}
