/* SPDX-License-Identifier: MIT */
/* VCF/BCF readers; without htslib every entry point reports that the build lacks it. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "vcf_io.h"
#include "../common/err.h"

#ifndef GVK_HAVE_HTSLIB

int snp_vcf_available(void) { return 0; }

int snp_read_vcf(const char *path, const snp_vcf_opt_t *opt, snp_data_t *d, gvk_err_t *err)
{
	(void)opt, (void)d;
	return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "%s: this gvk was built without htslib, so it cannot read VCF/BCF", path);
}

#else
#include <errno.h>
#include <htslib/vcf.h>

int snp_vcf_available(void) { return 1; }

struct htsFile *snp_vcf_hts_open(const char *path, gvk_err_t *err)
{
	errno = 0;
	htsFile *fp = hts_open(path, "r");
	/* htslib says ENOEXEC ("Exec format error") for bytes of no format it knows */
	if (!fp && errno == ENOEXEC)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: not a VCF/BCF file (nor any format htslib reads)", path), NULL;
	if (!fp) return gvk_err_set(err, GVK_ERR_IO, "%s: cannot open: %s", path, errno ? strerror(errno) : "unknown error"), NULL;
	const htsFormat *f = hts_get_format(fp);
	if (f->format == vcf || f->format == bcf || f->format == empty_format) return fp;
	char *what = f->format == text_format ? NULL : hts_format_description(f);
	gvk_err_set(err, GVK_ERR_FORMAT, "%s: not a VCF/BCF file (%s)", path,
	            what ? what : "text whose first line is not ##fileformat=VCF");
	free(what);
	hts_close(fp);
	return NULL;
}

enum { VCF_CHR_MAX = 255 }; /* bytes of a contig name, as the PLINK readers keep them */

/* Genotype calls of one record: per sample the ALT count 0..2, -1 missing, and whether each
 * heterozygote is phased; all as the record's GT says. */
typedef struct {
	htsFile *fp;
	bcf_hdr_t *hdr;
	bcf1_t *rec;
	int32_t *gt;
	int n_gt;
	long recno;
	const char *path;
} vcf_t;

static int gvcf_open(vcf_t *v, const char *path, gvk_err_t *err)
{
	memset(v, 0, sizeof *v);
	v->path = path;
	if (!(v->fp = snp_vcf_hts_open(path, err))) return err ? err->code : GVK_ERR_IO;
	v->hdr = bcf_hdr_read(v->fp);
	v->rec = bcf_init();
	if (!v->hdr || !v->rec) return gvk_err_set(err, GVK_ERR_FORMAT, "%s: not a VCF/BCF file (no header)", path);
	if (bcf_hdr_nsamples(v->hdr) == 0) return gvk_err_set(err, GVK_ERR_FORMAT, "%s: no samples", path);
	return 0;
}

static void gvcf_close(vcf_t *v)
{
	free(v->gt);
	if (v->rec) bcf_destroy(v->rec);
	if (v->hdr) bcf_hdr_destroy(v->hdr);
	if (v->fp) hts_close(v->fp);
}

/* Next record: 1, 0 at the end, or an error. Fills alt[s] (ALT copies or -1) and phased[s].
 * haplotypes: every call must be diploid. */
