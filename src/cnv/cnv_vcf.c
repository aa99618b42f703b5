/* SPDX-License-Identifier: MIT */
/* The CNV regions as VCF 4.3: one record per region, symbolic alleles, GT:CN:SM per sample (see
 * gvk.h, gvk_cnv_write_vcf, and docs/cnv.md for the conventions). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/err.h"
#include "../common/threads.h"
#include "../common/file_hooks.h"
#include "cnv_write.h"

#ifdef GVK_HAVE_HTSLIB
#include <htslib/bgzf.h>
#include <htslib/faidx.h>
#include <htslib/vcf.h>
#endif

enum { NONE = -1 };

/* For every (region k, sample s) the sample's CNV in the region (its leftmost one, as the CN of
 * the CNV region table takes), an index into r->segs, or NONE. Every CNV lies inside exactly one
 * region (regions are unions of overlapping CNVs), found by bisection. */
static long *region_carriers(const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r)
{
	size_t n = r->n_cnvr * (size_t)c->N;
	long *best = malloc((n ? n : 1) * sizeof *best);
	if (!best) return NULL;
	for (size_t k = 0; k < n; ++k) best[k] = NONE;
	for (size_t i = 0; i < r->n_cnvs; ++i) {
		const gvk_cnv_seg_t *g = &r->segs[r->cnvs[i]];
		size_t a = 0, z = r->n_cnvr;
		while (a < z) { /* first region not before g */
			size_t mid = (a + z) / 2;
			const gvk_cnv_region_t *v = &r->cnvr[mid];
			if (v->seq < g->seq || (v->seq == g->seq && v->last < g->first)) a = mid + 1;
			else z = mid;
		}
		if (a == r->n_cnvr || r->cnvr[a].seq != g->seq || r->cnvr[a].first > g->last) continue;
		long *b = &best[a * (size_t)c->N + (size_t)g->sample];
		if (*b == NONE || r->segs[*b].first > g->first) *b = (long)r->cnvs[i];
	}
	return best;
}

/* A carrier's change: -1 loss, +1 gain (a CNV whose integer copy number stayed at the normal
 * class is told by the sign of its mean). */
static int change_of(const gvk_cnv_seg_t *g, const gvk_cnv_opts_t *o)
{
	double v = o->use_median ? g->median : g->mean;
	if (g->cn != o->cn2) return g->cn < o->cn2 ? -1 : 1;
	return v < 0 ? -1 : 1;
}

/* The value the calls use for sample s over region k: a carrier's own CNV mean (median with
 * --use-median), otherwise the mean over the region's rows of the sample's segment values. */
static double region_value(const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r, const gvk_cnv_opts_t *o,
                           const gvk_cnv_region_t *g, int s, long carrier)
{
	if (carrier != NONE) return o->use_median ? r->segs[carrier].median : r->segs[carrier].mean;
	double sum = 0;
	for (int row = g->first; row <= g->last; ++row) sum += r->call[(size_t)s * c->m + row];
	return sum / (g->last - g->first + 1);
}

static void write_header(FILE *fp, const gvk_cnv_counts_t *c, const gvk_cnv_opts_t *o, const char *reference)
{
	fprintf(fp, "##fileformat=VCFv4.3\n##source=gvk cnv %s (cn.MOPS model)\n", GVK_VERSION);
	if (reference) fprintf(fp, "##reference=file://%s\n", reference);
	for (int q = 0; q < c->n_seqs; ++q) {
		if (c->seq_len && c->seq_len[q] > 0)
			fprintf(fp, "##contig=<ID=%s,length=%lld>\n", c->seq_names[q], (long long)c->seq_len[q]);
		else fprintf(fp, "##contig=<ID=%s>\n", c->seq_names[q]);
	}
	fprintf(fp, "##FILTER=<ID=PASS,Description=\"All filters passed\">\n"
	            "##ALT=<ID=DEL,Description=\"Deletion: copy number below the normal class CN%d\">\n"
	            "##ALT=<ID=DUP,Description=\"Duplication: copy number above the normal class CN%d\">\n",
	        o->cn2, o->cn2);
	fprintf(fp, "##INFO=<ID=END,Number=1,Type=Integer,Description=\"Last base of the CNV region (POS is its first "
	            "base)\">\n"
	            "##INFO=<ID=SVTYPE,Number=1,Type=String,Description=\"DEL, DUP, or CNV when some samples lose and "
	            "others gain copies\">\n"
	            "##INFO=<ID=SVLEN,Number=A,Type=Integer,Description=\"Length of the region per ALT allele, negative "
	            "for DEL\">\n");
	fprintf(fp, "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"The allele the sample carries: 0 no CNV in the "
	            "region, else the ALT allele of its call (one allele: copy numbers above two cannot be assigned to "
	            "haplotypes)\">\n"
	            "##FORMAT=<ID=CN,Number=1,Type=Integer,Description=\"Integer copy number (cn.MOPS class) of the "
	            "sample in the region, as in the CNV region table\">\n"
	            "##FORMAT=<ID=SM,Number=1,Type=Float,Description=\"Segment %s of sI/NI (expected log2 fold change): "
	            "the sample's CNV segment, or the mean over the region of its segment values when it has no CNV "
	            "there\">\n",
	        o->use_median ? "median" : "mean");
	fprintf(fp, "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT");
	for (int s = 0; s < c->N; ++s) fprintf(fp, "\t%s", c->samples[s]);
	fputc('\n', fp);
}

