/* .fam founders, .bim variants, .bed genotypes; the .bed is streamed one SNP block at a time. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plink_io.h"
#include "../common/err.h"
#include "../common/lineio.h"

/* Splits line at spaces and tabs into at most max fields; returns the number found. */
static int split_ws(char *line, char **f, size_t *fl, int max)
{
	int n = 0;
	char *p = line;
	for (;;) {
		while (*p == ' ' || *p == '\t') ++p;
		if (!*p) break;
		char *s = p;
		while (*p && *p != ' ' && *p != '\t') ++p;
		if (n < max) f[n] = s, fl[n] = (size_t)(p - s);
		++n;
		if (*p) *p++ = 0;
	}
	return n;
}

static int blank(const char *s)
{
	while (*s == ' ' || *s == '\t') ++s;
	return *s == 0;
}

typedef struct {
	char *key; /* "FID\tIID" */
	long idx;
} famkey_t;

static int famkey_cmp(const void *a, const void *b)
{
	return strcmp(((const famkey_t *)a)->key, ((const famkey_t *)b)->key);
}

static char *join2(const char *a, size_t la, const char *b, size_t lb)
{
	char *s = malloc(la + lb + 2);
	if (!s) return NULL;
	memcpy(s, a, la);
	s[la] = '\t';
	memcpy(s + la + 1, b, lb);
	s[la + lb + 1] = 0;
	return s;
}

/* Joins FID and IID with '_', as plink --recode vcf names the samples it writes. */
static char *vcf_style_id(const char *fid, size_t lf, const char *iid, size_t li)
{
	char *s = join2(fid, lf, iid, li);
	if (s) s[lf] = '_';
	return s;
}

/* Moves the IDs of the used samples (keep[i] != 0) into d, freeing the others. */
static void keep_ids(snp_data_t *d, char **id, const uint8_t *keep, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; ++i) {
		if (keep[i]) id[k++] = id[i];
		else free(id[i]);
	}
	d->sample_id = id;
	d->n_sample_id = (int64_t)k;
}

/* Reads the .fam; *keep receives, per sample, 1 when it is used (a founder, or every sample), and
 * d the used samples' IDs. */
static int read_fam(const char *path, int all, uint8_t **keep, int64_t *n_out, snp_data_t *d, gvk_err_t *err)
{
	gvk_lr_t *lr = gvk_lr_open(path, err);
	if (!lr) return err ? err->code : GVK_ERR_IO;
	famkey_t *ids = NULL;
	char **par = NULL; /* per sample: "FID\tPAT" and "FID\tMAT" */
	char **name = NULL; /* per sample: "FID_IID" */
	size_t n = 0, cap = 0;
	int rc = 0;
	char *line;
	size_t len;
	while ((rc = gvk_lr_next(lr, &line, &len, err)) == 1) {
		if (blank(line)) {
			rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: empty line", path, gvk_lr_lineno(lr));
			break;
		}
		char *f[6];
		size_t fl[6];
		int nf = split_ws(line, f, fl, 6);
		if (nf != 6) {
			rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: expected 6 fields (FID IID father mother sex phenotype), found %d",
			                 path, gvk_lr_lineno(lr), nf);
			break;
		}
		/* Sex codes other than 1 and 2 mean unknown, as in PLINK; sex only matters for X, which
		 * is treated as an autosome here. */
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			famkey_t *ni = realloc(ids, cap * sizeof *ids);
			if (ni) ids = ni;
			char **np = ni ? realloc(par, cap * 2 * sizeof *par) : NULL;
			if (np) par = np;
			char **nn = np ? realloc(name, cap * sizeof *name) : NULL;
			if (nn) name = nn;
			if (!nn) {
				rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", path);
				break;
			}
		}
		ids[n].key = join2(f[0], fl[0], f[1], fl[1]);
		ids[n].idx = (long)n;
		par[2 * n] = join2(f[0], fl[0], f[2], fl[2]);
		par[2 * n + 1] = join2(f[0], fl[0], f[3], fl[3]);
		name[n] = vcf_style_id(f[0], fl[0], f[1], fl[1]);
		++n;
		if (!ids[n - 1].key || !par[2 * n - 2] || !par[2 * n - 1] || !name[n - 1]) {
			rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", path);
			break;
		}
	}
	if (rc == 0 && n == 0) rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: no samples", path);
	uint8_t *k = rc == 0 ? malloc(n) : NULL;
	if (rc == 0 && !k) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", path);
	if (rc == 0) {
		qsort(ids, n, sizeof *ids, famkey_cmp);
		for (size_t i = 1; i < n && rc == 0; ++i)
			if (strcmp(ids[i - 1].key, ids[i].key) == 0)
				rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: duplicate sample ID '%s' (also on line %ld)", path,
				                 ids[i].idx + 1, ids[i].key, ids[i - 1].idx + 1);
		/* A sample is a founder unless a parent of the same family is in the dataset. */
		for (size_t i = 0; i < n && rc == 0; ++i) {
			int founder = 1;
			for (int p = 0; p < 2; ++p) {
				famkey_t q = {par[2 * i + p], 0};
				const char *id = strchr(q.key, '\t') + 1;
				if (strcmp(id, "0") != 0 && bsearch(&q, ids, n, sizeof *ids, famkey_cmp)) founder = 0;
			}
			k[i] = (uint8_t)(all || founder);
		}
	}
	for (size_t i = 0; i < n; ++i) free(ids[i].key), free(par[2 * i]), free(par[2 * i + 1]);
	free(ids);
	free(par);
	gvk_lr_close(lr);
	if (rc < 0) {
		for (size_t i = 0; i < n; ++i) free(name[i]);
		free(name);
		free(k);
		return rc;
	}
	keep_ids(d, name, k, n);
	*keep = k;
	*n_out = (int64_t)n;
	return 0;
}

