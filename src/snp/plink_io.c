/* SPDX-License-Identifier: MIT */
/* .bed rows, read in blocks of kept variants' rows on threads, and the whole fileset for the
 * library (the .bim through plink_io_bim.c). */
#define _DEFAULT_SOURCE /* madvise */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plink_io.h"
#include "../common/err.h"
#include "../common/threads.h"

/* The magic bytes and the size the .bim and .fam imply. */
static int check_bed(FILE *fp, const char *path, int64_t m, int64_t n, gvk_err_t *err)
{
	int64_t bpr = (n + 3) / 4;
	struct stat st;
	uint8_t magic[3] = {0, 0, 0};
	size_t got = fread(magic, 1, 3, fp);
	if (fstat(fileno(fp), &st) < 0) return gvk_err_set(err, GVK_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
	if (got == 0)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: empty file (a PLINK 1 .bed starts with the bytes 6c 1b 01)", path);
	if (got < 3 || magic[0] != 0x6c || magic[1] != 0x1b || (magic[2] != 0x01 && magic[2] != 0x00))
		return gvk_err_set(err, GVK_ERR_FORMAT,
		                   "%s: not a PLINK 1 .bed file (the first bytes must be 6c 1b 01, found %02x %02x %02x)", path,
		                   magic[0], magic[1], magic[2]);
	if (magic[2] == 0x00)
		return gvk_err_set(err, GVK_ERR_FORMAT,
		                   "%s: sample-major .bed (header 6c 1b 00) is not supported; convert it with plink --make-bed", path);
	if ((int64_t)st.st_size != 3 + m * bpr)
		return gvk_err_set(err, GVK_ERR_FORMAT,
		                   "%s: %lld bytes, but the .bim's %lld variants and the .fam's %lld samples need 3 + %lld x %lld "
		                   "= %lld",
		                   path, (long long)st.st_size, (long long)m, (long long)n, (long long)m, (long long)bpr,
		                   (long long)(3 + m * bpr));
	return 0;
}

enum { BED_BLOCK = 256 }; /* rows a reader thread takes at a time */

/* A read of SNPs of d: snp[0 .. n) (NULL: every SNP), each decoded into its slot of out, into d's
 * planes (out NULL, d->w set), or counted only (neither). */
typedef struct {
	int fd;
	const int64_t *src; /* per SNP of d: its row */
	const int64_t *snp;
	int64_t n, bpr, n_blocks;
	uint64_t *out;
	int stats;          /* decoding into out: set the SNPs' statistics too */
	uint32_t *geno;     /* counting: each SNP's genotype counts at 3 * its row (NULL: not kept) */
	const snp_geno_ctx_t *c;
	const snp_data_t *d;
	atomic_llong next;
	int *hh;          /* per thread: SNP_HH_* flags seen */
	atomic_int nomem; /* a thread had no buffer */
	int64_t *failed;  /* per thread: the first item whose row could not be read (n when none) */
} bed_job_t;

/* All n bytes at offset off; 0 or -1. */
static int pread_all(int fd, uint8_t *buf, size_t n, off_t off)
{
	while (n) {
		ssize_t got = pread(fd, buf, n, off);
		if (got <= 0) {
			if (got < 0 && errno == EINTR) continue;
			return -1;
		}
		buf += got, n -= (size_t)got, off += got;
	}
	return 0;
}

int snp_rows_open(snp_rows_t *r, const char *path, int64_t n_rows, int64_t n_samples, size_t bytes, gvk_err_t *err)
{
	memset(r, 0, sizeof *r);
	r->bpr = (n_samples + 3) / 4, r->n_rows = n_rows;
	r->cap = (int64_t)bytes / (r->bpr > 0 ? r->bpr : 1);
	if (r->cap < 1) r->cap = 1;
	if (!(r->buf = malloc((size_t)(r->cap * r->bpr) + 1))) return r->fd = -1, gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if ((r->fd = open(path, O_RDONLY)) < 0) {
		free(r->buf), r->buf = NULL;
		return gvk_err_set(err, GVK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	}
	return 0;
}

const uint8_t *snp_rows_get(snp_rows_t *r, int64_t k)
{
	if (k < r->r0 || k >= r->r1) {
		int64_t n = r->n_rows - k < r->cap ? r->n_rows - k : r->cap;
		r->r0 = r->r1 = 0;
		if (n < 1 || pread_all(r->fd, r->buf, (size_t)(n * r->bpr), 3 + (off_t)k * (off_t)r->bpr) < 0) return NULL;
		r->r0 = k, r->r1 = k + n;
	}
	return r->buf + (k - r->r0) * r->bpr;
}

void snp_rows_close(snp_rows_t *r)
{
	if (r->buf) close(r->fd); /* buf is set only once the file is open */
	free(r->buf);
	memset(r, 0, sizeof *r);
	r->fd = -1;
}

/* Maps the pages of [p, end) in one call, which costs less than a fault a page (Linux 5.14 on;
 * elsewhere, or when refused, the first writes fault them in as usual). */
static void prefault(void *p, void *end)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t page = 4096, a = (uintptr_t)p / page * page;
	if ((uintptr_t)end > a) madvise((void *)a, (uintptr_t)end - a, MADV_POPULATE_WRITE);
#else
	(void)p, (void)end;
#endif
}

/* Item k's SNP, its row, and where its planes go (NULL: counted only). */
static int64_t job_snp(const bed_job_t *j, int64_t k) { return j->snp ? j->snp[k] : k; }
static int64_t job_row(const bed_job_t *j, int64_t k) { return j->src[job_snp(j, k)]; }
static uint64_t *job_planes(const bed_job_t *j, int64_t k)
{
	if (j->out) return j->out + (size_t)k * SNP_PLANES * (size_t)j->d->nw;
	return j->d->w ? snp_plane(j->d, job_snp(j, k), 0) : NULL;
}

/* Decodes item k from its row. */
static int decode_item(const bed_job_t *j, int64_t k, const uint8_t *row, uint64_t *scratch)
{
	int64_t i = job_snp(j, k);
	uint64_t *p = job_planes(j, k);
	if (j->out) return snp_geno_row_to(j->d, i, row, j->c, p, j->stats);
	if (p) return snp_geno_row_hh((snp_data_t *)j->d, i, row, j->c);
	return snp_geno_row_stats(j->d, i, row, j->c, scratch, j->geno ? j->geno + 3 * j->src[i] : NULL);
}

/* Blocks of items in turn: each run of consecutive rows read at once, then decoded (counted only
 * into one SNP's scratch planes when there are no planes to fill). */
static void bed_worker(void *arg, int tid)
{
	bed_job_t *j = arg;
	int64_t bpr = j->bpr;
	uint8_t *buf = malloc((size_t)(BED_BLOCK * bpr) + 1);
	int counting = !job_planes(j, 0);
	uint64_t *scratch = counting ? aligned_alloc(64, (size_t)SNP_PLANES * (size_t)j->d->nw * 8) : NULL;
	j->hh[tid] = 0, j->failed[tid] = j->n;
	for (int64_t b; buf && (!counting || scratch) && (b = atomic_fetch_add(&j->next, 1)) < j->n_blocks;) {
		int64_t k0 = b * BED_BLOCK, k1 = k0 + BED_BLOCK < j->n ? k0 + BED_BLOCK : j->n;
		/* d's own planes are new memory, written once; a caller's buffer (a window's store)
		 * is mostly written again, where mapping its pages once more is only a cost */
		if (!counting && !j->out && !j->snp) prefault(job_planes(j, k0), job_planes(j, k1 - 1) + SNP_PLANES * (size_t)j->d->nw);
		for (int64_t k = k0, e; k < k1 && k < j->failed[tid]; k = e) {
			for (e = k + 1; e < k1 && job_row(j, e) == job_row(j, e - 1) + 1;) ++e;
			if (pread_all(j->fd, buf, (size_t)((e - k) * bpr), 3 + (off_t)job_row(j, k) * (off_t)bpr) < 0) {
				j->failed[tid] = k;
				break;
			}
			for (int64_t q = k; q < e; ++q) j->hh[tid] |= decode_item(j, q, buf + (q - k) * bpr, scratch);
		}
	}
	if (!buf || (counting && !scratch)) atomic_store(&j->nomem, 1);
	free(buf);
	free(scratch);
}

/* snp_bed_decode, with the genotype counts of SNPs counted only into geno when given. */
static int decode(const snp_bed_src_t *s, const snp_data_t *d, const int64_t *snp, int64_t n, uint64_t *planes,
                  uint32_t *geno, int threads, void *pool, int *hh, gvk_err_t *err)
{
	if (hh) *hh = 0;
	if (n <= 0) return 0;
	int fd = open(s->bed, O_RDONLY);
	if (fd < 0) return gvk_err_set(err, GVK_ERR_IO, "%s: cannot open: %s", s->bed, strerror(errno));
	int nt = threads > 1 ? threads : 1;
	bed_job_t j = {.fd = fd, .src = s->row, .snp = snp, .n = n, .bpr = (s->n_samples + 3) / 4, .out = planes,
	               .stats = s->stats, .geno = geno, .c = s->c, .d = d};
	j.n_blocks = (n + BED_BLOCK - 1) / BED_BLOCK;
	if (nt > j.n_blocks) nt = (int)j.n_blocks;
	j.hh = malloc(sizeof *j.hh * (size_t)nt);
	j.failed = malloc(sizeof *j.failed * (size_t)nt);
	int rc = 0;
	if (!j.hh || !j.failed) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", s->bed);
	if (rc == 0) {
		atomic_init(&j.next, 0);
		atomic_init(&j.nomem, 0);
		if (pool) gvk_pool_run(pool, nt, bed_worker, &j);
		else gvk_parallel(nt, bed_worker, &j);
		int64_t failed = n;
		for (int t = 0; t < nt; ++t) {
			if (hh) *hh |= j.hh[t];
			if (j.failed[t] < failed) failed = j.failed[t];
		}
		if (atomic_load(&j.nomem)) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", s->bed);
		else if (failed < n)
			rc = gvk_err_set(err, GVK_ERR_IO, "%s: read error in the block of variant %lld", s->bed,
			                 (long long)job_row(&j, failed) + 1);
	}
	free(j.hh);
	free(j.failed);
	close(fd);
	return rc;
}

int snp_bed_decode(const snp_bed_src_t *s, const snp_data_t *d, const int64_t *snp, int64_t n, uint64_t *planes,
                   int threads, void *pool, int *hh, gvk_err_t *err)
{
	return decode(s, d, snp, n, planes, NULL, threads, pool, hh, err);
}

int snp_bed_check(const char *path, int64_t n_rows, int64_t n_samples, gvk_err_t *err)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) return gvk_err_set(err, GVK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	int rc = check_bed(fp, path, n_rows, n_samples, err);
	fclose(fp);
	return rc;
}