/* One record; carriers: the region's row of region_carriers. */
static void write_record(FILE *fp, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r, const gvk_cnv_opts_t *o,
                         const gvk_cnv_region_t *g, const long *carriers, char ref)
{
	int loss = 0, gain = 0;
	for (int s = 0; s < c->N; ++s)
		if (carriers[s] != NONE) {
			if (change_of(&r->segs[carriers[s]], o) < 0) loss = 1;
			else gain = 1;
		}
	long long pos = c->start[g->first] < 1 ? 1 : (long long)c->start[g->first], end = (long long)c->end[g->last];
	long long len = end - pos + 1;
	const char *alt = loss && gain ? "<DEL>,<DUP>" : loss ? "<DEL>" : "<DUP>";
	const char *type = loss && gain ? "CNV" : loss ? "DEL" : "DUP";
	fprintf(fp, "%s\t%lld\t.\t%c\t%s\t.\tPASS\tEND=%lld;SVTYPE=%s;SVLEN=", c->seq_names[g->seq], pos, ref, alt, end, type);
	if (loss && gain) fprintf(fp, "%lld,%lld", -len, len);
	else fprintf(fp, "%lld", loss ? -len : len);
	fprintf(fp, "\tGT:CN:SM");
	for (int s = 0; s < c->N; ++s) {
		int allele = 0;
		if (carriers[s] != NONE) allele = change_of(&r->segs[carriers[s]], o) < 0 ? 1 : (loss ? 2 : 1);
		fprintf(fp, "\t%d:%d:%.6g", allele, g->cn[s], region_value(c, r, o, g, s, carriers[s]));
	}
	fputc('\n', fp);
}

#ifdef GVK_HAVE_HTSLIB
static char ref_base(const faidx_t *fai, const char *chr, long long pos)
{
	hts_pos_t len = 0;
	char *b = fai ? faidx_fetch_seq64(fai, chr, pos - 1, pos - 1, &len) : NULL;
	char base = b && len == 1 ? (char)toupper((unsigned char)b[0]) : 'N';
	free(b);
	return strchr("ACGTN", base) ? base : 'N';
}
#endif

