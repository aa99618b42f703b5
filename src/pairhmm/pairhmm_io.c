/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../common/err.h"
#include "../common/lineio.h"
#include "../common/threads.h"
#include "pairhmm_io.h"

enum { MAX_FIELDS = 8 };

struct gvk_pairhmm_reader_s {
	gvk_lr_t *lr;
	phmm_format_t fmt;
	uint64_t records; /* groups or pair lines seen so far */
	double t[4];      /* phmm_reader_times */
};

typedef struct {
	int n;
	const char *f[MAX_FIELDS];
	size_t len[MAX_FIELDS];
} fields_t;

/* Splits s[0, n) on runs of spaces and tabs without writing to it (lines are read in place from
 * the input's memory); fl->n counts every field, even past MAX_FIELDS. Fields are long (bases,
 * qualities), so a field's end is found with memchr, which the C library vectorises. */
static void split(const char *s, size_t n, fields_t *fl)
{
	const char *e = s + n;
	fl->n = 0;
	for (;;) {
		while (s < e && (*s == ' ' || *s == '\t')) ++s;
		if (s == e) break;
		const char *b = s, *sp = memchr(s, ' ', (size_t)(e - s));
		const char *tab = memchr(s, '\t', (size_t)((sp ? sp : e) - s));
		s = tab ? tab : sp ? sp : e;
		if (fl->n < MAX_FIELDS) fl->f[fl->n] = b, fl->len[fl->n] = (size_t)(s - b);
		fl->n++;
	}
}

static int is_blank_or_comment(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t')) ++i;
	return i == n || s[i] == '#';
}

static int is_hex_string(const char *s, size_t n)
{
	if (n == 0 || n % 2) return 0;
	for (size_t i = 0; i < n; ++i)
		if (!isxdigit((unsigned char)s[i])) return 0;
	return 1;
}

/* A positive decimal count of n digits (no sign, no other character). */
static int parse_count(const char *s, size_t n, long *v)
{
	if (n == 0 || n > 18) return -1;
	long x = 0;
	for (size_t i = 0; i < n; ++i) {
		if (!isdigit((unsigned char)s[i])) return -1;
		x = 10 * x + (s[i] - '0');
	}
	*v = x;
	return 0;
}

static phmm_format_t detect(const char *line, size_t n)
{
	fields_t fl;
	long a, b;
	split(line, n, &fl);
	if (fl.n == 2 && parse_count(fl.f[0], fl.len[0], &a) == 0 && parse_count(fl.f[1], fl.len[1], &b) == 0) return PHMM_FMT_GROUP;
	if (fl.n == 6 && fl.len[2] == 2 * fl.len[1] && is_hex_string(fl.f[2], fl.len[2])) return PHMM_FMT_HEX;
	if (fl.n == 6 || fl.n == 7) return PHMM_FMT_GKL;
	return PHMM_FMT_AUTO;
}

const char *phmm_format_name(phmm_format_t fmt)
{
	static const char *names[] = {"auto", "gkl", "group", "hex"};
	return (unsigned)fmt < 4 ? names[fmt] : "?";
}

int phmm_format_parse(const char *name)
{
	for (int f = PHMM_FMT_AUTO; f <= PHMM_FMT_HEX; ++f)
		if (strcmp(name, phmm_format_name((phmm_format_t)f)) == 0) return f;
	return -1;
}

/* Reads the next line that is not blank or a comment, in place; 1, 0 at EOF, or <0. */
static int next_data_line(phmm_reader_t *rd, const char **line, size_t *len, long *lineno, gvk_err_t *err)
{
	int rc;
	while ((rc = gvk_lr_view(rd->lr, line, len, err)) == 1)
		if (!is_blank_or_comment(*line, *len)) break;
	*lineno = gvk_lr_lineno(rd->lr);
	return rc;
}

