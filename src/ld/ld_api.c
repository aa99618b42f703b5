/* SPDX-License-Identifier: MIT */
/* The public LD engine of gvk.h: options checked once, then each call loads its input into
 * snp_data_t (a PLINK fileset through plink_io.h, or an int8 genotype matrix here) and collects
 * ld_run's stripes into a matrix or a window table. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "ld_engine.h"
#include "../snp/plink_io.h"
#include "ld_gpu.h"
#include "../common/err.h"
#include "../common/threads.h"

struct gvk_ld_s {
	gvk_ld_opts_t o;
	int device;       /* the device runs ask for: CPU after an AUTO probe found no GPU */
	char name[300];
};

int ld_api_keep_allele_order(const gvk_ld_t *e) { return e->o.keep_allele_order; }
int ld_api_threads(const gvk_ld_t *e) { return e->o.threads > 0 ? e->o.threads : gvk_ncpu(); }

int ld_api_isa(const gvk_ld_t *e) { return e->o.isa; }

static snp_gpu_opt_t gpu_opt(const gvk_ld_opts_t *o);

int ld_api_gpu(const gvk_ld_t *e, snp_gpu_opt_t *g)
{
	*g = gpu_opt(&e->o);
	return e->o.device == GVK_DEVICE_GPU;
}

void gvk_ld_opts_init(gvk_ld_opts_t *o)
{
	if (!o) return;
	memset(o, 0, sizeof *o);
	o->r2 = 1;
	o->threads = 1;
	o->device = GVK_DEVICE_AUTO;
	o->isa = GVK_ISA_AUTO;
	o->gpu_path = GVK_SNP_PATH_AUTO;
	o->window_snps = 10;
	o->window_kb = 1000;
	o->window_cm = -1;
	o->window_r2 = 0.2;
	gvk_log_default(&o->log);
}

int gvk_ld_opts_check(const gvk_ld_opts_t *o, gvk_err_t *err)
{
	if (!o) return gvk_err_null(err, __func__, "o");
	if (o->r2 != 0 && o->r2 != 1) return gvk_err_set(err, GVK_ERR_ARG, "r2 must be 0 (r) or 1 (r^2), not %d", o->r2);
	const int rc = snp_opts_check(o->threads, o->device, o->isa, o->gpu, o->gpu_path, err);
	if (rc < 0) return rc;
	if (o->window_snps < 2)
		return gvk_err_set(err, GVK_ERR_ARG, "window_snps must be >= 2, not %lld", (long long)o->window_snps);
	if (!(o->window_kb >= 0)) return gvk_err_set(err, GVK_ERR_ARG, "window_kb must be >= 0, not %g", o->window_kb);
	if (isnan(o->window_cm)) return gvk_err_set(err, GVK_ERR_ARG, "window_cm is NaN (< 0: no limit)");
	if (!(o->window_r2 >= 0 && o->window_r2 <= 1))
		return gvk_err_set(err, GVK_ERR_ARG, "window_r2 must be between 0 and 1, not %g", o->window_r2);
	if (o->inter_chr != 0 && o->inter_chr != 1)
		return gvk_err_set(err, GVK_ERR_ARG, "inter_chr must be 0 or 1, not %d", o->inter_chr);
	return 0;
}

static snp_gpu_opt_t gpu_opt(const gvk_ld_opts_t *o)
{
	snp_gpu_opt_t g = {o->gpu < 0 ? 0 : o->gpu, o->gpu_path, o->gpu_mem, 0, 0, o->log};
	return g;
}

gvk_ld_t *gvk_ld_create(const gvk_ld_opts_t *o, gvk_err_t *err)
{
	if (gvk_ld_opts_check(o, err) < 0) return NULL; /* o NULL too */
	const snp_gpu_opt_t g = gpu_opt(o);
	char name[sizeof((gvk_ld_t){0}.name)];
	int device;
	gvk_ld_t *e = snp_engine_alloc(sizeof *e, &g, o->device, ld_device_name(&(ld_opt_t){.isa = o->isa}), &device, name, sizeof name, err);
	if (e) e->o = *o, e->device = device, memcpy(e->name, name, sizeof name);
	return e;
}

void gvk_ld_destroy(gvk_ld_t *e) { free(e); }

const char *gvk_ld_device_name(const gvk_ld_t *e) { return e ? e->name : "none"; }

/* ld_run's options for one call of shape. */
static void run_opts(const gvk_ld_t *e, int shape, ld_opt_t *o)
{
	ld_opt_init(o);
	o->shape = shape;
	o->r2 = e->o.r2;
	o->threads = e->o.threads > 0 ? e->o.threads : gvk_ncpu();
	o->isa = e->o.isa;
	o->device = e->device;
	o->inter_chr = e->o.inter_chr;
	o->win_snps = e->o.window_snps;
	o->win_bp = ld_window_bp(e->o.window_kb);
	o->win_cm = e->o.window_cm < 0 ? -1.0 : ld_window_cm(e->o.window_cm);
	o->gpu = gpu_opt(&e->o);
}

