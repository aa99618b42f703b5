/* SPDX-License-Identifier: MIT */
/* .bim variants and .bed rows; the .bed is read in blocks of kept variants' rows, on threads. */
#define _DEFAULT_SOURCE /* madvise */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plink_io.h"
#include "snp_chrom.h"
#include "snp_num.h"
#include "../common/err.h"
#include "../common/lineio.h"
#include "../common/threads.h"

/* Room for one more variant in d->var and its row. */
static int grow(snp_data_t *d, int64_t **src, size_t n, size_t *cap)
{
	if (n < *cap) return 0;
	*cap = *cap ? *cap * 2 : 4096;
	snp_var_t *nv = realloc(d->var, *cap * sizeof *nv);
	if (nv) d->var = nv;
	int64_t *ns = nv ? realloc(*src, *cap * sizeof *ns) : NULL;
	if (ns) *src = ns;
	return ns ? 0 : -1;
}

/* While the pool grows, a variant's strings are kept as offsets into it in their own pointers;
 * pool_strings makes them pointers once it is complete. */
static const char *pool_off(long o) { return (const char *)(uintptr_t)o; }

static void pool_strings(snp_data_t *d)
{
	for (int64_t i = 0; i < d->n_snp; ++i) {
		snp_var_t *v = &d->var[i];
		v->chr = d->pool + (uintptr_t)v->chr, v->id = d->pool + (uintptr_t)v->id;
		v->a1 = d->pool + (uintptr_t)v->a1, v->a2 = d->pool + (uintptr_t)v->a2;
	}
}

/* Splits [s, e) at runs of spaces and tabs: at most max fields and their lengths; how many. */
static int split_view(const char *s, const char *e, const char **f, size_t *fl, int max)
{
	int n = 0;
	for (;;) {
		while (s < e && (*s == ' ' || *s == '\t')) ++s;
		if (s == e) return n;
		const char *t = s;
		while (s < e && *s != ' ' && *s != '\t') ++s;
		if (n < max) f[n] = t, fl[n] = (size_t)(s - t);
		++n;
	}
}

enum { BIM_CHR_MAX = 256 };

/* The previous line's chromosome field, its code and kind, and the code's place in the pool:
 * consecutive lines nearly always share them. */
typedef struct {
	char raw[BIM_CHR_MAX], code[BIM_CHR_MAX];
	size_t raw_len;
	int kind;
	long off; /* -1: not in the pool yet */
} chr_cache_t;

/* The code of chromosome field [f, f + n) into cc; its kind. */
static int chr_of(chr_cache_t *cc, const char *f, size_t n)
{
	if (n == cc->raw_len && !memcmp(f, cc->raw, n)) return cc->kind;
	cc->kind = snp_chr_code(f, n, cc->code, BIM_CHR_MAX);
	memcpy(cc->raw, f, n), cc->raw_len = n, cc->off = -1;
	return cc->kind;
}

/* One .bim line's fields into v (strings as pool offsets), its chromosome code into cc->code; 1 =
 * stored, 0 = left out (negative position), or an error. */
