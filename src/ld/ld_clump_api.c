/* SPDX-License-Identifier: MIT */
/* gvk_ld_clump_*: the public face of ld_clump.c for a PLINK fileset. */
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "ld_clump.h"
#include "ld_prune.h"
#include "../snp/plink_io.h"
#include "../common/err.h"

void gvk_ld_clump_opts_init(gvk_ld_clump_opts_t *o)
{
	if (!o) return;
	memset(o, 0, sizeof *o);
	o->p1 = 1e-4, o->p2 = 0.01, o->r2 = 0.5, o->kb = 250;
}

void gvk_ld_clump_free(gvk_ld_clump_result_t *r)
{
	if (!r) return;
	for (int64_t k = 0; r->clumps && k < r->n_clumps; ++k) {
		gvk_ld_clump_t *c = &r->clumps[k];
		for (int64_t q = 0; c->members && q < c->n_members; ++q) free(c->members[q]);
		free(c->index), free(c->chr), free(c->members), free(c->member_file), free(c->member_r2);
	}
	for (int64_t k = 0; r->missing && k < r->n_missing; ++k) free(r->missing[k]);
	free(r->clumps), free(r->missing), free(r);
}

static char *dup(const char *s)
{
	char *p = malloc(strlen(s) + 1);
	return p ? strcpy(p, s) : NULL;
}

/* A comma-separated list of names as an array (pointers into *buf); NULL list: n = 0. */
static int split(const char *list, char **buf, const char ***names, int *n)
{
	*n = 0, *names = NULL, *buf = NULL;
	if (!list) return 0;
	int cnt = 1;
	for (const char *p = list; *p; ++p) cnt += *p == ',';
	*buf = dup(list);
	*names = malloc(sizeof **names * (size_t)cnt);
	if (!*buf || !*names) return -1;
	for (char *tok = *buf, *next; tok; tok = next) {
		next = strchr(tok, ',');
		if (next) *next++ = 0;
		if (*tok) (*names)[(*n)++] = tok;
	}
	return 0;
}

static int fill_clump(const snp_data_t *d, const ld_clump_result_t *cr, const ld_clump_t *c, gvk_ld_clump_t *g)
{
	const snp_var_t *v = &d->var[c->snp];
	g->index = dup(v->id), g->chr = dup(v->chr), g->bp = v->bp, g->p = c->p, g->file = c->fidx;
	for (int k = 0; k < 5; ++k) g->counts[k] = (int64_t)c->histo[k];
	g->members = calloc((size_t)c->n + 1, sizeof *g->members);
	g->member_file = malloc(sizeof *g->member_file * (size_t)(c->n + 1));
	g->member_r2 = malloc(sizeof *g->member_r2 * (size_t)(c->n + 1));
	if (!g->index || !g->chr || !g->members || !g->member_file || !g->member_r2) return -1;
	for (int64_t k = 0; k < c->n; ++k, ++g->n_members) {
		const ld_clump_member_t *m = &cr->m[c->first + k];
		if (!(g->members[k] = dup(d->var[m->snp].id))) return -1;
		g->member_file[k] = m->fidx, g->member_r2[k] = m->r2;
	}
	return 0;
}

static int fill(const snp_data_t *d, const ld_clump_input_t *in, const ld_clump_result_t *cr, gvk_ld_clump_result_t *r)
{
	r->n_top = cr->n_top;
	r->clumps = calloc((size_t)cr->n + 1, sizeof *r->clumps);
	r->missing = calloc((size_t)in->n_miss + 1, sizeof *r->missing);
	if (!r->clumps || !r->missing) return -1;
	for (int64_t k = 0; k < cr->n; ++k) {
		++r->n_clumps;
		if (fill_clump(d, cr, &cr->c[k], &r->clumps[k]) < 0) return -1;
	}
	for (int64_t k = 0; k < in->n_miss; ++k, ++r->n_missing)
		if (!(r->missing[k] = dup(in->miss[k].id))) return -1;
	return 0;
}

