/* SPDX-License-Identifier: MIT */
/* Text is formatted into a buffer per stripe and written with one fwrite; formatting dominates
 * the run time of large tables, as it does in PLINK. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ld_write.h"
#include "../common/err.h"
#ifdef GVK_HAVE_ZLIB
#include <zlib.h>
#endif

int ld_plink_maxsnp(const snp_data_t *d)
{
	if (d->id_width) return d->id_width;
	/* Grows to two more than the first ID longer than the current width, in file order. */
	size_t w = 4;
	for (int64_t i = 0; i < d->n_snp; ++i) {
		size_t l = strlen(d->var[i].id);
		if (l > w) w = l + 2;
	}
	return (int)w;
}

static int reserve(ld_writer_t *w, size_t more)
{
	if (w->len + more <= w->cap) return 0;
	size_t cap = (w->len + more) * 2 + 65536;
	char *b = realloc(w->buf, cap);
	if (!b) return -1;
	w->buf = b;
	w->cap = cap;
	return 0;
}

static void put(ld_writer_t *w, const char *fmt, ...) GVK_PRINTF(2, 3);
static void put(ld_writer_t *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(w->buf + w->len, w->cap - w->len, fmt, ap);
	va_end(ap);
	if (n > 0) w->len += (size_t)n < w->cap - w->len ? (size_t)n : w->cap - w->len - 1;
}

#ifdef GVK_HAVE_ZLIB
/* Compresses the buffer into the output (gzip container), finishing the stream when fin. */
static int deflate_out(ld_writer_t *w, int fin, gvk_err_t *err)
{
	z_stream *z = w->zs;
	unsigned char out[1 << 16];
	z->next_in = (unsigned char *)w->buf;
	z->avail_in = (uInt)w->len;
	int r;
	do {
		z->next_out = out;
		z->avail_out = sizeof out;
		r = deflate(z, fin ? Z_FINISH : Z_NO_FLUSH);
		if (r == Z_STREAM_ERROR) return gvk_err_set(err, GVK_ERR_IO, "compression error");
		size_t n = sizeof out - z->avail_out;
		if (n && fwrite(out, 1, n, w->fp) != n) return gvk_err_set(err, GVK_ERR_IO, "write error");
	} while (z->avail_out == 0 || (fin && r != Z_STREAM_END));
	w->len = 0;
	return 0;
}
#endif

static int flush(ld_writer_t *w, gvk_err_t *err)
{
#ifdef GVK_HAVE_ZLIB
	if (w->zs) return deflate_out(w, 0, err);
#endif
	if (w->len && fwrite(w->buf, 1, w->len, w->fp) != w->len) return gvk_err_set(err, GVK_ERR_IO, "write error");
	w->len = 0;
	return 0;
}

int ld_writer_finish(ld_writer_t *w, gvk_err_t *err)
{
#ifdef GVK_HAVE_ZLIB
	if (w->zs) return deflate_out(w, 1, err);
#endif
	return flush(w, err);
}

int ld_writer_gz_available(void)
{
#ifdef GVK_HAVE_ZLIB
	return 1;
#else
	return 0;
#endif
}

