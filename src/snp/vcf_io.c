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
#include <stdatomic.h>
#include <htslib/kseq.h>
#include <htslib/vcf.h>

#include "../common/threads.h"

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

/* The checks and calls of record b, parsed with hdr (record recno of the input): fills alt[s]
 * (ALT copies or -1) and phased[s]; 0 or an error. haplotypes: every call must be diploid.
 * gt, n_gt: the caller's buffer for htslib's genotypes. */
static int gvcf_decode(const bcf_hdr_t *hdr, bcf1_t *b, const char *path, long recno, int haplotypes, int32_t **gt,
                       int *n_gt, int8_t *alt, uint8_t *phased, gvk_err_t *err)
{
	const char *chr = bcf_seqname(hdr, b);
	/* htslib takes an empty CHROM as a contig named "" (found by fuzzing the import of gvk ld). */
	if (!chr || !*chr) return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld: empty CHROM", path, recno);
	/* A longer name would be cut, and two contigs could become one (they did at 64 bytes). */
	if (strlen(chr) > VCF_CHR_MAX)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld: contig name of %zu bytes (at most %d)", path, recno,
		                   strlen(chr), VCF_CHR_MAX);
	if (b->n_allele > 2)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld (%s:%lld): multi-allelic, split it first (bcftools norm -m-)",
		                   path, recno, chr ? chr : "?", (long long)b->pos + 1);
	int ns = bcf_hdr_nsamples(hdr);
	/* htslib ends the process (exit(1), a message without the file) when GT holds no integers,
	 * as after "FORMAT :GT" with one value per sample (found by fuzzing): checked first. */
	const bcf_fmt_t *fmt = bcf_get_fmt(hdr, b, "GT");
	int n = fmt && (fmt->type == BCF_BT_INT8 || fmt->type == BCF_BT_INT16 || fmt->type == BCF_BT_INT32)
	            ? bcf_get_genotypes(hdr, b, gt, n_gt)
	            : fmt ? -1 : 0;
	if (fmt && n < 0)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld (%s:%lld): GT field without genotype values", path,
		                   recno, chr ? chr : "?", (long long)b->pos + 1);
	if (n <= 0)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld (%s:%lld): no GT field", path, recno,
		                   chr ? chr : "?", (long long)b->pos + 1);
	int ploidy = n / ns;
	if (n != ploidy * ns || ploidy < 1 || ploidy > 2)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld (%s:%lld): ploidy %d, only haploid and diploid GT are "
		                   "supported", path, recno, chr ? chr : "?", (long long)b->pos + 1, n / ns);
	const int32_t *g = *gt;
	for (int s = 0; s < ns; ++s) {
		int32_t g0 = g[ploidy * s], g1 = ploidy == 2 ? g[2 * s + 1] : bcf_int32_vector_end;
		if (g1 == bcf_int32_vector_end && haplotypes)
			return gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld (%s:%lld): sample %s is haploid, --phased needs diploid GT",
			                   path, recno, chr ? chr : "?", (long long)b->pos + 1, hdr->samples[s]);
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
			                   "record has %d", path, recno, chr, (long long)b->pos + 1, hdr->samples[s],
			                   bcf_gt_allele(g0) >= b->n_allele ? bcf_gt_allele(g0) : bcf_gt_allele(g1), b->n_allele);
		int a0 = bcf_gt_allele(g0) > 0, a1 = bcf_gt_allele(g1) > 0;
		alt[s] = (int8_t)(a0 + a1);
		/* bit 0: phase known (phased, or homozygous); bits 1-2: the two haplotypes' alleles */
		phased[s] = (uint8_t)((bcf_gt_is_phased(g1) || a0 == a1) | a0 << 1 | a1 << 2);
	}
	return 0;
}

/* Records are read in batches and decoded by the threads: the text of a VCF record is parsed by
 * the thread that decodes it, each with its own copy of the header (htslib's parser writes into
 * the header: scratch space, and the contigs and tags a record uses without declaring them). */
typedef struct {
	kstring_t line; /* VCF: the record's text */
	bcf1_t *rec;
	int rr;         /* what bcf_read gives for the record: 0, -1 at the end, below -1 malformed */
	int rc, by;     /* gvcf_decode's result; the thread (header) that decoded it */
	gvk_err_t err;
} vslot_t;

