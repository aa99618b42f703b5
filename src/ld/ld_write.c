/* SPDX-License-Identifier: MIT */
/* Text is formatted into buffers, a few shares of a stripe's rows per thread, and the buffers are
 * written in row order; formatting dominates the run time of large tables, as it does
 * in PLINK. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ld_write.h"
#include "ld_gz.h"
#include "../common/err.h"
#include "../common/threads.h"

/* A part of the IDs' lengths that can widen the column: those longer than every one before them in
 * the part (only such an ID can be the next to exceed the width). */
typedef struct {
	const snp_data_t *d;
	int nt;
	size_t *rec;   /* nt parts x cap entries */
	int *n_rec;
	int cap;
} width_t;

static void width_worker(void *arg, int tid)
{
	width_t *w = arg;
	int64_t n = w->d->n_snp;
	size_t top = 0, *rec = w->rec + (size_t)tid * (size_t)w->cap;
	int k = 0;
	for (int64_t i = n * tid / w->nt, e = n * (tid + 1) / w->nt; i < e; ++i) {
		size_t l = strlen(w->d->var[i].id);
		if (l <= top) continue;
		top = l;
		if (k == w->cap) { /* a part this irregular is scanned again in order */
			w->n_rec[tid] = -1;
			return;
		}
		rec[k++] = l;
	}
	w->n_rec[tid] = k;
}

int ld_plink_maxsnp_threads(const snp_data_t *d, int threads)
{
	if (d->id_width) return d->id_width;
	/* Grows to two more than the first ID longer than the current width, in file order; the parts'
	 * growing IDs, taken in order, give the same. */
	enum { CAP = 64 };
	width_t w = {d, threads > 1 && d->n_snp >= 65536 ? threads : 1, NULL, NULL, CAP};
	w.rec = malloc(sizeof *w.rec * CAP * (size_t)w.nt), w.n_rec = malloc(sizeof *w.n_rec * (size_t)w.nt);
	if (!w.rec || !w.n_rec) w.nt = 0;
	size_t width = 4;
	if (w.nt) gvk_parallel(w.nt, width_worker, &w);
	for (int t = 0; t < w.nt; ++t)
		if (w.n_rec[t] < 0) w.nt = 0;
	if (w.nt) {
		for (int t = 0; t < w.nt; ++t)
			for (int k = 0; k < w.n_rec[t]; ++k)
				if (w.rec[(size_t)t * CAP + k] > width) width = w.rec[(size_t)t * CAP + k] + 2;
	} else {
		for (int64_t i = 0; i < d->n_snp; ++i) {
			size_t l = strlen(d->var[i].id);
			if (l > width) width = l + 2;
		}
	}
	free(w.rec), free(w.n_rec);
	return (int)width;
}

int ld_plink_maxsnp(const snp_data_t *d) { return ld_plink_maxsnp_threads(d, 1); }

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

/* A share of the text, formatted by one thread. */
struct ld_part {
	char *buf;
	size_t len, cap;
	uint64_t written;
	int nomem;
};

/* Rows are formatted a chunk at a time (about CHUNK_PAIRS pairs), each chunk's rows cut into
 * PARTS shares per thread with about as many pairs each, which the threads take in turn: a thread
 * held up (a busy machine) leaves its next shares to the others rather than keeping them waiting. */
enum { CHUNK_PAIRS = 1 << 18, PARTS = 4, MAX_PARTS = 64 };

/* The shares a chunk of rows is cut into (write_text). */
static int n_parts(const ld_writer_t *w)
{
	int nt = w->threads > 1 ? w->threads : 1, n = nt > 1 ? PARTS * nt : 1;
	return n < MAX_PARTS ? n : MAX_PARTS;
}

/* n bytes of text to the output. */
static int emit(ld_writer_t *w, const char *b, size_t n, gvk_err_t *err)
{
	if (w->zs) return ld_gz_add(w->zs, w->fp, b, n, w->pool, err);
	if (n && fwrite(b, 1, n, w->fp) != n) return gvk_err_set(err, GVK_ERR_IO, "write error");
	return 0;
}