static int bim_fields(const char **f, const size_t *fl, int allow_extra, snp_data_t *d, snp_var_t *v, chr_cache_t *cc,
                      const char *path, long ln, gvk_err_t *err)
{
	const char *end;
	v->cm = snp_num_double(f[2], f[2] + fl[2], &end);
	if (end == f[2] || end != f[2] + fl[2])
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: genetic position '%.*s' is not a number", path, ln, (int)fl[2], f[2]);
	if (snp_num_i64(f[3], f[3] + fl[3], &v->bp) < 0)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: base-pair position '%.*s' is not an integer", path, ln, (int)fl[3],
		                   f[3]);
	if (fl[4] == fl[5] && memcmp(f[4], f[5], fl[4]) == 0 && !(fl[4] == 1 && f[4][0] == '0'))
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: both alleles are '%.*s'", path, ln, (int)fl[4], f[4]);
	/* A longer name would be cut, and two contigs could become one. */
	if (fl[0] >= BIM_CHR_MAX)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: chromosome name of %zu bytes (at most %d)", path, ln, fl[0],
		                   BIM_CHR_MAX - 1);
	int kind = chr_of(cc, f[0], fl[0]);
	if (kind == SNP_CHR_INVALID || (kind == SNP_CHR_EXTRA && !allow_extra))
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: '%.*s' is not a PLINK chromosome code%s", path, ln, (int)fl[0],
		                   f[0], kind == SNP_CHR_EXTRA ? " (--allow-extra-chr accepts other contig names)" : "");
	if (v->bp < 0) return 0;
	if (cc->off < 0) cc->off = snp_pool_add(d, cc->code, strlen(cc->code));
	long o[4] = {cc->off, snp_pool_add(d, f[1], fl[1]), snp_pool_add(d, f[4], fl[4]), snp_pool_add(d, f[5], fl[5])};
	if (o[0] < 0 || o[1] < 0 || o[2] < 0 || o[3] < 0) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", path);
	v->chr = pool_off(o[0]), v->id = pool_off(o[1]), v->a1 = pool_off(o[2]), v->a2 = pool_off(o[3]);
	return 1;
}

/* The .bim's order as it is read (snp_bim_order_t), with the running state of its checks. */
typedef struct {
	snp_bim_order_t *o;
	int64_t last_bp;  /* the current chromosome's highest position so far */
	double last_cm;   /* and its highest cM value, fields "0" left out */
} order_t;

static int order_name(snp_bim_order_t *o, const char *chr, size_t *off)
{
	size_t n = strlen(chr) + 1;
	if (o->names_len + n > o->names_cap) {
		size_t cap = (o->names_len + n) * 2 + 256;
		char *p = realloc(o->names, cap);
		if (!p) return -1;
		o->names = p, o->names_cap = cap;
	}
	memcpy(o->names + o->names_len, chr, n);
	*off = o->names_len;
	o->names_len += n;
	return 0;
}

/* A new run where the chromosome changes; PLINK starts its order checks afresh there. same: the
 * line before had the same chromosome field. */
static int order_run(order_t *st, const char *chr, int same, long ln)
{
	snp_bim_order_t *o = st->o;
	if (o->n_run && (same || !strcmp(o->names + o->run[o->n_run - 1].name, chr))) return 0;
	if ((size_t)o->n_run == o->n_run_cap) {
		size_t cap = o->n_run_cap ? o->n_run_cap * 2 : 64;
		snp_bim_run_t *r = realloc(o->run, cap * sizeof *r);
		if (!r) return -1;
		o->run = r, o->n_run_cap = cap;
	}
	snp_bim_run_t *r = &o->run[o->n_run];
	*r = (snp_bim_run_t){.line = ln};
	if (order_name(o, chr, &r->name) < 0) return -1;
	o->n_run++;
	st->last_bp = 0, st->last_cm = -DBL_MAX;
	return 0;
}

/* PLINK's position and cM for a line at a multiple of 64 (where its window search looks). */
static int order_base(snp_bim_order_t *o, int64_t row, int64_t bp, double cm)
{
	size_t k = (size_t)(row / 64);
	if (k >= o->base_cap) {
		size_t n = (k + 1) * 2;
		int64_t *b = realloc(o->base_bp, n * sizeof *b);
		if (b) o->base_bp = b;
		double *c = b ? realloc(o->base_cm, n * sizeof *c) : NULL;
		if (!c) return -1;
		o->base_cm = c;
		o->base_cap = n;
	}
	o->base_bp[k] = bp, o->base_cm[k] = cm;
	o->n_base = (int64_t)k + 1;
	return 0;
}

/* Line ln (the row-th variant) with chromosome chr and v's cM and position; cm0: its cM field is
 * exactly "0", which PLINK neither checks nor keeps as the last cM. */