typedef struct {
	vslot_t *s;
	int n, cap, last; /* last: the input ends within this batch (at its end or at a read error) */
} vbatch_t;

enum { BATCH_SLOTS = 256, BATCH_BYTES = 4 << 20 }; /* per thread */
/* Thread 0 reads for all: reading (inflating, splitting lines) is about a tenth of the work, so
 * beyond about ten decoders it is the limit; and each decoder keeps a copy of the header, every
 * sample name included (some 20 MB for 200,000 samples). */
enum { DECODE_THREADS_MAX = 16 };

typedef struct {
	vcf_t *v;
	int is_vcf, haplotypes, ns;
	bcf_hdr_t **hdrs;   /* per thread; [0] is v->hdr */
	int32_t **gt;       /* per thread */
	int *n_gt;
	vbatch_t *cur, *nxt;
	int8_t *alt;        /* rows of cur's first record */
	uint8_t *ph;
	long n0;            /* records before cur */
	atomic_int next;
} vrun_t;

static void batch_free(vbatch_t *b)
{
	for (int k = 0; b->s && k < b->cap; ++k) {
		free(b->s[k].line.s);
		if (b->s[k].rec) bcf_destroy(b->s[k].rec);
	}
	free(b->s);
}

static int batch_alloc(vbatch_t *b, int cap)
{
	memset(b, 0, sizeof *b);
	if (!(b->s = calloc((size_t)cap, sizeof *b->s))) return -1;
	b->cap = cap;
	for (int k = 0; k < cap; ++k)
		if (!(b->s[k].rec = bcf_init())) return -1;
	return 0;
}

/* The next records, read as bcf_read would (a VCF's text is parsed later). */
static void batch_read(vcf_t *v, int is_vcf, vbatch_t *b, size_t bytes)
{
	size_t got = 0;
	b->n = 0;
	while (b->n < b->cap && got < bytes && !b->last) {
		vslot_t *s = &b->s[b->n++];
		s->rc = 0;
		if (is_vcf) {
			s->rr = hts_getline(v->fp, KS_SEP_LINE, &s->line);
			got += s->line.l;
		} else {
			s->rr = bcf_read(v->fp, v->hdr, s->rec);
			got += s->rec->shared.l + s->rec->indiv.l;
		}
		if (s->rr < 0) b->last = 1;
	}
}

static void decode_worker(void *arg, int tid)
{
	vrun_t *r = arg;
	/* thread 0 reads the next batch first: the others decode meanwhile */
	if (tid == 0) {
		r->nxt->n = 0, r->nxt->last = r->cur->last;
		if (!r->cur->last) batch_read(r->v, r->is_vcf, r->nxt, (size_t)BATCH_BYTES * (size_t)r->nxt->cap / BATCH_SLOTS);
	}
	for (int k; (k = atomic_fetch_add(&r->next, 1)) < r->cur->n;) {
		vslot_t *s = &r->cur->s[k];
		s->by = tid;
		if (r->is_vcf && s->rr >= 0) s->rr = vcf_parse(&s->line, r->hdrs[tid], s->rec);
		if (s->rr < 0) continue;
		s->rc = gvcf_decode(r->hdrs[tid], s->rec, r->v->path, r->n0 + k + 1, r->haplotypes, &r->gt[tid], &r->n_gt[tid],
		                    r->alt + (size_t)k * (size_t)r->ns, r->ph + (size_t)k * (size_t)r->ns, &s->err);
	}
}

/* The planes of records [i0, i1) from their calls; threads fill records of their own. */
typedef struct {
	snp_data_t *d;
	const snp_vcf_opt_t *opt;
	const int8_t *all;
	const uint8_t *allph;
	int ns, nth;
	const bcf_hdr_t *hdr;
	const char *path;
	int *rcs;           /* per thread: its first error, for the first record in order */
	gvk_err_t *errs;
} fill_t;

