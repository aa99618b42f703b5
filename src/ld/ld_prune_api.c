/* SPDX-License-Identifier: MIT */
/* gvk_ld_prune_*: the public face of ld_prune.c for a PLINK fileset. */
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "ld_prune.h"
#include "../snp/plink_io.h"
#include "../snp/snp_gpu.h"
#include "../common/err.h"

void gvk_ld_prune_opts_init(gvk_ld_prune_opts_t *o)
{
	if (!o) return;
	memset(o, 0, sizeof *o);
	o->window = 50, o->step = 5, o->r2 = 0.2;
}

void gvk_ld_prune_free(gvk_ld_prune_result_t *r)
{
	if (!r) return;
	for (int64_t k = 0; r->kept && k < r->n_kept; ++k) free(r->kept[k]);
	for (int64_t k = 0; r->removed && k < r->n_removed; ++k) free(r->removed[k]);
	free(r->kept);
	free(r->removed);
	free(r);
}

/* The lists of a pruned d, in PLINK's order. */
static int lists(const snp_data_t *d, const uint8_t *pruned, const uint8_t *skip, gvk_ld_prune_result_t *r,
                 gvk_err_t *err)
{
	int64_t m = d->n_snp, *order = malloc(sizeof *order * (size_t)(m + 1));
	r->kept = calloc((size_t)m + 1, sizeof *r->kept);
	r->removed = calloc((size_t)m + 1, sizeof *r->removed);
	if (!order || !r->kept || !r->removed) return free(order), gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	ld_prune_order(d, order);
	int rc = 0;
	for (int64_t k = 0; k < m && rc == 0; ++k) {
		int64_t i = order[k];
		if (skip[i]) continue;
		char *id = malloc(strlen(d->var[i].id) + 1);
		if (!id) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		else if (pruned[i]) r->removed[r->n_removed++] = strcpy(id, d->var[i].id);
		else r->kept[r->n_kept++] = strcpy(id, d->var[i].id);
	}
	free(order);
	return rc;
}

int gvk_ld_prune_bfile(gvk_ld_t *e, const char *prefix, const gvk_ld_prune_opts_t *o, gvk_ld_prune_result_t **out,
                       gvk_err_t *err)
{
	if (!out) return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_prune_bfile: out is NULL");
	*out = NULL;
	if (!e) return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_prune_bfile: the engine is NULL");
	if (!o) return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_prune_bfile: the options o is NULL");
	if (!prefix || !*prefix) return gvk_err_set(err, GVK_ERR_ARG, "the PLINK prefix is NULL or empty");
	ld_prune_opt_t po = {.win = o->window, .kb = o->window_kb != 0, .step = o->step, .r2 = o->r2, .threads = ld_api_threads(e),
	                     .isa = ld_api_isa(e), .mode = o->mode};
	int rc = ld_prune_opt_check(&po, err);
	if (rc < 0) return rc;
	snp_plink_opt_t so = {ld_api_keep_allele_order(e), 0};
	snp_data_t d = {0};
	snp_geno_ctx_t c = {0};
	int64_t *row = NULL, n_rows = 0;
	uint8_t *pruned = NULL, *skip = NULL;
	char *bed = malloc(strlen(prefix) + 5);
	gvk_ld_prune_result_t *r = calloc(1, sizeof *r);
	if (!r || !bed) return free(r), free(bed), gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	/* no filter needs the statistics first: each row is read once, as its SNP enters a window */
	rc = snp_read_bfile_rows(prefix, &so, 0, &d, &c, &row, &n_rows, err);
	snp_bed_src_t src = {strcat(strcpy(bed, prefix), ".bed"), row, n_rows, d.n_samples, &c, 1};
	po.src = &src;
	if (rc == 0 && d.n_bits < 2)
		rc = gvk_err_set(err, GVK_ERR_ARG, "%s.fam: fewer than two founders, so there is no LD to prune by", prefix);
	for (int64_t i = 1; rc == 0 && i < d.n_snp; ++i)
		if (!strcmp(d.var[i].chr, d.var[i - 1].chr) && d.var[i].bp < d.var[i - 1].bp)
			rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s.bim: variant %s is before the one above it on chromosome %s; "
			                 "pruning needs each chromosome sorted by position", prefix, d.var[i].id, d.var[i].chr);
	if (rc == 0 && (!(pruned = malloc((size_t)d.n_snp + 1)) || !(skip = malloc((size_t)d.n_snp + 1))))
		rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	snp_gpu_opt_t go;
	if (rc == 0 && ld_api_gpu(e, &go) && po.mode != LD_PRUNE_VIF && !(po.gpu = snp_gpu_open(&go, err))) rc = err ? err->code : GVK_ERR_GPU;
	if (rc == 0) rc = ld_prune_pairwise(&d, &po, pruned, skip, NULL, err);
	snp_gpu_close(po.gpu);
	if (rc == 0) rc = lists(&d, pruned, skip, r, err);
	if (rc < 0) gvk_ld_prune_free(r);
	else *out = r;
	free(pruned), free(skip), free(bed), free(row);
	snp_geno_ctx_free(&c);
	snp_data_free(&d);
	return rc;
}