static int flush(ld_writer_t *w, gvk_err_t *err)
{
	int rc = emit(w, w->buf, w->len, err);
	w->len = 0;
	return rc;
}

int ld_writer_finish(ld_writer_t *w, gvk_err_t *err)
{
	int rc = flush(w, err);
	if (rc == 0 && w->zs) rc = ld_gz_finish(w->zs, w->fp, w->pool, err);
	return rc;
}

int ld_writer_gz_available(void)
{
#ifdef GVK_HAVE_ZLIB
	return 1;
#else
	return 0;
#endif
}

/* s (n bytes) right-aligned in width columns; returns the end. */
static char *field(char *p, const char *s, size_t n, size_t width)
{
	for (size_t k = n; k < width; ++k) *p++ = ' ';
	memcpy(p, s, n);
	return p + n;
}

/* " " and v as PLINK prints it in width columns. */
static char *num_field(char *p, double v, size_t width)
{
	char num[32];
	int n = ld_fmt_g(num, v);
	*p++ = ' ';
	return field(p, num, (size_t)n, width);
}

static char *str(char *p, const char *s)
{
	size_t n = strlen(s);
	memcpy(p, s, n);
	return p + n;
}

/* "CHR BP SNP" of v as PLINK prints them (%6s %12lld %*s); returns the end. */
static char *prefix(char *p, const snp_var_t *v, int maxsnp)
{
	char num[24];
	int n = 0;
	for (uint64_t bp = v->bp < 0 ? (uint64_t)-v->bp : (uint64_t)v->bp; n == 0 || bp; bp /= 10) num[23 - n++] = (char)('0' + bp % 10);
	if (v->bp < 0) num[23 - n++] = '-';
	p = field(p, v->chr, strlen(v->chr), 6);
	*p++ = ' ';
	p = field(p, num + 24 - n, (size_t)n, 12);
	*p++ = ' ';
	return field(p, v->id, strlen(v->id), (size_t)maxsnp);
}

int ld_writer_init(ld_writer_t *w, gvk_err_t *err)
{
	const snp_data_t *d = w->d;
	w->maxsnp = ld_plink_maxsnp(d);
	if (w->gz) {
		if (!ld_writer_gz_available())
			return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "built without zlib, so the 'gz' modifier is not available");
		if (!(w->zs = ld_gz_new(w->threads > 1 ? w->threads : 1))) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		if (ld_gz_start(w->zs, w->fp, err) < 0) return GVK_ERR_IO;
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
		for (int64_t i = 0; i < d->n_snp; ++i) {
			char *p = w->pre + (size_t)i * w->pre_len;
			w->pre_n[i] = (int)(prefix(p, &d->var[i], w->maxsnp) - p);
		}
	}
	w->r_min = sqrt(w->r2_min);
	if (reserve(w, 4096) < 0) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (w->shape == LD_TABLE) {
		/* two prefixes, the PHASE alleles, six numbers of at most 32 bytes and the separators */
		size_t alleles = 0;
		for (int64_t i = 0; w->in_phase && i < d->n_snp; ++i) {
			size_t l = strlen(d->var[i].a1) + strlen(d->var[i].a2);
			if (l > alleles) alleles = l;
		}
		w->row_max = 2 * w->pre_len + 2 * alleles + 6 * 40 + 32;
	}
	int np = w->threads > 1 ? w->threads : 1;
	if (!(w->part = calloc((size_t)n_parts(w), sizeof *w->part))) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (np > 1 && !w->pool) w->pool = w->own_pool = gvk_pool_create(np);
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
	ld_gz_free(w->zs);
	w->zs = NULL;
	gvk_pool_destroy(w->own_pool);
	w->own_pool = NULL;
	for (int t = 0; w->part && t < n_parts(w); ++t) free(w->part[t].buf);
	free(w->part);
	w->part = NULL;
	free(w->pre);
	free(w->pre_n);
	w->pre = NULL;
	w->pre_n = NULL;
	free(w->maf);
	free(w->buf);
	w->maf = NULL;
	w->buf = NULL;
}

