/* SPDX-License-Identifier: MIT */
/* Sample IDs of .fidb profiles: parse and check a file's section, make index names, copy for
 * writing. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fid_ids.h"
#include "fid_field.h"
#include "../common/err.h"

void fid_ids_free(fid_ids_t *s)
{
	free(s->idx);
	free(s->id);
	free(s->text);
	memset(s, 0, sizeof *s);
}

const char *fid_ids_get(const fid_ids_t *s, int64_t i)
{
	if (!s->idx) return i >= 0 && (size_t)i < s->n ? s->id[i] : NULL;
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->idx[mid] < i) lo = mid + 1;
		else hi = mid;
	}
	return lo < s->n && s->idx[lo] == i ? s->id[lo] : NULL;
}

uint64_t fid_ids_len(const fid_ids_t *s)
{
	uint64_t len = 0;
	for (size_t i = 0; i < s->n; ++i) len += strlen(s->id[i]) + 1;
	return len;
}

/* Room for n IDs, and for the indices they belong to when want is not NULL. */
static int alloc_ids(fid_ids_t *s, size_t n, const int64_t *want, gvk_err_t *err)
{
	s->id = malloc((n ? n : 1) * sizeof *s->id);
	s->idx = want ? malloc((n ? n : 1) * sizeof *s->idx) : NULL;
	if (!s->id || (want && !s->idx)) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for sample IDs");
	if (want) memcpy(s->idx, want, n * sizeof *s->idx);
	s->n = n;
	return 0;
}

/* Moves the kept IDs into storage of their own size, so that the whole section can go. */
static int compact(fid_ids_t *s, gvk_err_t *err)
{
	size_t len = 0;
	for (size_t k = 0; k < s->n; ++k) len += strlen(s->id[k]) + 1;
	char *t = malloc(len ? len : 1), *p = t;
	if (!t) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for sample IDs");
	for (size_t k = 0; k < s->n; ++k) {
		size_t l = strlen(s->id[k]) + 1;
		memcpy(p, s->id[k], l);
		s->id[k] = p;
		p += l;
	}
	free(s->text);
	s->text = t;
	return 0;
}

/* Every line of the section: n IDs, each checked; LFs become NULs; the wanted ones are kept. */
static int parse_lines(fid_ids_t *s, uint64_t len, int64_t n, const int64_t *want, const char *path, gvk_err_t *err)
{
	char *p = s->text, *end = s->text + len;
	size_t k = 0;
	for (int64_t i = 0; i < n; ++i) {
		char *lf = memchr(p, '\n', (size_t)(end - p));
		if (!lf)
			return gvk_err_set(err, GVK_ERR_FORMAT,
			                   "%s: sample IDs end inside the ID of profile %lld (the header says %lld profiles)", path,
			                   (long long)i, (long long)n);
		size_t l = (size_t)(lf - p), bad = fid_field_bad(p, l);
		if (l == 0) return gvk_err_set(err, GVK_ERR_FORMAT, "%s: the sample ID of profile %lld is empty", path, (long long)i);
		if (bad < l)
			return gvk_err_set(err, GVK_ERR_FORMAT, "%s: the sample ID of profile %lld has control byte 0x%02x", path,
			                   (long long)i, (unsigned char)p[bad]);
		*lf = 0;
		if (!want) s->id[i] = p;
		else if (k < s->n && want[k] == i) s->id[k++] = p;
		p = lf + 1;
	}
	if (p != end)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: %llu bytes after the sample ID of the last profile", path,
		                   (unsigned long long)(end - p));
	if (want && k != s->n)
		return gvk_err_set(err, GVK_ERR_ARG, "%s: profile %lld asked for, but the file has %lld profiles", path,
		                   (long long)want[k], (long long)n);
	return 0;
}

int fid_ids_parse(fid_ids_t *s, char *text, uint64_t len, int64_t n, const int64_t *want, size_t n_want,
                  const char *path, gvk_err_t *err)
{
	memset(s, 0, sizeof *s);
	s->text = text;
	text[len] = 0;
	int rc = alloc_ids(s, want ? n_want : (size_t)n, want, err);
	if (rc == 0) rc = parse_lines(s, len, n, want, path, err);
	if (rc == 0 && want) rc = compact(s, err);
	if (rc < 0) fid_ids_free(s);
	return rc;
}

int fid_ids_indices(fid_ids_t *s, int64_t n, const int64_t *want, size_t n_want, gvk_err_t *err)
{
	memset(s, 0, sizeof *s);
	size_t m = want ? n_want : (size_t)n;
	int rc = alloc_ids(s, m, want, err);
	s->text = rc == 0 ? malloc(m * 21 + 1) : NULL;
	if (rc == 0 && !s->text) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for sample IDs");
	char *p = s->text;
	for (size_t k = 0; k < m && rc == 0; ++k) {
		s->id[k] = p;
		p += snprintf(p, 21, "%lld", (long long)(want ? want[k] : (int64_t)k)) + 1;
	}
	if (rc < 0) fid_ids_free(s);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A repeated ID names two profiles alike; a hit could not be traced to one person. */
static int check_unique(char *const *id, size_t n, gvk_err_t *err)
{
	char **s = malloc((n ? n : 1) * sizeof *s);
	if (!s) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for sample IDs");
	memcpy(s, id, n * sizeof *s);
	qsort(s, n, sizeof *s, cmp_str);
	int rc = 0;
	for (size_t i = 1; i < n && rc == 0; ++i)
		if (strcmp(s[i - 1], s[i]) == 0)
			rc = gvk_err_set(err, GVK_ERR_FORMAT, "sample ID '%.64s' appears more than once", s[i]);
	free(s);
	return rc;
}

static int check_id(const char *id, size_t i, gvk_err_t *err)
{
	size_t l = strlen(id), bad = fid_field_bad(id, l);
	if (l == 0) return gvk_err_set(err, GVK_ERR_FORMAT, "sample %zu has an empty ID, which a .fidb cannot store", i);
	if (bad < l)
		return gvk_err_set(err, GVK_ERR_FORMAT,
		                   "sample %zu ('%.64s'): control byte 0x%02x in the ID, which a .fidb cannot store", i, id,
		                   (unsigned char)id[bad]);
	return 0;
}

int fid_ids_copy(fid_ids_t *s, char *const *id, size_t n, gvk_err_t *err)
{
	memset(s, 0, sizeof *s);
	size_t len = 0;
	for (size_t i = 0; i < n; ++i) {
		int rc = check_id(id[i], i, err);
		if (rc < 0) return rc;
		len += strlen(id[i]) + 1;
	}
	int rc = check_unique(id, n, err);
	if (rc == 0) rc = alloc_ids(s, n, NULL, err);
	s->text = rc == 0 ? malloc(len ? len : 1) : NULL;
	if (rc == 0 && !s->text) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for sample IDs");
	char *p = s->text;
	for (size_t i = 0; i < n && rc == 0; ++i) {
		size_t l = strlen(id[i]) + 1;
		memcpy(p, id[i], l);
		s->id[i] = p;
		p += l;
	}
	if (rc < 0) fid_ids_free(s);
	return rc;
}
