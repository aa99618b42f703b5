/* SPDX-License-Identifier: MIT */
/* PLINK 1.9's VCF import rules on top of htslib's parser. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "vcf_import.h"
#include "vcf_io.h"
#include "snp_chrom.h"
#include "../common/err.h"

#ifndef GVK_HAVE_HTSLIB

int snp_vcf_import(const char *path, const snp_vcf_import_opt_t *opt, snp_samples_t *ss, snp_data_t *d, uint8_t **rows,
                   int64_t *row_bytes, gvk_err_t *err)
{
	(void)opt, (void)ss, (void)d, (void)rows, (void)row_bytes;
	return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "%s: this gvk was built without htslib, so it cannot read VCF/BCF", path);
}

#else
#include <htslib/vcf.h>

typedef struct {
	htsFile *fp;
	bcf_hdr_t *hdr;
	bcf1_t *rec;
	int32_t *gt;
	int n_gt, ns;
	int64_t *copies;    /* per allele: copies among the parsed calls */
	int n_copies;
	long recno;
	const char *path;
} reader_t;

static void reader_close(reader_t *r)
{
	free(r->gt);
	free(r->copies);
	if (r->rec) bcf_destroy(r->rec);
	if (r->hdr) bcf_hdr_destroy(r->hdr);
	if (r->fp) hts_close(r->fp);
}

/* The record's contig for messages ("(unknown)" when htslib has none). */
static const char *seq_name(const reader_t *r)
{
	return bcf_seqname_safe(r->hdr, r->rec);
}

static int reader_open(reader_t *r, const char *path, gvk_err_t *err)
{
	memset(r, 0, sizeof *r);
	r->path = path;
	if (!(r->fp = snp_vcf_hts_open(path, err))) return err ? err->code : GVK_ERR_IO;
	r->hdr = bcf_hdr_read(r->fp);
	r->rec = bcf_init();
	if (!r->hdr || !r->rec) return gvk_err_set(err, GVK_ERR_FORMAT, "%s: not a VCF/BCF file (no header)", path);
	r->ns = bcf_hdr_nsamples(r->hdr);
	if (r->ns == 0) return gvk_err_set(err, GVK_ERR_FORMAT, "%s: no samples", path);
	return 0;
}

/* Alleles of sample s's call: 0 (missing), 1 (haploid), 2 (diploid) with a[0], a[1]; -1 for a
 * half-missing diploid call. Calls of three or more alleles are missing, except a third allele
 * given as '.', which PLINK reads as a diploid call. */
static int call_alleles(const int32_t *g, int ploidy, int a[2])
{
	int p = 0;
	while (p < ploidy && g[p] != bcf_int32_vector_end) ++p;
	if (p >= 3 && !(p == 3 && bcf_gt_is_missing(g[2]))) return 0;
	if (p == 1) {
		if (bcf_gt_is_missing(g[0])) return 0;
		a[0] = bcf_gt_allele(g[0]);
		return 1;
	}
	if (p < 2) return 0;
	int m0 = bcf_gt_is_missing(g[0]), m1 = bcf_gt_is_missing(g[1]);
	if (m0 && m1) return 0;
	if (m0 || m1) return -1;
	a[0] = bcf_gt_allele(g[0]), a[1] = bcf_gt_allele(g[1]);
	return 2;
}

static int count_copies(reader_t *r, int ploidy, gvk_err_t *err)
{
	int na = r->rec->n_allele > 2 ? r->rec->n_allele : 2;
	if (na > r->n_copies) {
		int64_t *nc = realloc(r->copies, sizeof *nc * (size_t)na);
		if (!nc) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		r->copies = nc, r->n_copies = na;
	}
	memset(r->copies, 0, sizeof *r->copies * (size_t)na);
	for (int s = 0; s < r->ns; ++s) {
		int a[2], k = call_alleles(r->gt + (size_t)s * (size_t)ploidy, ploidy, a);
		if (k < 0)
			return gvk_err_set(err, GVK_ERR_FORMAT,
			                   "%s: record %ld (%s:%lld): sample %s has a half-missing call; PLINK 1.9 refuses those",
			                   r->path, r->recno, seq_name(r), (long long)r->rec->pos + 1,
			                   r->hdr->samples[s]);
		for (int j = 0; j < k; ++j)
			if (a[j] >= 0 && a[j] < na) r->copies[a[j]] += k == 1 ? 2 : 1;
	}
	return 0;
}

