/* SPDX-License-Identifier: MIT */
/* Variant filters with PLINK 1.9's semantics; IDs are looked up in a sorted view of var[]. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "snp_select.h"
#include "snp_chrom.h"
#include "../common/err.h"
#include "../common/lineio.h"

/* PLINK compares frequencies and rates with this much slack (2^-44). */
#define SNP_SMALL_EPSILON 0.00000000000005684341886080801486968994140625

void snp_ranges_free(snp_ranges_t *r)
{
	for (int k = 0; k < r->n; ++k) free(r->name[k]);
	free(r->name);
	free(r->starts);
	memset(r, 0, sizeof *r);
}

static int add_name(snp_ranges_t *r, const char *s, size_t len, int starts)
{
	char **nn = realloc(r->name, sizeof *nn * (size_t)(r->n + 1));
	if (nn) r->name = nn;
	uint8_t *ns = nn ? realloc(r->starts, (size_t)r->n + 1) : NULL;
	if (ns) r->starts = ns;
	char *c = ns ? strndup(s, len) : NULL;
	if (!c) return -1;
	r->name[r->n] = c, r->starts[r->n++] = (uint8_t)starts;
	return 0;
}

/* One comma-separated item: a name or a range a-b. */
static int parse_item(snp_ranges_t *r, const char *s, size_t len, const char *flag, gvk_err_t *err)
{
	const char *dash = memchr(s, '-', len);
	if (!dash) return add_name(r, s, len, 0) < 0 ? gvk_err_set(err, GVK_ERR_NOMEM, "out of memory") : 0;
	size_t l1 = (size_t)(dash - s), l2 = len - l1 - 1;
	if (l1 == 0 || l2 == 0 || memchr(dash + 1, '-', l2))
		return gvk_err_set(err, GVK_ERR_ARG, "%s: '%.*s' is neither a variant ID nor a range ID1-ID2", flag, (int)len, s);
	if (add_name(r, s, l1, 1) < 0 || add_name(r, dash + 1, l2, 0) < 0) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	return 0;
}

int snp_ranges_parse(char *const *args, int n_args, const char *flag, snp_ranges_t *r, gvk_err_t *err)
{
	memset(r, 0, sizeof *r);
	int rc = 0;
	for (int a = 0; a < n_args && rc == 0; ++a)
		for (const char *p = args[a]; rc == 0;) {
			const char *e = strchr(p, ',');
			size_t len = e ? (size_t)(e - p) : strlen(p);
			if (len) rc = parse_item(r, p, len, flag, err);
			if (!e) break;
			p = e + 1;
		}
	if (rc == 0 && r->n == 0) rc = gvk_err_set(err, GVK_ERR_ARG, "%s needs at least one variant ID", flag);
	for (int k = 1; k < r->n && rc == 0; ++k)
		for (int j = 0; j < k && rc == 0; ++j)
			if (!strcmp(r->name[j], r->name[k])) rc = gvk_err_set(err, GVK_ERR_ARG, "%s: '%s' is given twice", flag, r->name[k]);
	if (rc < 0) snp_ranges_free(r);
	return rc;
}

typedef struct {
	const char *id;
	int64_t idx;
} vref_t;

static int cmp_vref(const void *a, const void *b)
{
	const vref_t *x = a, *y = b;
	int c = strcmp(x->id, y->id);
	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* The variants with keep[i] (all when keep is NULL) sorted by ID, then file order. */
static vref_t *sorted_vars(const snp_data_t *d, const uint8_t *keep, int64_t *n)
{
	vref_t *r = malloc(sizeof *r * (size_t)(d->n_snp + 1));
	if (!r) return NULL;
	*n = 0;
	for (int64_t i = 0; i < d->n_snp; ++i)
		if (!keep || keep[i]) r[(*n)++] = (vref_t){d->var[i].id, i};
	qsort(r, (size_t)*n, sizeof *r, cmp_vref);
	return r;
}

/* The first variant (in file order) with this ID, or -1; *dup = 1 when another one has it too. */
static int64_t find_var(const vref_t *r, int64_t n, const char *id, int *dup)
{
	int64_t lo = 0, hi = n;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (strcmp(r[mid].id, id) < 0) lo = mid + 1;
		else hi = mid;
	}
	if (lo == n || strcmp(r[lo].id, id)) return -1;
	if (dup) *dup = lo + 1 < n && !strcmp(r[lo + 1].id, id);
	return r[lo].idx;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Appends a copy of t to *ids (room for *cap); -1 when out of memory. */
static int add_token(char ***ids, size_t *n, size_t *cap, const char *t)
{
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 256;
		char **ni = realloc(*ids, nc * sizeof *ni);
		if (!ni) return -1;
		*ids = ni, *cap = nc;
	}
	if (!((*ids)[*n] = strdup(t))) return -1;
	++*n;
	return 0;
}