static int gvcf_next(vcf_t *v, int haplotypes, int8_t *alt, uint8_t *phased, gvk_err_t *err)
{
	int r = bcf_read(v->fp, v->hdr, v->rec);
	if (r == -1) return 0;
	++v->recno;
	if (r < -1) return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld: malformed", v->path, v->recno);
	bcf1_t *b = v->rec;
	const char *chr = bcf_seqname(v->hdr, b);
	/* htslib takes an empty CHROM as a contig named "" (found by fuzzing the import of gvk ld). */
	if (!chr || !*chr) return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld: empty CHROM", v->path, v->recno);
	/* A longer name would be cut, and two contigs could become one (they did at 64 bytes). */
	if (strlen(chr) > VCF_CHR_MAX)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld: contig name of %zu bytes (at most %d)", v->path, v->recno,
		                   strlen(chr), VCF_CHR_MAX);
	if (b->n_allele > 2)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld (%s:%lld): multi-allelic, split it first (bcftools norm -m-)",
		                   v->path, v->recno, chr ? chr : "?", (long long)b->pos + 1);
	int ns = bcf_hdr_nsamples(v->hdr);
	/* htslib ends the process (exit(1), a message without the file) when GT holds no integers,
	 * as after "FORMAT :GT" with one value per sample (found by fuzzing): checked first. */
	const bcf_fmt_t *fmt = bcf_get_fmt(v->hdr, b, "GT");
	int n = fmt && (fmt->type == BCF_BT_INT8 || fmt->type == BCF_BT_INT16 || fmt->type == BCF_BT_INT32)
	            ? bcf_get_genotypes(v->hdr, b, &v->gt, &v->n_gt)
	            : fmt ? -1 : 0;
	if (fmt && n < 0)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld (%s:%lld): GT field without genotype values", v->path,
		                   v->recno, chr ? chr : "?", (long long)b->pos + 1);
	if (n <= 0)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld (%s:%lld): no GT field", v->path, v->recno,
		                   chr ? chr : "?", (long long)b->pos + 1);
	int ploidy = n / ns;
	if (n != ploidy * ns || ploidy < 1 || ploidy > 2)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld (%s:%lld): ploidy %d, only haploid and diploid GT are "
		                   "supported", v->path, v->recno, chr ? chr : "?", (long long)b->pos + 1, n / ns);
	for (int s = 0; s < ns; ++s) {
		int32_t g0 = v->gt[ploidy * s], g1 = ploidy == 2 ? v->gt[2 * s + 1] : bcf_int32_vector_end;
		if (g1 == bcf_int32_vector_end && haplotypes)
			return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld (%s:%lld): sample %s is haploid, --phased needs diploid GT",
			                   v->path, v->recno, chr ? chr : "?", (long long)b->pos + 1, v->hdr->samples[s]);
		/* a haploid call (male X or Y) is its allele twice, as PLINK 1.9 imports it (gvk ld --vcf) */
		if (g1 == bcf_int32_vector_end) g1 = g0;
		if (bcf_gt_is_missing(g0) || bcf_gt_is_missing(g1)) {
			alt[s] = -1, phased[s] = 1;
			continue;
		}
		/* htslib does not hold GT to the record's alleles: a '2' of a bi-allelic record would count
		 * as ALT. */
		if (bcf_gt_allele(g0) >= b->n_allele || bcf_gt_allele(g1) >= b->n_allele)
			return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld (%s:%lld): sample %s's GT names allele %d, but the "
			                   "record has %d", v->path, v->recno, chr, (long long)b->pos + 1, v->hdr->samples[s],
			                   bcf_gt_allele(g0) >= b->n_allele ? bcf_gt_allele(g0) : bcf_gt_allele(g1), b->n_allele);
		int a0 = bcf_gt_allele(g0) > 0, a1 = bcf_gt_allele(g1) > 0;
		alt[s] = (int8_t)(a0 + a1);
		/* bit 0: phase known (phased, or homozygous); bits 1-2: the two haplotypes' alleles */
		phased[s] = (uint8_t)((bcf_gt_is_phased(g1) || a0 == a1) | a0 << 1 | a1 << 2);
	}
	return 1;
}

/* The header's sample names into d, in column order. */
static int copy_sample_ids(snp_data_t *d, const bcf_hdr_t *hdr, const char *path, gvk_err_t *err)
{
	int ns = bcf_hdr_nsamples(hdr);
	d->sample_id = calloc((size_t)ns, sizeof *d->sample_id);
	if (!d->sample_id) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", path);
	for (int s = 0; s < ns; ++s) {
		d->sample_id[s] = strdup(hdr->samples[s]);
		d->n_sample_id = s + 1;
		if (!d->sample_id[s]) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", path);
	}
	return 0;
}