static int order_note(order_t *st, const char *chr, int same, const snp_var_t *v, int cm0, int64_t row, long ln)
{
	if (order_run(st, chr, same, ln) < 0) return -1;
	snp_bim_run_t *r = &st->o->run[st->o->n_run - 1];
	if (!cm0 && v->cm < st->last_cm) r->cm_line = r->cm_line ? r->cm_line : ln;
	else if (!cm0) st->last_cm = v->cm;
	if (v->bp >= 0 && v->bp < st->last_bp) r->bp_line = r->bp_line ? r->bp_line : ln;
	else if (v->bp >= 0) st->last_bp = v->bp;
	if (row % 64) return 0;
	return order_base(st->o, row, v->bp >= 0 ? v->bp : st->last_bp, v->bp < 0 ? st->last_cm : cm0 ? 0.0 : v->cm);
}

typedef struct {
	const char *name;
	long line;
	size_t off;
} run_ref_t;

static int cmp_run(const void *a, const void *b)
{
	const run_ref_t *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* The first line where a chromosome comes back after others: the earliest second run of a name. */
static int order_split(snp_bim_order_t *o)
{
	run_ref_t *r = malloc(sizeof *r * (size_t)(o->n_run + 1));
	if (!r) return -1;
	for (int64_t k = 0; k < o->n_run; ++k) r[k] = (run_ref_t){o->names + o->run[k].name, o->run[k].line, o->run[k].name};
	qsort(r, (size_t)o->n_run, sizeof *r, cmp_run);
	for (int64_t k = 1; k < o->n_run; ++k)
		if (!strcmp(r[k - 1].name, r[k].name) && (!o->split_line || r[k].line < o->split_line))
			o->split_line = r[k].line, o->split_name = r[k].off;
	free(r);
	return 0;
}

int snp_order_of_vars(const snp_data_t *d, snp_bim_order_t *ord)
{
	order_t st = {.o = ord};
	for (int64_t i = 0; i < d->n_snp; ++i)
		if (order_note(&st, d->var[i].chr, 0, &d->var[i], 1, i, (long)(i + 1)) < 0) return -1;
	return order_split(ord);
}

void snp_bim_order_free(snp_bim_order_t *o)
{
	free(o->run);
	free(o->names);
	free(o->base_bp);
	free(o->base_cm);
	memset(o, 0, sizeof *o);
}

/* The reader's state over the lines of one .bim. */
typedef struct {
	const char *path;
	int allow_extra;
	snp_data_t *d;
	int64_t *src, rows;
	size_t n, cap;
	order_t ord; /* ord.o NULL: the order is not wanted */
	chr_cache_t cc;
} bim_reader_t;

/* One line: 1 = a variant stored, 0 = left out (negative position), or an error. */
static int bim_line(bim_reader_t *b, const char *line, size_t len, long ln, gvk_err_t *err)
{
	const char *f[6];
	size_t fl[6];
	int nf = split_view(line, line + len, f, fl, 6);
	if (nf == 0) return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: empty line", b->path, ln);
	if (nf != 6)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: expected 6 fields (chromosome ID cM bp A1 A2), found %d", b->path,
		                   ln, nf);
	if (grow(b->d, &b->src, b->n, &b->cap) < 0) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", b->path);
	snp_var_t *v = &b->d->var[b->n];
	int same = fl[0] == b->cc.raw_len && !memcmp(f[0], b->cc.raw, fl[0]);
	int rc = bim_fields(f, fl, b->allow_extra, b->d, v, &b->cc, b->path, ln, err);
	if (rc >= 0 && b->ord.o && order_note(&b->ord, b->cc.code, same, v, fl[2] == 1 && f[2][0] == '0', b->rows, ln) < 0)
		rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", b->path);
	if (rc == 1) b->src[b->n++] = b->rows;
	if (rc >= 0) ++b->rows;
	return rc;
}