phmm_reader_t *phmm_reader_open(const char *path, phmm_format_t fmt, gvk_err_t *err)
{
	phmm_reader_t *rd = calloc(1, sizeof *rd);
	if (!rd) {
		gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (!(rd->lr = gvk_lr_open(path, err))) {
		free(rd);
		return NULL;
	}
	gvk_lr_set_max_line(rd->lr, GVK_LINE_MAX_SEQ);
	rd->fmt = fmt;
	const char *line;
	size_t len;
	long lineno;
	int rc = next_data_line(rd, &line, &len, &lineno, err);
	if (rc < 0) goto fail;
	if (rc == 0) {
		if (fmt == PHMM_FMT_AUTO) rd->fmt = PHMM_FMT_GKL;
		return rd; /* an empty input has no pairs */
	}
	if (fmt == PHMM_FMT_AUTO) {
		rd->fmt = detect(line, len);
		if (rd->fmt == PHMM_FMT_AUTO) {
			gvk_err_set(err, GVK_ERR_FORMAT,
			            "%s:%ld: cannot tell the input format: expected 'R H' (group format), 6 hex fields "
			            "or 6-7 fields of the GATK results-file format",
			            gvk_lr_path(rd->lr), lineno);
			goto fail;
		}
	}
	gvk_lr_unread_line(rd->lr);
	return rd;
fail:
	phmm_reader_close(rd);
	return NULL;
}

void phmm_reader_close(phmm_reader_t *rd)
{
	if (!rd) return;
	gvk_lr_close(rd->lr);
	free(rd);
}

phmm_format_t phmm_reader_format(const phmm_reader_t *rd) { return rd->fmt; }

void phmm_chunk_free(phmm_chunk_t *c)
{
	free(c->reads), free(c->haps), free(c->pairs), free(c->group), free(c->rin), free(c->hin);
	free(c->roff), free(c->hoff), free(c->arena), free(c->harena);
	for (int t = 0; t < c->nparts; ++t) phmm_chunk_free(&c->parts[t]);
	free(c->parts);
	memset(c, 0, sizeof *c);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap) return 0;
	size_t nc = *cap ? *cap : 256;
	while (nc < need) nc *= 2;
	void *np = realloc(*p, nc * elem);
	if (!np) return GVK_ERR_NOMEM;
	*p = np;
	*cap = nc;
	return 0;
}

/* Reserves n bytes of an arena; returns their offset or -1. */
static long arena_take(char **arena, size_t *len, size_t *cap, size_t n)
{
	if (grow((void **)arena, cap, *len + n, 1)) return -1;
	size_t off = *len;
	*len += n;
	return (long)off;
}

static int add_pairs_room(phmm_chunk_t *c, size_t extra)
{
	size_t need = c->n_pairs + extra, cap = c->m_pairs, c2 = cap, c3 = cap, c4 = cap;
	if (grow((void **)&c->pairs, &cap, need, sizeof *c->pairs) ||
	    grow((void **)&c->group, &c2, need, sizeof *c->group) ||
	    grow((void **)&c->rin, &c3, need, sizeof *c->rin) || grow((void **)&c->hin, &c4, need, sizeof *c->hin))
		return GVK_ERR_NOMEM;
	c->m_pairs = cap;
	return 0;
}

typedef struct {
	const char *path;
	long lineno;
	gvk_err_t *err;
} where_t;

/* Converts one quality field to raw bytes: Phred+33 characters (floor applied) or hex pairs. */
static int parse_quals(const char *s, size_t n, int hex, int floor, uint8_t *out, const char *what, where_t w)
{
	if (hex) {
		for (size_t i = 0; i < n; ++i) {
			char b[3] = {s[2 * i], s[2 * i + 1], 0};
			if (!isxdigit((unsigned char)b[0]) || !isxdigit((unsigned char)b[1]))
				return gvk_err_set(w.err, GVK_ERR_FORMAT, "%s:%ld: %s: '%s' at byte %zu is not a hex byte",
				                   w.path, w.lineno, what, b, i + 1);
			out[i] = (uint8_t)strtol(b, NULL, 16);
		}
		return 0;
	}
	/* One pass of unsigned byte minimum and maximum (SSE2's pminub and pmaxub once vectorised),
	 * then the error's position if any. */
	unsigned char lo = 255;
	const unsigned char fl = (unsigned char)floor;
	for (size_t i = 0; i < n; ++i) {
		unsigned char ch = (unsigned char)s[i], v = (unsigned char)(ch - 33);
		lo = ch < lo ? ch : lo;
		out[i] = v > fl ? v : fl;
	}
	if (lo < 33)
		for (size_t i = 0; i < n; ++i)
			if ((unsigned char)s[i] < 33)
				return gvk_err_set(w.err, GVK_ERR_FORMAT, "%s:%ld: %s: character 0x%02x at position %zu is below '!'",
				                   w.path, w.lineno, what, (unsigned char)s[i], i + 1);
	return 0;
}