/* The VCF text to fp. reference: FASTA whose base at POS becomes REF (NULL: REF is N). */
static int write_vcf(FILE *fp, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r, const gvk_cnv_opts_t *o,
                     const char *reference, gvk_err_t *err)
{
	long *carriers = region_carriers(c, r);
	if (!carriers) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for the VCF");
#ifdef GVK_HAVE_HTSLIB
	faidx_t *fai = reference && !c->is_matrix ? fai_load(reference) : NULL;
	if (reference && !c->is_matrix && !fai) {
		free(carriers);
		return gvk_err_set(err, GVK_ERR_IO, "%s: cannot load the FASTA (or build its .fai) for the VCF's REF bases",
		                   reference);
	}
#endif
	write_header(fp, c, o, reference);
	for (size_t k = 0; k < r->n_cnvr; ++k) {
		const gvk_cnv_region_t *g = &r->cnvr[k];
		char ref = 'N';
#ifdef GVK_HAVE_HTSLIB
		ref = ref_base(fai, c->seq_names[g->seq], c->start[g->first] < 1 ? 1 : c->start[g->first]);
#endif
		write_record(fp, c, r, o, g, carriers + k * (size_t)c->N, ref);
	}
#ifdef GVK_HAVE_HTSLIB
	if (fai) fai_destroy(fai);
#endif
	free(carriers);
	return ferror(fp) ? gvk_err_set(err, GVK_ERR_IO, "write error") : 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

#ifdef GVK_HAVE_HTSLIB
/* Tabix indexes hold positions below 2^29; longer contigs need CSI. */
static int needs_csi(const gvk_cnv_counts_t *c)
{
	for (int q = 0; q < c->n_seqs; ++q) {
		int64_t len = c->seq_len && c->seq_len[q] > 0 ? c->seq_len[q] : c->end[c->seq_off[q + 1] - 1];
		if (len >= (INT64_C(1) << 29)) return 1;
	}
	return 0;
}

/* A device or fifo (--vcf /dev/null) is written in place and has no index. */
static int regular_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The text through BGZF into the file made for path, closed; then the index into its own, and the
 * index of the other kind, which describes the file this run replaces, dropped. */
static int save_bgzf(const file_hooks_t *files, const char *path, const char *text, size_t len, int use_csi,
                     int threads, gvk_err_t *err)
{
	const char *tmp = file_hooks_name(files, path, err);
	if (!tmp) return gvk_err_code(err, GVK_ERR_IO);
	BGZF *bg = bgzf_open(tmp, "w");
	if (!bg) return gvk_err_set(err, GVK_ERR_IO, "%s: cannot write", path);
	int bad = bgzf_write(bg, text, len) != (ssize_t)len;
	bad |= bgzf_close(bg) != 0;
	if (bad) return gvk_err_set(err, GVK_ERR_IO, "%s: cannot write", path);
	if (!regular_file(tmp)) return 0;
	size_t n = strlen(path) + 5;
	char *ipath = malloc(n), *other = malloc(n);
	if (!ipath || !other) return free(ipath), free(other), gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	snprintf(ipath, n, "%s.%s", path, use_csi ? "csi" : "tbi");
	snprintf(other, n, "%s.%s", path, use_csi ? "tbi" : "csi");
	const char *itmp = file_hooks_name(files, ipath, err);
	int rc = itmp ? bcf_index_build3(tmp, itmp, use_csi ? 14 : 0, threads > 1 ? threads : 0) : GVK_ERR_IO;
	if (itmp && rc != 0) rc = gvk_err_set(err, GVK_ERR_IO, "%s: cannot build the index (htslib error %d)", ipath, rc);
	if (!itmp) rc = gvk_err_code(err, GVK_ERR_IO);
	if (rc == 0) rc = file_hooks_drop(files, other, err);
	free(ipath), free(other);
	return rc;
}

/* Bgzipped and indexed: the whole text first (a few bytes per sample and region), so that BGZF
 * and the index see a finished file. */
static int save_gz(const char *path, const file_hooks_t *files, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r,
                   const gvk_cnv_opts_t *o, const char *reference, int threads, gvk_err_t *err)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (!mem) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for the VCF");
	int rc = write_vcf(mem, c, r, o, reference, err);
	if (fclose(mem) != 0 && rc == 0) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for the VCF");
	if (rc == 0) rc = save_bgzf(files, path, text, len, needs_csi(c), threads < 1 ? gvk_ncpu() : threads, err);
	free(text);
	return rc;
}
#else
static int save_gz(const char *path, const file_hooks_t *files, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r,
                   const gvk_cnv_opts_t *o, const char *reference, int threads, gvk_err_t *err)
{
	(void)files, (void)c, (void)r, (void)o, (void)reference, (void)threads;
	return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "%s: a bgzipped VCF needs htslib, and this gvk was built without it; "
	                   "name a plain .vcf or rebuild with htslib (Debian: libhts-dev)", path);
}
#endif

int gvk_cnv_write_vcf(const char *path, const gvk_files_t *files, const gvk_cnv_counts_t *c,
                      const gvk_cnv_result_t *r, const gvk_cnv_opts_t *o, const char *reference, int threads,
                      gvk_err_t *err)
{
	if (!path || !c || !r || !o) return gvk_err_null(err, __func__, !path ? "path" : !c ? "c" : !r ? "r" : "o");
	int rc = cnv_result_check(__func__, c, r, o, err);
	if (rc < 0) return rc;
	file_hooks_t fh;
	file_hooks_init(&fh, files);
	if (ends_with(path, ".gz")) return save_gz(path, &fh, c, r, o, reference, threads, err);
	FILE *fp = file_hooks_open(&fh, path, err);
	if (!fp) return gvk_err_code(err, GVK_ERR_IO);
	return file_hooks_close_all(&fh, write_vcf(fp, c, r, o, reference, err), err);
}
