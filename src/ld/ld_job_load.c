/* SPDX-License-Identifier: MIT */
/* Reading and filtering for gvk ld. Variant filters that need no genotypes run before the .bed is
 * read, so only the selected rows are decoded; PLINK's SNP column width is fixed at that point,
 * before --geno and --maf, as PLINK fixes it. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdlib.h>
#include <string.h>

#include "ld_job_load.h"
#include "ld_write.h"
#include "../common/err.h"
#include "../snp/plink_io.h"
#include "../snp/snp_geno.h"
#include "../snp/snp_chrom.h"
#include "../snp/snp_samples.h"
#include "../snp/snp_select.h"
#include "../snp/snp_qc.h"
#include "../snp/vcf_import.h"
#include "../snp/vcf_io.h"

/* Where the genotypes come from: .bed rows by index, or the imported VCF rows in memory. */
typedef struct {
	snp_samples_t ss;
	int64_t *src, n_rows, row_bytes;
	uint8_t *rows; /* VCF only */
	char *paths;   /* bed, bim, fam for --bfile */
	const char *bed, *bim, *fam;
} source_t;

static void source_free(source_t *s)
{
	snp_samples_free(&s->ss);
	free(s->src);
	free(s->rows);
	free(s->paths);
}

static int bfile_paths(const ld_job_args_t *a, source_t *s, gvk_err_t *err)
{
	if (a->bfile && !a->bed && !a->bim && !a->fam) {
		size_t n = strlen(a->bfile) + 8;
		if (!(s->paths = malloc(3 * n))) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		snprintf(s->paths, n, "%s.bed", a->bfile);
		snprintf(s->paths + n, n, "%s.bim", a->bfile);
		snprintf(s->paths + 2 * n, n, "%s.fam", a->bfile);
		s->bed = s->paths, s->bim = s->paths + n, s->fam = s->paths + 2 * n;
		return 0;
	}
	if (a->bed && a->bim && a->fam && !a->bfile) {
		s->bed = a->bed, s->bim = a->bim, s->fam = a->fam;
		return 0;
	}
	return gvk_err_set(err, GVK_ERR_ARG, "give --bfile PREFIX, or all of --bed, --bim and --fam, or --vcf FILE");
}

/* "FILE:LINE" of a .bim, "FILE: record N" of a VCF (records), for messages. */
static const char *where(char *buf, size_t size, const char *path, int records, long k)
{
	snprintf(buf, size, records ? "%s: record %ld" : "%s:%ld", path, k);
	return buf;
}

/* A chromosome split over two runs of lines is refused for every output, as PLINK refuses it. */
static int check_split(const snp_bim_order_t *o, const char *path, int records, gvk_err_t *err)
{
	char w[4200];
	if (!o->split_line) return 0;
	return gvk_err_set(err, GVK_ERR_FORMAT,
	                   "%s: chromosome %s starts again after other chromosomes (a split chromosome); gvk ld, as "
	                   "PLINK, needs each chromosome's variants together (plink --make-bed regroups them)",
	                   where(w, sizeof w, path, records, o->split_line), o->names + o->split_name);
}

/* Samples and variant descriptions of a VCF. */
static int read_vcf(const ld_job_args_t *a, source_t *s, snp_data_t *d, snp_bim_order_t *ord, ld_log_t *log, gvk_err_t *err)
{
	snp_vcf_import_opt_t o = {a->double_id, a->allow_extra};
	int rc = snp_vcf_import(a->vcf, &o, &s->ss, d, &s->rows, &s->row_bytes, err);
	s->n_rows = d->n_snp;
	if (rc == 0 && !(s->src = malloc(sizeof *s->src * (size_t)(d->n_snp + 1))))
		rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	for (int64_t i = 0; rc == 0 && i < d->n_snp; ++i) s->src[i] = i;
	if (rc == 0 && snp_order_of_vars(d, ord) < 0) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (rc == 0) rc = check_split(ord, a->vcf, 1, err);
	if (rc == 0) ld_log_printf(log, "%lld variants and %lld samples read from %s.\n", (long long)d->n_snp, (long long)s->ss.n, a->vcf);
	return rc;
}