int ld_writer_init(ld_writer_t *w, gvk_err_t *err)
{
	const snp_data_t *d = w->d;
	w->maxsnp = ld_plink_maxsnp(d);
	if (w->gz) {
#ifdef GVK_HAVE_ZLIB
		z_stream *z = calloc(1, sizeof *z);
		if (!z || deflateInit2(z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
			free(z);
			return gvk_err_set(err, GVK_ERR_NOMEM, "cannot start gzip compression");
		}
		w->zs = z;
#else
		return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "built without zlib, so the 'gz' modifier is not available");
#endif
	}
	if (w->shape == LD_TABLE) {
		/* "CHR BP SNP" of every variant, formatted once; a plain row is then two copies and a number. */
		w->pre_len = 6 + 1 + 12 + 1 + (size_t)w->maxsnp;
		size_t longest = w->pre_len;
		for (int64_t i = 0; i < d->n_snp; ++i) {
			size_t l = strlen(d->var[i].chr) + strlen(d->var[i].id) + 40;
			if (l > longest) longest = l;
		}
		w->pre_len = longest;
		w->pre = malloc(w->pre_len * (size_t)d->n_snp + 1);
		w->pre_n = malloc(sizeof *w->pre_n * (size_t)(d->n_snp + 1));
		if (!w->pre || !w->pre_n) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		for (int64_t i = 0; i < d->n_snp; ++i)
			w->pre_n[i] = snprintf(w->pre + (size_t)i * w->pre_len, w->pre_len, "%6s %12lld %*s", d->var[i].chr,
			                       (long long)d->var[i].bp, w->maxsnp, d->var[i].id);
	}
	w->r_min = sqrt(w->r2_min);
	if (reserve(w, 4096) < 0) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (w->with_freqs) {
		w->maf = malloc(sizeof *w->maf * (size_t)(d->n_snp + 1));
		if (!w->maf) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		for (int64_t i = 0; i < d->n_snp; ++i) {
			if (d->a2f) {
				/* PLINK prints one minus the A2 frequency it keeps: the A1 frequency */
				w->maf[i] = 1.0 - d->a2f[i];
				continue;
			}
			const uint64_t *a = snp_plane(d, i, SNP_PA), *b = snp_plane(d, i, SNP_PB), *v = snp_plane(d, i, SNP_PV);
			int64_t ca = 0, cv = 0;
			for (int k = 0; k < d->nw; ++k)
				ca += __builtin_popcountll(a[k]) + __builtin_popcountll(b[k]), cv += __builtin_popcountll(v[k]);
			int64_t chroms = d->phased ? cv : 2 * cv;
			double f = chroms ? (double)ca / (double)chroms : 0.0;
			w->maf[i] = f < 1.0 - f ? f : 1.0 - f;
		}
	}
	if (w->shape != LD_TABLE) return 0;
	put(w, "%6s %12s %*s", "CHR_A", "BP_A", w->maxsnp, "SNP_A");
	if (w->with_freqs) put(w, " %10s", "MAF_A");
	put(w, " %6s %12s %*s", "CHR_B", "BP_B", w->maxsnp, "SNP_B");
	if (w->in_phase) put(w, " %10s", "PHASE");
	if (w->with_freqs) put(w, " %10s", "MAF_B");
	put(w, " %12s", w->r2 ? "R2" : "R");
	if (w->dcol) put(w, " %12s", "D");
	if (w->dprime) put(w, " %12s", "DP");
	put(w, " \n");
	return flush(w, err);
}

void ld_writer_free(ld_writer_t *w)
{
#ifdef GVK_HAVE_ZLIB
	if (w->zs) deflateEnd(w->zs);
	free(w->zs);
	w->zs = NULL;
#endif
	free(w->pre);
	free(w->pre_n);
	w->pre = NULL;
	w->pre_n = NULL;
	free(w->maf);
	free(w->buf);
	w->maf = NULL;
	w->buf = NULL;
}

static void table_row_plain(ld_writer_t *w, int64_t i, int64_t j, double r)
{
	char num[32], *p = w->buf + w->len;
	memcpy(p, w->pre + (size_t)i * w->pre_len, (size_t)w->pre_n[i]), p += w->pre_n[i];
	*p++ = ' ';
	memcpy(p, w->pre + (size_t)j * w->pre_len, (size_t)w->pre_n[j]), p += w->pre_n[j];
	int n = ld_fmt_g(num, w->r2 ? fabs(r) : r);
	*p++ = ' ';
	for (int k = n; k < 12; ++k) *p++ = ' ';
	memcpy(p, num, (size_t)n), p += n;
	*p++ = ' ', *p++ = '\n';
	w->len = (size_t)(p - w->buf);
}

