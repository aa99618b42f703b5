/* SPDX-License-Identifier: MIT */
/* .fam and VCF sample IDs, --keep/--remove files and founders, with PLINK 1.9's rules. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "snp_samples.h"
#include "snp_data.h"
#include "../common/err.h"
#include "../common/lineio.h"

void snp_samples_free(snp_samples_t *ss)
{
	for (int64_t i = 0; i < ss->n; ++i) free(ss->s[i].fid);
	free(ss->s);
	ss->s = NULL;
	ss->n = 0;
}

/* Appends a sample with the four IDs (lengths given) in one allocation. */
static int add_sample(snp_samples_t *ss, int64_t *cap, char *const *id, const size_t *len, uint8_t sex)
{
	if (ss->n == *cap) {
		int64_t nc = *cap ? 2 * *cap : 1024;
		snp_sample_t *ns = realloc(ss->s, sizeof *ns * (size_t)nc);
		if (!ns) return -1;
		ss->s = ns, *cap = nc;
	}
	char *buf = malloc(len[0] + len[1] + len[2] + len[3] + 4), *p = buf;
	if (!buf) return -1;
	snp_sample_t *s = &ss->s[ss->n++];
	char **dst[4] = {&s->fid, &s->iid, &s->pat, &s->mat};
	for (int k = 0; k < 4; ++k) {
		memcpy(p, id[k], len[k]);
		p[len[k]] = 0;
		*dst[k] = p;
		p += len[k] + 1;
	}
	s->sex = sex;
	s->kept = 1;
	s->founder = !strcmp(s->pat, "0") && !strcmp(s->mat, "0");
	return 0;
}

/* A sorted view of the samples by FID then IID, for lookups. */
typedef struct {
	const char *fid, *iid;
	int64_t idx;
} id_ref_t;

static int cmp_ref(const void *a, const void *b)
{
	const id_ref_t *x = a, *y = b;
	int c = strcmp(x->fid, y->fid);
	return c ? c : strcmp(x->iid, y->iid);
}

/* The kept samples (all when all) sorted by ID; NULL when out of memory. */
static id_ref_t *sorted_ids(const snp_samples_t *ss, int all, int64_t *n)
{
	id_ref_t *r = malloc(sizeof *r * (size_t)(ss->n + 1));
	if (!r) return NULL;
	*n = 0;
	for (int64_t i = 0; i < ss->n; ++i)
		if (all || ss->s[i].kept) r[(*n)++] = (id_ref_t){ss->s[i].fid, ss->s[i].iid, i};
	qsort(r, (size_t)*n, sizeof *r, cmp_ref);
	return r;
}

static int64_t find_id(const id_ref_t *r, int64_t n, const char *fid, const char *iid)
{
	id_ref_t key = {fid, iid, 0};
	const id_ref_t *hit = bsearch(&key, r, (size_t)n, sizeof *r, cmp_ref);
	return hit ? hit->idx : -1;
}

/* The first duplicate FID+IID: the later sample's index, or -1. */
static int64_t first_duplicate(const snp_samples_t *ss, int64_t *earlier, int *nomem)
{
	int64_t n = 0, dup = -1;
	id_ref_t *r = sorted_ids(ss, 1, &n);
	*nomem = !r;
	for (int64_t k = 1; r && k < n; ++k)
		if (!cmp_ref(&r[k - 1], &r[k])) {
			int64_t a = r[k - 1].idx, b = r[k].idx;
			if (dup < 0 || (a > b ? a : b) < dup) dup = a > b ? a : b, *earlier = a < b ? a : b;
		}
	free(r);
	return dup;
}

static int fam_line(snp_samples_t *ss, int64_t *cap, char *line, size_t len, const char *path, long ln, gvk_err_t *err)
{
	char *f[6];
	size_t fl[6];
	/* A NUL byte would end the line's fields early without a word. */
	if (memchr(line, 0, len)) return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: NUL byte", path, ln);
	int nf = snp_split_ws(line, f, fl, 6);
	if (nf == 0) return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: empty line", path, ln);
	if (nf != 6)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: expected 6 fields (FID IID father mother sex phenotype), found %d",
		                   path, ln, nf);
	/* Sex codes other than 1 and 2 mean unknown, as in PLINK. */
	uint8_t sex = fl[4] == 1 && (f[4][0] == '1' || f[4][0] == '2') ? (uint8_t)(f[4][0] - '0') : 0;
	if (add_sample(ss, cap, f, fl, sex) < 0) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", path);
	return 0;
}

int snp_samples_read_fam(const char *path, snp_samples_t *ss, gvk_err_t *err)
{
	gvk_lr_t *lr = gvk_lr_open(path, err);
	if (!lr) return err ? err->code : GVK_ERR_IO;
	int64_t cap = 0, earlier = 0;
	char *line;
	size_t len;
	int rc, nomem;
	while ((rc = gvk_lr_next(lr, &line, &len, err)) == 1)
		if ((rc = fam_line(ss, &cap, line, len, path, gvk_lr_lineno(lr), err)) < 0) break;
	gvk_lr_close(lr);
	if (rc == 0 && ss->n == 0) rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: no samples", path);
	if (rc == 0) {
		int64_t dup = first_duplicate(ss, &earlier, &nomem);
		if (nomem) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", path);
		else if (dup >= 0)
			rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s:%lld: duplicate sample ID '%s %s' (also on line %lld)", path,
			                 (long long)dup + 1, ss->s[dup].fid, ss->s[dup].iid, (long long)earlier + 1);
	}
	if (rc < 0) snp_samples_free(ss);
	return rc;
}