/* Samples and variant descriptions of the input. */
static int read_source(const ld_job_args_t *a, source_t *s, snp_data_t *d, snp_bim_order_t *ord, ld_log_t *log,
                       gvk_err_t *err)
{
	int rc;
	if (a->vcf) return read_vcf(a, s, d, ord, log, err);
	if ((rc = bfile_paths(a, s, err)) < 0) return rc;
	if ((rc = snp_samples_read_fam(s->fam, &s->ss, err)) < 0) return rc;
	if ((rc = snp_read_bim_order(s->bim, a->allow_extra, a->ld.threads, d, &s->src, &s->n_rows, ord, err)) < 0) return rc;
	if ((rc = check_split(ord, s->bim, 0, err)) < 0) return rc;
	d->n_samples = s->ss.n;
	ld_log_printf(log, "%lld variants loaded from .bim file.\n", (long long)s->n_rows);
	ld_log_printf(log, "%lld people (%lld males, %lld females, %lld ambiguous) loaded from .fam.\n", (long long)s->ss.n,
	              (long long)snp_samples_count(&s->ss, 0, 1), (long long)snp_samples_count(&s->ss, 0, 2),
	              (long long)snp_samples_count(&s->ss, 0, 0));
	return 0;
}

/* --keep, --remove and --make-founders, in PLINK's order; *founders receives the founders left. */
static int select_samples(const ld_job_args_t *a, snp_samples_t *ss, int64_t *founders, ld_log_t *log, gvk_err_t *err)
{
	int64_t left;
	if (a->keep) {
		if (snp_samples_keep(ss, a->keep, 1, &left, err) < 0) return err->code;
		ld_log_printf(log, "--keep: %lld people remaining.\n", (long long)left);
	}
	if (a->remove) {
		if (snp_samples_keep(ss, a->remove, 0, &left, err) < 0) return err->code;
		ld_log_printf(log, "--remove: %lld people remaining.\n", (long long)left);
	}
	if (a->make_founders) {
		int64_t n = snp_samples_make_founders(ss);
		if (n < 0) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		ld_log_printf(log, "--make-founders: %lld samples affected.\n", (long long)n);
	}
	int64_t f = snp_samples_count(ss, 1, -1), all = snp_samples_count(ss, 0, -1);
	ld_log_printf(log, "Before main variant filters, %lld founders and %lld nonfounders present.\n", (long long)f,
	              (long long)(all - f));
	*founders = f;
	return 0;
}

static int select_variants(const ld_job_args_t *a, source_t *s, snp_data_t *d, ld_log_t *log, gvk_err_t *err)
{
	snp_ranges_t snps = {0};
	int rc = a->snps ? snp_ranges_parse(a->snps, a->n_snps, "--snps", &snps, err) : 0;
	uint8_t *keep = rc == 0 ? malloc((size_t)d->n_snp + 1) : NULL;
	if (rc == 0 && !keep) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	snp_varsel_t o = {a->chr, a->from, a->to, a->extract, a->exclude, a->snps ? &snps : NULL};
	if (rc == 0) rc = snp_select_vars(d, &o, keep, err);
	if (rc == 0) {
		snp_vars_compact(d, keep, s->src);
		d->id_width = ld_plink_maxsnp_threads(d, a->ld.threads);
		if (d->n_snp != s->n_rows) ld_log_printf(log, "%lld variants selected by the variant filters.\n", (long long)d->n_snp);
	}
	free(keep);
	snp_ranges_free(&snps);
	return rc;
}