/* Whitespace-separated tokens of a file, sorted; NULL with err set on failure. A NUL byte would
 * end a line's tokens early without a word, so it is an error. */
static char **read_tokens(const char *path, size_t *n, gvk_err_t *err)
{
	gvk_lr_t *lr = gvk_lr_open(path, err);
	if (!lr) return NULL;
	/* A list may hold all its IDs on one line. */
	gvk_lr_set_max_line(lr, GVK_LINE_MAX_SEQ);
	char **ids = NULL, *line, *save;
	size_t len, cap = 0;
	int rc;
	*n = 0;
	while ((rc = gvk_lr_next(lr, &line, &len, err)) == 1) {
		if (memchr(line, 0, len)) rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: NUL byte", path, gvk_lr_lineno(lr));
		for (char *t = strtok_r(line, " \t", &save); t && rc == 1; t = strtok_r(NULL, " \t", &save))
			if (add_token(&ids, n, &cap, t) < 0) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", path);
		if (rc < 0) break;
	}
	gvk_lr_close(lr);
	if (rc < 0) {
		for (size_t k = 0; k < *n; ++k) free(ids[k]);
		free(ids);
		return NULL;
	}
	if (*n) qsort(ids, *n, sizeof *ids, cmp_str);
	return ids ? ids : calloc(1, sizeof *ids);
}

static void free_tokens(char **t, size_t n)
{
	for (size_t k = 0; k < n; ++k) free(t[k]);
	free(t);
}

/* keep[i] &= (ID listed in path) == want. */
static int by_file(const snp_data_t *d, const char *path, int want, uint8_t *keep, gvk_err_t *err)
{
	size_t n;
	char **t = read_tokens(path, &n, err);
	if (!t) return gvk_err_code(err, GVK_ERR_NOMEM);
	for (int64_t i = 0; i < d->n_snp; ++i) {
		const char *id = d->var[i].id;
		if (keep[i] && (bsearch(&id, t, n, sizeof *t, cmp_str) != NULL) != want) keep[i] = 0;
	}
	free_tokens(t, n);
	return 0;
}

/* The one variant named id (for --from / --to); -1 with err set when absent or repeated. */
static int64_t unique_var(const snp_data_t *d, const char *id, const char *flag, gvk_err_t *err)
{
	int64_t hit = -1;
	for (int64_t i = 0; i < d->n_snp; ++i) {
		if (strcmp(d->var[i].id, id)) continue;
		if (hit >= 0) return gvk_err_set(err, GVK_ERR_ARG, "%s: variant ID '%s' is not unique", flag, id), -1;
		hit = i;
	}
	if (hit < 0) gvk_err_set(err, GVK_ERR_ARG, "%s: variant '%s' not found", flag, id);
	return hit;
}

/* --from / --to: one chromosome, positions between the two variants' (either order). */
static int by_from_to(const snp_data_t *d, const char *from, const char *to, uint8_t *keep, gvk_err_t *err)
{
	int64_t a = from ? unique_var(d, from, "--from", err) : -1, b = to ? unique_var(d, to, "--to", err) : -1;
	if ((from && a < 0) || (to && b < 0)) return GVK_ERR_ARG;
	const snp_var_t *va = from ? &d->var[a] : NULL, *vb = to ? &d->var[b] : NULL;
	if (va && vb && strcmp(va->chr, vb->chr))
		return gvk_err_set(err, GVK_ERR_ARG, "--from variant '%s' (chromosome %s) and --to variant '%s' (chromosome %s) "
		                   "are on different chromosomes", from, va->chr, to, vb->chr);
	const char *chr = va ? va->chr : vb->chr;
	int64_t lo = va ? va->bp : 0, hi = vb ? vb->bp : INT64_MAX;
	if (lo > hi) {
		int64_t t = lo;
		lo = hi, hi = t;
	}
	for (int64_t i = 0; i < d->n_snp; ++i)
		if (strcmp(d->var[i].chr, chr) || d->var[i].bp < lo || d->var[i].bp > hi) keep[i] = 0;
	return 0;
}

