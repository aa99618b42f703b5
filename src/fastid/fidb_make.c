/* SPDX-License-Identifier: MIT */
/* Genotypes (PLINK fileset or VCF/BCF) into the profiles, panel and sample IDs of a .fidb. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fidb_make.h"
#include "../snp/plink_io.h"
#include "../snp/vcf_io.h"
#include "../common/err.h"
#include "../common/threads.h"

void fid_file_free(fid_file_t *f)
{
	fid_prof_free(&f->prof);
	fid_panel_free(&f->panel);
	fid_ids_free(&f->ids);
}

static int is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* The prefix of a PLINK fileset named by in (the path of its .bed, .bim or .fam, or a prefix
 * that is not a file itself while prefix.bed is), malloc'ed; NULL when in names no fileset.
 * htslib is never given a .bed: it cannot tell one from other binary data. */
static char *plink_prefix(const char *in)
{
	size_t n = strlen(in);
	const char *ext = n > 4 ? in + n - 4 : "";
	if (strcmp(ext, ".bed") == 0 || strcmp(ext, ".bim") == 0 || strcmp(ext, ".fam") == 0) return strndup(in, n - 4);
	if (strcmp(in, "-") == 0 || is_file(in)) return NULL;
	char *bed = malloc(n + 5);
	if (!bed) return NULL;
	snprintf(bed, n + 5, "%s.bed", in);
	int plink = is_file(bed);
	free(bed);
	return plink ? strdup(in) : NULL;
}

/* Reads in into d: A1 (the counted allele of plane A) as the input has it, or the minor allele. */
static int read_genotypes(const char *in, int minor, int threads, snp_data_t *d, gvk_err_t *err)
{
	char *prefix = plink_prefix(in);
	if (prefix) {
		snp_plink_opt_t o = {!minor, 1};
		int rc = snp_read_bfile(prefix, &o, d, err);
		free(prefix);
		return rc;
	}
	if (strcmp(in, "-") != 0 && !exists(in))
		return gvk_err_set(err, GVK_ERR_IO, "%s: no such VCF/BCF file, nor a PLINK fileset %s.bed/.bim/.fam", in, in);
	snp_vcf_opt_t o = {!minor, 0, threads};
	return snp_read_vcf(in, &o, d, err);
}

/* Plane A transposed: profile s gets bit j when sample s carries A1 of SNP j. Each thread takes
 * whole words of samples, so that it writes profiles of its own. */
typedef struct {
	const snp_data_t *d;
	fid_prof_t *p;
	int nth;
} transpose_t;

static void transpose_worker(void *arg, int tid)
{
	const transpose_t *t = arg;
	const snp_data_t *d = t->d;
	size_t words = (size_t)(d->n_bits + 63) / 64, w1 = gvk_part(words, tid + 1, t->nth);
	for (size_t w = gvk_part(words, tid, t->nth); w < w1; ++w)
		for (int64_t j = 0; j < d->n_snp; ++j) {
			uint64_t bits = snp_plane(d, j, SNP_PA)[w];
			const uint64_t set = (uint64_t)1 << (j & 63);
			for (; bits; bits &= bits - 1) {
				size_t s = w * 64 + (size_t)__builtin_ctzll(bits);
				t->p->w[s * (size_t)t->p->stride + (size_t)(j >> 6)] |= set;
			}
		}
}

static int profiles(const snp_data_t *d, int threads, fid_prof_t *p, gvk_err_t *err)
{
	int rc = fid_prof_alloc(p, d->n_bits, (uint32_t)d->n_snp, err);
	if (rc < 0) return rc;
	int64_t words = (d->n_bits + 63) / 64;
	transpose_t t = {d, p, threads < 1 ? 1 : threads > words ? (int)(words ? words : 1) : threads};
	gvk_parallel(t.nth, transpose_worker, &t);
	return 0;
}

static int panel(const snp_data_t *d, fid_panel_t *pl, gvk_err_t *err)
{
	fid_snp_t *s = malloc(((size_t)d->n_snp + 1) * sizeof *s);
	if (!s) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for the SNP panel");
	for (int64_t j = 0; j < d->n_snp; ++j) {
		const snp_var_t *v = &d->var[j];
		s[j] = (fid_snp_t){v->chr, v->id, v->bp, v->a1, v->a2};
	}
	int rc = fid_panel_build(pl, s, (uint32_t)d->n_snp, err);
	free(s);
	return rc;
}

/* The message of err, prefixed with the input's name. */
static int name_input(gvk_err_t *err, int rc, const char *in)
{
	if (!err) return rc;
	char msg[sizeof err->msg];
	memcpy(msg, err->msg, sizeof msg);
	return gvk_err_set(err, rc, "%s: %s", in, msg);
}

int fid_make(const char *in, int minor, int threads, fid_file_t *f, gvk_err_t *err)
{
	memset(f, 0, sizeof *f);
	snp_data_t d = {0};
	int rc = read_genotypes(in, minor, threads, &d, err);
	if (rc < 0) return rc;
	if (d.n_snp > UINT32_MAX || d.n_bits > UINT32_MAX || d.n_sample_id != d.n_bits)
		rc = gvk_err_set(err, GVK_ERR_ARG, "%s: %lld SNPs x %lld samples do not fit a .fidb (at most 2^32 - 1 of each)", in,
		                 (long long)d.n_snp, (long long)d.n_bits);
	if (rc == 0) rc = profiles(&d, threads, &f->prof, err);
	if (rc == 0 && (rc = panel(&d, &f->panel, err)) < 0) name_input(err, rc, in);
	if (rc == 0 && (rc = fid_ids_copy(&f->ids, d.sample_id, (size_t)d.n_sample_id, err)) < 0) name_input(err, rc, in);
	snp_data_free(&d);
	if (rc < 0) fid_file_free(f);
	return rc;
}