void *snp_big_alloc(size_t n)
{
	const size_t huge = (size_t)2 << 20;
	n = (n + huge - 1) / huge * huge;
	void *p = aligned_alloc(huge, n);
#ifdef MADV_HUGEPAGE
	if (p) madvise(p, n, MADV_HUGEPAGE);
#endif
	return p;
}

/* Room for the variants of a .bim of `bytes` bytes (a line has at least 12: six fields, their
 * separators, the newline) and their strings (at most the file's bytes), so that nothing is
 * copied as it grows; nothing when it cannot be sized or is small. */
static void bim_presize(bim_reader_t *b, const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < ((off_t)1 << 22)) return;
	size_t lines = (size_t)st.st_size / 12 + 1;
	snp_data_t *d = b->d;
	d->var = snp_big_alloc(lines * sizeof *d->var), b->src = snp_big_alloc(lines * sizeof *b->src);
	d->pool = snp_big_alloc((size_t)st.st_size + 4096);
	if (!d->var || !b->src || !d->pool) {
		free(d->var), free(b->src), free(d->pool);
		d->var = NULL, b->src = NULL, d->pool = NULL;
		return;
	}
	b->cap = lines, d->pool_cap = (size_t)st.st_size + 4096;
}

int snp_read_bim_order(const char *path, int allow_extra, snp_data_t *d, int64_t **src_out, int64_t *n_rows,
                       snp_bim_order_t *ord, gvk_err_t *err)
{
	gvk_lr_t *lr = gvk_lr_open(path, err);
	if (!lr) return err ? err->code : GVK_ERR_IO;
	bim_reader_t b = {.path = path, .allow_extra = allow_extra, .d = d, .ord = {.o = ord}, .cc = {.raw_len = (size_t)-1}};
	if (!d->var && !d->pool) bim_presize(&b, path);
	int rc;
	const char *line;
	size_t len;
	while ((rc = gvk_lr_view(lr, &line, &len, err)) == 1)
		if ((rc = bim_line(&b, line, len, gvk_lr_lineno(lr), err)) < 0) break;
	gvk_lr_close(lr);
	if (rc == 0 && b.rows == 0) rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: no variants", path);
	if (rc == 0 && ord && order_split(ord) < 0) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", path);
	d->n_snp = rc == 0 ? (int64_t)b.n : 0;
	if (rc == 0) {
		pool_strings(d);
		*src_out = b.src, *n_rows = b.rows;
	} else {
		free(b.src);
	}
	return rc;
}

int snp_read_bim(const char *path, int allow_extra, snp_data_t *d, int64_t **src_out, int64_t *n_rows, gvk_err_t *err)
{
	return snp_read_bim_order(path, allow_extra, d, src_out, n_rows, NULL, err);
}

