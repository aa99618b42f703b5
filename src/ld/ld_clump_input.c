/* SPDX-License-Identifier: MIT */
/* --clump's association files as PLINK 1.9 reads them. The header is the first line with a
 * token; the id and p columns are the first names of the search lists found there (a list's
 * name seen twice is an error). A data line too short for either column, or whose p does not
 * start with a number (NA), is skipped. Lines whose p is above the load threshold (the larger of
 * 0.05 and p2, or just above p1 when p1 is larger) only count, per variant, towards NSIG; the
 * others become entries. A top variant (p <= p1) the fileset lacks is remembered for the report.
 * Files are read last first and each line's entry put in front of its variant's list, so a list
 * runs from the first file's last line to the last file's first line, as PLINK's does. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ld_clump.h"
#include "../snp/plink_io.h"
#include "../snp/snp_num.h"
#include "../common/err.h"
#include "../common/lineio.h"
#include "../common/threads.h"

#define CLUMP_EPS 0.00000000000005684341886080801486968994140625

/* Open-addressing table of the fileset's ids (the first of equal ids wins). A slot holds the SNP
 * index + 1 in its low 40 bits and 24 bits of the id's hash above, so that a probe reads a
 * variant's id only when those agree. */
typedef struct {
	uint64_t *slot;
	uint64_t mask;
	const snp_data_t *d;
	uint8_t *later; /* per SNP: an earlier SNP has the same id */
} id_table_t;

#define SLOT_IDX ((UINT64_C(1) << 40) - 1)

static uint64_t hash(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
	for (; n >= 8; s += 8, n -= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 31;
	}
	if (n) {
		uint64_t w = 0;
		memcpy(&w, s, n);
		h = (h ^ w) * 0x94d049bb133111ebULL;
	}
	h ^= h >> 29, h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 32);
}

static int same_id(const char *id, const char *s, size_t n) { return !strncmp(id, s, n) && !id[n]; }

/* Inserts SNP i of id length n and hash h; of equal ids the first keeps the slot and the others
 * are marked. Threads insert at once, each slot claimed or taken over by compare-and-swap: equal
 * ids probe the same slots, so the later of two always meets the other's. */
