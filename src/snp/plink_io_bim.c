/* SPDX-License-Identifier: MIT */
/* The .bim reader. A block of whole lines is cut into parts at newlines, one per thread; the
 * parts' lines are counted first, so that each thread then knows its lines' numbers and rows and
 * parses them straight into place, and its strings go to the pool at its part's offset (a line's
 * strings never take more bytes than the line). Every line is a row; the rows with a negative
 * position are left out once all are read. Each part stops at its first bad line, and the first
 * part that stopped gives the error, so messages are those of a reading line by line. The order
 * checks (snp_bim_order_t) then go over the rows (bim_order.c). */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plink_io_bim.h"
#include "snp_chrom.h"
#include "snp_num.h"
#include "../common/err.h"
#include "../common/lineio.h"
#include "../common/threads.h"

/* While the pool fills, a variant's strings are kept as offsets into it in their own pointers;
 * pool_strings makes them pointers once it is complete. */
static const char *pool_off(size_t o) { return (const char *)(uintptr_t)o; }

/* s (n bytes) and a NUL at pool offset *at; its offset. */
static size_t put(char *pool, size_t *at, const char *s, size_t n)
{
	size_t o = *at;
	memcpy(pool + o, s, n), pool[o + n] = 0;
	*at = o + n + 1;
	return o;
}

/* Every one-byte string, byte c at 2c: a one-letter allele (nearly all of them) points here
 * rather than into the pool, which saves its copy. As an offset it is ONE_BYTE | c. */
#define C2(c) (char)(c), 0
#define C8(c) C2(c), C2((c) + 1), C2((c) + 2), C2((c) + 3), C2((c) + 4), C2((c) + 5), C2((c) + 6), C2((c) + 7)
#define C64(c) C8(c), C8((c) + 8), C8((c) + 16), C8((c) + 24), C8((c) + 32), C8((c) + 40), C8((c) + 48), C8((c) + 56)
static const char one_byte[512] = {C64(0), C64(64), C64(128), C64(192)};
#define ONE_BYTE ((size_t)1 << (sizeof(size_t) * 8 - 1))

/* An allele's offset: its one-byte string, or its copy in the pool. */
static size_t allele(char *pool, size_t *at, const char *s, size_t n)
{
	return n == 1 ? ONE_BYTE | (unsigned char)s[0] : put(pool, at, s, n);
}

/* A position field: plain digits (nearly every line) here, anything else as snp_num_i64 reads
 * it. */
static int bim_bp(const char *s, size_t n, int64_t *v)
{
	int64_t x = 0;
	for (size_t k = 0; n - 1 < 18 && k < n; ++k) {
		unsigned dg = (unsigned)(s[k] - '0');
		if (dg > 9) return snp_num_i64(s, s + n, v);
		x = x * 10 + dg;
	}
	return n - 1 < 18 ? (*v = x, 0) : snp_num_i64(s, s + n, v);
}

enum { BIM_CHR_MAX = 256 };

/* The previous line's chromosome field, its code and kind, and the code's place in the pool:
 * consecutive lines nearly always share them. */
typedef struct {
	char raw[BIM_CHR_MAX], code[BIM_CHR_MAX];
	size_t raw_len;
	int kind;
	size_t off; /* (size_t)-1: not in the pool yet */
} chr_cache_t;

/* The code of chromosome field [f, f + n) into cc; its kind. */
static int chr_of(chr_cache_t *cc, const char *f, size_t n)
{
	if (n == cc->raw_len && f[0] == cc->raw[0] && !memcmp(f, cc->raw, n)) return cc->kind;
	cc->kind = snp_chr_code(f, n, cc->code, BIM_CHR_MAX);
	memcpy(cc->raw, f, n), cc->raw_len = n, cc->off = (size_t)-1;
	return cc->kind;
}

/* Flags of a row (bim_t.flag). */
enum { ROW_CM0 = 1, ROW_DROP = 2 };

/* One .bim line's fields into v (strings as pool offsets, from *at on), the row's flags into
 * *flag; 0 or an error. A code longer than its field ("X" gives "23") is one byte longer at most,
 * and the cM and position fields are not kept, so a line's strings fit in its own bytes. */