/* Adds a read from five fields (bases, quals, ins, del, gcp); returns its index or <0. */
static long add_read(phmm_chunk_t *c, const char *const *f, const size_t *len, int hex, int qual_floor, where_t w)
{
	static const char *names[] = {"bases", "base qualities", "insertion GOPs", "deletion GOPs", "GCPs"};
	size_t R = len[0];
	for (int k = 1; k < 5; ++k) {
		size_t got = hex ? len[k] / 2 : len[k];
		if (got != R || (hex && len[k] % 2))
			return gvk_err_set(w.err, GVK_ERR_FORMAT, "%s:%ld: read has %zu bases but %s%zu %s", w.path,
			                   w.lineno, R, hex && len[k] % 2 ? "an odd number of hex digits for " : "",
			                   got, names[k]);
	}
	if (R > (size_t)INT32_MAX / 2)
		return gvk_err_set(w.err, GVK_ERR_FORMAT, "%s:%ld: read of %zu bases is too long", w.path, w.lineno, R);
	size_t cap = c->m_reads, c2 = cap;
	if (grow((void **)&c->reads, &cap, c->n_reads + 1, sizeof *c->reads) ||
	    grow((void **)&c->roff, &c2, c->n_reads + 1, sizeof *c->roff))
		return gvk_err_set(w.err, GVK_ERR_NOMEM, "out of memory");
	c->m_reads = cap;
	long off = arena_take(&c->arena, &c->arena_len, &c->arena_cap, 5 * R);
	if (off < 0) return gvk_err_set(w.err, GVK_ERR_NOMEM, "out of memory");
	memcpy(c->arena + off, f[0], R);
	for (int k = 1; k < 5; ++k) {
		int rc = parse_quals(f[k], R, hex, k == 1 ? qual_floor : 0, (uint8_t *)c->arena + off + k * R, names[k], w);
		if (rc < 0) return rc;
	}
	c->reads[c->n_reads].len = (int)R;
	c->roff[c->n_reads] = (size_t)off;
	return (long)c->n_reads++;
}

static long add_hap(phmm_chunk_t *c, const char *s, size_t H, where_t w)
{
	if (H == 0) return gvk_err_set(w.err, GVK_ERR_FORMAT, "%s:%ld: empty haplotype", w.path, w.lineno);
	if (H > (size_t)INT32_MAX / 2)
		return gvk_err_set(w.err, GVK_ERR_FORMAT, "%s:%ld: haplotype of %zu bases is too long", w.path, w.lineno, H);
	size_t cap = c->m_haps, c2 = cap;
	if (grow((void **)&c->haps, &cap, c->n_haps + 1, sizeof *c->haps) ||
	    grow((void **)&c->hoff, &c2, c->n_haps + 1, sizeof *c->hoff))
		return gvk_err_set(w.err, GVK_ERR_NOMEM, "out of memory");
	c->m_haps = cap;
	long off = arena_take(&c->harena, &c->harena_len, &c->harena_cap, H);
	if (off < 0) return gvk_err_set(w.err, GVK_ERR_NOMEM, "out of memory");
	memcpy(c->harena + off, s, H);
	c->haps[c->n_haps].len = (int)H;
	c->hoff[c->n_haps] = (size_t)off;
	return (long)c->n_haps++;
}