/* ---- inputs ---------------------------------------------------------------------------------- */

static int read_bfile(const gvk_ld_t *e, const char *prefix, snp_data_t *d, gvk_err_t *err)
{
	if (!prefix || !*prefix) return gvk_err_set(err, GVK_ERR_ARG, "the PLINK prefix is NULL or empty");
	snp_plink_opt_t po = {e->o.keep_allele_order, 0};
	int rc = snp_read_bfile(prefix, &po, d, err);
	if (rc == 0 && d->n_bits < 2)
		rc = gvk_err_set(err, GVK_ERR_ARG, "%s.fam: fewer than two founders, so there is no LD to compute", prefix);
	return rc;
}

/* Sets the plane bits of value x for SNP i, sample s; -1 when x is not a genotype. */
static int put_geno(snp_data_t *d, int64_t i, int64_t s, int8_t x)
{
	if (x < -1 || x > 2) return -1;
	if (x < 0) return 0;
	uint64_t bit = (uint64_t)1 << (s & 63);
	size_t w = (size_t)(s >> 6);
	snp_plane(d, i, SNP_PV)[w] |= bit;
	if (x >= 1) snp_plane(d, i, SNP_PA)[w] |= bit;
	if (x == 2) snp_plane(d, i, SNP_PB)[w] |= bit;
	return 0;
}

static int bad_geno(gvk_err_t *err, int64_t i, int64_t s, int8_t x)
{
	return gvk_err_set(err, GVK_ERR_ARG, "genotype %d at SNP %lld, sample %lld (values are 0, 1, 2 or -1 = missing)",
	                   (int)x, (long long)i, (long long)s);
}

static int fill_planes(snp_data_t *d, const int8_t *g, int64_t m, int64_t n, int layout, gvk_err_t *err)
{
	if (layout == GVK_GENO_SNP_MAJOR) {
		for (int64_t i = 0; i < m; ++i)
			for (int64_t s = 0; s < n; ++s)
				if (put_geno(d, i, s, g[(size_t)i * (size_t)n + (size_t)s]) < 0)
					return bad_geno(err, i, s, g[(size_t)i * (size_t)n + (size_t)s]);
	} else {
		for (int64_t s = 0; s < n; ++s)
			for (int64_t i = 0; i < m; ++i)
				if (put_geno(d, i, s, g[(size_t)s * (size_t)m + (size_t)i]) < 0)
					return bad_geno(err, i, s, g[(size_t)s * (size_t)m + (size_t)i]);
	}
	for (int64_t i = 0; i < m; ++i) snp_data_set_full(d, i);
	return 0;
}

/* The matrix as snp_data_t: planes, and variants that point at the caller's names (d lives only
 * for the call). */
static int geno_data(const int8_t *g, int64_t m, int64_t n, int layout, const char *const *chrom, const int64_t *bp,
                     snp_data_t *d, gvk_err_t *err)
{
	if (!g) return gvk_err_set(err, GVK_ERR_ARG, "geno is NULL");
	if (m < 1) return gvk_err_set(err, GVK_ERR_ARG, "n_snps must be >= 1, not %lld", (long long)m);
	if (n < 2) return gvk_err_set(err, GVK_ERR_ARG, "n_samples must be >= 2 for LD, not %lld", (long long)n);
	if (n > INT32_MAX)
		return gvk_err_set(err, GVK_ERR_ARG, "%lld samples is too many (at most 2^31 - 1)", (long long)n);
	if (layout != GVK_GENO_SNP_MAJOR && layout != GVK_GENO_SAMPLE_MAJOR)
		return gvk_err_set(err, GVK_ERR_ARG, "layout %d is not GVK_GENO_SNP_MAJOR or GVK_GENO_SAMPLE_MAJOR", layout);
	if ((uint64_t)m > SIZE_MAX / (uint64_t)n) return gvk_err_set(err, GVK_ERR_ARG, "the genotype matrix is too large");
	for (int64_t i = 0; chrom && i < m; ++i)
		if (!chrom[i]) return gvk_err_set(err, GVK_ERR_ARG, "chrom[%lld] is NULL", (long long)i);
	int rc = snp_data_alloc_planes(d, m, n, err);
	if (rc == 0 && !(d->var = calloc((size_t)m, sizeof *d->var))) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (rc < 0) return rc;
	d->n_samples = n;
	for (int64_t i = 0; i < m; ++i) {
		snp_var_t *v = &d->var[i];
		v->chr = chrom ? chrom[i] : "1";
		v->id = v->a1 = v->a2 = "";
		v->bp = bp ? bp[i] : i + 1;
	}
	return fill_planes(d, g, m, n, layout, err);
}