/* --mind on the selected variants' rows, before founders and frequencies are settled. */
static int mind(const ld_job_args_t *a, const gvk_ld_split_t *sp, source_t *s, const snp_data_t *d, ld_input_t *in, int64_t *founders, ld_log_t *log,
                gvk_err_t *err)
{
	if (a->mind >= 1 || a->vcf) return 0;
	uint8_t *gone = malloc((size_t)s->ss.n + 1);
	if (!gone) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	int64_t *miss = malloc(sizeof *miss * (size_t)(s->ss.n + 1));
	int rc = miss ? 0 : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (rc == 0 && sp) rc = ld_split_mind(sp, s->bed, s->src, d, &s->ss, miss, err);
	else if (rc == 0) rc = snp_qc_mind_count(s->bed, s->src, 0, d->n_snp, d, &s->ss, miss, err);
	if (rc == 0) snp_qc_mind_apply(d, &s->ss, a->mind, miss, gone, &in->n_mind_removed);
	free(miss);
	size_t len = 1;
	for (int64_t k = 0; rc == 0 && k < s->ss.n; ++k)
		if (gone[k]) len += strlen(s->ss.s[k].fid) + strlen(s->ss.s[k].iid) + 2;
	if (rc == 0 && !(in->irem = malloc(len))) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	for (int64_t k = 0, at = 0; rc == 0 && k < s->ss.n; ++k)
		if (gone[k]) at += sprintf(in->irem + at, "%s\t%s\n", s->ss.s[k].fid, s->ss.s[k].iid);
	if (rc == 0 && len == 1) in->irem[0] = 0;
	free(gone);
	if (rc < 0) return rc;
	ld_log_printf(log, "%lld %s removed due to missing genotype data (--mind).\n", (long long)in->n_mind_removed,
	              in->n_mind_removed == 1 ? "person" : "people");
	if (snp_samples_count(&s->ss, 0, -1) == 0) return gvk_err_set(err, GVK_ERR_ARG, "--mind %g removed every sample", a->mind);
	*founders = snp_samples_count(&s->ss, 1, -1);
	return 0;
}

static int geno_ctx(const ld_job_args_t *a, source_t *s, snp_geno_ctx_t *c, gvk_err_t *err)
{
	int rc = snp_geno_ctx_init(c, &s->ss, a->nonfounders, a->keep_allele_order, err);
	c->raw = ld_job_args_em(a);
	c->threads = a->ld.threads;
	return rc;
}

/* Pruning and clumping read windows of SNPs a few at a time. */
static int streams(const ld_job_args_t *a) { return (a->prune_set || a->clump_set) && !a->vcf; }

/* Whether a variant filter needs every SNP's statistics before the windows are read. */
static int filters(const ld_job_args_t *a) { return a->geno < 1 || a->hwe > 0 || a->maf > 0; }

static int decode(const ld_job_args_t *a, source_t *s, snp_data_t *d, ld_input_t *in, gvk_err_t *err)
{
	snp_geno_ctx_t c;
	int rc = geno_ctx(a, s, &c, err);
	if (rc == 0 && streams(a)) {
		/* without filters no row is read before the windows read it (pruning then reads each row
		 * once); the statistics are set as rows are decoded. --hwe takes its counts from the
		 * filters' first pass. */
		if (a->hwe > 0 && !(in->hwe_counts = malloc(sizeof *in->hwe_counts * 3 * (size_t)(s->n_rows + 1))))
			rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		if (rc == 0 && filters(a)) rc = snp_read_bed_stats(s->bed, s->src, s->n_rows, s->ss.n, &c, d, in->hwe_counts, err);
		else if (rc == 0 && (rc = snp_bed_check(s->bed, s->n_rows, s->ss.n, err)) == 0)
			rc = snp_geno_alloc_stats(d, d->n_snp, &c, err);
		if (rc == 0 && !(in->bed = strdup(s->bed))) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		if (rc < 0) return snp_geno_ctx_free(&c), rc;
		in->streamed = 1, in->geno = c, in->n_rows = s->n_rows, in->n_samples = s->ss.n;
		in->stats_later = !filters(a);
		return 0;
	}
	if (rc == 0 && !a->vcf) rc = snp_read_bed(s->bed, s->src, s->n_rows, s->ss.n, &c, d, err);
	else if (rc == 0) {
		rc = snp_geno_alloc(d, d->n_snp, &c, err);
		for (int64_t i = 0; rc == 0 && i < d->n_snp; ++i) snp_geno_row(d, i, s->rows + s->src[i] * s->row_bytes, &c);
	}
	snp_geno_ctx_free(&c);
	return rc;
}