static void add_pair(phmm_chunk_t *c, long r, long h, uint64_t group, int rin, int hin)
{
	size_t k = c->n_pairs++;
	c->pairs[k] = (gvk_pair_t){(int32_t)r, (int32_t)h};
	c->group[k] = group, c->rin[k] = rin, c->hin[k] = hin;
	c->cells += (uint64_t)c->reads[r].len * (uint64_t)c->haps[h].len;
}

/* One line of the GKL or hex format: hap, read, quals, ins, del, gcp [, expected]. */
static int parse_pair_line(phmm_reader_t *rd, phmm_chunk_t *c, const char *line, size_t n, where_t w)
{
	fields_t fl;
	split(line, n, &fl);
	int hex = rd->fmt == PHMM_FMT_HEX;
	if (hex ? fl.n != 6 : fl.n != 6 && fl.n != 7)
		return gvk_err_set(w.err, GVK_ERR_FORMAT, "%s:%ld: expected %s fields (haplotype, read, 4 quality strings%s), found %d",
		                   w.path, w.lineno, hex ? "6" : "6 or 7", hex ? "" : ", optional expected value", fl.n);
	if (add_pairs_room(c, 1)) return gvk_err_set(w.err, GVK_ERR_NOMEM, "out of memory");
	/* GKL's test harness raises read base qualities below 6 to 6; the hex format is raw. */
	long r = add_read(c, fl.f + 1, fl.len + 1, hex, hex ? 0 : 6, w);
	if (r < 0) return (int)r;
	long h = add_hap(c, fl.f[0], fl.len[0], w);
	if (h < 0) return (int)h;
	add_pair(c, r, h, rd->records++, 0, 0);
	return 0;
}

/* One whole group: "R H", R read lines, H haplotype lines; pairs read-major. */
static int parse_group(phmm_reader_t *rd, phmm_chunk_t *c, const char *line, size_t n, where_t w)
{
	fields_t fl;
	long R, H;
	split(line, n, &fl);
	if (fl.n != 2 || parse_count(fl.f[0], fl.len[0], &R) || parse_count(fl.f[1], fl.len[1], &H) || R < 1 || H < 1 || R > (1L << 24) ||
	    H > (1L << 24))
		return gvk_err_set(w.err, GVK_ERR_FORMAT,
		                   "%s:%ld: expected a group header 'R H' with R reads and H haplotypes, each 1 to 16777216",
		                   w.path, w.lineno);
	const long head = w.lineno;
	size_t r0 = c->n_reads, h0 = c->n_haps;
	for (long k = 0; k < R + H; ++k) {
		size_t len;
		int rc = next_data_line(rd, &line, &len, &w.lineno, w.err);
		if (rc < 0) return rc;
		if (rc == 0)
			return gvk_err_set(w.err, GVK_ERR_FORMAT,
			                   "%s:%ld: group truncated: its header says %ld reads and %ld haplotypes, the file ends after %ld lines",
			                   w.path, head, R, H, k);
		split(line, len, &fl);
		if (k < R && fl.n != 5)
			return gvk_err_set(w.err, GVK_ERR_FORMAT,
			                   "%s:%ld: expected read %ld of the group at line %ld (5 fields: bases quals ins del gcp), found %d fields",
			                   w.path, w.lineno, k + 1, head, fl.n);
		if (k >= R && fl.n != 1)
			return gvk_err_set(w.err, GVK_ERR_FORMAT,
			                   "%s:%ld: expected haplotype %ld of the group at line %ld (1 field), found %d fields",
			                   w.path, w.lineno, k - R + 1, head, fl.n);
		long rc2 = k < R ? add_read(c, fl.f, fl.len, 0, 0, w) : add_hap(c, fl.f[0], fl.len[0], w);
		if (rc2 < 0) return (int)rc2;
	}
	if (add_pairs_room(c, (size_t)(R * H))) return gvk_err_set(w.err, GVK_ERR_NOMEM, "out of memory");
	for (long r = 0; r < R; ++r)
		for (long h = 0; h < H; ++h) add_pair(c, (long)r0 + r, (long)h0 + h, rd->records, (int)r, (int)h);
	rd->records++;
	return 0;
}

