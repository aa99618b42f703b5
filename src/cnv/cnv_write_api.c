/* SPDX-License-Identifier: MIT */
/* The text tables through gvk.h: the writer each table takes, the arguments checked first, and a
 * writer's failure turned into a code with a message. */
#include <stdio.h>

#include "../common/err.h"
#include "cnv_write.h"

static const char *const suffixes[GVK_CNV_N_TABLES] = {
	[GVK_CNV_TABLE_NORMALIZED] = ".normalized.tsv",
	[GVK_CNV_TABLE_INI] = ".INI.tsv",
	[GVK_CNV_TABLE_SINI] = ".sINI.tsv",
	[GVK_CNV_TABLE_REGION_CN] = ".region_CN.tsv",
	[GVK_CNV_TABLE_LAMBDA] = ".lambda.tsv",
	[GVK_CNV_TABLE_ALPHA] = ".alpha.tsv",
	[GVK_CNV_TABLE_SEG_STAT] = ".seg_stat.tsv",
	[GVK_CNV_TABLE_INDIVIDUAL_CALL] = ".individualCall.tsv",
	[GVK_CNV_TABLE_NORM_FACTORS] = ".normalization_factors.tsv",
	[GVK_CNV_TABLE_PARAMS] = ".params.tsv",
	[GVK_CNV_TABLE_SEG_PARAMS] = ".seg_params.tsv",
	[GVK_CNV_TABLE_POSTERIOR] = ".posterior.tsv",
};

const char *gvk_cnv_table_suffix(int table)
{
	return table >= 0 && table < GVK_CNV_N_TABLES ? suffixes[table] : NULL;
}

int cnv_result_check(const char *fn, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r, const gvk_cnv_opts_t *o,
                     gvk_err_t *err)
{
	if (r->m != c->m || r->N != c->N)
		return gvk_err_set(err, GVK_ERR_ARG, "%s: the result is of %d regions x %d samples, the counts %d x %d", fn,
		                   r->m, r->N, c->m, c->N);
	if (r->n < 2 || r->n > GVK_CNV_MAX_CLASSES)
		return gvk_err_set(err, GVK_ERR_ARG, "%s: the result has %d classes (2 to %d)", fn, r->n, GVK_CNV_MAX_CLASSES);
	if (!o) return 0;
	int rc = gvk_cnv_opts_check(o, err);
	if (rc == 0 && o->n_classes != r->n)
		rc = gvk_err_set(err, GVK_ERR_ARG, "%s: the options have %d classes, the result %d", fn, o->n_classes, r->n);
	return rc;
}

/* A --regions table of one column per sample, or per class (lambda, alpha). */
static int region_table(FILE *fp, int table, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r)
{
	static const char *const ini[1] = {"INI"};
	switch (table) {
	case GVK_CNV_TABLE_NORMALIZED: return cnv_write_regions(fp, c, r->norm, NULL, c->N, NULL);
	case GVK_CNV_TABLE_INI: return cnv_write_regions(fp, c, r->ini, NULL, 1, ini);
	case GVK_CNV_TABLE_SINI: return cnv_write_regions(fp, c, r->sini, NULL, c->N, NULL);
	case GVK_CNV_TABLE_REGION_CN: return cnv_write_regions(fp, c, NULL, r->cls, c->N, NULL);
	case GVK_CNV_TABLE_SEG_STAT: return cnv_write_regions(fp, c, r->seg_stat, NULL, c->N, NULL);
	case GVK_CNV_TABLE_INDIVIDUAL_CALL: return cnv_write_regions(fp, c, r->call, NULL, c->N, NULL);
	default: break;
	}
	int lambda = table == GVK_CNV_TABLE_LAMBDA;
	char text[GVK_CNV_MAX_CLASSES][24];
	const char *names[GVK_CNV_MAX_CLASSES];
	for (int i = 0; i < r->n; ++i)
		snprintf(text[i], sizeof text[i], "%s_CN%d", lambda ? "lambda" : "alpha", i), names[i] = text[i];
	return cnv_write_regions(fp, c, lambda ? r->lambda : r->alpha, NULL, r->n, names);
}

static int write_one(FILE *fp, int table, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r, const gvk_cnv_opts_t *o)
{
	switch (table) {
	case GVK_CNV_TABLE_CNVS: return cnv_write_segments(fp, c, r, 1);
	case GVK_CNV_TABLE_SEGMENTS: return cnv_write_segments(fp, c, r, 0);
	case GVK_CNV_TABLE_CNVR: return cnv_write_cnvr(fp, c, r);
	case GVK_CNV_TABLE_CALLS_BED: return cnv_write_calls_bed(fp, c, r);
	case GVK_CNV_TABLE_SEG: return cnv_write_seg(fp, c, r);
	case GVK_CNV_TABLE_NORM_FACTORS: return cnv_write_norm_factors(fp, c, r);
	case GVK_CNV_TABLE_PARAMS: return cnv_write_params(fp, o, r);
	case GVK_CNV_TABLE_SEG_PARAMS: return cnv_write_seg_params(fp, c, r);
	case GVK_CNV_TABLE_POSTERIOR: return cnv_write_posterior(fp, c, r);
	default: return region_table(fp, table, c, r);
	}
}

/* A writer's status as gvk.h words it. */
static int written(int rc, gvk_err_t *err)
{
	if (rc == GVK_ERR_NOMEM) return gvk_err_set(err, rc, "out of memory for the table");
	return rc < 0 ? gvk_err_set(err, GVK_ERR_IO, "write error") : 0;
}

int gvk_cnv_write_table(FILE *fp, int table, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r,
                        const gvk_cnv_opts_t *o, gvk_err_t *err)
{
	if (!fp || !c || !r) return gvk_err_null(err, __func__, !fp ? "fp" : !c ? "c" : "r");
	if (table < 0 || table >= GVK_CNV_N_TABLES)
		return gvk_err_set(err, GVK_ERR_ARG, "%s: unknown table %d", __func__, table);
	if (table == GVK_CNV_TABLE_PARAMS && !o) return gvk_err_null(err, __func__, "o");
	int rc = cnv_result_check(__func__, c, r, o, err);
	if (rc == 0 && table == GVK_CNV_TABLE_POSTERIOR && !r->post)
		rc = gvk_err_set(err, GVK_ERR_ARG, "%s: the result has no posteriors (run with keep_posterior 1)", __func__);
	return rc < 0 ? rc : written(write_one(fp, table, c, r, o), err);
}

int gvk_cnv_counts_write(FILE *fp, const gvk_cnv_counts_t *c, gvk_err_t *err)
{
	if (!fp || !c) return gvk_err_null(err, __func__, !fp ? "fp" : "c");
	return written(cnv_write_counts(fp, c), err);
}
