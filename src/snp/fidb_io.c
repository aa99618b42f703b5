#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fidb_io.h"
#include "../common/err.h"

static uint32_t rd32(const unsigned char *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

int fid_prof_alloc(fid_prof_t *p, int64_t n, uint32_t n_snp, gvk_err_t *err)
{
	memset(p, 0, sizeof *p);
	p->n = n;
	p->n_snp = n_snp;
	p->nw = (int)(((uint64_t)n_snp + 63) / 64); /* n_snp + 63 overflows 32 bits near 2^32 */
	p->stride = (p->nw + 7) & ~7;
	if (p->stride == 0) p->stride = 8;
	size_t bytes = (size_t)n * (size_t)p->stride * 8;
	p->w = aligned_alloc(64, bytes ? bytes : 64);
	if (!p->w) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for %lld profiles", (long long)n);
	memset(p->w, 0, bytes);
	return 0;
}

void fid_prof_free(fid_prof_t *p)
{
	free(p->w);
	memset(p, 0, sizeof *p);
}

int fidb_open(fidb_reader_t *r, const char *path, gvk_err_t *err)
{
	memset(r, 0, sizeof *r);
	r->path = path;
	r->fp = fopen(path, "rb");
	if (!r->fp) return gvk_err_set(err, GVK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	unsigned char h[16];
	struct stat st;
	int rc = 0;
	if (fstat(fileno(r->fp), &st) < 0) rc = gvk_err_set(err, GVK_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
	else if (fread(h, 1, 16, r->fp) != 16 || memcmp(h, "FIDB", 4) != 0)
		rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: not a FastID profile file (no 'FIDB' header)", path);
	if (rc == 0) r->n = rd32(h + 4), r->n_snp = rd32(h + 8), r->nw = rd32(h + 12);
	const uint64_t need = ((uint64_t)r->n_snp + 63) / 64;
	/* Profiles of no SNP take no bytes, so the size check below could not bound their number (a
	 * 16-byte file could claim four billion); gvk never writes them. */
	if (rc == 0 && r->n_snp == 0)
		rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: header says the profiles have 0 SNPs", path);
	else if (rc == 0 && r->nw != need)
		rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: header says %u SNPs but %u words per profile (need %llu)", path,
		                 r->n_snp, r->nw, (unsigned long long)need);
	else if (rc == 0 && (uint64_t)st.st_size != 16 + (uint64_t)r->n * r->nw * 8)
		rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: %lld bytes, but %u profiles of %u words need %llu", path,
		                 (long long)st.st_size, r->n, r->nw, (unsigned long long)(16 + (uint64_t)r->n * r->nw * 8));
	if (rc < 0) fidb_close(r);
	return rc;
}

void fidb_close(fidb_reader_t *r)
{
	if (r->fp) fclose(r->fp);
	r->fp = NULL;
}

int fidb_read_block(fidb_reader_t *r, int64_t max, fid_prof_t *p, gvk_err_t *err)
{
	int64_t n = (int64_t)r->n - r->done < max ? (int64_t)r->n - r->done : max;
	int rc = fid_prof_alloc(p, n, r->n_snp, err);
	uint32_t w = r->nw;
	unsigned char *buf = rc == 0 ? malloc((size_t)w * 8 + 1) : NULL;
	if (rc == 0 && !buf) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", r->path);
	uint64_t tail = r->n_snp % 64 ? ~(((uint64_t)1 << (r->n_snp % 64)) - 1) : 0;
	for (int64_t i = 0; i < n && rc == 0; ++i) {
		int64_t idx = r->done + i;
		if (fread(buf, 1, (size_t)w * 8, r->fp) != (size_t)w * 8) {
			rc = gvk_err_set(err, GVK_ERR_IO, "%s: read error in profile %lld", r->path, (long long)idx);
			break;
		}
		uint64_t *dst = p->w + (size_t)i * (size_t)p->stride;
		for (uint32_t k = 0; k < w; ++k) {
			uint64_t v = 0;
			for (int b = 7; b >= 0; --b) v = v << 8 | buf[8 * k + (uint32_t)b];
			dst[k] = v;
		}
		if (w && (dst[w - 1] & tail))
			rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: profile %lld has bits set beyond SNP %u", r->path, (long long)idx,
			                 r->n_snp);
	}
	free(buf);
	if (rc < 0) {
		fid_prof_free(p);
		return rc;
	}
	r->done += n;
	return 0;
}

int fidb_read(const char *path, fid_prof_t *p, gvk_err_t *err)
{
	fidb_reader_t r;
	memset(p, 0, sizeof *p);
	int rc = fidb_open(&r, path, err);
	if (rc == 0) rc = fidb_read_block(&r, r.n, p, err);
	fidb_close(&r);
	return rc;
}

int fidb_write(FILE *fp, const fid_prof_t *p)
{
	unsigned char h[16] = {'F', 'I', 'D', 'B'};
	uint32_t v[3] = {(uint32_t)p->n, p->n_snp, (uint32_t)p->nw};
	for (int k = 0; k < 3; ++k)
		for (int b = 0; b < 4; ++b) h[4 + 4 * k + b] = (unsigned char)(v[k] >> (8 * b));
	if (fwrite(h, 1, 16, fp) != 16) return GVK_ERR_IO;
	unsigned char buf[8];
	for (int64_t i = 0; i < p->n; ++i)
		for (int k = 0; k < p->nw; ++k) {
			uint64_t x = p->w[(size_t)i * (size_t)p->stride + (size_t)k];
			for (int b = 0; b < 8; ++b) buf[b] = (unsigned char)(x >> (8 * b));
			if (fwrite(buf, 1, 8, fp) != 8) return GVK_ERR_IO;
		}
	return 0;
}