/* The ALT allele PLINK keeps: the most copies, the first on ties. */
static int pick_alt(const reader_t *r)
{
	int best = 1, na = r->rec->n_allele;
	for (int k = 2; k < na; ++k)
		if (r->copies[k] > r->copies[best]) best = k;
	return best;
}

/* The record's row of .bed codes against ALT = alt (A1) and REF (A2). With ten ALT alleles or more
 * PLINK 1.9 reads the calls through another path that drops every copy of an ALT allele (its
 * genotype-probability check, run with no GP field, rejects them), so only REF homozygotes stay
 * called there; the same is done here. */
static void encode_row(const reader_t *r, int ploidy, int alt, uint8_t *row)
{
	memset(row, 0, (size_t)(r->ns + 3) / 4);
	int alt_ok = r->rec->n_allele <= 10;
	for (int s = 0; s < r->ns; ++s) {
		int a[2], code = 1, k = ploidy > 0 ? call_alleles(r->gt + (size_t)s * (size_t)ploidy, ploidy, a) : 0;
		int ref = 0, al = 0;
		for (int j = 0; j < k; ++j)
			ref += (a[j] == 0) * (k == 1 ? 2 : 1), al += (alt_ok && a[j] == alt) * (k == 1 ? 2 : 1);
		if (k > 0 && ref + al == 2) code = al == 2 ? 0 : al == 1 ? 2 : 3;
		row[s >> 2] |= (uint8_t)(code << (2 * (s & 3)));
	}
}

typedef struct {
	long *offs;
	uint8_t *rows;
	size_t n, cap, row_bytes;
} acc_t;

static int acc_grow(acc_t *a, snp_data_t *d)
{
	if (a->n < a->cap) return 0;
	size_t cap = a->cap ? a->cap * 2 : 1024;
	snp_var_t *nv = realloc(d->var, cap * sizeof *nv);
	if (nv) d->var = nv;
	long *no = nv ? realloc(a->offs, cap * 4 * sizeof *no) : NULL;
	if (no) a->offs = no;
	uint8_t *nr = no ? realloc(a->rows, cap * a->row_bytes) : NULL;
	if (nr) a->rows = nr;
	if (!nr) return -1;
	a->cap = cap;
	return 0;
}

/* Name, ID and alleles of the current record as PLINK writes them to its .bim. */
static int describe(reader_t *r, const snp_vcf_import_opt_t *opt, int alt, snp_data_t *d, long *o, gvk_err_t *err)
{
	bcf1_t *b = r->rec;
	const char *name = bcf_seqname(r->hdr, b), *ref = b->d.allele[0];
	const char *al = b->n_allele > 1 ? b->d.allele[alt] : "0";
	char chr[256];
	/* htslib takes an empty CHROM as a contig named "" (found by fuzzing); PLINK prints none. */
	if (!name || !*name) return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld: empty CHROM", r->path, r->recno);
	/* A longer name would be cut, and two contigs could become one. */
	if (strlen(name) >= sizeof chr)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld: contig name of %zu bytes (at most %zu)", r->path, r->recno,
		                   strlen(name), sizeof chr - 1);
	int kind = snp_chr_code(name, strlen(name), chr, sizeof chr);
	if (kind == SNP_CHR_INVALID || (kind == SNP_CHR_EXTRA && !opt->allow_extra))
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld: '%s' is not a PLINK chromosome code%s", r->path, r->recno,
		                   name, kind == SNP_CHR_EXTRA ? " (--allow-extra-chr accepts other contig names)" : "");
	for (int k = 1; k < b->n_allele; ++k)
		if (!strcmp(b->d.allele[k], ref) && b->n_allele > 2)
			return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld (%s:%lld): an ALT allele repeats REF '%s'", r->path,
			                   r->recno, name, (long long)b->pos + 1, ref);
	/* A lone ALT equal to REF means none (as SHAPEIT writes it); PLINK prints a missing allele as 0. */
	if (!strcmp(al, ".") || (b->n_allele == 2 && !strcmp(al, ref))) al = "0";
	o[0] = snp_pool_add(d, chr, strlen(chr));
	o[1] = snp_pool_add(d, b->d.id, strlen(b->d.id));
	o[2] = snp_pool_add(d, al, strlen(al));
	o[3] = snp_pool_add(d, ref, strlen(ref));
	if (o[0] < 0 || o[1] < 0 || o[2] < 0 || o[3] < 0) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	return 0;
}