static void table_put(id_table_t *t, int64_t i, size_t n, uint64_t h)
{
	const char *id = t->d->var[i].id;
	uint64_t tag = h >> 40 << 40, mine = tag | (uint64_t)(i + 1), k = h & t->mask;
	for (;;) {
		uint64_t cur = __atomic_load_n(&t->slot[k], __ATOMIC_ACQUIRE);
		int64_t o = (int64_t)(cur & SLOT_IDX) - 1;
		if (cur && !((cur & ~SLOT_IDX) == tag && same_id(t->d->var[o].id, id, n))) {
			k = (k + 1) & t->mask;
			continue;
		}
		if (cur && o < i) return __atomic_store_n(&t->later[i], 1, __ATOMIC_RELAXED);
		if (__atomic_compare_exchange_n(&t->slot[k], &cur, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			if (cur) __atomic_store_n(&t->later[o], 1, __ATOMIC_RELAXED);
			return;
		}
	}
}

/* The ids go in batches whose slots are fetched ahead: the table is larger than the caches and
 * each insertion would otherwise wait for memory in turn. */
enum { PUT_BATCH = 32 };

/* A thread's share of the ids, of the slots to clear first (and of the input's per-SNP entries to
 * set empty), then of the ids to insert. */
typedef struct {
	id_table_t *t;
	ld_clump_input_t *in;
	int nt, stage;
} table_job_t;

static void table_worker(void *arg, int tid)
{
	table_job_t *j = arg;
	id_table_t *t = j->t;
	if (j->stage == 0) {
		size_t a = gvk_part(t->mask + 1, tid, j->nt), b = gvk_part(t->mask + 1, tid + 1, j->nt);
		memset(t->slot + a, 0, (b - a) * sizeof *t->slot);
		size_t i0 = gvk_part((size_t)j->in->n_snp, tid, j->nt), i1 = gvk_part((size_t)j->in->n_snp, tid + 1, j->nt);
		memset(j->in->nsig + i0, 0, (i1 - i0) * sizeof *j->in->nsig);
		for (size_t i = i0; i < i1; ++i) j->in->head[i] = -1;
		return;
	}
	const snp_data_t *d = t->d;
	int64_t e = (int64_t)gvk_part((size_t)d->n_snp, tid + 1, j->nt);
	for (int64_t i0 = (int64_t)gvk_part((size_t)d->n_snp, tid, j->nt); i0 < e; i0 += PUT_BATCH) {
		int64_t n = e - i0 < PUT_BATCH ? e - i0 : PUT_BATCH;
		uint64_t h[PUT_BATCH];
		size_t len[PUT_BATCH];
		for (int64_t k = 0; k < n; ++k) {
			len[k] = strlen(d->var[i0 + k].id), h[k] = hash(d->var[i0 + k].id, len[k]);
			__builtin_prefetch(&t->slot[h[k] & t->mask], 1);
		}
		for (int64_t k = 0; k < n; ++k) table_put(t, i0 + k, len[k], h[k]);
	}
}

/* The table of d's ids, and in's per-SNP entries (n_snp of them) set empty. */
static int table_init(id_table_t *t, const snp_data_t *d, int threads, ld_clump_input_t *in)
{
	uint64_t cap = 16;
	while (cap < 2 * (uint64_t)d->n_snp + 2) cap <<= 1;
	t->slot = snp_big_alloc(cap * sizeof *t->slot);
	t->later = calloc((size_t)d->n_snp + 1, 1);
	if (!t->slot || !t->later || (uint64_t)d->n_snp >= SLOT_IDX) return -1;
	t->mask = cap - 1, t->d = d;
	int nt = threads > 1 && d->n_snp >= 4096 ? threads : 1;
	table_job_t j = {t, in, nt, 0};
	gvk_parallel(nt, table_worker, &j);
	j.stage = 1;
	gvk_parallel(nt, table_worker, &j);
	return 0;
}

static void table_free(id_table_t *t) { free(t->slot), free(t->later); }

static int64_t table_find(const id_table_t *t, const char *s, size_t n)
{
	uint64_t h = hash(s, n), tag = h >> 40 << 40;
	for (uint64_t k = h & t->mask; t->slot[k]; k = (k + 1) & t->mask) {
		int64_t i = (int64_t)(t->slot[k] & SLOT_IDX) - 1;
		if ((t->slot[k] & ~SLOT_IDX) == tag && same_id(t->d->var[i].id, s, n)) return i;
	}
	return -1;
}

/* The SNP of id [s, s + n): reports usually list the variants in the fileset's order, so the one
 * after the previous line's (*next) is tried before the table. */
static int64_t id_find(const id_table_t *t, const char *s, size_t n, int64_t *next)
{
	int64_t i = *next;
	if (!(i < t->d->n_snp && !t->later[i] && same_id(t->d->var[i].id, s, n))) i = table_find(t, s, n);
	if (i >= 0) *next = i + 1;
	return i;
}

/* Tokens are separated by spaces and tabs within a line [s, e). */
static int is_sep(char c) { return c == ' ' || c == '\t'; }
static const char *skip_sep(const char *s, const char *e)
{
	while (s < e && is_sep(*s)) ++s;
	return s;
}
static const char *token_end(const char *s, const char *e)
{
	while (s < e && !is_sep(*s)) ++s;
	return s;
}

/* The rank of token [s, e) in a search list (0 first), or -1. */
static int rank_in(const char *s, const char *e, const char *const *names, int n)
{
	for (int k = 0; k < n; ++k)
		if ((size_t)(e - s) == strlen(names[k]) && !memcmp(s, names[k], (size_t)(e - s))) return k;
	return -1;
}

/* Finds the id and p columns of a header line [s, e); 0, or an error naming the file. */
static int header(const char *s, const char *e, const char *path, const ld_clump_fields_t *f, int *col_id, int *col_p,
                  gvk_err_t *err)
{
	static const char *const snp_default[] = {"SNP"}, *const p_default[] = {"P"};
	const char *const *sn = f && f->snp_field ? f->snp_field : snp_default;
	const char *const *pn = f && f->p_field ? f->p_field : p_default;
	int n_sn = f && f->snp_field ? f->n_snp_field : 1, n_pn = f && f->p_field ? f->n_p_field : 1;
	int best_id = n_sn, best_p = n_pn;
	*col_id = *col_p = -1;
	s = skip_sep(s, e);
	for (int col = 0; s < e; ++col) {
		const char *te = token_end(s, e);
		int ki = rank_in(s, te, sn, n_sn), kp = rank_in(s, te, pn, n_pn);
		if ((ki >= 0 && ki == best_id) || (kp >= 0 && kp == best_p))
			return gvk_err_set(err, GVK_ERR_FORMAT, "%s: duplicate column header '%.*s'", path, (int)(te - s), s);
		if (ki >= 0 && ki < best_id) best_id = ki, *col_id = col;
		if (kp >= 0 && kp < best_p) best_p = kp, *col_p = col;
		s = skip_sep(te, e);
	}
	if (*col_id < 0) return gvk_err_set(err, GVK_ERR_FORMAT, "%s: no variant ID field found (looked for %s%s)", path, sn[0],
	                                     n_sn > 1 ? " and the other --clump-snp-field names" : "");
	if (*col_p < 0) return gvk_err_set(err, GVK_ERR_FORMAT, "%s: no p-value field found (looked for %s%s)", path, pn[0],
	                                    n_pn > 1 ? " and the other --clump-field names" : "");
	return 0;
}

static int add_entry(ld_clump_input_t *in, int64_t i, double p, int fidx)
{
	if (in->n_e == in->cap_e) {
		int64_t cap = in->cap_e ? 2 * in->cap_e : 4096;
		ld_clump_entry_t *e = realloc(in->e, sizeof *e * (size_t)cap);
		if (!e) return -1;
		in->e = e, in->cap_e = cap;
	}
	in->e[in->n_e] = (ld_clump_entry_t){p, fidx, in->head[i]};
	in->head[i] = in->n_e++;
	return 0;
}

static int add_missing(ld_clump_input_t *in, const char *s, size_t n, double p, int64_t *cap)
{
	if (in->n_miss == *cap) {
		int64_t c = *cap ? 2 * *cap : 64;
		ld_clump_missing_t *m = realloc(in->miss, sizeof *m * (size_t)c);
		if (!m) return -1;
		in->miss = m, *cap = c;
	}
	char *id = malloc(n + 1);
	if (!id) return -1;
	memcpy(id, s, n), id[n] = 0;
	in->miss[in->n_miss++] = (ld_clump_missing_t){id, p};
	return 0;
}

typedef struct {
	const snp_data_t *d;
	const id_table_t *ids;
	const ld_clump_opt_t *o;
	double load;  /* lines with p above this only count towards NSIG */
	int64_t miss_cap;
	const char *path;  /* the file being read, its columns, number, and whether its entries can be */
	int col_id, col_p; /* index variants */
	int fidx, top;
	int threads;
	uint32_t *nsig; /* the input's, counted into by the scan's threads */
} reader_t;

/* A data line that the ordered pass reads, as the parallel scan leaves it: its id and p tokens,
 * the SNP of the id (-1: none), the p, its line within its part (from 1); or a line with a NUL
 * byte (nul set). */
typedef struct {
	const char *id, *pv;
	int32_t id_len, pv_len;
	int64_t line, snp;
	double p;
	int nul;
} rec_t;

/* One data line at s, which a '\n' ends (into *eol): 1 with *rc filled when the ordered pass
 * needs it, else 0. Most lines only count towards their variant's NSIG (p above the load
 * threshold, and valid): in any order, so here, atomically, as two threads may count one
 * variant; and a line of an id the fileset lacks matters only as a top variant. f, fl: room for
 * the fields up to the later of the two columns. */
static int scan_line(const reader_t *r, const char *s, const char **f, size_t *fl, int64_t *next, rec_t *rc, const char **eol)
{
	int last = r->col_id > r->col_p ? r->col_id : r->col_p;
	if (snp_split_line(s, f, fl, last + 1, eol) <= last) return 0;
	const char *is = f[r->col_id], *ps = f[r->col_p], *num_end;
	size_t il = fl[r->col_id], pl = fl[r->col_p];
	double p = snp_num_double(ps, ps + pl, &num_end);
	if (num_end == ps) return 0;
	int64_t i = p < 0 ? -1 : id_find(r->ids, is, il, next);
	if (i >= 0 && p > r->load && p <= 1) return __atomic_fetch_add(&r->nsig[i], 1, __ATOMIC_RELAXED), 0;
	if (i < 0 && p >= 0 && !(p <= r->o->p1 && r->top)) return 0;
	*rc = (rec_t){is, ps, (int32_t)il, (int32_t)pl, 0, i, p, 0};
	return 1;
}

/* A scanned line in the file's order (line ln): 0 or an error naming the file and line. */
static int apply_rec(reader_t *r, ld_clump_input_t *in, const rec_t *q, int64_t ln, gvk_err_t *err)
{
	if (q->nul) return gvk_err_set(err, GVK_ERR_FORMAT, "%s line %lld: a NUL byte (not a text file?)", r->path, (long long)ln);
	double p = q->p;
	if (p < 0) return gvk_err_set(err, GVK_ERR_FORMAT, "%s line %lld: negative p-value '%.*s'", r->path, (long long)ln,
	                              (int)q->pv_len, q->pv);
	int64_t i = q->snp;
	if (i < 0) {
		if (p <= r->o->p1 && r->top && add_missing(in, q->id, (size_t)q->id_len, p, &r->miss_cap) < 0)
			return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		return 0;
	}
	/* the other lines above the load threshold were counted by scan_line */
	if (p > r->load)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s line %lld: p-value '%.*s' is above 1", r->path, (long long)ln,
		                   (int)q->pv_len, q->pv);
	if (add_entry(in, i, p, r->fidx) < 0) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (p <= r->o->p1 && r->top) in->top[i] = 1;
	return 0;
}