long phmm_reader_next(phmm_reader_t *rd, phmm_chunk_t *c, size_t max_pairs, gvk_err_t *err)
{
	c->n_reads = c->n_haps = c->n_pairs = 0;
	c->arena_len = c->harena_len = 0;
	c->cells = 0;
	while (c->n_pairs < max_pairs) {
		const char *line;
		size_t len;
		where_t w = {gvk_lr_path(rd->lr), 0, err};
		int rc = next_data_line(rd, &line, &len, &w.lineno, err);
		if (rc < 0) return rc;
		if (rc == 0) break;
		rc = rd->fmt == PHMM_FMT_GROUP ? parse_group(rd, c, line, len, w) : parse_pair_line(rd, c, line, len, w);
		if (rc < 0) return rc;
	}
	for (size_t k = 0; k < c->n_reads; ++k) {
		char *p = c->arena + c->roff[k];
		size_t R = (size_t)c->reads[k].len;
		gvk_read_t *r = &c->reads[k];
		r->bases = p, r->qual = (uint8_t *)p + R, r->ins = (uint8_t *)p + 2 * R;
		r->del = (uint8_t *)p + 3 * R, r->gcp = (uint8_t *)p + 4 * R;
	}
	for (size_t k = 0; k < c->n_haps; ++k) c->haps[k].bases = c->harena + c->hoff[k];
	return (long)c->n_pairs;
}

/* ---- parallel parsing ------------------------------------------------------------------------
 * A block of whole records is cut into one piece per thread, each parsed by the sequential parser
 * over the piece's memory, and the pieces' arrays are joined; reads and haplotypes stay in their
 * piece's arena, which the chunk keeps. */

static int is_data_line(const char *b, const char *e)
{
	while (b < e && (*b == ' ' || *b == '\t' || *b == '\r')) ++b;
	return b < e && *b != '#' && *b != '\n';
}

/* The counts of a group header line [b, e): two decimal numbers of 1 to 18 digits, at least 1
 * (the line is not NUL-terminated: it lies in the input's memory). 0, or -1 when the line is no
 * such header (the sequential parser then reports it). */
static int header_counts(const char *b, const char *e, long *R, long *H)
{
	long v[2];
	for (int k = 0; k < 2; ++k) {
		while (b < e && (*b == ' ' || *b == '\t')) ++b;
		const char *d = b;
		for (v[k] = 0; b < e && *b >= '0' && *b <= '9' && b - d < 18; ++b) v[k] = 10 * v[k] + (*b - '0');
		if (b == d || v[k] < 1 || (b < e && *b != ' ' && *b != '\t' && *b != '\r')) return -1;
	}
	*R = v[0], *H = v[1];
	return 0;
}

/* Walks the groups of blk[0, len): returns the offset just past the last complete group (-1 if
 * a header cannot be read: the sequential parser then reports it) and, when cuts is given, puts
 * piece t's start at the first group start at or after len * t / np (the last complete group's
 * end is known only at the end, so the targets use the whole block). */
static long group_walk(const char *blk, size_t len, int np, size_t *cuts, int *ncuts)
{
	const char *p = blk, *e = blk + len, *cut = blk;
	long want = 0; /* data lines still owed to the current group */
	int t = 1;
	while (p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		const char *le = nl ? nl : e;
		if (is_data_line(p, le)) {
			if (want == 0) {
				size_t at = (size_t)(p - blk);
				if (cuts && t < np && at >= gvk_part(len, t, np) && at > cuts[t - 1]) cuts[t++] = at;
				long R, H;
				if (header_counts(p, le, &R, &H) < 0) return -1;
				want = R + H;
			} else if (--want == 0) {
				cut = nl ? nl + 1 : e;
			}
		}
		p = nl ? nl + 1 : e;
	}
	/* Pieces that would start past the last complete group are dropped. */
	while (cuts && t > 1 && cuts[t - 1] >= (size_t)(cut - blk)) --t;
	if (ncuts) *ncuts = t;
	return (long)(cut - blk);
}