int snp_read_vcf(const char *path, const snp_vcf_opt_t *opt, snp_data_t *d, gvk_err_t *err)
{
	vcf_t v;
	int rc = gvcf_open(&v, path, err);
	int ns = rc == 0 ? bcf_hdr_nsamples(v.hdr) : 0;
	int8_t *alt = rc == 0 ? malloc((size_t)ns) : NULL;
	uint8_t *ph = rc == 0 ? malloc((size_t)ns) : NULL;
	int8_t *all = NULL;  /* records x samples calls, kept to fill the planes in one pass */
	uint8_t *allph = NULL;
	long *offs = NULL;
	size_t n = 0, cap = 0;
	if (rc == 0 && (!alt || !ph)) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", path);
	while (rc == 0) {
		int r = gvcf_next(&v, opt->haplotypes, alt, ph, err);
		if (r <= 0) {
			rc = r;
			break;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			int8_t *na = realloc(all, cap * (size_t)ns);
			if (na) all = na;
			uint8_t *np = na ? realloc(allph, cap * (size_t)ns) : NULL;
			if (np) allph = np;
			snp_var_t *nv = np ? realloc(d->var, cap * sizeof *nv) : NULL;
			if (nv) d->var = nv;
			long *no = nv ? realloc(offs, cap * 4 * sizeof *no) : NULL;
			if (no) offs = no;
			if (!no) {
				rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", path);
				break;
			}
		}
		memcpy(all + n * (size_t)ns, alt, (size_t)ns);
		memcpy(allph + n * (size_t)ns, ph, (size_t)ns);
		bcf1_t *b = v.rec;
		bcf_unpack(b, BCF_UN_STR);
		const char *chr = bcf_seqname(v.hdr, b);
		char cn[VCF_CHR_MAX + 1];
		snp_chr_normalise(chr, strlen(chr), cn, sizeof cn);
		const char *ref = b->d.allele[0], *al = b->n_allele > 1 ? b->d.allele[1] : "0";
		if (strcmp(al, ".") == 0) al = "0";
		long *o = offs + 4 * n;
		o[0] = snp_pool_add(d, cn, strlen(cn));
		o[1] = snp_pool_add(d, b->d.id, strlen(b->d.id));
		o[2] = snp_pool_add(d, al, strlen(al));
		o[3] = snp_pool_add(d, ref, strlen(ref));
		d->var[n].cm = 0;
		d->var[n].bp = (int64_t)b->pos + 1;
		if (o[0] < 0 || o[1] < 0 || o[2] < 0 || o[3] < 0) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		++n;
	}
	if (rc == 0 && n == 0) rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: no variants", path);
	int64_t bits = opt->haplotypes ? 2 * (int64_t)ns : ns;
	if (rc == 0) {
		d->n_snp = (int64_t)n;
		snp_data_fix_strings(d, offs);
		d->n_samples = ns;
		rc = copy_sample_ids(d, v.hdr, path, err);
	}
	if (rc == 0) rc = snp_data_alloc_planes(d, (int64_t)n, bits, err);
	for (size_t i = 0; i < n && rc == 0; ++i) {
		const int8_t *g = all + i * (size_t)ns;
		const uint8_t *p = allph + i * (size_t)ns;
		uint64_t *pa = snp_plane(d, (int64_t)i, SNP_PA), *pb = snp_plane(d, (int64_t)i, SNP_PB);
		uint64_t *pv = snp_plane(d, (int64_t)i, SNP_PV);
		int64_t calls = 0, alts = 0;
		for (int s = 0; s < ns; ++s)
			if (g[s] >= 0) calls++, alts += g[s];
		int swap = !opt->keep_allele_order && 2 * calls - alts < alts;
		for (int s = 0; s < ns && rc == 0; ++s) {
			if (g[s] < 0) continue;
			if (opt->haplotypes) {
				if (!(p[s] & 1))
					rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %zu (%s:%lld): sample %s has an unphased heterozygous call",
					                 path, i + 1, d->var[i].chr, (long long)d->var[i].bp, v.hdr->samples[s]);
				for (int h = 0; h < 2; ++h) {
					int64_t k = 2 * (int64_t)s + h;
					int a = (p[s] >> (1 + h)) & 1;
					if (swap) a = !a;
					pv[k >> 6] |= (uint64_t)1 << (k & 63);
					if (a) pa[k >> 6] |= (uint64_t)1 << (k & 63);
				}
				continue;
			}
			int x = swap ? 2 - g[s] : g[s];
			uint64_t bit = (uint64_t)1 << (s & 63);
			pv[s >> 6] |= bit;
			if (x >= 1) pa[s >> 6] |= bit;
			if (x == 2) pb[s >> 6] |= bit;
		}
		if (swap) {
			const char *t = d->var[i].a1;
			d->var[i].a1 = d->var[i].a2;
			d->var[i].a2 = t;
		}
		d->phased = opt->haplotypes;
		snp_data_set_full(d, (int64_t)i);
	}
	free(alt);
	free(ph);
	free(all);
	free(allph);
	free(offs);
	gvcf_close(&v);
	if (rc < 0) snp_data_free(d);
	return rc;
}

#endif