/* The record's calls into r->gt: their ploidy, 0 without GT (every call missing), or an error.
 * htslib ends the process (exit(1), a message without the file) when GT holds no integers, as
 * after "FORMAT :GT" with one value per sample, so that case is refused first (as in vcf_io.c). */
static int read_gt(reader_t *r, gvk_err_t *err)
{
	const bcf_fmt_t *fmt = bcf_get_fmt(r->hdr, r->rec, "GT");
	if (!fmt) return 0;
	int ints = fmt->type == BCF_BT_INT8 || fmt->type == BCF_BT_INT16 || fmt->type == BCF_BT_INT32;
	int n = ints ? bcf_get_genotypes(r->hdr, r->rec, &r->gt, &r->n_gt) : -1;
	if (n < 0)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld (%s:%lld): GT field without genotype values", r->path,
		                   r->recno, seq_name(r), (long long)r->rec->pos + 1);
	return n / r->ns;
}

/* htslib reads a VCF line that ends early as a record of what it had: before REF, one without
 * alleles (found by fuzzing: its REF was then read through a NULL pointer); before the sample
 * columns, one without calls. PLINK 1.9 refuses a line with too few columns, and so does this. */
static int check_columns(const reader_t *r, gvk_err_t *err)
{
	const bcf1_t *b = r->rec;
	if (b->n_allele < 1)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld (%s:%lld): the line ends before its REF column", r->path,
		                   r->recno, seq_name(r), (long long)b->pos + 1);
	if ((int64_t)b->n_sample != r->ns)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld (%s:%lld): %u sample columns, but the header names %d samples",
		                   r->path, r->recno, seq_name(r), (long long)b->pos + 1, b->n_sample, r->ns);
	return 0;
}

/* Reads the next record into the accumulated variants; 1, 0 at the end, or an error. */
static int next_record(reader_t *r, const snp_vcf_import_opt_t *opt, snp_data_t *d, acc_t *a, gvk_err_t *err)
{
	int rr = bcf_read(r->fp, r->hdr, r->rec);
	if (rr == -1) return 0;
	++r->recno;
	if (rr < -1) return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld: malformed", r->path, r->recno);
	bcf_unpack(r->rec, BCF_UN_ALL);
	int rc = check_columns(r, err);
	if (rc < 0) return rc;
	int ploidy = read_gt(r, err);
	rc = ploidy > 0 ? count_copies(r, ploidy, err) : ploidy;
	if (rc < 0) return rc;
	int alt = ploidy > 0 && r->rec->n_allele > 2 ? pick_alt(r) : 1;
	if (acc_grow(a, d) < 0) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", r->path);
	if ((rc = describe(r, opt, alt, d, a->offs + 4 * a->n, err)) < 0) return rc;
	d->var[a->n].cm = 0;
	d->var[a->n].bp = (int64_t)r->rec->pos + 1;
	encode_row(r, ploidy, alt, a->rows + a->n * a->row_bytes);
	a->n++;
	return 1;
}

int snp_vcf_import(const char *path, const snp_vcf_import_opt_t *opt, snp_samples_t *ss, snp_data_t *d, uint8_t **rows,
                   int64_t *row_bytes, gvk_err_t *err)
{
	reader_t r;
	acc_t a = {0};
	int rc = reader_open(&r, path, err);
	if (rc == 0) rc = snp_samples_from_names(r.hdr->samples, r.ns, opt->double_id, path, ss, err);
	a.row_bytes = (size_t)(r.ns + 3) / 4;
	while (rc == 0 && (rc = next_record(&r, opt, d, &a, err)) == 1) rc = 0;
	if (rc == 0 && a.n == 0) rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: no variants", path);
	if (rc == 0) {
		d->n_snp = (int64_t)a.n;
		d->n_samples = r.ns;
		snp_data_fix_strings(d, a.offs);
		*rows = a.rows, *row_bytes = (int64_t)a.row_bytes;
		a.rows = NULL;
	}
	free(a.offs);
	free(a.rows);
	reader_close(&r);
	return rc;
}
#endif