/* 1 when [b, e) is a group header: exactly two positive integers. Data lines cannot look like
 * one (a read line has five fields, a haplotype line one of bases), so a header can be found
 * from any point of a block without walking the groups before it. */
static int is_header_line(const char *b, const char *e)
{
	int fields = 0;
	while (b < e) {
		while (b < e && (*b == ' ' || *b == '\t' || *b == '\r')) ++b;
		if (b == e) break;
		if (*b < '1' || *b > '9' || ++fields > 2) return 0;
		while (b < e && *b >= '0' && *b <= '9') ++b;
		if (b < e && *b != ' ' && *b != '\t' && *b != '\r') return 0;
	}
	return fields == 2;
}

typedef struct {
	const char *blk;
	size_t len;
	int np;
	size_t *cand; /* cand[t]: the first header at or after len * t / np, or len */
} cut_job_t;

static void find_header(void *arg, int t)
{
	cut_job_t *j = arg;
	if (t == 0) return;
	const char *e = j->blk + j->len;
	const char *p = j->blk + gvk_part(j->len, t, j->np);
	if (p > j->blk && p[-1] != '\n') { /* to the start of the next line */
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		p = nl ? nl + 1 : e;
	}
	while (p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		const char *le = nl ? nl : e;
		if (is_header_line(p, le)) break;
		p = nl ? nl + 1 : e;
	}
	j->cand[t] = (size_t)(p - j->blk);
}

/* group_walk's result found on all threads: piece starts at headers found independently, and a
 * walk over the last piece only for the end of the last complete group. Falls back to the
 * whole walk (which reports malformed headers) when the tail does not walk cleanly. */
static long group_cut_mt(const char *blk, size_t len, int np, size_t *cuts, int *ncuts)
{
	size_t cand[65];
	cut_job_t j = {blk, len, np, cand};
	cand[0] = 0;
	gvk_parallel(np, find_header, &j);
	size_t last = 0;
	for (int t = 1; t < np; ++t)
		if (cand[t] < len && cand[t] > last) last = cand[t];
	long tail = group_walk(blk + last, len - last, 1, NULL, NULL);
	if (tail <= 0) return group_walk(blk, len, np, cuts, ncuts);
	size_t cut = last + (size_t)tail;
	int n = 1;
	cuts[0] = 0;
	for (int t = 1; t < np; ++t)
		if (cand[t] > cuts[n - 1] && cand[t] < cut) cuts[n++] = cand[t];
	*ncuts = n;
	return (long)cut;
}

/* Start of the first line at or after byte off (line formats: every line is a record). */
static size_t line_start_after(const char *blk, size_t len, size_t off)
{
	if (off == 0) return 0;
	const char *nl = memchr(blk + off - 1, '\n', len - off + 1);
	return nl ? (size_t)(nl - blk) + 1 : len;
}

typedef struct {
	phmm_reader_t *rd;
	const char *blk;
	size_t *cuts; /* piece t is blk[cuts[t], cuts[t+1]) */
	long *line0;  /* line number before piece t */
	phmm_chunk_t *parts;
	long *n;
	gvk_err_t *err;
	long *lines;  /* lines piece t consumed */
} mt_job_t;

static void parse_piece(void *arg, int t)
{
	mt_job_t *j = arg;
	phmm_reader_t sub = {NULL, j->rd->fmt, 0, {0}};
	phmm_chunk_t *part = &j->parts[t];
	j->n[t] = 0, j->lines[t] = 0;
	/* An empty piece must not leave the counts of an earlier chunk behind, nor an unset line
	 * count (the pieces' counts place the lines after them). */
	part->n_reads = part->n_haps = part->n_pairs = 0, part->cells = 0;
	if (j->cuts[t + 1] == j->cuts[t]) return;
	sub.lr = gvk_lr_open_mem(j->blk + j->cuts[t], j->cuts[t + 1] - j->cuts[t], gvk_lr_path(j->rd->lr), j->line0[t], &j->err[t]);
	if (!sub.lr) {
		j->n[t] = GVK_ERR_NOMEM;
		return;
	}
	gvk_lr_set_max_line(sub.lr, GVK_LINE_MAX_SEQ);
	j->n[t] = phmm_reader_next(&sub, &j->parts[t], SIZE_MAX, &j->err[t]);
	j->lines[t] = gvk_lr_lineno(sub.lr) - j->line0[t];
	gvk_lr_close(sub.lr);
}

