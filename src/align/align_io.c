/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../common/err.h"
#include "../common/lineio.h"
#include "align_io.h"

struct al_reader_s {
	gvk_lr_t *lr;
	al_defaults_t def;
};

al_reader_t *al_reader_open(const char *path, const al_defaults_t *def, gvk_err_t *err)
{
	al_reader_t *rd = calloc(1, sizeof *rd);
	if (!rd) {
		gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		return NULL;
	}
	rd->def = *def;
	if (!(rd->lr = gvk_lr_open(path, err))) {
		free(rd);
		return NULL;
	}
	gvk_lr_set_max_line(rd->lr, GVK_LINE_MAX_SEQ);
	return rd;
}

void al_reader_close(al_reader_t *rd)
{
	if (!rd) return;
	gvk_lr_close(rd->lr);
	free(rd);
}

void al_chunk_free(al_chunk_t *c)
{
	free(c->pairs);
	free(c->text);
	memset(c, 0, sizeof *c);
}

static int parse_int(const char *s, int32_t *v)
{
	char *end;
	errno = 0;
	long x = strtol(s, &end, 10);
	if (!*s || *end || errno || x < INT32_MIN || x > INT32_MAX) return -1;
	*v = (int32_t)x;
	return 0;
}

static int push_text(al_chunk_t *c, const char *s, size_t len, size_t *at)
{
	if (c->text_len + len > c->text_cap) {
		size_t cap = (c->text_len + len) * 2 + 65536;
		char *p = realloc(c->text, cap);
		if (!p) return GVK_ERR_NOMEM;
		c->text = p, c->text_cap = cap;
	}
	memcpy(c->text + c->text_len, s, len);
	*at = c->text_len;
	c->text_len += len;
	return 0;
}

enum { MAX_FIELDS = 8 };

/* Parses one line into pair p; sequence positions in c->text are kept in the pointer fields as
 * offsets until the chunk is complete. */
static int parse_line(al_reader_t *rd, char *line, size_t len, al_chunk_t *c, gvk_align_pair_t *p, gvk_err_t *err)
{
	const char *path = gvk_lr_path(rd->lr);
	const long ln = gvk_lr_lineno(rd->lr);
	char *f[MAX_FIELDS];
	int nf = 0;
	for (char *s = line;; ++s) {
		if (nf < MAX_FIELDS) f[nf] = s;
		++nf;
		char *tab = memchr(s, '\t', len - (size_t)(s - line));
		if (!tab) break;
		*tab = 0;
		s = tab;
	}
	if (nf != 2 && nf != 7)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: expected 2 or 7 tab-separated fields (ref alt [match mismatch gap_open gap_extend strategy]), found %d",
		                   path, ln, nf);
	p->par = rd->def.par;
	p->overhang = rd->def.overhang;
	if (nf == 7) {
		static const char *const names[4] = {"match", "mismatch", "gap_open", "gap_extend"};
		int32_t v[4];
		for (int k = 0; k < 4; ++k)
			if (parse_int(f[2 + k], &v[k]) < 0)
				return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: %s '%s' is not an integer", path, ln, names[k], f[2 + k]);
		int o = gvk_overhang_parse(f[6]);
		if (o < 0)
			return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: unknown strategy '%s' (SOFTCLIP, INDEL, LEADING_INDEL or IGNORE)",
			                   path, ln, f[6]);
		if (!rd->def.force_par) p->par = (gvk_sw_params_t){v[0], v[1], v[2], v[3]};
		if (!rd->def.force_overhang) p->overhang = o;
	}
	size_t lr = strlen(f[0]), la = strlen(f[1]), at_r, at_a;
	if (lr > GVK_ALIGN_MAX_LEN || la > GVK_ALIGN_MAX_LEN)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: %s of %zu bases is longer than the limit of %d", path, ln,
		                   lr > la ? "ref" : "alt", lr > la ? lr : la, GVK_ALIGN_MAX_LEN);
	p->ref_len = (int32_t)lr, p->alt_len = (int32_t)la;
	p->ref = p->alt = "";
	gvk_err_t perr = {0, ""};
	if (gvk_align_check_pair(p, &perr) < 0) return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: %s", path, ln, perr.msg);
	if (push_text(c, f[0], lr, &at_r) < 0 || push_text(c, f[1], la, &at_a) < 0)
		return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	p->ref = (const char *)(uintptr_t)at_r;
	p->alt = (const char *)(uintptr_t)at_a;
	return 0;
}

long al_reader_next(al_reader_t *rd, al_chunk_t *c, size_t max_pairs, gvk_err_t *err)
{
	c->n = c->text_len = 0;
	c->cells = 0;
	while (c->n < max_pairs) {
		char *line;
		size_t len;
		int rc = gvk_lr_next(rd->lr, &line, &len, err);
		if (rc < 0) return rc;
		if (rc == 0) break;
		if (gvk_lr_lineno(rd->lr) == 1 && len >= 4 && !memcmp(line, "ref\t", 4)) continue;
		if (c->n == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 1024;
			gvk_align_pair_t *p = realloc(c->pairs, cap * sizeof *p);
			if (!p) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
			c->pairs = p, c->cap = cap;
		}
		if ((rc = parse_line(rd, line, len, c, &c->pairs[c->n], err)) < 0) return rc;
		c->cells += (uint64_t)c->pairs[c->n].ref_len * (uint64_t)c->pairs[c->n].alt_len;
		++c->n;
	}
	for (size_t k = 0; k < c->n; ++k) {
		c->pairs[k].ref = c->text + (uintptr_t)c->pairs[k].ref;
		c->pairs[k].alt = c->text + (uintptr_t)c->pairs[k].alt;
	}
	return (long)c->n;
}

/* The public reader (gvk.h): the internal one with the chunk its pairs live in. */
struct gvk_align_reader_s {
	al_reader_t *rd;
	al_chunk_t c;
};

gvk_align_reader_t *gvk_align_reader_open(const char *path, const gvk_align_defaults_t *def, gvk_err_t *err)
{
	if (!path) {
		gvk_err_null(err, __func__, "path");
		return NULL;
	}
	if (!def) {
		gvk_err_null(err, __func__, "def");
		return NULL;
	}
	if (!gvk_overhang_name(def->overhang)) {
		gvk_err_set(err, GVK_ERR_ARG, "%s: def->overhang %d is not a GVK_OVERHANG_* strategy", __func__, def->overhang);
		return NULL;
	}
	gvk_align_reader_t *r = calloc(1, sizeof *r);
	if (!r) {
		gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (!(r->rd = al_reader_open(path, def, err))) {
		free(r);
		return NULL;
	}
	return r;
}

long gvk_align_reader_next(gvk_align_reader_t *r, size_t max_pairs, const gvk_align_pair_t **pairs, uint64_t *cells,
                           gvk_err_t *err)
{
	if (!r) return gvk_err_null(err, __func__, "r");
	if (!pairs) return gvk_err_null(err, __func__, "pairs");
	long n = al_reader_next(r->rd, &r->c, max_pairs ? max_pairs : 1, err);
	*pairs = n > 0 ? r->c.pairs : NULL;
	if (cells) *cells = n > 0 ? r->c.cells : 0;
	return n;
}

void gvk_align_reader_close(gvk_align_reader_t *r)
{
	if (!r) return;
	al_reader_close(r->rd);
	al_chunk_free(&r->c);
	free(r);
}