/* snp_read_bed, keeping d's planes when planes is set, else the genotype counts when geno is. */
static int read_bed(const char *path, const int64_t *src, int64_t n_rows, int64_t n_samples, const snp_geno_ctx_t *c,
                    snp_data_t *d, int planes, uint32_t *geno, gvk_err_t *err)
{
	int rc = snp_bed_check(path, n_rows, n_samples, err);
	if (rc == 0) rc = planes ? snp_geno_alloc(d, d->n_snp, c, err) : snp_geno_alloc_stats(d, d->n_snp, c, err);
	snp_bed_src_t s = {path, src, n_rows, n_samples, c, 1};
	int hh = 0;
	if (rc == 0) rc = decode(&s, d, NULL, d->n_snp, NULL, geno, c->threads, NULL, &hh, err);
	d->hh |= hh;
	return rc;
}

int snp_read_bed(const char *path, const int64_t *src, int64_t n_rows, int64_t n_samples, const snp_geno_ctx_t *c,
                 snp_data_t *d, gvk_err_t *err)
{
	return read_bed(path, src, n_rows, n_samples, c, d, 1, NULL, err);
}

int snp_read_bed_stats(const char *path, const int64_t *src, int64_t n_rows, int64_t n_samples,
                       const snp_geno_ctx_t *c, snp_data_t *d, uint32_t *geno, gvk_err_t *err)
{
	return read_bed(path, src, n_rows, n_samples, c, d, 0, geno, err);
}