/* --snps: the listed variants and ranges among those still kept; every ID must be there. */
static int by_snps(const snp_data_t *d, const snp_ranges_t *s, uint8_t *keep, gvk_err_t *err)
{
	int64_t n = 0;
	vref_t *r = sorted_vars(d, keep, &n);
	uint8_t *seen = calloc((size_t)d->n_snp + 1, 1);
	int rc = r && seen ? 0 : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	for (int64_t k = 1; k < n && rc == 0; ++k)
		if (!strcmp(r[k - 1].id, r[k].id))
			rc = gvk_err_set(err, GVK_ERR_ARG, "--snps needs unique variant IDs, but '%s' names more than one", r[k].id);
	for (int k = 0; k < s->n && rc == 0; ++k) {
		int64_t i = find_var(r, n, s->name[k], NULL), j = i;
		if (i >= 0 && s->starts[k]) j = find_var(r, n, s->name[++k], NULL);
		if (i < 0 || j < 0) {
			rc = gvk_err_set(err, GVK_ERR_ARG, "--snps: variant '%s' not found", s->name[k]);
			break;
		}
		for (int64_t t = i < j ? i : j; t <= (i < j ? j : i); ++t) seen[t] = 1;
	}
	for (int64_t i = 0; i < d->n_snp && rc == 0; ++i) keep[i] &= seen[i];
	free(r);
	free(seen);
	return rc;
}

static int any(const uint8_t *keep, int64_t n)
{
	for (int64_t i = 0; i < n; ++i)
		if (keep[i]) return 1;
	return 0;
}

int snp_select_vars(const snp_data_t *d, const snp_varsel_t *o, uint8_t *keep, gvk_err_t *err)
{
	memset(keep, 1, (size_t)d->n_snp);
	int rc = 0;
	for (int64_t i = 0; o->chr && i < d->n_snp; ++i) keep[i] = (uint8_t)snp_chr_listed(o->chr, d->var[i].chr);
	if (o->from || o->to) rc = by_from_to(d, o->from, o->to, keep, err);
	if (rc == 0 && o->snps) rc = by_snps(d, o->snps, keep, err);
	if (rc == 0 && o->extract) rc = by_file(d, o->extract, 1, keep, err);
	if (rc == 0 && o->exclude) rc = by_file(d, o->exclude, 0, keep, err);
	if (rc == 0 && !any(keep, d->n_snp))
		rc = gvk_err_set(err, GVK_ERR_ARG, "no variants remain after --chr / --from / --to / --snps / --extract / --exclude");
	return rc;
}

void snp_vars_compact(snp_data_t *d, const uint8_t *keep, int64_t *src)
{
	int64_t k = 0;
	for (; k < d->n_snp && keep[k]; ++k) {} /* the kept ones before the first gap stay where they are */
	for (int64_t i = k; i < d->n_snp; ++i)
		if (keep[i]) d->var[k] = d->var[i], src[k++] = src[i];
	d->n_snp = k;
}

/* snp_data_select, with src (may be NULL) kept in step. */
static void select_with(snp_data_t *d, const uint8_t *keep, int64_t *src)
{
	for (int64_t i = 0, k = 0; src && i < d->n_snp; ++i)
		if (keep[i]) src[k++] = src[i];
	snp_data_select(d, keep);
}