static int parse_i64(const char *s, int64_t *v)
{
	char *end;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (errno || end == s || *end) return -1;
	*v = x;
	return 0;
}

static int read_bim(const char *path, snp_data_t *d, long **offs_out, gvk_err_t *err)
{
	gvk_lr_t *lr = gvk_lr_open(path, err);
	if (!lr) return err ? err->code : GVK_ERR_IO;
	long *offs = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	char *line;
	size_t len;
	while ((rc = gvk_lr_next(lr, &line, &len, err)) == 1) {
		long ln = gvk_lr_lineno(lr);
		if (blank(line)) {
			rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: empty line", path, ln);
			break;
		}
		char *f[6];
		size_t fl[6];
		int nf = split_ws(line, f, fl, 6);
		if (nf != 6) {
			rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: expected 6 fields (chromosome ID cM bp A1 A2), found %d", path,
			                 ln, nf);
			break;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			snp_var_t *nv = realloc(d->var, cap * sizeof *nv);
			if (nv) d->var = nv;
			long *no = nv ? realloc(offs, cap * 4 * sizeof *no) : NULL;
			if (no) offs = no;
			if (!nv || !no) {
				rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", path);
				break;
			}
		}
		snp_var_t *v = &d->var[n];
		char *end;
		v->cm = strtod(f[2], &end);
		if (end == f[2] || *end) {
			rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: genetic position '%s' is not a number", path, ln, f[2]);
			break;
		}
		if (parse_i64(f[3], &v->bp) < 0) {
			rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: base-pair position '%s' is not an integer", path, ln, f[3]);
			break;
		}
		if (v->bp < 0) {
			rc = gvk_err_set(err, GVK_ERR_FORMAT,
			                 "%s:%ld: negative base-pair position (PLINK's variant-exclusion mark) is not supported", path,
			                 ln);
			break;
		}
		if (fl[4] == fl[5] && memcmp(f[4], f[5], fl[4]) == 0 && !(fl[4] == 1 && f[4][0] == '0')) {
			rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: both alleles are '%s'", path, ln, f[4]);
			break;
		}
		char chr[64];
		snp_chr_normalise(f[0], fl[0], chr, sizeof chr);
		long *o = offs + 4 * n;
		o[0] = snp_pool_add(d, chr, strlen(chr));
		o[1] = snp_pool_add(d, f[1], fl[1]);
		o[2] = snp_pool_add(d, f[4], fl[4]);
		o[3] = snp_pool_add(d, f[5], fl[5]);
		if (o[0] < 0 || o[1] < 0 || o[2] < 0 || o[3] < 0) {
			rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", path);
			break;
		}
		++n;
	}
	gvk_lr_close(lr);
	if (rc == 0 && n == 0) rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: no variants", path);
	if (rc < 0) {
		free(offs);
		return rc;
	}
	d->n_snp = (int64_t)n;
	*offs_out = offs;
	return 0;
}