/* One part of a block of lines, scanned on its own thread: its records and line count, and the
 * copy of a last line that no '\n' ends (its records point there). */
typedef struct {
	const char *s, *e;
	rec_t *rec;
	int64_t n, cap, lines;
	char *tail;
	int nomem;
} part_t;

/* Room for one more record. */
static rec_t *part_rec(part_t *pt)
{
	if (pt->n == pt->cap) {
		int64_t cap = pt->cap ? 2 * pt->cap : 4096;
		rec_t *g = realloc(pt->rec, sizeof *g * (size_t)cap);
		if (!g) return pt->nomem = 1, NULL;
		pt->rec = g, pt->cap = cap;
	}
	return &pt->rec[pt->n];
}

/* The part's lines; a line with a NUL byte is the last one looked at, as it ends the reading. */
static void scan_part(const reader_t *r, part_t *pt)
{
	int64_t next = 0;
	int nf = (r->col_id > r->col_p ? r->col_id : r->col_p) + 1;
	const char **f = malloc(sizeof *f * (size_t)nf), *eol;
	size_t *fl = malloc(sizeof *fl * (size_t)nf);
	const char *nul = memchr(pt->s, 0, (size_t)(pt->e - pt->s)), *end = snp_last_lines_end(pt->s, pt->e);
	free(pt->tail), pt->tail = NULL;
	pt->n = pt->lines = 0;
	if (!f || !fl) pt->nomem = 1;
	if (!pt->nomem && end < pt->e) { /* the file's last line: copied with a '\n' */
		size_t n = (size_t)(pt->e - end);
		if (!(pt->tail = malloc(n + 1))) pt->nomem = 1;
		else memcpy(pt->tail, end, n), pt->tail[n] = '\n';
	}
	for (const char *s = pt->s; s < pt->e && !pt->nomem; s = eol + 1) {
		rec_t *q = part_rec(pt);
		if (!q) break;
		if (s == end) s = pt->tail;
		++pt->lines;
		if (scan_line(r, s, f, fl, &next, q, &eol)) q->line = pt->lines, ++pt->n;
		if (nul && nul < (s == pt->tail ? pt->e : eol)) {
			*q = (rec_t){.nul = 1, .line = pt->lines}, pt->n = q - pt->rec + 1;
			break;
		}
		if (s == pt->tail) break;
	}
	free(f), free(fl);
}