/* The variants' names for the result: the pointer arrays and the strings in one block (freed
 * with snps.chrom), positions in two more. */
static int copy_snps(const snp_data_t *d, gvk_ld_snps_t *s, gvk_err_t *err)
{
	size_t m = (size_t)d->n_snp, bytes = 0;
	for (size_t i = 0; i < m; ++i) {
		const snp_var_t *v = &d->var[i];
		bytes += strlen(v->chr) + strlen(v->id) + strlen(v->a1) + strlen(v->a2) + 4;
	}
	char **p = malloc(4 * m * sizeof *p + bytes + 1);
	s->bp = malloc(m * sizeof *s->bp + 1);
	s->cm = malloc(m * sizeof *s->cm + 1);
	if (!p || !s->bp || !s->cm) {
		free(p), free(s->bp), free(s->cm);
		memset(s, 0, sizeof *s);
		return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for the names of %zu SNPs", m);
	}
	s->chrom = p, s->id = p + m, s->a1 = p + 2 * m, s->a2 = p + 3 * m;
	char *q = (char *)(p + 4 * m);
	for (size_t i = 0; i < m; ++i) {
		const snp_var_t *v = &d->var[i];
		const char *src[4] = {v->chr, v->id, v->a1, v->a2};
		char **dst[4] = {&s->chrom[i], &s->id[i], &s->a1[i], &s->a2[i]};
		for (int k = 0; k < 4; ++k) {
			size_t l = strlen(src[k]) + 1;
			memcpy(q, src[k], l);
			*dst[k] = q, q += l;
		}
		s->bp[i] = v->bp, s->cm[i] = v->cm;
	}
	return 0;
}

static void free_snps(gvk_ld_snps_t *s)
{
	free(s->chrom);
	free(s->bp);
	free(s->cm);
	memset(s, 0, sizeof *s);
}

/* ---- matrices -------------------------------------------------------------------------------- */

/* Stripes hold sign(r) r^2 in r2 mode; the matrix holds r^2. */
static int matrix_sink(void *ctx, const ld_stripe_t *s, gvk_err_t *err)
{
	gvk_ld_matrix_t *mx = ctx;
	(void)err;
	for (int64_t i = s->i0; i < s->i1; ++i) {
		const double *row = s->r + (size_t)(i - s->i0) * (size_t)s->width;
		double *out = mx->r + (size_t)i * (size_t)mx->m;
		for (int64_t j = s->jlo[i - s->i0]; j < s->jhi[i - s->i0]; ++j) {
			double r = row[j - s->cbase];
			out[j] = mx->r2 && !isnan(r) ? fabs(r) : r;
		}
	}
	return 0;
}

void gvk_ld_matrix_free(gvk_ld_matrix_t *r)
{
	if (!r) return;
	free(r->r);
	free_snps(&r->snps);
	free(r);
}

static int run_matrix(gvk_ld_t *e, const snp_data_t *d, int names, gvk_ld_matrix_t **out, gvk_err_t *err)
{
	size_t m = (size_t)d->n_snp;
	if (m && m > SIZE_MAX / sizeof(double) / m)
		return gvk_err_set(err, GVK_ERR_NOMEM, "a %zu x %zu matrix does not fit in memory", m, m);
	gvk_ld_matrix_t *mx = calloc(1, sizeof *mx);
	if (!mx || !(mx->r = malloc(m * m * sizeof *mx->r + 1))) {
		gvk_ld_matrix_free(mx);
		return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for a %zu x %zu matrix", m, m);
	}
	mx->m = d->n_snp, mx->n_samples = d->n_bits, mx->r2 = e->o.r2;
	ld_opt_t o;
	run_opts(e, LD_SQUARE, &o);
	int rc = names ? copy_snps(d, &mx->snps, err) : 0;
	if (rc == 0) rc = ld_run(d, &o, matrix_sink, mx, NULL, err);
	if (rc < 0) gvk_ld_matrix_free(mx);
	else *out = mx;
	return rc;
}

int gvk_ld_matrix_bfile(gvk_ld_t *e, const char *prefix, gvk_ld_matrix_t **out, gvk_err_t *err)
{
	if (!out) return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_matrix_bfile: out is NULL");
	*out = NULL;
	if (!e) return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_matrix_bfile: the engine is NULL");
	snp_data_t d = {0};
	int rc = read_bfile(e, prefix, &d, err);
	if (rc == 0) rc = run_matrix(e, &d, 1, out, err);
	snp_data_free(&d);
	return rc;
}