static void swap_alleles(snp_data_t *d, int64_t i)
{
	const char *t = d->var[i].a1;
	d->var[i].a1 = d->var[i].a2;
	d->var[i].a2 = t;
}

/* Every sample used: whole bytes through the table, 16 bytes per word. A1 becomes the minor
 * allele by x -> 2 - x on the words: A' = V & ~B, B' = V & ~A. */
static void decode_all(snp_data_t *d, int64_t i, const uint8_t *buf, int64_t bpr, int64_t n, const uint8_t lut[3][256],
                       int keep_order)
{
	uint64_t *pa = snp_plane(d, i, SNP_PA), *pb = snp_plane(d, i, SNP_PB), *pv = snp_plane(d, i, SNP_PV);
	int64_t nw = (n + 63) / 64, ca = 0, cb = 0, cv = 0;
	for (int64_t w = 0; w < nw; ++w) {
		uint64_t a = 0, b = 0, v = 0;
		int64_t k1 = bpr - 16 * w < 16 ? bpr - 16 * w : 16;
		for (int64_t k = 0; k < k1; ++k) {
			uint8_t x = buf[16 * w + k];
			a |= (uint64_t)lut[0][x] << (4 * k), b |= (uint64_t)lut[1][x] << (4 * k), v |= (uint64_t)lut[2][x] << (4 * k);
		}
		if (w == nw - 1 && n % 64) {
			uint64_t keep = ((uint64_t)1 << (n % 64)) - 1; /* padding pairs read as code 00 */
			a &= keep, b &= keep, v &= keep;
		}
		pa[w] = a, pb[w] = b, pv[w] = v;
		ca += __builtin_popcountll(a), cb += __builtin_popcountll(b), cv += __builtin_popcountll(v);
	}
	if (!keep_order && 2 * cv - ca - cb < ca + cb) {
		for (int64_t w = 0; w < nw; ++w) {
			uint64_t a = pa[w], b = pb[w];
			pa[w] = pv[w] & ~b, pb[w] = pv[w] & ~a;
		}
		swap_alleles(d, i);
	}
	snp_data_set_full(d, i);
}