/* The LD columns' sample IDs as FID_IID, the name plink --recode vcf gives a sample, so that a
 * PLINK fileset and its VCF name their samples alike (FastID tables). */
static int column_ids(const snp_samples_t *ss, const snp_geno_ctx_t *c, snp_data_t *d, gvk_err_t *err)
{
	if (!(d->sample_id = calloc((size_t)(c->n_cols > 0 ? c->n_cols : 1), sizeof *d->sample_id)))
		return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	for (int64_t s = 0; s < ss->n; ++s) {
		if (c->col[s] < 0) continue;
		const snp_sample_t *p = &ss->s[s];
		size_t lf = strlen(p->fid), li = strlen(p->iid);
		char *id = malloc(lf + li + 2);
		if (!id) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		memcpy(id, p->fid, lf), id[lf] = '_', memcpy(id + lf + 1, p->iid, li + 1);
		d->sample_id[c->col[s]] = id;
		d->n_sample_id++;
	}
	return 0;
}

/* How read_plink reads the .bed: every row decoded into d's planes, or for a caller that decodes
 * the rows itself, a first pass for the statistics only, or no pass (the size checked). */
enum { READ_PLANES, READ_STATS, READ_NONE };

/* snp_read_plink; without planes, the rows and decoding context go to *keep_src, *n_rows and
 * *keep (the caller frees them). */