/* FID and IID of one VCF sample ID, as PLINK 1.9 splits it; an error message or NULL. */
static const char *split_vcf_id(const char *id, int double_id, size_t *fl, const char **iid, size_t *il)
{
	size_t len = strlen(id);
	if (strchr(id, ' ')) return "contains a space";
	if (len == 1 && id[0] == '0') return "is '0'";
	*iid = id, *il = len, *fl = len;
	if (double_id) return NULL;
	const char *u = strchr(id, '_');
	if (!u) return NULL;
	if (u == id) return "begins with '_'";
	if (id[len - 1] == '_') return "ends with '_'";
	if (strchr(u + 1, '_')) return "has more than one '_' (PLINK reads it as FID_IID; --double-id keeps it whole)";
	if (!strcmp(u + 1, "0")) return "ends with \"_0\", which makes the IID '0'";
	*fl = (size_t)(u - id), *iid = u + 1, *il = len - *fl - 1;
	return NULL;
}

int snp_samples_from_names(char *const *names, int64_t n, int double_id, const char *path, snp_samples_t *ss,
                           gvk_err_t *err)
{
	int64_t cap = 0, earlier = 0;
	int rc = 0, nomem;
	for (int64_t i = 0; i < n && rc == 0; ++i) {
		const char *iid;
		size_t len[4] = {0, 0, 1, 1};
		const char *why = split_vcf_id(names[i], double_id, &len[0], &iid, &len[1]);
		char *id[4] = {names[i], (char *)iid, "0", "0"};
		if (why) rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: sample ID '%s' %s", path, names[i], why);
		else if (add_sample(ss, &cap, id, len, 0) < 0) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	}
	if (rc == 0) {
		int64_t dup = first_duplicate(ss, &earlier, &nomem);
		if (nomem) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		else if (dup >= 0)
			rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: samples %lld and %lld have the same FID and IID '%s %s'", path,
			                 (long long)earlier + 1, (long long)dup + 1, ss->s[dup].fid, ss->s[dup].iid);
	}
	if (rc < 0) snp_samples_free(ss);
	return rc;
}

/* Marks in hit[] the samples a --keep/--remove file names. */
static int read_id_file(const snp_samples_t *ss, const char *path, const char *flag, uint8_t *hit, gvk_err_t *err)
{
	int64_t n = 0;
	id_ref_t *r = sorted_ids(ss, 0, &n);
	gvk_lr_t *lr = r ? gvk_lr_open(path, err) : NULL;
	if (!r) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (!lr) {
		free(r);
		return err ? err->code : GVK_ERR_IO;
	}
	char *line, *f[2];
	size_t len, fl[2];
	int rc;
	while ((rc = gvk_lr_next(lr, &line, &len, err)) == 1) {
		if (memchr(line, 0, len)) {
			rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: NUL byte", path, gvk_lr_lineno(lr));
			break;
		}
		int nf = snp_split_ws(line, f, fl, 2);
		if (nf == 0) continue;
		if (nf < 2) {
			rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: %s needs FID and IID on each line, found one field", path,
			                 gvk_lr_lineno(lr), flag);
			break;
		}
		f[0][fl[0]] = f[1][fl[1]] = 0;
		int64_t i = find_id(r, n, f[0], f[1]);
		if (i >= 0) hit[i] = 1;
	}
	gvk_lr_close(lr);
	free(r);
	return rc;
}

int snp_samples_keep(snp_samples_t *ss, const char *path, int keep, int64_t *left, gvk_err_t *err)
{
	uint8_t *hit = calloc((size_t)ss->n + 1, 1);
	if (!hit) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	const char *flag = keep ? "--keep" : "--remove";
	int rc = read_id_file(ss, path, flag, hit, err);
	int64_t n = 0;
	for (int64_t i = 0; i < ss->n && rc == 0; ++i) {
		if (ss->s[i].kept && hit[i] != keep) ss->s[i].kept = 0;
		n += ss->s[i].kept;
	}
	free(hit);
	if (rc == 0 && n == 0) rc = gvk_err_set(err, GVK_ERR_ARG, "%s %s: no samples remain", flag, path);
	if (rc == 0 && left) *left = n;
	return rc;
}

int64_t snp_samples_make_founders(snp_samples_t *ss)
{
	int64_t n = 0, changed = 0;
	id_ref_t *r = sorted_ids(ss, 0, &n);
	if (!r) return -1;
	for (int64_t i = 0; i < ss->n; ++i) {
		snp_sample_t *s = &ss->s[i];
		if (!s->kept || s->founder) continue;
		if (find_id(r, n, s->fid, s->pat) < 0 || find_id(r, n, s->fid, s->mat) < 0) s->founder = 1, ++changed;
	}
	free(r);
	return changed;
}

int64_t snp_samples_count(const snp_samples_t *ss, int founders_only, int sex)
{
	int64_t n = 0;
	for (int64_t i = 0; i < ss->n; ++i) {
		const snp_sample_t *s = &ss->s[i];
		n += s->kept && (!founders_only || s->founder) && (sex < 0 || s->sex == sex);
	}
	return n;
}