static int read_bed(const char *path, const uint8_t *keep, int64_t n_samp, const snp_plink_opt_t *opt, snp_data_t *d,
                    gvk_err_t *err)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) return gvk_err_set(err, GVK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	int64_t m = d->n_snp, bpr = (n_samp + 3) / 4;
	struct stat st;
	uint8_t magic[3] = {0, 0, 0};
	size_t got = fread(magic, 1, 3, fp);
	int rc = 0;
	if (fstat(fileno(fp), &st) < 0) rc = gvk_err_set(err, GVK_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
	else if (got < 3 || magic[0] != 0x6c || magic[1] != 0x1b || (magic[2] != 0x01 && magic[2] != 0x00))
		rc = gvk_err_set(err, GVK_ERR_FORMAT,
		                 "%s: not a PLINK 1 .bed file (the first bytes must be 6c 1b 01, found %02x %02x %02x)", path,
		                 magic[0], magic[1], magic[2]);
	else if (magic[2] == 0x00)
		rc = gvk_err_set(err, GVK_ERR_FORMAT,
		                 "%s: sample-major .bed (header 6c 1b 00) is not supported; convert it with plink --make-bed",
		                 path);
	else if ((int64_t)st.st_size != 3 + m * bpr)
		rc = gvk_err_set(err, GVK_ERR_FORMAT,
		                 "%s: %lld bytes, but the .bim's %lld variants and the .fam's %lld samples need 3 + %lld x %lld "
		                 "= %lld",
		                 path, (long long)st.st_size, (long long)m, (long long)n_samp, (long long)m, (long long)bpr,
		                 (long long)(3 + m * bpr));
	int64_t n_keep = 0;
	int64_t *col = rc == 0 ? malloc(sizeof *col * (size_t)(n_samp + 1)) : NULL;
	uint8_t *buf = rc == 0 ? malloc((size_t)bpr + 1) : NULL;
	if (rc == 0 && (!col || !buf)) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", path);
	if (rc == 0) {
		for (int64_t s = 0; s < n_samp; ++s)
			if (keep[s]) col[n_keep++] = s;
		rc = snp_data_alloc_planes(d, m, n_keep, err);
	}
	/* Per .bed byte (4 samples), the 4-bit slices of planes A, B and V. */
	uint8_t lut[3][256];
	for (int byte = 0; byte < 256; ++byte) {
		lut[0][byte] = lut[1][byte] = lut[2][byte] = 0;
		for (int k = 0; k < 4; ++k) {
			int code = (byte >> (2 * k)) & 3;
			if (code == 1) continue;
			lut[2][byte] |= (uint8_t)(1 << k);
			if (code != 3) lut[0][byte] |= (uint8_t)(1 << k);
			if (code == 0) lut[1][byte] |= (uint8_t)(1 << k);
		}
	}
	for (int64_t i = 0; i < m && rc == 0; ++i) {
		if (fread(buf, 1, (size_t)bpr, fp) != (size_t)bpr) {
			rc = gvk_err_set(err, GVK_ERR_IO, "%s: read error in the block of variant %lld", path, (long long)i + 1);
			break;
		}
		if (n_keep == n_samp) {
			decode_all(d, i, buf, bpr, n_samp, lut, opt->keep_allele_order);
			continue;
		}
		/* Allele counts among the used samples decide which allele is A1 (code 00 = two A1). */
		int64_t c[4] = {0, 0, 0, 0};
		for (int64_t k = 0; k < n_keep; ++k) {
			int64_t s = col[k];
			c[(buf[s >> 2] >> (2 * (s & 3))) & 3]++;
		}
		int swap = !opt->keep_allele_order && 2 * c[3] + c[2] < 2 * c[0] + c[2];
		uint64_t *pa = snp_plane(d, i, SNP_PA), *pb = snp_plane(d, i, SNP_PB), *pv = snp_plane(d, i, SNP_PV);
		for (int64_t k = 0; k < n_keep; ++k) {
			int64_t s = col[k];
			int code = (buf[s >> 2] >> (2 * (s & 3))) & 3;
			uint64_t bit = (uint64_t)1 << (k & 63);
			size_t wi = (size_t)(k >> 6);
			if (code == 1) continue;
			pv[wi] |= bit;
			int x = code == 0 ? 2 : code == 2 ? 1 : 0;
			if (swap) x = 2 - x;
			if (x >= 1) pa[wi] |= bit;
			if (x == 2) pb[wi] |= bit;
		}
		if (swap) swap_alleles(d, i);
		snp_data_set_full(d, i);
	}
	free(col);
	free(buf);
	fclose(fp);
	return rc;
}

int snp_read_plink(const char *bed, const char *bim, const char *fam, const snp_plink_opt_t *opt, snp_data_t *d,
                   gvk_err_t *err)
{
	uint8_t *keep = NULL;
	long *offs = NULL;
	int64_t n = 0;
	int rc = read_fam(fam, opt->all_samples, &keep, &n, d, err);
	if (rc == 0) rc = read_bim(bim, d, &offs, err);
	if (rc == 0) {
		snp_data_fix_strings(d, offs);
		d->n_samples = n;
		rc = read_bed(bed, keep, n, opt, d, err);
	}
	free(keep);
	free(offs);
	if (rc < 0) snp_data_free(d);
	return rc;
}

int snp_read_bfile(const char *prefix, const snp_plink_opt_t *opt, snp_data_t *d, gvk_err_t *err)
{
	size_t n = strlen(prefix) + 8;
	char *p = malloc(3 * n);
	if (!p) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	snprintf(p, n, "%s.bed", prefix);
	snprintf(p + n, n, "%s.bim", prefix);
	snprintf(p + 2 * n, n, "%s.fam", prefix);
	int rc = snp_read_plink(p, p + n, p + 2 * n, opt, d, err);
	free(p);
	return rc;
}
