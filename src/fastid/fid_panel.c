/* SPDX-License-Identifier: MIT */
/* SNP panels of .fidb files: parse and check, build from variant descriptions, compare. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fid_panel.h"
#include "fid_field.h"
#include "../common/err.h"

static const char *const field_name[5] = {"chromosome", "ID", "position", "allele 1", "allele 2"};

uint64_t fid_fnv1a(const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < len; ++i) h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

void fid_panel_free(fid_panel_t *pl)
{
	free(pl->snp);
	free(pl->raw);
	free(pl->text);
	memset(pl, 0, sizeof *pl);
}

/* A position as the panel stores it: decimal digits, no sign, no leading zero (so that equal
 * panels are equal bytes and hash alike), at most INT64_MAX. */
static int parse_pos(const char *s, int64_t *v)
{
	size_t len = strlen(s);
	if (len == 0 || len > 19 || (s[0] == '0' && len > 1)) return -1;
	uint64_t x = 0;
	for (size_t i = 0; i < len; ++i) {
		if (s[i] < '0' || s[i] > '9') return -1;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	if (x > (uint64_t)INT64_MAX) return -1;
	*v = (int64_t)x;
	return 0;
}

/* Splits one line (NUL-terminated, no LF) at its tabs into the five fields of SNP i. */
static int parse_line(char *line, uint32_t i, fid_snp_t *snp, const char *path, gvk_err_t *err)
{
	char *f[5];
	int nf = 0;
	for (char *p = line;; ++p) {
		if (nf < 5) f[nf] = p;
		++nf;
		p = strchr(p, '\t');
		if (!p) break;
		*p = 0;
	}
	if (nf != 5)
		return gvk_err_set(err, GVK_ERR_FORMAT,
		                   "%s: SNP panel, SNP %u: %d fields, need 5 (chromosome, ID, position, allele 1, allele 2)", path,
		                   i, nf);
	for (int k = 0; k < 5; ++k) {
		size_t len = strlen(f[k]), bad = fid_field_bad(f[k], len);
		if (len == 0) return gvk_err_set(err, GVK_ERR_FORMAT, "%s: SNP panel, SNP %u: empty %s", path, i, field_name[k]);
		if (bad < len)
			return gvk_err_set(err, GVK_ERR_FORMAT, "%s: SNP panel, SNP %u: control byte 0x%02x in the %s", path, i,
			                   (unsigned char)f[k][bad], field_name[k]);
	}
	if (parse_pos(f[2], &snp->pos) < 0)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: SNP panel, SNP %u: position '%.40s' is not a plain decimal number",
		                   path, i, f[2]);
	snp->chr = f[0], snp->id = f[1], snp->a1 = f[3], snp->a2 = f[4];
	return 0;
}

/* The lines of text (len bytes) into the n SNPs of pl; LFs become NULs. */
static int parse_lines(fid_panel_t *pl, uint32_t n, const char *path, gvk_err_t *err)
{
	char *p = pl->text, *end = pl->text + pl->len;
	for (uint32_t i = 0; i < n; ++i) {
		char *lf = memchr(p, '\n', (size_t)(end - p));
		if (!lf)
			return gvk_err_set(err, GVK_ERR_FORMAT, "%s: SNP panel ends inside the line of SNP %u (the header says %u SNPs)",
			                   path, i, n);
		*lf = 0;
		if (memchr(p, 0, (size_t)(lf - p)))
			return gvk_err_set(err, GVK_ERR_FORMAT, "%s: SNP panel, SNP %u: NUL byte", path, i);
		int rc = parse_line(p, i, &pl->snp[i], path, err);
		if (rc < 0) return rc;
		p = lf + 1;
	}
	if (p != end)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: SNP panel has %llu bytes after its %u SNPs", path,
		                   (unsigned long long)(end - p), n);
	return 0;
}