typedef struct {
	const reader_t *r;
	part_t *pt;
} scan_job_t;

static void scan_worker(void *arg, int tid)
{
	scan_job_t *j = arg;
	scan_part(j->r, &j->pt[tid]);
}

/* The lines after the header, in blocks whose parts are scanned on the threads, then applied in
 * order. */
enum { PART_BYTES = 1 << 20 };

static int read_data(reader_t *r, ld_clump_input_t *in, gvk_lr_t *lr, gvk_err_t *err)
{
	int nt = r->threads > 1 ? r->threads : 1, rc = 0;
	part_t *pt = calloc((size_t)nt, sizeof *pt);
	if (!pt) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	char *blk;
	size_t len;
	int64_t base = gvk_lr_lineno(lr);
	while (rc == 0 && (rc = gvk_lr_block_uncounted(lr, (size_t)nt * PART_BYTES, &blk, &len, err)) == 1) {
		rc = 0;
		const char *at = blk, *end = blk + len;
		for (int t = 0; t < nt; ++t) { /* parts of about equal size, cut after a newline */
			const char *cut = t + 1 < nt ? blk + len / (size_t)nt * (size_t)(t + 1) : end;
			if (cut < at) cut = at;
			const char *nl = t + 1 < nt && cut < end ? memchr(cut, '\n', (size_t)(end - cut)) : NULL;
			pt[t].s = at, pt[t].e = t + 1 < nt ? (nl ? nl + 1 : end) : end;
			at = pt[t].e;
		}
		scan_job_t j = {r, pt};
		if (nt > 1) gvk_parallel(nt, scan_worker, &j);
		else scan_worker(&j, 0);
		for (int t = 0; t < nt && rc == 0; ++t) {
			if (pt[t].nomem) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
			for (int64_t k = 0; rc == 0 && k < pt[t].n; ++k) rc = apply_rec(r, in, &pt[t].rec[k], base + pt[t].rec[k].line, err);
			base += pt[t].lines;
		}
	}
	for (int t = 0; t < nt; ++t) free(pt[t].rec), free(pt[t].tail);
	free(pt);
	return rc;
}