static void table_row(ld_writer_t *w, int64_t i, int64_t j, double r, double dd, double dp)
{
	if (!w->with_freqs && !w->in_phase && !w->dcol && !w->dprime) {
		table_row_plain(w, i, j, r);
		return;
	}
	const snp_var_t *a = &w->d->var[i], *b = &w->d->var[j];
	char num[32];
	put(w, "%6s %12lld %*s", a->chr, (long long)a->bp, w->maxsnp, a->id);
	if (w->with_freqs) ld_fmt_g(num, w->maf[i]), put(w, " %10s", num);
	put(w, " %6s %12lld %*s", b->chr, (long long)b->bp, w->maxsnp, b->id);
	if (w->in_phase) {
		/* Which allele of B goes with A1 of A: A1 when r > 0, else A2 (r = 0 too, as PLINK pairs them). */
		const char *b1 = r > 0 ? b->a1 : b->a2, *b2 = r > 0 ? b->a2 : b->a1;
		char ph[256];
		snprintf(ph, sizeof ph, "%s%s/%s%s", a->a1, b1, a->a2, b2);
		put(w, " %10s", ph);
	}
	if (w->with_freqs) ld_fmt_g(num, w->maf[j]), put(w, " %10s", num);
	ld_fmt_g(num, w->r2 ? fabs(r) : r);
	put(w, " %12s", num);
	if (w->dcol) ld_fmt_g(num, dd), put(w, " %12s", num);
	if (w->dprime) ld_fmt_g(num, w->dprime == LD_DP_ABS ? fabs(dp) : dp), put(w, " %12s", num);
	put(w, " \n");
}

static int write_table(ld_writer_t *w, const ld_stripe_t *s, gvk_err_t *err)
{
	for (int64_t i = s->i0; i < s->i1; ++i) {
		size_t row = (size_t)(i - s->i0) * (size_t)s->width;
		for (int64_t j = s->jlo[i - s->i0]; j < s->jhi[i - s->i0]; ++j) {
			size_t o = row + (size_t)(j - s->cbase);
			double r = s->r[o];
			if (isnan(r) || (w->r2 ? fabs(r) < w->r2_min : fabs(r) < w->r_min)) continue;
			if (reserve(w, 512 + 2 * w->pre_len) < 0) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
			table_row(w, i, j, r, s->d ? s->d[o] : 0.0, s->dp ? s->dp[o] : 0.0);
			w->written++;
		}
		if (w->len > (1 << 20) && flush(w, err) < 0) return GVK_ERR_IO;
	}
	return flush(w, err);
}

static int write_matrix(ld_writer_t *w, const ld_stripe_t *s, gvk_err_t *err)
{
	int64_t m = w->d->n_snp;
	char sep = w->spaces ? ' ' : '\t';
	for (int64_t i = s->i0; i < s->i1; ++i) {
		size_t row = (size_t)(i - s->i0) * (size_t)s->width;
		int64_t ncol = w->shape == LD_TRIANGLE ? i + 1 : m;
		if (reserve(w, (size_t)ncol * 16 + 64) < 0) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		for (int64_t j = 0; j < ncol; ++j) {
			double v = 0.0;
			if (w->shape != LD_SQUARE0 || j <= i) {
				v = s->r[row + (size_t)(j - s->cbase)];
				if (w->r2 && !isnan(v)) v = fabs(v);
			}
			if (w->bin == 8) {
				memcpy(w->buf + w->len, &v, 8), w->len += 8;
			} else if (w->bin == 4) {
				float f = (float)v;
				memcpy(w->buf + w->len, &f, 4), w->len += 4;
			} else {
				w->len += (size_t)ld_fmt_g(w->buf + w->len, v);
				if (w->spaces || j + 1 < ncol) w->buf[w->len++] = sep;
			}
		}
		if (!w->bin) w->buf[w->len++] = '\n';
		w->written += (uint64_t)ncol;
		if (w->len > (1 << 20) && flush(w, err) < 0) return GVK_ERR_IO;
	}
	return flush(w, err);
}

int ld_writer_sink(void *ctx, const ld_stripe_t *s, gvk_err_t *err)
{
	ld_writer_t *w = ctx;
	return w->shape == LD_TABLE ? write_table(w, s, err) : write_matrix(w, s, err);
}