/* The magic bytes and the size the .bim and .fam imply. */
static int check_bed(FILE *fp, const char *path, int64_t m, int64_t n, gvk_err_t *err)
{
	int64_t bpr = (n + 3) / 4;
	struct stat st;
	uint8_t magic[3] = {0, 0, 0};
	size_t got = fread(magic, 1, 3, fp);
	if (fstat(fileno(fp), &st) < 0) return gvk_err_set(err, GVK_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
	if (got == 0)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: empty file (a PLINK 1 .bed starts with the bytes 6c 1b 01)", path);
	if (got < 3 || magic[0] != 0x6c || magic[1] != 0x1b || (magic[2] != 0x01 && magic[2] != 0x00))
		return gvk_err_set(err, GVK_ERR_FORMAT,
		                   "%s: not a PLINK 1 .bed file (the first bytes must be 6c 1b 01, found %02x %02x %02x)", path,
		                   magic[0], magic[1], magic[2]);
	if (magic[2] == 0x00)
		return gvk_err_set(err, GVK_ERR_FORMAT,
		                   "%s: sample-major .bed (header 6c 1b 00) is not supported; convert it with plink --make-bed", path);
	if ((int64_t)st.st_size != 3 + m * bpr)
		return gvk_err_set(err, GVK_ERR_FORMAT,
		                   "%s: %lld bytes, but the .bim's %lld variants and the .fam's %lld samples need 3 + %lld x %lld "
		                   "= %lld",
		                   path, (long long)st.st_size, (long long)m, (long long)n, (long long)m, (long long)bpr,
		                   (long long)(3 + m * bpr));
	return 0;
}

enum { BED_BLOCK = 256 }; /* rows a reader thread takes at a time */

/* A read of SNPs of d: snp[0 .. n) (NULL: every SNP), each decoded into its slot of out, into d's
 * planes (out NULL, d->w set), or counted only (neither). */
typedef struct {
	int fd;
	const int64_t *src; /* per SNP of d: its row */
	const int64_t *snp;
	int64_t n, bpr, n_blocks;
	uint64_t *out;
	int stats;          /* decoding into out: set the SNPs' statistics too */
	uint32_t *geno;     /* counting: each SNP's genotype counts at 3 * its row (NULL: not kept) */
	const snp_geno_ctx_t *c;
	const snp_data_t *d;
	atomic_llong next;
	int *hh;          /* per thread: SNP_HH_* flags seen */
	atomic_int nomem; /* a thread had no buffer */
	int64_t *failed;  /* per thread: the first item whose row could not be read (n when none) */
} bed_job_t;

/* All n bytes at offset off; 0 or -1. */
static int pread_all(int fd, uint8_t *buf, size_t n, off_t off)
{
	while (n) {
		ssize_t got = pread(fd, buf, n, off);
		if (got <= 0) {
			if (got < 0 && errno == EINTR) continue;
			return -1;
		}
		buf += got, n -= (size_t)got, off += got;
	}
	return 0;
}

int snp_rows_open(snp_rows_t *r, const char *path, int64_t n_rows, int64_t n_samples, size_t bytes, gvk_err_t *err)
{
	memset(r, 0, sizeof *r);
	r->bpr = (n_samples + 3) / 4, r->n_rows = n_rows;
	r->cap = (int64_t)bytes / (r->bpr > 0 ? r->bpr : 1);
	if (r->cap < 1) r->cap = 1;
	if (!(r->buf = malloc((size_t)(r->cap * r->bpr) + 1))) return r->fd = -1, gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if ((r->fd = open(path, O_RDONLY)) < 0) {
		free(r->buf), r->buf = NULL;
		return gvk_err_set(err, GVK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	}
	return 0;
}

const uint8_t *snp_rows_get(snp_rows_t *r, int64_t k)
{
	if (k < r->r0 || k >= r->r1) {
		int64_t n = r->n_rows - k < r->cap ? r->n_rows - k : r->cap;
		r->r0 = r->r1 = 0;
		if (n < 1 || pread_all(r->fd, r->buf, (size_t)(n * r->bpr), 3 + (off_t)k * (off_t)r->bpr) < 0) return NULL;
		r->r0 = k, r->r1 = k + n;
	}
	return r->buf + (k - r->r0) * r->bpr;
}

void snp_rows_close(snp_rows_t *r)
{
	if (r->buf) close(r->fd); /* buf is set only once the file is open */
	free(r->buf);
	memset(r, 0, sizeof *r);
	r->fd = -1;
}

/* Maps the pages of [p, end) in one call, which costs less than a fault a page (Linux 5.14 on;
 * elsewhere, or when refused, the first writes fault them in as usual). */
static void prefault(void *p, void *end)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t page = 4096, a = (uintptr_t)p / page * page;
	if ((uintptr_t)end > a) madvise((void *)a, (uintptr_t)end - a, MADV_POPULATE_WRITE);
#else
	(void)p, (void)end;
#endif
}

/* Item k's SNP, its row, and where its planes go (NULL: counted only). */
static int64_t job_snp(const bed_job_t *j, int64_t k) { return j->snp ? j->snp[k] : k; }
static int64_t job_row(const bed_job_t *j, int64_t k) { return j->src[job_snp(j, k)]; }
static uint64_t *job_planes(const bed_job_t *j, int64_t k)
{
	if (j->out) return j->out + (size_t)k * SNP_PLANES * (size_t)j->d->nw;
	return j->d->w ? snp_plane(j->d, job_snp(j, k), 0) : NULL;
}

/* Decodes item k from its row. */
static int decode_item(const bed_job_t *j, int64_t k, const uint8_t *row, uint64_t *scratch)
{
	int64_t i = job_snp(j, k);
	uint64_t *p = job_planes(j, k);
	if (j->out) return snp_geno_row_to(j->d, i, row, j->c, p, j->stats);
	if (p) return snp_geno_row_hh((snp_data_t *)j->d, i, row, j->c);
	return snp_geno_row_stats(j->d, i, row, j->c, scratch, j->geno ? j->geno + 3 * j->src[i] : NULL);
}

/* Blocks of items in turn: each run of consecutive rows read at once, then decoded (counted only
 * into one SNP's scratch planes when there are no planes to fill). */
static void bed_worker(void *arg, int tid)
{
	bed_job_t *j = arg;
	int64_t bpr = j->bpr;
	uint8_t *buf = malloc((size_t)(BED_BLOCK * bpr) + 1);
	int counting = !job_planes(j, 0);
	uint64_t *scratch = counting ? aligned_alloc(64, (size_t)SNP_PLANES * (size_t)j->d->nw * 8) : NULL;
	j->hh[tid] = 0, j->failed[tid] = j->n;
	for (int64_t b; buf && (!counting || scratch) && (b = atomic_fetch_add(&j->next, 1)) < j->n_blocks;) {
		int64_t k0 = b * BED_BLOCK, k1 = k0 + BED_BLOCK < j->n ? k0 + BED_BLOCK : j->n;
		if (!counting && (j->out || !j->snp)) prefault(job_planes(j, k0), job_planes(j, k1 - 1) + SNP_PLANES * (size_t)j->d->nw);
		for (int64_t k = k0, e; k < k1 && k < j->failed[tid]; k = e) {
			for (e = k + 1; e < k1 && job_row(j, e) == job_row(j, e - 1) + 1;) ++e;
			if (pread_all(j->fd, buf, (size_t)((e - k) * bpr), 3 + (off_t)job_row(j, k) * (off_t)bpr) < 0) {
				j->failed[tid] = k;
				break;
			}
			for (int64_t q = k; q < e; ++q) j->hh[tid] |= decode_item(j, q, buf + (q - k) * bpr, scratch);
		}
	}
	if (!buf || (counting && !scratch)) atomic_store(&j->nomem, 1);
	free(buf);
	free(scratch);
}

/* snp_bed_decode, with the genotype counts of SNPs counted only into geno when given. */
static int decode(const snp_bed_src_t *s, const snp_data_t *d, const int64_t *snp, int64_t n, uint64_t *planes,
                  uint32_t *geno, int threads, void *pool, int *hh, gvk_err_t *err)
{
	if (hh) *hh = 0;
	if (n <= 0) return 0;
	int fd = open(s->bed, O_RDONLY);
	if (fd < 0) return gvk_err_set(err, GVK_ERR_IO, "%s: cannot open: %s", s->bed, strerror(errno));
	int nt = threads > 1 ? threads : 1;
	bed_job_t j = {.fd = fd, .src = s->row, .snp = snp, .n = n, .bpr = (s->n_samples + 3) / 4, .out = planes,
	               .stats = s->stats, .geno = geno, .c = s->c, .d = d};
	j.n_blocks = (n + BED_BLOCK - 1) / BED_BLOCK;
	if (nt > j.n_blocks) nt = (int)j.n_blocks;
	j.hh = malloc(sizeof *j.hh * (size_t)nt);
	j.failed = malloc(sizeof *j.failed * (size_t)nt);
	int rc = 0;
	if (!j.hh || !j.failed) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", s->bed);
	if (rc == 0) {
		atomic_init(&j.next, 0);
		atomic_init(&j.nomem, 0);
		if (pool) gvk_pool_run(pool, nt, bed_worker, &j);
		else gvk_parallel(nt, bed_worker, &j);
		int64_t failed = n;
		for (int t = 0; t < nt; ++t) {
			if (hh) *hh |= j.hh[t];
			if (j.failed[t] < failed) failed = j.failed[t];
		}
		if (atomic_load(&j.nomem)) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", s->bed);
		else if (failed < n)
			rc = gvk_err_set(err, GVK_ERR_IO, "%s: read error in the block of variant %lld", s->bed,
			                 (long long)job_row(&j, failed) + 1);
	}
	free(j.hh);
	free(j.failed);
	close(fd);
	return rc;
}

int snp_bed_decode(const snp_bed_src_t *s, const snp_data_t *d, const int64_t *snp, int64_t n, uint64_t *planes,
                   int threads, void *pool, int *hh, gvk_err_t *err)
{
	return decode(s, d, snp, n, planes, NULL, threads, pool, hh, err);
}

int snp_bed_check(const char *path, int64_t n_rows, int64_t n_samples, gvk_err_t *err)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) return gvk_err_set(err, GVK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	int rc = check_bed(fp, path, n_rows, n_samples, err);
	fclose(fp);
	return rc;
}