/* The options in ld_clump.c's terms; 0 or GVK_ERR_ARG naming the field. */
static int options(gvk_ld_t *e, const gvk_ld_clump_opts_t *o, int n_files, ld_clump_opt_t *co, gvk_err_t *err)
{
	if (!(o->kb >= 0.001)) return gvk_err_set(err, GVK_ERR_ARG, "kb: %g; give at least 0.001", o->kb);
	if (o->p2 < o->p1) return gvk_err_set(err, GVK_ERR_ARG, "p2: %g; give at least p1 (%g)", o->p2, o->p1);
	ld_clump_opt_init(co);
	co->p1 = o->p1, co->p2 = o->p2, co->r2 = o->r2, co->bp_radius = ld_clump_kb_radius(o->kb);
	co->allow_overlap = o->allow_overlap != 0, co->index_first = o->index_first != 0 && n_files > 1;
	co->threads = ld_api_threads(e);
	return ld_clump_opt_check(co, err);
}

int gvk_ld_clump_bfile(gvk_ld_t *e, const char *prefix, const char *const *files, int n_files,
                       const gvk_ld_clump_opts_t *o, gvk_ld_clump_result_t **out, gvk_err_t *err)
{
	if (!out) return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_clump_bfile: out is NULL");
	*out = NULL;
	if (!e) return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_clump_bfile: the engine is NULL");
	if (!o) return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_clump_bfile: the options o is NULL");
	if (!prefix || !*prefix) return gvk_err_set(err, GVK_ERR_ARG, "the PLINK prefix is NULL or empty");
	if (!files || n_files < 1) return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_clump_bfile: files is NULL or n_files below 1 (no association file given)");
	for (int k = 0; k < n_files; ++k)
		if (!files[k] || !*files[k]) return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_clump_bfile: files[%d] is NULL or empty", k);
	ld_clump_opt_t co;
	int rc = options(e, o, n_files, &co, err);
	if (rc < 0) return rc;
	ld_clump_fields_t f = {0};
	char *sbuf = NULL, *pbuf = NULL;
	const char **sn = NULL, **pn = NULL;
	if (split(o->snp_field, &sbuf, &sn, &f.n_snp_field) < 0 || split(o->p_field, &pbuf, &pn, &f.n_p_field) < 0)
		rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	f.snp_field = f.n_snp_field ? sn : NULL, f.p_field = f.n_p_field ? pn : NULL;
	snp_plink_opt_t so = {ld_api_keep_allele_order(e), 0};
	snp_data_t d = {0};
	snp_geno_ctx_t gc = {0};
	int64_t *row = NULL, n_rows = 0;
	char *bed = malloc(strlen(prefix) + 5);
	ld_clump_input_t in = {0};
	ld_clump_result_t cr = {0};
	gvk_ld_clump_result_t *r = calloc(1, sizeof *r);
	if (rc == 0 && (!r || !bed)) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	/* only the rows of the SNPs in the candidates' windows are read, when clumping needs them */
	if (rc == 0) rc = snp_read_bfile_rows(prefix, &so, 0, &d, &gc, &row, &n_rows, err);
	snp_bed_src_t src = {bed ? strcat(strcpy(bed, prefix), ".bed") : NULL, row, n_rows, d.n_samples, &gc, 1};
	co.src = &src;
	for (int64_t i = 1; rc == 0 && i < d.n_snp; ++i)
		if (!strcmp(d.var[i].chr, d.var[i - 1].chr) && d.var[i].bp < d.var[i - 1].bp)
			rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s.bim: variant %s is before the one above it on chromosome %s; "
			                 "clumping needs each chromosome sorted by position", prefix, d.var[i].id, d.var[i].chr);
	if (rc == 0) rc = ld_clump_read(&d, files, n_files, &f, &co, &in, err);
	if (rc == 0 && d.n_bits > 0) rc = ld_clump_run(&d, &in, &co, &cr, err);
	if (rc == 0 && fill(&d, &in, &cr, r) < 0) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (rc < 0) gvk_ld_clump_free(r);
	else *out = r;
	ld_clump_result_free(&cr);
	ld_clump_input_free(&in);
	snp_data_free(&d);
	snp_geno_ctx_free(&gc);
	free(row), free(bed);
	free(sbuf), free(pbuf), free(sn), free(pn);
	return rc;
}