/* The filters' lines of the log: n[3] the variants --geno, --hwe and --maf removed. */
static void log_qc(const ld_job_args_t *a, const int64_t *n, ld_log_t *log)
{
	if (a->geno < 1) ld_log_printf(log, "%lld variants removed due to missing genotype data (--geno).\n", (long long)n[0]);
	if (a->hwe > 0) ld_log_printf(log, "--hwe: %lld variants removed due to Hardy-Weinberg exact test.\n", (long long)n[1]);
	if (a->maf > 0) ld_log_printf(log, "%lld variants removed due to minor allele threshold(s) (--maf).\n", (long long)n[2]);
}

static int qc(const ld_job_args_t *a, snp_data_t *d, int64_t *src, const ld_input_t *in, ld_log_t *log, gvk_err_t *err)
{
	if (in->stats_later) return 0; /* no filter; the rate is logged once the rows are read, if they all are */
	ld_log_rate(log, d->rate, d->n_snp);
	int64_t ng = 0, nm = 0, nh = 0;
	/* PLINK's order: --geno, --hwe, --maf */
	int rc = snp_select_qc(d, a->geno, 0.0, &ng, &nm, src, err);
	if (rc == 0 && a->hwe > 0) {
		rc = in->streamed ? snp_qc_hwe_counts(d, in->hwe_counts, a->hwe, a->hwe_midp, src, &nh, err)
		                  : snp_qc_hwe(d, a->hwe, a->hwe_midp, src, &nh, err);
		if (rc == 0 && d->n_snp == 0) rc = gvk_err_set(err, GVK_ERR_ARG, "--hwe %g removed every variant", a->hwe);
	}
	int64_t ng2 = 0;
	if (rc == 0 && a->maf > 0) rc = snp_select_qc(d, 1.0, a->maf, &ng2, &nm, src, err);
	int64_t n[3] = {ng, nh, nm};
	log_qc(a, n, log);
	return rc;
}

/* Split over processes, a PLINK fileset: each rank decodes only the SNPs it computes on
 * (ld_split_read), after the per-SNP filters ran on the ranks' shares. */
static int ranged(const ld_job_args_t *a, const gvk_ld_split_t *sp)
{
	return sp && !a->vcf && !a->clump_set;
}

static int load_ranged(const ld_job_args_t *a, const gvk_ld_split_t *sp, source_t *s, snp_data_t *d, ld_input_t *in,
                       ld_log_t *log, gvk_err_t *err)
{
	snp_geno_ctx_t c;
	int rc = geno_ctx(a, s, &c, err);
	ld_split_bed_t b = {s->bed, s->src, s->n_rows, s->ss.n, &c};
	int64_t m0 = d->n_snp, n[3] = {0, 0, 0};
	int filters = a->geno < 1 || a->hwe > 0 || a->maf > 0;
	double *rates = calloc((size_t)m0 + 1, sizeof *rates);
	uint8_t *keep = filters ? malloc((size_t)m0 + 1) : NULL;
	if (rc == 0 && (!rates || (filters && !keep))) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	ld_split_qc_t q = {a->geno, a->hwe, a->maf, a->hwe_midp};
	if (rc == 0 && filters) rc = ld_split_qc(sp, &b, d, &q, keep, rates, n, err);
	if (rc == 0 && filters) snp_vars_compact(d, keep, s->src);
	char *path = a->out ? NULL : malloc(strlen(a->out_prefix) + 8);
	if (path) sprintf(path, "%s%s", a->out_prefix, a->bin ? ".ld.bin" : a->gz ? ".ld.gz" : ".ld");
	int mode = a->prune_set ? LD_SPLIT_CHROMS
	           : a->ld_snp || a->ld_snp_list || a->ld_snps ? LD_SPLIT_BOTH_SIDES : LD_SPLIT_TILE;
	if (rc == 0 && !a->out && !path) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	ld_split_part_t *p = NULL;
	if (rc == 0) rc = ld_split_read(sp, &b, d, &a->ld, mode, a->out ? a->out : path, a->gz, &p, filters ? NULL : rates, err);
	in->mpi_part = p;
	if (rc == 0) ld_log_rate(log, rates, m0), log_qc(a, n, log);
	if (rc == 0) ld_split_say(sp, p, d->n_snp);
	free(path), free(rates), free(keep);
	snp_geno_ctx_free(&c);
	return rc;
}