int gvk_ld_matrix_geno(gvk_ld_t *e, const int8_t *geno, int64_t n_snps, int64_t n_samples, int layout,
                       gvk_ld_matrix_t **out, gvk_err_t *err)
{
	if (!out) return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_matrix_geno: out is NULL");
	*out = NULL;
	if (!e) return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_matrix_geno: the engine is NULL");
	snp_data_t d = {0};
	int rc = geno_data(geno, n_snps, n_samples, layout, NULL, NULL, &d, err);
	if (rc == 0) rc = run_matrix(e, &d, 0, out, err);
	snp_data_free(&d);
	return rc;
}

/* ---- tables ---------------------------------------------------------------------------------- */

typedef struct {
	gvk_ld_table_t *t;
	size_t cap;
	double r2_min, r_min;
} table_ctx_t;

static int table_grow(table_ctx_t *c)
{
	gvk_ld_table_t *t = c->t;
	size_t cap = c->cap ? 2 * c->cap : 4096;
	int64_t *a = realloc(t->snp_a, cap * sizeof *a);
	if (a) t->snp_a = a;
	int64_t *b = a ? realloc(t->snp_b, cap * sizeof *b) : NULL;
	if (b) t->snp_b = b;
	double *r = b ? realloc(t->r, cap * sizeof *r) : NULL;
	if (r) t->r = r, c->cap = cap;
	return r ? 0 : -1;
}

/* The pairs the .ld table would print: the writer's test (ld_write.c), r^2 against window_r2 in r2
 * mode, |r| against its square root in r mode. */
static int table_sink(void *ctx, const ld_stripe_t *s, gvk_err_t *err)
{
	table_ctx_t *c = ctx;
	gvk_ld_table_t *t = c->t;
	for (int64_t i = s->i0; i < s->i1; ++i) {
		const double *row = s->r + (size_t)(i - s->i0) * (size_t)s->width;
		for (int64_t j = s->jlo[i - s->i0]; j < s->jhi[i - s->i0]; ++j) {
			double r = row[j - s->cbase];
			if (isnan(r) || (t->r2 ? fabs(r) < c->r2_min : fabs(r) < c->r_min)) continue;
			if (t->n == c->cap && table_grow(c) < 0)
				return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for a table of %zu pairs", t->n);
			t->snp_a[t->n] = i, t->snp_b[t->n] = j;
			t->r[t->n++] = t->r2 ? fabs(r) : r;
		}
	}
	return 0;
}

void gvk_ld_table_free(gvk_ld_table_t *t)
{
	if (!t) return;
	free(t->snp_a);
	free(t->snp_b);
	free(t->r);
	free_snps(&t->snps);
	free(t);
}

static int run_table(gvk_ld_t *e, const snp_data_t *d, int names, gvk_ld_table_t **out, gvk_err_t *err)
{
	gvk_ld_table_t *t = calloc(1, sizeof *t);
	if (!t) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	t->r2 = e->o.r2, t->m = d->n_snp, t->n_samples = d->n_bits;
	table_ctx_t c = {t, 0, e->o.window_r2, sqrt(e->o.window_r2)};
	ld_opt_t o;
	run_opts(e, LD_TABLE, &o);
	int rc = names ? copy_snps(d, &t->snps, err) : 0;
	if (rc == 0) rc = ld_run(d, &o, table_sink, &c, NULL, err);
	if (rc < 0) gvk_ld_table_free(t);
	else *out = t;
	return rc;
}

int gvk_ld_table_bfile(gvk_ld_t *e, const char *prefix, gvk_ld_table_t **out, gvk_err_t *err)
{
	if (!out) return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_table_bfile: out is NULL");
	*out = NULL;
	if (!e) return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_table_bfile: the engine is NULL");
	snp_data_t d = {0};
	int rc = read_bfile(e, prefix, &d, err);
	if (rc == 0) rc = run_table(e, &d, 1, out, err);
	snp_data_free(&d);
	return rc;
}

int gvk_ld_table_geno(gvk_ld_t *e, const int8_t *geno, int64_t n_snps, int64_t n_samples, int layout,
                      const char *const *chrom, const int64_t *bp, gvk_ld_table_t **out, gvk_err_t *err)
{
	if (!out) return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_table_geno: out is NULL");
	*out = NULL;
	if (!e) return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_table_geno: the engine is NULL");
	snp_data_t d = {0};
	int rc = geno_data(geno, n_snps, n_samples, layout, chrom, bp, &d, err);
	if (rc == 0) rc = run_table(e, &d, 0, out, err);
	snp_data_free(&d);
	return rc;
}