void phmm_reader_times(const phmm_reader_t *rd, double t[4]) { memcpy(t, rd->t, sizeof rd->t); }
size_t phmm_reader_consumed(const phmm_reader_t *rd) { return gvk_lr_consumed(rd->lr); }
void phmm_reader_release(phmm_reader_t *rd, size_t to) { gvk_lr_release(rd->lr, to); }

/* Joins the pieces into c: their arrays copied with index offsets (each piece on its own
 * thread), their arenas kept. A piece's groups are numbered in order, so its last pair holds its
 * largest group. */
typedef struct {
	phmm_chunk_t *c, *parts;
	size_t r0[64], h0[64], k0[64];
	uint64_t g0[64];
} join_job_t;

static uint64_t part_groups(const phmm_chunk_t *q) { return q->n_pairs ? q->group[q->n_pairs - 1] + 1 : 0; }

static void join_piece(void *arg, int t)
{
	join_job_t *j = arg;
	const phmm_chunk_t *q = &j->parts[t];
	phmm_chunk_t *c = j->c;
	size_t r0 = j->r0[t], h0 = j->h0[t], k0 = j->k0[t];
	if (q->n_pairs == 0) return;
	memcpy(c->reads + r0, q->reads, q->n_reads * sizeof *q->reads);
	memcpy(c->haps + h0, q->haps, q->n_haps * sizeof *q->haps);
	memcpy(c->rin + k0, q->rin, q->n_pairs * sizeof *q->rin);
	memcpy(c->hin + k0, q->hin, q->n_pairs * sizeof *q->hin);
	for (size_t k = 0; k < q->n_pairs; ++k) {
		c->pairs[k0 + k] = (gvk_pair_t){q->pairs[k].read + (int32_t)r0, q->pairs[k].hap + (int32_t)h0};
		c->group[k0 + k] = q->group[k] + j->g0[t];
	}
}

static int join_parts(phmm_chunk_t *c, phmm_chunk_t *parts, int np, uint64_t rec0)
{
	join_job_t j;
	j.c = c, j.parts = parts;
	size_t nr = 0, nh = 0, npairs = 0;
	uint64_t g = rec0;
	c->cells = 0;
	for (int t = 0; t < np; ++t) {
		j.r0[t] = nr, j.h0[t] = nh, j.k0[t] = npairs, j.g0[t] = g;
		nr += parts[t].n_reads, nh += parts[t].n_haps, npairs += parts[t].n_pairs;
		g += part_groups(&parts[t]);
		c->cells += parts[t].cells;
	}
	/* reads/roff and haps/hoff share a capacity: grow both, or a later sequential fill of this
	 * chunk (after a malformed block) would write through a missing roff. */
	size_t cr = c->m_reads, cr2 = cr, ch = c->m_haps, ch2 = ch, cp = c->m_pairs, cp2 = cp, cp3 = cp, cp4 = cp;
	if (grow((void **)&c->reads, &cr, nr, sizeof *c->reads) || grow((void **)&c->roff, &cr2, nr, sizeof *c->roff) ||
	    grow((void **)&c->haps, &ch, nh, sizeof *c->haps) || grow((void **)&c->hoff, &ch2, nh, sizeof *c->hoff) ||
	    grow((void **)&c->pairs, &cp, npairs, sizeof *c->pairs) || grow((void **)&c->group, &cp2, npairs, sizeof *c->group) ||
	    grow((void **)&c->rin, &cp3, npairs, sizeof *c->rin) || grow((void **)&c->hin, &cp4, npairs, sizeof *c->hin))
		return GVK_ERR_NOMEM;
	c->m_reads = cr, c->m_haps = ch, c->m_pairs = cp;
	gvk_parallel(np, join_piece, &j);
	c->n_reads = nr, c->n_haps = nh, c->n_pairs = npairs;
	return 0;
}