/* One row of the .ld table at p (room for w->row_max bytes); returns the end. */
static char *table_row(const ld_writer_t *w, char *p, int64_t i, int64_t j, double r, double dd, double dp)
{
	const snp_var_t *a = &w->d->var[i], *b = &w->d->var[j];
	memcpy(p, w->pre + (size_t)i * w->pre_len, (size_t)w->pre_n[i]), p += w->pre_n[i];
	if (w->with_freqs) p = num_field(p, w->maf[i], 10);
	*p++ = ' ';
	memcpy(p, w->pre + (size_t)j * w->pre_len, (size_t)w->pre_n[j]), p += w->pre_n[j];
	if (w->in_phase) {
		/* Which allele of B goes with A1 of A: A1 when r > 0, else A2 (r = 0 too, as PLINK pairs them). */
		const char *b1 = r > 0 ? b->a1 : b->a2, *b2 = r > 0 ? b->a2 : b->a1;
		size_t n = strlen(a->a1) + strlen(b1) + 1 + strlen(a->a2) + strlen(b2);
		*p++ = ' ';
		for (; n < 10; ++n) *p++ = ' ';
		p = str(str(p, a->a1), b1), *p++ = '/', p = str(str(p, a->a2), b2);
	}
	if (w->with_freqs) p = num_field(p, w->maf[j], 10);
	p = num_field(p, w->r2 ? fabs(r) : r, 12);
	if (w->dcol) p = num_field(p, dd, 12);
	if (w->dprime) p = num_field(p, w->dprime == LD_DP_ABS ? fabs(dp) : dp, 12);
	*p++ = ' ', *p++ = '\n';
	return p;
}

static int part_reserve(struct ld_part *t, size_t more)
{
	if (t->len + more <= t->cap) return 0;
	size_t cap = (t->len + more) * 2 + 65536;
	char *b = realloc(t->buf, cap);
	if (!b) return t->nomem = 1, -1;
	t->buf = b, t->cap = cap;
	return 0;
}

/* The table rows [i0, i1) of a stripe into a part. */
static void table_rows(const ld_writer_t *w, const ld_stripe_t *s, int64_t i0, int64_t i1, struct ld_part *t)
{
	for (int64_t i = i0; i < i1; ++i) {
		size_t row = (size_t)(i - s->i0) * (size_t)s->width;
		for (int64_t j = s->jlo[i - s->i0]; j < s->jhi[i - s->i0]; ++j) {
			size_t o = row + (size_t)(j - s->cbase);
			double r = s->r[o];
			if (isnan(r) || (w->r2 ? fabs(r) < w->r2_min : fabs(r) < w->r_min)) continue;
			if (part_reserve(t, w->row_max) < 0) return;
			t->len = (size_t)(table_row(w, t->buf + t->len, i, j, r, s->d ? s->d[o] : 0.0, s->dp ? s->dp[o] : 0.0) - t->buf);
			t->written++;
		}
	}
}

/* Columns of row i of a text matrix. */
static int64_t matrix_cols(const ld_writer_t *w, int64_t i) { return w->shape == LD_TRIANGLE ? i + 1 : w->d->n_snp; }

/* The text matrix rows [i0, i1) of a stripe into a part. */
static void matrix_rows(const ld_writer_t *w, const ld_stripe_t *s, int64_t i0, int64_t i1, struct ld_part *t)
{
	char sep = w->spaces ? ' ' : '\t';
	for (int64_t i = i0; i < i1; ++i) {
		size_t row = (size_t)(i - s->i0) * (size_t)s->width;
		int64_t ncol = matrix_cols(w, i);
		if (part_reserve(t, (size_t)ncol * 33 + 64) < 0) return;
		char *p = t->buf + t->len;
		for (int64_t j = 0; j < ncol; ++j) {
			double v = 0.0;
			if (w->shape != LD_SQUARE0 || j <= i) {
				v = s->r[row + (size_t)(j - s->cbase)];
				if (w->r2 && !isnan(v)) v = fabs(v);
			}
			p += ld_fmt_g(p, v);
			if (w->spaces || j + 1 < ncol) *p++ = sep;
		}
		*p++ = '\n';
		t->len = (size_t)(p - t->buf);
		t->written += (uint64_t)ncol;
	}
}