static int read_plink(const char *bed, const char *bim, const char *fam, const snp_plink_opt_t *opt, int how,
                      snp_data_t *d, snp_geno_ctx_t *keep, int64_t **keep_src, int64_t *n_rows, gvk_err_t *err)
{
	snp_samples_t ss = {0};
	snp_geno_ctx_t c = {0};
	int64_t *src = NULL, rows = 0;
	int rc = snp_samples_read_fam(fam, &ss, err);
	for (int64_t s = 0; rc == 0 && opt->all_samples && s < ss.n; ++s) ss.s[s].founder = 1;
	if (rc == 0) rc = snp_read_bim(bim, 1, d, &src, &rows, err);
	if (rc == 0) rc = snp_geno_ctx_init(&c, &ss, 0, opt->keep_allele_order, err);
	if (rc == 0) {
		d->n_samples = ss.n;
		if (how == READ_PLANES) rc = snp_read_bed(bed, src, rows, ss.n, &c, d, err);
		else if (how == READ_STATS) rc = snp_read_bed_stats(bed, src, rows, ss.n, &c, d, NULL, err);
		else if ((rc = snp_bed_check(bed, rows, ss.n, err)) == 0) rc = snp_geno_alloc_stats(d, d->n_snp, &c, err);
	}
	if (rc == 0) rc = column_ids(&ss, &c, d, err);
	if (rc == 0 && keep) *keep = c, *keep_src = src, *n_rows = rows, src = NULL;
	else snp_geno_ctx_free(&c);
	snp_samples_free(&ss);
	free(src);
	if (rc < 0) snp_data_free(d);
	return rc;
}

int snp_read_plink(const char *bed, const char *bim, const char *fam, const snp_plink_opt_t *opt, snp_data_t *d,
                   gvk_err_t *err)
{
	return read_plink(bed, bim, fam, opt, READ_PLANES, d, NULL, NULL, NULL, err);
}

/* PREFIX.bed, .bim and .fam in one buffer of three slots of n bytes; NULL when out of memory. */
static char *fileset_paths(const char *prefix, size_t *n)
{
	*n = strlen(prefix) + 8;
	char *p = malloc(3 * *n);
	if (!p) return NULL;
	snprintf(p, *n, "%s.bed", prefix);
	snprintf(p + *n, *n, "%s.bim", prefix);
	snprintf(p + 2 * *n, *n, "%s.fam", prefix);
	return p;
}

int snp_read_bfile(const char *prefix, const snp_plink_opt_t *opt, snp_data_t *d, gvk_err_t *err)
{
	size_t n;
	char *p = fileset_paths(prefix, &n);
	if (!p) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	int rc = snp_read_plink(p, p + n, p + 2 * n, opt, d, err);
	free(p);
	return rc;
}

int snp_read_bfile_rows(const char *prefix, const snp_plink_opt_t *opt, int first_pass, snp_data_t *d,
                        snp_geno_ctx_t *c, int64_t **src, int64_t *n_rows, gvk_err_t *err)
{
	size_t n;
	char *p = fileset_paths(prefix, &n);
	if (!p) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	int rc = read_plink(p, p + n, p + 2 * n, opt, first_pass ? READ_STATS : READ_NONE, d, c, src, n_rows, err);
	free(p);
	return rc;
}