static int fill_record(const fill_t *f, size_t i, gvk_err_t *err)
{
	snp_data_t *d = f->d;
	const snp_vcf_opt_t *opt = f->opt;
	int ns = f->ns, rc = 0;
	const int8_t *g = f->all + i * (size_t)ns;
	const uint8_t *p = f->allph + i * (size_t)ns;
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
				                 f->path, i + 1, d->var[i].chr, (long long)d->var[i].bp, f->hdr->samples[s]);
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
	snp_data_set_full(d, (int64_t)i);
	return rc;
}

static void fill_worker(void *arg, int tid)
{
	fill_t *f = arg;
	size_t n = (size_t)f->d->n_snp, i1 = gvk_part(n, tid + 1, f->nth);
	int rc = 0;
	for (size_t i = gvk_part(n, tid, f->nth); i < i1 && rc == 0; ++i) rc = fill_record(f, i, &f->errs[tid]);
	f->rcs[tid] = rc;
}

/* Fills every record's planes; the error of the first record that has one. */
static int fill_planes(snp_data_t *d, const snp_vcf_opt_t *opt, const int8_t *all, const uint8_t *allph, int ns,
                       const bcf_hdr_t *hdr, const char *path, gvk_err_t *err)
{
	int nth = opt->threads < 1 ? 1 : opt->threads;
	if (nth > d->n_snp) nth = (int)d->n_snp;
	fill_t f = {d, opt, all, allph, ns, nth, hdr, path, calloc((size_t)nth, sizeof(int)), calloc((size_t)nth, sizeof(gvk_err_t))};
	if (!f.rcs || !f.errs) {
		free(f.rcs), free(f.errs);
		return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", path);
	}
	d->phased = opt->haplotypes;
	gvk_parallel(nth, fill_worker, &f);
	int rc = 0;
	for (int t = 0; t < nth && rc == 0; ++t)
		if ((rc = f.rcs[t]) < 0 && err) *err = f.errs[t];
	free(f.rcs), free(f.errs);
	return rc;
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

/* Grows the per-record arrays to hold want records. */
static int grow_records(size_t want, size_t *cap, int ns, int8_t **all, uint8_t **allph, snp_data_t *d, long **offs)
{
	if (want <= *cap) return 0;
	size_t c = *cap ? *cap : 1024;
	while (c < want) c *= 2;
	int8_t *na = realloc(*all, c * (size_t)ns);
	if (na) *all = na;
	uint8_t *np = na ? realloc(*allph, c * (size_t)ns) : NULL;
	if (np) *allph = np;
	snp_var_t *nv = np ? realloc(d->var, c * sizeof *nv) : NULL;
	if (nv) d->var = nv;
	long *no = nv ? realloc(*offs, c * 4 * sizeof *no) : NULL;
	if (no) *offs = no;
	if (!no) return -1;
	*cap = c;
	return 0;
}

/* Name, ID and alleles of a decoded record into the string pool: 0 or GVK_ERR_NOMEM. */
static int record_strings(snp_data_t *d, const bcf_hdr_t *hdr, bcf1_t *b, long *o, snp_var_t *var)
{
	bcf_unpack(b, BCF_UN_STR);
	const char *chr = bcf_seqname(hdr, b);
	char cn[VCF_CHR_MAX + 1];
	snp_chr_normalise(chr, strlen(chr), cn, sizeof cn);
	const char *ref = b->d.allele[0], *al = b->n_allele > 1 ? b->d.allele[1] : "0";
	if (strcmp(al, ".") == 0) al = "0";
	o[0] = snp_pool_add(d, cn, strlen(cn));
	o[1] = snp_pool_add(d, b->d.id, strlen(b->d.id));
	o[2] = snp_pool_add(d, al, strlen(al));
	o[3] = snp_pool_add(d, ref, strlen(ref));
	var->cm = 0;
	var->bp = (int64_t)b->pos + 1;
	return o[0] < 0 || o[1] < 0 || o[2] < 0 || o[3] < 0 ? GVK_ERR_NOMEM : 0;
}

typedef struct {
	vcf_t v;
	vrun_t run;
	vbatch_t bat[2];
	int nth;
} vreader_t;

static void vreader_free(vreader_t *r)
{
	for (int t = 1; r->run.hdrs && t < r->nth; ++t)
		if (r->run.hdrs[t]) bcf_hdr_destroy(r->run.hdrs[t]);
	for (int t = 0; r->run.gt && t < r->nth; ++t) free(r->run.gt[t]);
	free(r->run.hdrs), free(r->run.gt), free(r->run.n_gt);
	batch_free(&r->bat[0]), batch_free(&r->bat[1]);
}

static int vreader_init(vreader_t *r, int threads, int haplotypes, gvk_err_t *err)
{
	vrun_t *u = &r->run;
	r->nth = threads < 1 ? 1 : threads > DECODE_THREADS_MAX ? DECODE_THREADS_MAX : threads;
	u->v = &r->v, u->haplotypes = haplotypes, u->ns = bcf_hdr_nsamples(r->v.hdr);
	u->is_vcf = hts_get_format(r->v.fp)->format == vcf;
	u->hdrs = calloc((size_t)r->nth, sizeof *u->hdrs);
	u->gt = calloc((size_t)r->nth, sizeof *u->gt);
	u->n_gt = calloc((size_t)r->nth, sizeof *u->n_gt);
	int ok = u->hdrs && u->gt && u->n_gt && batch_alloc(&r->bat[0], BATCH_SLOTS * r->nth) == 0 &&
	         batch_alloc(&r->bat[1], BATCH_SLOTS * r->nth) == 0;
	if (ok) u->hdrs[0] = r->v.hdr;
	for (int t = 1; ok && t < r->nth; ++t) ok = (u->hdrs[t] = bcf_hdr_dup(r->v.hdr)) != NULL;
	return ok ? 0 : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", r->v.path);
}

int snp_read_vcf(const char *path, const snp_vcf_opt_t *opt, snp_data_t *d, gvk_err_t *err)
{
	vreader_t R = {0};
	vcf_t *v = &R.v;
	int rc = gvcf_open(v, path, err);
	int ns = rc == 0 ? bcf_hdr_nsamples(v->hdr) : 0;
	if (rc == 0) rc = vreader_init(&R, opt->threads, opt->haplotypes, err);
	int8_t *all = NULL;  /* records x samples calls, kept to fill the planes in one pass */
	uint8_t *allph = NULL;
	long *offs = NULL;
	size_t n = 0, cap = 0;
	vbatch_t *cur = &R.bat[0], *nxt = &R.bat[1];
	if (rc == 0) batch_read(v, R.run.is_vcf, cur, (size_t)BATCH_BYTES * R.nth);
	for (int end = 0; rc == 0 && !end && cur->n > 0;) {
		if (grow_records(n + (size_t)cur->n, &cap, ns, &all, &allph, d, &offs) < 0) {
			rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", path);
			break;
		}
		R.run.cur = cur, R.run.nxt = nxt, R.run.n0 = (long)n;
		R.run.alt = all + n * (size_t)ns, R.run.ph = allph + n * (size_t)ns;
		atomic_store(&R.run.next, 0);
		gvk_parallel(R.nth < cur->n ? R.nth : cur->n, decode_worker, &R.run);
		for (int k = 0; k < cur->n && rc == 0 && !end; ++k) {
			vslot_t *s = &cur->s[k];
			if (s->rr == -1) end = 1;
			else if (s->rr < -1) rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: record %ld: malformed", path, (long)n + 1);
			else if (s->rc < 0) {
				rc = s->rc;
				if (err) *err = s->err;
			} else if (record_strings(d, R.run.hdrs[s->by], s->rec, offs + 4 * n, &d->var[n]) < 0)
				rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
			else ++n;
		}
		vbatch_t *t = cur;
		cur = nxt, nxt = t;
	}
	if (rc == 0 && n == 0) rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: no variants", path);
	int64_t bits = opt->haplotypes ? 2 * (int64_t)ns : ns;
	if (rc == 0) {
		d->n_snp = (int64_t)n;
		snp_data_fix_strings(d, offs);
		d->n_samples = ns;
		rc = copy_sample_ids(d, v->hdr, path, err);
	}
	if (rc == 0) rc = snp_data_alloc_planes(d, (int64_t)n, bits, err);
	if (rc == 0) rc = fill_planes(d, opt, all, allph, ns, v->hdr, path, err);
	free(all);
	free(allph);
	free(offs);
	vreader_free(&R);
	gvcf_close(v);
	if (rc < 0) snp_data_free(d);
	return rc;
}

#endif