static int index_variants(const ld_job_args_t *a, const snp_data_t *d, uint8_t **idx1, ld_log_t *log, gvk_err_t *err)
{
	if (!a->ld_snp && !a->ld_snp_list && !a->ld_snps) return 0;
	snp_ranges_t r = {0};
	int rc = a->ld_snps ? snp_ranges_parse(a->ld_snps, a->n_ld_snps, "--ld-snps", &r, err) : 0;
	if (rc == 0 && !(*idx1 = malloc((size_t)d->n_snp + 1))) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	int64_t n = rc == 0 ? snp_select_index(d, a->ld_snp, a->ld_snp_list, a->ld_snps ? &r : NULL, *idx1, err) : rc;
	if (n > 0) ld_log_printf(log, "%lld index variants (--ld-snp / --ld-snps / --ld-snp-list).\n", (long long)n);
	snp_ranges_free(&r);
	return n < 0 ? (int)n : 0;
}

/* The input rows left after filtering (ld_opt_t.row): those with keep[i] among rows 0 .. m-1. */
static int64_t *kept_rows(const uint8_t *keep, int64_t m)
{
	int64_t *row = malloc(sizeof *row * (size_t)(m + 1)), k = 0;
	for (int64_t i = 0; row && i < m; ++i)
		if (keep[i]) row[k++] = i;
	return row;
}

/* --vcf ... --phased: the haplotype reader; the variant filters act on its planes. */
static int load_phased(const ld_job_args_t *a, snp_data_t *d, ld_input_t *in, ld_log_t *log, gvk_err_t *err)
{
	snp_vcf_opt_t vo = {a->keep_allele_order, 1, a->ld.threads};
	int rc = snp_read_vcf(a->vcf, &vo, d, err);
	if (rc < 0) return rc;
	ld_log_printf(log, "%lld variants and %lld samples (phased haplotypes) read from %s.\n", (long long)d->n_snp,
	              (long long)d->n_samples, a->vcf);
	snp_ranges_t snps = {0};
	uint8_t *keep = malloc((size_t)d->n_snp + 1);
	if (!keep) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	rc = a->snps ? snp_ranges_parse(a->snps, a->n_snps, "--snps", &snps, err) : 0;
	snp_varsel_t o = {a->chr, a->from, a->to, a->extract, a->exclude, a->snps ? &snps : NULL};
	if (rc == 0) rc = snp_select_vars(d, &o, keep, err);
	if (rc == 0 && snp_order_of_vars(d, &in->ord) < 0) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (rc == 0) rc = check_split(&in->ord, a->vcf, 1, err);
	if (rc == 0 && !(in->row = kept_rows(keep, d->n_snp))) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (rc == 0) snp_data_select(d, keep), d->id_width = ld_plink_maxsnp(d);
	free(keep);
	snp_ranges_free(&snps);
	return rc;
}

/* The chromosomes the run reads, as PLINK masks them: --chr, or the one of --from / --to. */
static int chr_read(const ld_job_args_t *a, const snp_data_t *d, const char *chr)
{
	if (a->chr) return snp_chr_listed(a->chr, chr);
	return !(a->from || a->to) || !strcmp(chr, d->var[0].chr);
}

/* Windowed tables need each chromosome the run reads in position order, and in cM order with
 * --ld-window-cm, as PLINK checks them (snp_bim_run_t); matrices and inter-chr take any order.
 * path: the .bim, or the VCF (records). */