long phmm_reader_next_mt(phmm_reader_t *rd, phmm_chunk_t *c, size_t max_pairs, int threads, gvk_err_t *err)
{
	if (threads < 2 || max_pairs < (1u << 16) || threads > 64) return phmm_reader_next(rd, c, max_pairs, err);
	/* About 90 bytes of text per pair in HaplotypeCaller-shaped group files. */
	size_t want = max_pairs * 90;
	if (want > ((size_t)512 << 20)) want = (size_t)512 << 20;
	char *blk;
	size_t len;
	double t0 = gvk_seconds(), t1;
	/* Lines are counted below on all threads: three serial passes over the block used to cost
	 * more than the parsing itself. */
	int rc = gvk_lr_block_uncounted(rd->lr, want, &blk, &len, err);
	c->n_reads = c->n_haps = c->n_pairs = 0, c->arena_len = c->harena_len = 0, c->cells = 0;
	/* A read error (a damaged gzip stream) met while reading ahead: the lines before it are
	 * parsed sequentially, so that a bad record there is reported first, as without threads. */
	if (rc < 0) return phmm_reader_next(rd, c, max_pairs, err);
	if (rc == 0) return 0;
	t1 = gvk_seconds(), rd->t[0] += t1 - t0, t0 = t1;
	const int group = rd->fmt == PHMM_FMT_GROUP;
	size_t cuts[65];
	long line0[65], n[64];
	int np = threads;
	cuts[0] = 0;
	if (group) {
		long cut = group_cut_mt(blk, len, np, cuts, &np);
		if (cut <= 0) { /* a malformed header or one group bigger than the block */
			gvk_lr_unread(rd->lr, len, 0);
			return phmm_reader_next(rd, c, max_pairs, err);
		}
		gvk_lr_unread(rd->lr, len - (size_t)cut, 0);
		len = (size_t)cut;
	} else {
		for (int t = 1; t < np; ++t) cuts[t] = line_start_after(blk, len, gvk_part(len, t, np));
	}
	cuts[np] = len;
	t1 = gvk_seconds(), rd->t[1] += t1 - t0, t0 = t1;
	/* Pieces are parsed with line numbers relative to their start, each counting its lines as
	 * it goes (a separate counting pass over the block cost as much as the parsing). When one
	 * fails, the block is parsed again sequentially, which reports its first error exactly as
	 * without threads: a group-format piece may start at a malformed read line that looks like
	 * a header, and then fails with another message than the input's first error. */
	long lines[64];
	for (int t = 0; t <= np; ++t) line0[t] = 0;
	if (c->nparts < np) {
		phmm_chunk_t *np2 = realloc(c->parts, (size_t)np * sizeof *np2);
		if (!np2) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		memset(np2 + c->nparts, 0, (size_t)(np - c->nparts) * sizeof *np2);
		c->parts = np2, c->nparts = np;
	}
	gvk_err_t errs[64];
	mt_job_t job = {rd, blk, cuts, line0, c->parts, n, errs, lines};
	gvk_parallel(np, parse_piece, &job);
	t1 = gvk_seconds(), rd->t[2] += t1 - t0, t0 = t1;
	long total = 0;
	for (int t = 0; t < np; ++t) {
		if (n[t] < 0) {
			gvk_lr_unread(rd->lr, len, 0);
			return phmm_reader_next(rd, c, max_pairs, err);
		}
		total += lines[t];
	}
	gvk_lr_add_lines(rd->lr, total);
	if (join_parts(c, c->parts, np, rd->records) < 0) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	rd->t[3] += gvk_seconds() - t0;
	for (int t = 0; t < np; ++t) rd->records += part_groups(&c->parts[t]);
	return (long)c->n_pairs;
}