static int bim_fields(const char **f, const size_t *fl, int allow_extra, char *pool, size_t *at, snp_var_t *v,
                      uint8_t *flag, chr_cache_t *cc, const char *path, long ln, gvk_err_t *err)
{
	const char *end = f[2] + 1;
	int cm0 = fl[2] == 1 && f[2][0] == '0';
	v->cm = cm0 ? 0.0 : snp_num_double(f[2], f[2] + fl[2], &end);
	if (end == f[2] || end != f[2] + fl[2])
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: genetic position '%.*s' is not a number", path, ln, (int)fl[2], f[2]);
	if (bim_bp(f[3], fl[3], &v->bp) < 0)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: base-pair position '%.*s' is not an integer", path, ln, (int)fl[3],
		                   f[3]);
	if (fl[4] == fl[5] && f[4][0] == f[5][0] && memcmp(f[4], f[5], fl[4]) == 0 && !(fl[4] == 1 && f[4][0] == '0'))
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: both alleles are '%.*s'", path, ln, (int)fl[4], f[4]);
	/* A longer name would be cut, and two contigs could become one. */
	if (fl[0] >= BIM_CHR_MAX)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: chromosome name of %zu bytes (at most %d)", path, ln, fl[0],
		                   BIM_CHR_MAX - 1);
	int kind = chr_of(cc, f[0], fl[0]);
	if (kind == SNP_CHR_INVALID || (kind == SNP_CHR_EXTRA && !allow_extra))
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: '%.*s' is not a PLINK chromosome code%s", path, ln, (int)fl[0],
		                   f[0], kind == SNP_CHR_EXTRA ? " (--allow-extra-chr accepts other contig names)" : "");
	if (cc->off == (size_t)-1) cc->off = put(pool, at, cc->code, strlen(cc->code));
	*flag = (uint8_t)(cm0 ? ROW_CM0 : 0);
	v->chr = pool_off(cc->off);
	if (v->bp < 0) { /* left out, as PLINK leaves it out; its code still marks its chromosome's run */
		*flag |= ROW_DROP;
		v->id = v->a1 = v->a2 = v->chr;
		return 0;
	}
	v->id = pool_off(put(pool, at, f[1], fl[1]));
	v->a1 = pool_off(allele(pool, at, f[4], fl[4]));
	v->a2 = pool_off(allele(pool, at, f[5], fl[5]));
	return 0;
}

/* The .bed's variants read so far, a row per line (d->var by row, strings as pool offsets). */
typedef struct {
	const char *path;
	const gvk_lr_t *lr;
	int allow_extra;
	snp_data_t *d;
	uint8_t *flag;    /* per row: ROW_* */
	int64_t rows, cap;
	int64_t dropped;
} bim_t;

/* One thread's lines [s, e) of a block: from row row0 (line row0 + 1), strings from pool offset
 * pool0; its line count, rows left out, and the error of its first bad line. */
typedef struct {
	const char *s, *e;
	int64_t row0, lines, dropped;
	size_t pool0;
	int rc;
	gvk_err_t err;
} part_t;

typedef struct {
	const bim_t *b;
	part_t *pt;
} part_job_t;

/* The '\n' bytes of [s, e), counted in pieces whose counts fit in 16 bits, which the compiler
 * turns into vector compares. */
static int64_t newlines(const char *s, const char *e)
{
	int64_t n = 0;
	while (s < e) {
		size_t k = (size_t)(e - s) < 32768 ? (size_t)(e - s) : 32768;
		uint16_t c = 0;
		for (size_t i = 0; i < k; ++i) c = (uint16_t)(c + (s[i] == '\n'));
		n += c, s += k;
	}
	return n;
}

static void count_worker(void *arg, int tid)
{
	part_t *pt = &((part_job_t *)arg)->pt[tid];
	pt->lines = newlines(pt->s, pt->e) + (pt->e > pt->s && pt->e[-1] != '\n');
}

/* The line at s of row `row`, which ends with a '\n' (into *eol): 0 or an error. nul: the part's
 * first NUL byte (NULL: none), the reader's to report as it reports a line over its limit. */
static int bim_line(const bim_t *b, const char *s, const char *nul, int64_t row, chr_cache_t *cc, size_t *at,
                    const char **eol, gvk_err_t *err)
{
	long ln = (long)row + 1;
	const char *f[6];
	size_t fl[6];
	int nf = snp_split_line(s, f, fl, 6, eol);
	size_t raw = (size_t)(*eol - s);
	if ((nul && nul >= s && nul < *eol) || raw > GVK_LINE_MAX_TABLE) {
		int rc = gvk_lr_check_line(b->lr, s, raw, ln, err);
		if (rc < 0) return rc;
	}
	if (nf == 0) return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: empty line", b->path, ln);
	if (nf != 6)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: expected 6 fields (chromosome ID cM bp A1 A2), found %d", b->path,
		                   ln, nf);
	return bim_fields(f, fl, b->allow_extra, b->d->pool, at, &b->d->var[row], &b->flag[row], cc, b->path, ln, err);
}

/* The file's last line when no '\n' ends it, [s, e): checked as the reader checks a line, then
 * parsed from a copy that has one. */