/* snp_read_bed, keeping d's planes when planes is set, else the genotype counts when geno is. */
static int read_bed(const char *path, const int64_t *src, int64_t n_rows, int64_t n_samples, const snp_geno_ctx_t *c,
                    snp_data_t *d, int planes, uint32_t *geno, gvk_err_t *err)
{
	int rc = snp_bed_check(path, n_rows, n_samples, err);
	if (rc == 0) rc = planes ? snp_geno_alloc(d, d->n_snp, c, err) : snp_geno_alloc_stats(d, d->n_snp, c, err);
	snp_bed_src_t s = {path, src, n_rows, n_samples, c, 1};
	int hh = 0;
	if (rc == 0) rc = decode(&s, d, NULL, d->n_snp, NULL, geno, c->threads, NULL, &hh, err);
	d->hh |= hh;
	return rc;
}

int snp_read_bed(const char *path, const int64_t *src, int64_t n_rows, int64_t n_samples, const snp_geno_ctx_t *c,
                 snp_data_t *d, gvk_err_t *err)
{
	return read_bed(path, src, n_rows, n_samples, c, d, 1, NULL, err);
}

int snp_read_bed_stats(const char *path, const int64_t *src, int64_t n_rows, int64_t n_samples,
                       const snp_geno_ctx_t *c, snp_data_t *d, uint32_t *geno, gvk_err_t *err)
{
	return read_bed(path, src, n_rows, n_samples, c, d, 0, geno, err);
}