int fid_panel_parse(fid_panel_t *pl, char *raw, uint64_t len, uint32_t n_snp, const char *path, gvk_err_t *err)
{
	memset(pl, 0, sizeof *pl);
	pl->raw = raw;
	pl->len = len;
	pl->present = 1;
	pl->n = n_snp;
	pl->hash = fid_fnv1a(raw, (size_t)len);
	pl->text = malloc((size_t)len + 1);
	pl->snp = calloc(n_snp ? n_snp : 1, sizeof *pl->snp);
	int rc = 0;
	if (!pl->text || !pl->snp) rc = gvk_err_set(err, GVK_ERR_NOMEM, "%s: out of memory for the SNP panel", path);
	if (rc == 0) {
		memcpy(pl->text, raw, (size_t)len);
		pl->text[len] = 0;
		rc = parse_lines(pl, n_snp, path, err);
	}
	if (rc < 0) fid_panel_free(pl);
	return rc;
}

static int check_field(const char *s, uint32_t i, const char *id, int k, gvk_err_t *err)
{
	size_t len = strlen(s), bad = fid_field_bad(s, len);
	if (len == 0)
		return gvk_err_set(err, GVK_ERR_FORMAT, "SNP %u (%.64s): empty %s, which a .fidb cannot store", i, id,
		                   field_name[k]);
	if (bad < len)
		return gvk_err_set(err, GVK_ERR_FORMAT, "SNP %u (%.64s): control byte 0x%02x in the %s, which a .fidb cannot store", i,
		                   id, (unsigned char)s[bad], field_name[k]);
	return 0;
}

static int check_snp(const fid_snp_t *s, uint32_t i, gvk_err_t *err)
{
	const char *f[5] = {s->chr, s->id, NULL, s->a1, s->a2};
	for (int k = 0; k < 5; ++k) {
		if (!f[k]) continue; /* the position is a number, written by the builder */
		int rc = check_field(f[k], i, s->id, k, err);
		if (rc < 0) return rc;
	}
	if (s->pos < 0) return gvk_err_set(err, GVK_ERR_FORMAT, "SNP %u (%.64s): negative position", i, s->id);
	return 0;
}

int fid_panel_build(fid_panel_t *pl, const fid_snp_t *snp, uint32_t n, gvk_err_t *err)
{
	memset(pl, 0, sizeof *pl);
	size_t len = 0;
	for (uint32_t i = 0; i < n; ++i) {
		int rc = check_snp(&snp[i], i, err);
		if (rc < 0) return rc;
		len += strlen(snp[i].chr) + strlen(snp[i].id) + strlen(snp[i].a1) + strlen(snp[i].a2) + 20 + 5;
	}
	char *raw = malloc(len + 1);
	if (!raw) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for the SNP panel");
	size_t at = 0;
	for (uint32_t i = 0; i < n; ++i)
		at += (size_t)snprintf(raw + at, len + 1 - at, "%s\t%s\t%" PRId64 "\t%s\t%s\n", snp[i].chr, snp[i].id, snp[i].pos,
		                       snp[i].a1, snp[i].a2);
	return fid_panel_parse(pl, raw, at, n, "SNP panel", err);
}

static int same_snp(const fid_snp_t *a, const fid_snp_t *b)
{
	return a->pos == b->pos && strcmp(a->chr, b->chr) == 0 && strcmp(a->id, b->id) == 0 && strcmp(a->a1, b->a1) == 0 &&
	       strcmp(a->a2, b->a2) == 0;
}

int fid_panel_match(const fid_panel_t *a, const char *apath, const fid_panel_t *b, const char *bpath, gvk_err_t *err)
{
	if (!a->present || !b->present) return 0;
	if (a->hash == b->hash && a->len == b->len && memcmp(a->raw, b->raw, (size_t)a->len) == 0) return 0;
	uint32_t n = a->n < b->n ? a->n : b->n, i = 0;
	while (i < n && same_snp(&a->snp[i], &b->snp[i])) ++i;
	if (i == n)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s has %u SNPs but %s has %u", apath, a->n, bpath, b->n);
	const fid_snp_t *x = &a->snp[i], *y = &b->snp[i];
	return gvk_err_set(err, GVK_ERR_FORMAT,
	                   "%s and %s were made on different SNP panels; the first difference is SNP %u: "
	                   "%.64s (%.32s:%" PRId64 ", %.32s/%.32s) in %s, %.64s (%.32s:%" PRId64 ", %.32s/%.32s) in %s",
	                   apath, bpath, i, x->id, x->chr, x->pos, x->a1, x->a2, apath, y->id, y->chr, y->pos, y->a1, y->a2,
	                   bpath);
}