static int last_line(const bim_t *b, const char *s, const char *e, int64_t row, chr_cache_t *cc, size_t *at, gvk_err_t *err)
{
	size_t raw = (size_t)(e - s);
	int rc = gvk_lr_check_line(b->lr, s, raw, (long)row + 1, err);
	char *line = rc == 0 ? malloc(raw + 1) : NULL;
	if (rc == 0 && !line) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", b->path);
	const char *eol;
	if (line) memcpy(line, s, raw), line[raw] = '\n', rc = bim_line(b, line, NULL, row, cc, at, &eol, err);
	free(line);
	return rc;
}

static void parse_worker(void *arg, int tid)
{
	part_job_t *j = arg;
	part_t *pt = &j->pt[tid];
	chr_cache_t cc = {.raw_len = (size_t)-1};
	size_t at = pt->pool0;
	int64_t row = pt->row0;
	const char *nul = memchr(pt->s, 0, (size_t)(pt->e - pt->s)), *end = snp_last_lines_end(pt->s, pt->e), *eol;
	pt->rc = 0, pt->dropped = 0;
	for (const char *s = pt->s; s < end && pt->rc == 0; ++row, s = eol + 1) {
		pt->rc = bim_line(j->b, s, nul, row, &cc, &at, &eol, &pt->err);
		pt->dropped += pt->rc == 0 && (j->b->flag[row] & ROW_DROP);
	}
	if (pt->rc == 0 && end < pt->e) {
		pt->rc = last_line(j->b, end, pt->e, row, &cc, &at, &pt->err);
		pt->dropped += pt->rc == 0 && (j->b->flag[row] & ROW_DROP);
	}
}

/* Room for `more` rows after those read (an exact first allocation, then doubling). */
static int rows_room(bim_t *b, int64_t more)
{
	int64_t need = b->rows + more;
	if (need <= b->cap) return 0;
	snp_data_t *d = b->d;
	if (!d->var) {
		d->var = snp_big_alloc(sizeof *d->var * (size_t)(need + 1)), b->flag = malloc((size_t)need + 1);
		if (!d->var || !b->flag) return -1;
		b->cap = need + 1;
		return 0;
	}
	int64_t cap = 2 * b->cap > need ? 2 * b->cap : need;
	snp_var_t *v = realloc(d->var, sizeof *v * (size_t)cap);
	if (v) d->var = v;
	uint8_t *f = v ? realloc(b->flag, (size_t)cap) : NULL;
	if (f) b->flag = f;
	if (!f) return -1;
	b->cap = cap;
	return 0;
}

/* Room for `more` bytes of strings after the pool's. */
static int pool_room(snp_data_t *d, size_t more)
{
	size_t need = d->pool_len + more + 1;
	if (need <= d->pool_cap) return 0;
	size_t cap = d->pool ? (2 * d->pool_cap > need ? 2 * d->pool_cap : need) : need;
	char *p = d->pool ? realloc(d->pool, cap) : snp_big_alloc(cap);
	if (!p) return -1;
	d->pool = p, d->pool_cap = cap;
	return 0;
}

/* Parts of about equal size, cut after a newline; how many. */
static int cut_parts(const char *blk, size_t len, int nt, part_t *pt)
{
	const char *at = blk, *end = blk + len;
	for (int t = 0; t < nt; ++t) {
		const char *cut = t + 1 < nt ? blk + gvk_part(len, t + 1, nt) : end;
		if (cut < at) cut = at;
		const char *nl = t + 1 < nt && cut < end ? memchr(cut, '\n', (size_t)(end - cut)) : NULL;
		pt[t].s = at, pt[t].e = t + 1 < nt ? (nl ? nl + 1 : end) : end;
		at = pt[t].e;
	}
	return nt;
}

/* Lines of a block are shared out only where a part gets this many bytes. */
enum { PART_MIN_BYTES = 64 };

/* One block of whole lines, on up to nt threads. */
static int bim_block(bim_t *b, const char *blk, size_t len, int nt, part_t *pt, gvk_err_t *err)
{
	if ((size_t)nt > len / PART_MIN_BYTES + 1) nt = (int)(len / PART_MIN_BYTES + 1);
	cut_parts(blk, len, nt, pt);
	part_job_t j = {b, pt};
	gvk_parallel(nt, count_worker, &j);
	int64_t lines = 0;
	for (int t = 0; t < nt; ++t) pt[t].row0 = b->rows + lines, pt[t].pool0 = b->d->pool_len + (size_t)(pt[t].s - blk), lines += pt[t].lines;
	if (rows_room(b, lines) < 0 || pool_room(b->d, len) < 0) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", b->path);
	gvk_parallel(nt, parse_worker, &j);
	for (int t = 0; t < nt; ++t) {
		if (pt[t].rc < 0) return *err = pt[t].err, pt[t].rc;
		b->dropped += pt[t].dropped;
	}
	b->rows += lines, b->d->pool_len += len;
	return 0;
}