/* The LD columns' sample IDs as FID_IID, the name plink --recode vcf gives a sample, so that a
 * PLINK fileset and its VCF name their samples alike (FastID tables). */
static int column_ids(const snp_samples_t *ss, const snp_geno_ctx_t *c, snp_data_t *d, gvk_err_t *err)
{
	if (!(d->sample_id = calloc((size_t)(c->n_cols > 0 ? c->n_cols : 1), sizeof *d->sample_id)))
		return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	for (int64_t s = 0; s < ss->n; ++s) {
		if (c->col[s] < 0) continue;
		const snp_sample_t *p = &ss->s[s];
		size_t lf = strlen(p->fid), li = strlen(p->iid);
		char *id = malloc(lf + li + 2);
		if (!id) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		memcpy(id, p->fid, lf), id[lf] = '_', memcpy(id + lf + 1, p->iid, li + 1);
		d->sample_id[c->col[s]] = id;
		d->n_sample_id++;
	}
	return 0;
}

/* How read_plink reads the .bed: every row decoded into d's planes, or for a caller that decodes
 * the rows itself, a first pass for the statistics only, or no pass (the size checked). */
enum { READ_PLANES, READ_STATS, READ_NONE };

/* snp_read_plink; without planes, the rows and decoding context go to *keep_src, *n_rows and
 * *keep (the caller frees them). */