int snp_select_qc(snp_data_t *d, double geno, double maf, int64_t *n_geno, int64_t *n_maf, int64_t *src,
                  gvk_err_t *err)
{
	uint8_t *keep = malloc((size_t)d->n_snp + 1);
	if (!keep) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	double min_rate = (1.0 - geno) * (1 - SNP_SMALL_EPSILON), min_maf = maf * (1 - SNP_SMALL_EPSILON);
	int64_t m0 = d->n_snp;
	int rc = 0;
	for (int64_t i = 0; i < d->n_snp; ++i) keep[i] = !(geno < 1.0 && d->rate[i] < min_rate);
	select_with(d, keep, src);
	*n_geno = m0 - d->n_snp;
	if (d->n_snp == 0) rc = gvk_err_set(err, GVK_ERR_ARG, "--geno %g removed every variant", geno);
	for (int64_t i = 0; i < d->n_snp && rc == 0; ++i) {
		double f = d->a2f[i] <= 0.5 ? d->a2f[i] : 1.0 - d->a2f[i];
		keep[i] = !(maf > 0.0 && f < min_maf);
	}
	m0 = d->n_snp;
	if (rc == 0) select_with(d, keep, src);
	*n_maf = m0 - d->n_snp;
	if (rc == 0 && d->n_snp == 0) rc = gvk_err_set(err, GVK_ERR_ARG, "--maf %g removed every variant", maf);
	free(keep);
	return rc;
}

/* --ld-snp-list: each listed ID present marks its variant; one listed twice is an error. */
static int64_t index_list(const snp_data_t *d, const vref_t *r, int64_t n, const char *path, uint8_t *idx, gvk_err_t *err)
{
	size_t nt;
	char **t = read_tokens(path, &nt, err);
	if (!t) return gvk_err_code(err, GVK_ERR_NOMEM);
	int64_t hits = 0;
	for (size_t k = 0; k < nt; ++k) {
		int64_t i = find_var(r, n, t[k], NULL);
		if (i < 0) continue;
		if (idx[i]) {
			hits = gvk_err_set(err, GVK_ERR_FORMAT, "%s: variant ID '%s' is listed twice (--ld-snp-list)", path, t[k]);
			break;
		}
		idx[i] = 1, ++hits;
	}
	(void)d;
	free_tokens(t, nt);
	return hits;
}

static int64_t index_ranges(const vref_t *r, int64_t n, const snp_ranges_t *s, uint8_t *idx, gvk_err_t *err)
{
	int64_t hits = 0;
	for (int k = 0; k < s->n; ++k) {
		int64_t i = find_var(r, n, s->name[k], NULL), j = i;
		if (i >= 0 && s->starts[k]) j = find_var(r, n, s->name[k + 1], NULL);
		if (i < 0 || j < 0)
			return gvk_err_set(err, GVK_ERR_ARG, "--ld-snps: variant '%s' not found", s->name[i < 0 ? k : k + 1]);
		if (j < i)
			return gvk_err_set(err, GVK_ERR_ARG, "--ld-snps: in the range %s-%s the second variant comes first", s->name[k],
			                   s->name[k + 1]);
		k += s->starts[k];
		for (int64_t t = i; t <= j; ++t) hits += !idx[t], idx[t] = 1;
	}
	return hits;
}

int64_t snp_select_index(const snp_data_t *d, const char *ld_snp, const char *list_file, const snp_ranges_t *ld_snps,
                         uint8_t *idx, gvk_err_t *err)
{
	memset(idx, 0, (size_t)d->n_snp);
	int64_t n = 0, hits = 0;
	vref_t *r = sorted_vars(d, NULL, &n);
	if (!r) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (ld_snp) {
		int64_t i = find_var(r, n, ld_snp, NULL);
		if (i >= 0) idx[i] = 1, hits = 1;
	} else if (list_file) {
		hits = index_list(d, r, n, list_file, idx, err);
	} else if (ld_snps) {
		hits = index_ranges(r, n, ld_snps, idx, err);
	}
	free(r);
	if (hits == 0)
		hits = gvk_err_set(err, GVK_ERR_ARG, "no valid variants named by --ld-snp / --ld-snps / --ld-snp-list%s%s%s",
		                   ld_snp ? " ('" : "", ld_snp ? ld_snp : "", ld_snp ? "' is not among the variants)" : "");
	return hits;
}