static const char *string_at(const snp_data_t *d, size_t o)
{
	return o & ONE_BYTE ? one_byte + 2 * (o & 0xff) : d->pool + o;
}

/* The rows' string offsets made pointers, and with src (no row dropped) each variant's row: a part
 * of the rows per thread. */
typedef struct {
	snp_data_t *d;
	int64_t n, *src;
	int nt;
} fix_t;

static void fix_worker(void *arg, int tid)
{
	fix_t *f = arg;
	snp_data_t *d = f->d;
	for (int64_t i = f->n * tid / f->nt, e = f->n * (tid + 1) / f->nt; i < e; ++i) {
		snp_var_t *v = &d->var[i];
		v->chr = d->pool + (uintptr_t)v->chr, v->id = d->pool + (uintptr_t)v->id;
		v->a1 = string_at(d, (uintptr_t)v->a1), v->a2 = string_at(d, (uintptr_t)v->a2);
		if (f->src) f->src[i] = i;
	}
}

static void pool_strings(snp_data_t *d, int64_t n, int64_t *src, int nt)
{
	fix_t f = {d, n, src, n >= 65536 ? nt : 1};
	gvk_parallel(f.nt, fix_worker, &f);
}

/* The rows left out removed, and src: each variant's row. */
static void keep_rows(bim_t *b, int64_t *src)
{
	snp_data_t *d = b->d;
	int64_t n = 0;
	for (int64_t i = 0; i < b->rows; ++i) {
		if (b->flag[i] & ROW_DROP) continue;
		if (n != i) d->var[n] = d->var[i];
		src[n++] = i;
	}
}

/* Blocks of about this many bytes are parsed on the threads (a mapped file of this size or less
 * is one block). */
enum { BIM_BLOCK_BYTES = 64 << 20 };

/* The pool for a regular file of its size, so that it is not copied as it grows. */
static void pool_presize(snp_data_t *d, const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) return;
	size_t cap = (size_t)st.st_size + 4096;
	if ((d->pool = snp_big_alloc(cap))) d->pool_cap = cap;
}

int snp_read_bim_order(const char *path, int allow_extra, int threads, snp_data_t *d, int64_t **src_out, int64_t *n_rows,
                       snp_bim_order_t *ord, gvk_err_t *err)
{
	int nt = threads > 1 ? threads : 1;
	part_t *pt = calloc((size_t)nt, sizeof *pt);
	if (!pt) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", path);
	gvk_lr_t *lr = gvk_lr_open(path, err);
	if (!lr) return free(pt), err ? err->code : GVK_ERR_IO;
	bim_t b = {.path = path, .lr = lr, .allow_extra = allow_extra, .d = d};
	if (!d->pool) pool_presize(d, path);
	int rc;
	char *blk;
	size_t len;
	while ((rc = gvk_lr_block_uncounted(lr, BIM_BLOCK_BYTES, &blk, &len, err)) == 1) {
		int64_t before = b.rows;
		if ((rc = bim_block(&b, blk, len, nt, pt, err)) < 0) break;
		gvk_lr_add_lines(lr, (long)(b.rows - before)); /* the reader numbers the next block's first line */
	}
	gvk_lr_close(lr);
	free(pt);
	if (rc == 0 && b.rows == 0) rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: no variants", path);
	int64_t *src = rc == 0 ? snp_big_alloc(sizeof *src * (size_t)(b.rows - b.dropped + 1)) : NULL;
	if (rc == 0 && !src) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", path);
	/* without dropped rows each variant's row is its index, set with the strings */
	if (rc == 0) pool_strings(d, b.rows, b.dropped ? NULL : src, nt);
	if (rc == 0 && ord && snp_bim_order_rows(d->var, b.flag, ROW_CM0, b.rows, nt, ord) < 0) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", path);
	if (rc == 0 && b.dropped) keep_rows(&b, src);
	if (rc == 0) d->n_snp = b.rows - b.dropped, *src_out = src, *n_rows = b.rows;
	else d->n_snp = 0, free(src);
	free(b.flag);
	return rc;
}

int snp_read_bim(const char *path, int allow_extra, snp_data_t *d, int64_t **src_out, int64_t *n_rows, gvk_err_t *err)
{
	return snp_read_bim_order(path, allow_extra, 1, d, src_out, n_rows, NULL, err);
}