static int read_plink(const char *bed, const char *bim, const char *fam, const snp_plink_opt_t *opt, int how,
                      snp_data_t *d, snp_geno_ctx_t *keep, int64_t **keep_src, int64_t *n_rows, gvk_err_t *err)
{
	snp_samples_t ss = {0};
	snp_geno_ctx_t c = {0};
	int64_t *src = NULL, rows = 0;
	int rc = snp_samples_read_fam(fam, &ss, err);
	for (int64_t s = 0; rc == 0 && opt->all_samples && s < ss.n; ++s) ss.s[s].founder = 1;
	if (rc == 0) rc = snp_read_bim(bim, 1, d, &src, &rows, err);
	if (rc == 0) rc = snp_geno_ctx_init(&c, &ss, 0, opt->keep_allele_order, err);
	if (rc == 0) {
		d->n_samples = ss.n;
		if (how == READ_PLANES) rc = snp_read_bed(bed, src, rows, ss.n, &c, d, err);
		else if (how == READ_STATS) rc = snp_read_bed_stats(bed, src, rows, ss.n, &c, d, NULL, err);
		else if ((rc = snp_bed_check(bed, rows, ss.n, err)) == 0) rc = snp_geno_alloc_stats(d, d->n_snp, &c, err);
	}
	if (rc == 0) rc = column_ids(&ss, &c, d, err);
	if (rc == 0 && keep) *keep = c, *keep_src = src, *n_rows = rows, src = NULL;
	else snp_geno_ctx_free(&c);
	snp_samples_free(&ss);
	free(src);
	if (rc < 0) snp_data_free(d);
	return rc;
}

int snp_read_plink(const char *bed, const char *bim, const char *fam, const snp_plink_opt_t *opt, snp_data_t *d,
                   gvk_err_t *err)
{
	return read_plink(bed, bim, fam, opt, READ_PLANES, d, NULL, NULL, NULL, err);
}

/* PREFIX.bed, .bim and .fam in one buffer of three slots of n bytes; NULL when out of memory. */
static char *fileset_paths(const char *prefix, size_t *n)
{
	*n = strlen(prefix) + 8;
	char *p = malloc(3 * *n);
	if (!p) return NULL;
	snprintf(p, *n, "%s.bed", prefix);
	snprintf(p + *n, *n, "%s.bim", prefix);
	snprintf(p + 2 * *n, *n, "%s.fam", prefix);
	return p;
}

int snp_read_bfile(const char *prefix, const snp_plink_opt_t *opt, snp_data_t *d, gvk_err_t *err)
{
	size_t n;
	char *p = fileset_paths(prefix, &n);
	if (!p) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	int rc = snp_read_plink(p, p + n, p + 2 * n, opt, d, err);
	free(p);
	return rc;
}

int snp_read_bfile_rows(const char *prefix, const snp_plink_opt_t *opt, int first_pass, snp_data_t *d,
                        snp_geno_ctx_t *c, int64_t **src, int64_t *n_rows, gvk_err_t *err)
{
	size_t n;
	char *p = fileset_paths(prefix, &n);
	if (!p) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	int rc = read_plink(p, p + n, p + 2 * n, opt, first_pass ? READ_STATS : READ_NONE, d, c, src, n_rows, err);
	free(p);
	return rc;
}