static int check_order(const ld_job_args_t *a, const snp_data_t *d, const snp_bim_order_t *o, const char *path,
                       int records, gvk_err_t *err)
{
	char w[4200];
	if (a->shape_set || a->ld.inter_chr) return 0;
	for (int64_t k = 0; k < o->n_run; ++k) {
		const snp_bim_run_t *r = &o->run[k];
		if (r->bp_line && chr_read(a, d, o->names + r->name))
			return gvk_err_set(err, GVK_ERR_FORMAT,
			                   "%s: position lower than an earlier one on chromosome %s; windowed --r/--r2 tables "
			                   "need each chromosome sorted by position, as in PLINK (plink --make-bed sorts the "
			                   "fileset; square, triangle and inter-chr take any order)",
			                   where(w, sizeof w, path, records, r->bp_line), o->names + r->name);
	}
	for (int64_t k = 0; a->ld.win_cm >= 0 && k < o->n_run; ++k) {
		const snp_bim_run_t *r = &o->run[k];
		if (r->cm_line && chr_read(a, d, o->names + r->name))
			return gvk_err_set(err, GVK_ERR_FORMAT,
			                   "%s: cM position lower than an earlier one on chromosome %s; --ld-window-cm needs cM "
			                   "positions that never go down along a chromosome, as in PLINK",
			                   where(w, sizeof w, path, records, r->cm_line), o->names + r->name);
	}
	return 0;
}

/* The --bfile or --vcf genotypes, filtered, with their input rows; *founders: the founders left. */
static int load_genotypes(const ld_job_args_t *a, const gvk_ld_split_t *sp, snp_data_t *d, ld_input_t *in,
                          int64_t *founders, ld_log_t *log, gvk_err_t *err)
{
	source_t s = {0};
	int rc = read_source(a, &s, d, &in->ord, log, err);
	if (rc == 0) rc = select_samples(a, &s.ss, founders, log, err);
	if (rc == 0) rc = select_variants(a, &s, d, log, err);
	if (rc == 0) rc = mind(a, sp, &s, d, in, founders, log, err);
	if (rc == 0 && ranged(a, sp)) {
		rc = load_ranged(a, sp, &s, d, in, log, err);
	} else
	{
		if (rc == 0) rc = decode(a, &s, d, in, err);
		if (rc == 0) rc = qc(a, d, s.src, in, log, err);
	}
	if (rc == 0) rc = check_order(a, d, &in->ord, a->vcf ? a->vcf : s.bim, a->vcf != NULL, err);
	if (rc == 0) in->row = s.src, s.src = NULL;
	source_free(&s);
	return rc;
}

int ld_load(const ld_job_args_t *a, const gvk_ld_split_t *sp, snp_data_t *d, ld_input_t *in,
            ld_log_t *log, gvk_err_t *err)
{
	memset(in, 0, sizeof *in);
	if (a->phased && !a->vcf) return gvk_err_set(err, GVK_ERR_ARG, "--phased needs --vcf input with phased GT");
	int64_t founders = 2;
	int rc = a->phased ? load_phased(a, d, in, log, err) : load_genotypes(a, sp, d, in, &founders, log, err);
	if (rc == 0 && a->phased) rc = check_order(a, d, &in->ord, a->vcf, 1, err);
	/* PLINK skips --r/--r2 here with a warning, before it looks at the index variants. */
	if (rc == 0 && founders < 2) in->skip = 1;
	else if (rc == 0) rc = index_variants(a, d, &in->idx1, log, err);
	return rc;
}

void ld_input_free(ld_input_t *in, const gvk_ld_split_t *sp)
{
	if (sp && in->mpi_part) ld_split_part_free(in->mpi_part);
	free(in->irem);
	free(in->idx1);
	free(in->row);
	free(in->bed);
	free(in->hwe_counts);
	if (in->streamed) snp_geno_ctx_free(&in->geno);
	snp_bim_order_free(&in->ord);
	memset(in, 0, sizeof *in);
}
