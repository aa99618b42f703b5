/* SPDX-License-Identifier: MIT */
/* The public SNP functions of gvk.h, on top of the engines. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "plink_io.h"
#include "ld_engine.h"
#include "fastid_engine.h"
#include "../common/err.h"

typedef struct {
	double *out;
	int64_t m;
	int r2;
} square_ctx_t;

static int square_sink(void *ctx, const ld_stripe_t *s, gvk_err_t *err)
{
	square_ctx_t *c = ctx;
	(void)err;
	for (int64_t i = s->i0; i < s->i1; ++i)
		for (int64_t j = 0; j < c->m; ++j) {
			double r = s->r[(size_t)(i - s->i0) * (size_t)s->width + (size_t)(j - s->cbase)];
			c->out[(size_t)i * (size_t)c->m + (size_t)j] = c->r2 && !isnan(r) ? fabs(r) : r;
		}
	return 0;
}

int gvk_ld_square(const char *bfile, int r2, int keep_allele_order, int threads, double **out, int64_t *m,
                  gvk_err_t *err)
{
	snp_data_t d = {0};
	snp_plink_opt_t po = {keep_allele_order, 0};
	int rc = snp_read_bfile(bfile, &po, &d, err);
	if (rc < 0) return rc;
	square_ctx_t c = {malloc(sizeof(double) * (size_t)d.n_snp * (size_t)d.n_snp + 1), d.n_snp, r2};
	if (!c.out) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for a %lld x %lld matrix", (long long)d.n_snp,
	                             (long long)d.n_snp);
	ld_opt_t o;
	ld_opt_init(&o);
	o.shape = LD_SQUARE;
	o.r2 = r2;
	o.threads = threads;
	if (rc == 0) rc = ld_run(&d, &o, square_sink, &c, NULL, err);
	if (rc == 0) *out = c.out, *m = d.n_snp;
	else free(c.out);
	snp_data_free(&d);
	return rc;
}

static int load(fid_prof_t *p, const uint64_t *w, size_t n, uint32_t n_snp, gvk_err_t *err)
{
	int rc = fid_prof_alloc(p, (int64_t)n, n_snp, err);
	for (size_t i = 0; i < n && rc == 0; ++i)
		memcpy(p->w + i * (size_t)p->stride, w + i * (size_t)p->nw, sizeof *w * (size_t)p->nw);
	return rc;
}

int gvk_fastid_search(const gvk_fastid_opt_t *opt, const uint64_t *queries, size_t n_q, const uint64_t *db,
                      size_t n_db, uint32_t n_snp, gvk_fastid_hit_t **top, gvk_fastid_hit_t **hits, size_t *n_hits,
                      gvk_err_t *err)
{
	fid_prof_t q = {0}, d = {0};
	fid_result_t res = {0};
	int rc = load(&q, queries, n_q, n_snp, err);
	if (rc == 0) rc = load(&d, db, n_db, n_snp, err);
	fid_job_t job = {&q, &d, opt->mixture ? PG_ANDNOT : PG_XOR, opt->topk, opt->threshold, opt->threads, GVK_ISA_AUTO,
	                 opt->device, 0};
	if (rc == 0) rc = fid_search(&job, &res, err);
	if (top) *top = NULL;
	if (hits) *hits = NULL;
	if (n_hits) *n_hits = 0;
	if (rc == 0) {
		size_t nt = (size_t)res.k * n_q;
		gvk_fastid_hit_t *t = top && nt ? malloc(sizeof *t * nt) : NULL;
		gvk_fastid_hit_t *h = hits && res.n_hits ? malloc(sizeof *h * res.n_hits) : NULL;
		if ((top && nt && !t) || (hits && res.n_hits && !h)) {
			free(t), free(h);
			rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		} else {
			for (size_t k = 0; t && k < nt; ++k) t[k] = (gvk_fastid_hit_t){res.top[k].db, res.top[k].q, res.top[k].score};
			for (size_t k = 0; h && k < res.n_hits; ++k)
				h[k] = (gvk_fastid_hit_t){res.hits[k].db, res.hits[k].q, res.hits[k].score};
			if (top) *top = t;
			if (hits) *hits = h, *n_hits = res.n_hits;
		}
	}
	fid_result_free(&res);
	fid_prof_free(&q);
	fid_prof_free(&d);
	return rc;
}