typedef struct {
	const ld_writer_t *w;
	const ld_stripe_t *s;
	int64_t cut[MAX_PARTS + 1];
	int n, next; /* next: the next share to take (atomic) */
} fmt_job_t;

static void fmt_worker(void *arg, int tid)
{
	fmt_job_t *f = arg;
	(void)tid;
	for (int k; (k = __atomic_fetch_add(&f->next, 1, __ATOMIC_RELAXED)) < f->n;) {
		struct ld_part *t = &f->w->part[k];
		t->len = 0, t->written = 0;
		if (f->w->shape == LD_TABLE) table_rows(f->w, f->s, f->cut[k], f->cut[k + 1], t);
		else matrix_rows(f->w, f->s, f->cut[k], f->cut[k + 1], t);
	}
}

/* Pairs of stripe row i that the writer looks at. */
static int64_t row_pairs(const ld_writer_t *w, const ld_stripe_t *s, int64_t i)
{
	return w->shape == LD_TABLE ? s->jhi[i - s->i0] - s->jlo[i - s->i0] : matrix_cols(w, i);
}

static int write_text(ld_writer_t *w, const ld_stripe_t *s, gvk_err_t *err)
{
	int rc = flush(w, err);
	int nt = w->threads > 1 ? w->threads : 1;
	for (int64_t i0 = s->i0, i1; rc == 0 && i0 < s->i1; i0 = i1) {
		int64_t pairs = 0;
		for (i1 = i0; i1 < s->i1 && pairs < CHUNK_PAIRS; ++i1) pairs += row_pairs(w, s, i1);
		fmt_job_t f = {.w = w, .s = s};
		int n = pairs < 4096 ? 1 : n_parts(w); /* small chunks are not worth a fork */
		f.cut[0] = i0, f.n = n;
		for (int64_t i = i0, acc = 0, t = 1; t < n; ++t) {
			while (i < i1 && acc * n < pairs * t) acc += row_pairs(w, s, i++);
			f.cut[t] = i;
		}
		f.cut[n] = i1;
		if (n > 1 && nt > 1) gvk_pool_run(w->pool, nt, fmt_worker, &f);
		else fmt_worker(&f, 0);
		for (int t = 0; t < n && rc == 0; ++t) {
			if (w->part[t].nomem) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
			else rc = emit(w, w->part[t].buf, w->part[t].len, err);
			w->written += w->part[t].written;
		}
	}
	return rc;
}

/* .ld.bin matrices: the values as float or double, row by row. */
static int write_bin(ld_writer_t *w, const ld_stripe_t *s, gvk_err_t *err)
{
	for (int64_t i = s->i0; i < s->i1; ++i) {
		size_t row = (size_t)(i - s->i0) * (size_t)s->width;
		int64_t ncol = matrix_cols(w, i);
		if (reserve(w, (size_t)ncol * 8 + 64) < 0) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		for (int64_t j = 0; j < ncol; ++j) {
			double v = 0.0;
			if (w->shape != LD_SQUARE0 || j <= i) {
				v = s->r[row + (size_t)(j - s->cbase)];
				if (w->r2 && !isnan(v)) v = fabs(v);
			}
			if (w->bin == 8) {
				memcpy(w->buf + w->len, &v, 8), w->len += 8;
			} else {
				float f = (float)v;
				memcpy(w->buf + w->len, &f, 4), w->len += 4;
			}
		}
		w->written += (uint64_t)ncol;
		if (w->len > (1 << 20) && flush(w, err) < 0) return GVK_ERR_IO;
	}
	return flush(w, err);
}

int ld_writer_sink(void *ctx, const ld_stripe_t *s, gvk_err_t *err)
{
	ld_writer_t *w = ctx;
	return w->shape != LD_TABLE && w->bin ? write_bin(w, s, err) : write_text(w, s, err);
}