/* Whether path starts with gzip's magic bytes; -1 when it cannot be opened. */
static int gzipped(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) return -1;
	unsigned char m[2] = {0, 0};
	size_t got = fread(m, 1, 2, fp);
	fclose(fp);
	return got == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

static int read_file(reader_t *r, ld_clump_input_t *in, const char *path, const ld_clump_fields_t *f, gvk_err_t *err)
{
	int gz = gzipped(path);
	if (gz < 0) return gvk_err_set(err, GVK_ERR_IO, "cannot open %s", path);
	if (gz) return gvk_err_set(err, GVK_ERR_FORMAT, "%s is gzip-compressed; gvk reads clump files uncompressed", path);
	gvk_lr_t *lr = gvk_lr_open(path, err);
	if (!lr) return gvk_err_set(err, GVK_ERR_IO, "cannot open %s", path);
	int rc;
	const char *line;
	size_t len;
	r->path = path;
	while ((rc = gvk_lr_view(lr, &line, &len, err)) == 1 && skip_sep(line, line + len) == line + len) {}
	if (rc == 1) rc = header(line, line + len, path, f, &r->col_id, &r->col_p, err);
	else if (rc == 0) rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s is empty (no header line)", path);
	if (rc == 0) rc = read_data(r, in, lr, err);
	gvk_lr_close(lr);
	return rc;
}

static int miss_id_cmp(const void *x, const void *y)
{
	return strcmp(((const ld_clump_missing_t *)x)->id, ((const ld_clump_missing_t *)y)->id);
}

static int miss_p_cmp(const void *x, const void *y)
{
	const ld_clump_missing_t *a = x, *b = y;
	if (a->p != b->p) return a->p < b->p ? -1 : 1;
	return strcmp(a->id, b->id);
}

/* One entry per missing id, with its smallest p, ordered by p then id. */
static void missing_sort(ld_clump_input_t *in)
{
	if (!in->n_miss) return;
	qsort(in->miss, (size_t)in->n_miss, sizeof *in->miss, miss_id_cmp);
	int64_t k = 0;
	for (int64_t q = 1; q < in->n_miss; ++q) {
		if (!strcmp(in->miss[q].id, in->miss[k].id)) {
			if (in->miss[q].p < in->miss[k].p) in->miss[k].p = in->miss[q].p;
			free(in->miss[q].id);
		} else {
			in->miss[++k] = in->miss[q];
		}
	}
	in->n_miss = k + 1;
	qsort(in->miss, (size_t)in->n_miss, sizeof *in->miss, miss_p_cmp);
}

int ld_clump_read(const snp_data_t *d, const char *const *files, int n, const ld_clump_fields_t *f,
                  const ld_clump_opt_t *o, ld_clump_input_t *in, gvk_err_t *err)
{
	memset(in, 0, sizeof *in);
	int64_t m = d->n_snp;
	in->n_snp = m, in->n_files = n;
	in->head = snp_big_alloc(sizeof *in->head * (size_t)(m + 1));
	in->nsig = snp_big_alloc(sizeof *in->nsig * (size_t)(m + 1));
	in->top = calloc((size_t)m + 1, 1);
	id_table_t ids = {0};
	if (!in->head || !in->nsig || !in->top || table_init(&ids, d, o->threads, in) < 0) {
		table_free(&ids);
		ld_clump_input_free(in);
		return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	}
	reader_t r = {.d = d, .ids = &ids, .o = o, .load = 0.05, .threads = o->threads, .nsig = in->nsig};
	if (o->p2 > r.load) r.load = o->p2;
	if (o->p1 >= r.load) r.load = o->p1 * (1 + CLUMP_EPS);
	int rc = 0;
	for (int k = n; rc == 0 && k >= 1; --k) {
		r.fidx = k, r.top = !o->index_first || n == 1 || k == 1;
		rc = read_file(&r, in, files[k - 1], f, err);
	}
	table_free(&ids);
	if (rc < 0) {
		ld_clump_input_free(in);
		return rc;
	}
	missing_sort(in);
	return 0;
}

void ld_clump_input_free(ld_clump_input_t *in)
{
	if (!in) return;
	for (int64_t k = 0; k < in->n_miss; ++k) free(in->miss[k].id);
	free(in->miss), free(in->head), free(in->nsig), free(in->top), free(in->e);
	memset(in, 0, sizeof *in);
}
