/* SPDX-License-Identifier: MIT */
/* .fidb files, versions 1 and 2 (layout in fidb_io.h and docs/snp.md): reader and writer. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fidb_io.h"
#include "../common/err.h"

/* The shortest panel line ("c TAB i TAB 0 TAB a TAB b LF") and ID line ("x LF"): a header whose
 * section lengths cannot hold its counts is refused before anything is allocated for them. */
enum { MIN_PANEL_LINE = 10, MIN_ID_LINE = 2 };

static uint32_t rd32(const unsigned char *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t rd64(const unsigned char *b)
{
	return (uint64_t)rd32(b) | (uint64_t)rd32(b + 4) << 32;
}

static void wr32(unsigned char *b, uint32_t v)
{
	for (int k = 0; k < 4; ++k) b[k] = (unsigned char)(v >> (8 * k));
}

static void wr64(unsigned char *b, uint64_t v)
{
	wr32(b, (uint32_t)v);
	wr32(b + 4, (uint32_t)(v >> 32));
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

static int open_fp(fidb_reader_t *r, const char *path, struct stat *st, gvk_err_t *err)
{
	int std = strcmp(path, "-") == 0;
	r->path = std ? "standard input" : path;
	r->fp = std ? stdin : fopen(path, "rb");
	if (!r->fp) return gvk_err_set(err, GVK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fileno(r->fp), st) < 0) return gvk_err_set(err, GVK_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
	r->stream = !S_ISREG(st->st_mode);
	return 0;
}

/* Magic, counts and (version 2) section lengths and panel hash. */
static int read_header(fidb_reader_t *r, gvk_err_t *err)
{
	unsigned char h[FIDB_V2_HEADER];
	const char *bad = "not a FastID profile file (no 'FIDB' or 'FID2' header)";
	if (fread(h, 1, 4, r->fp) != 4) return gvk_err_set(err, GVK_ERR_FORMAT, "%s: %s", r->path, bad);
	r->version = memcmp(h, "FIDB", 4) == 0 ? 1 : memcmp(h, "FID2", 4) == 0 ? 2 : 0;
	if (!r->version) return gvk_err_set(err, GVK_ERR_FORMAT, "%s: %s", r->path, bad);
	size_t len = r->version == 1 ? FIDB_V1_HEADER : FIDB_V2_HEADER;
	if (fread(h + 4, 1, len - 4, r->fp) != len - 4)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: ends inside its %zu-byte header", r->path, len);
	r->n = rd32(h + 4), r->n_snp = rd32(h + 8), r->nw = rd32(h + 12);
	if (r->version == 2) r->panel_len = rd64(h + 16), r->ids_len = rd64(h + 24), r->panel_hash = rd64(h + 32);
	return 0;
}

/* The header's fields against each other. */
static int check_header(const fidb_reader_t *r, gvk_err_t *err)
{
	/* In 64 bits: 32 overflow for counts near 2^32. */
	const uint64_t need = ((uint64_t)r->n_snp + 63) / 64;
	if (r->nw != need)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: header says %u SNPs but %u words per profile (need %llu)", r->path,
		                   r->n_snp, r->nw, (unsigned long long)need);
	if (r->n_snp == 0) return gvk_err_set(err, GVK_ERR_FORMAT, "%s: header says the profiles have 0 SNPs", r->path);
	if (r->version == 1) return 0;
	if (r->panel_len / MIN_PANEL_LINE < r->n_snp)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: header says %u SNPs but a panel of %llu bytes (%d bytes a SNP at least)",
		                   r->path, r->n_snp, (unsigned long long)r->panel_len, MIN_PANEL_LINE);
	if (r->ids_len / MIN_ID_LINE < r->n)
		return gvk_err_set(err, GVK_ERR_FORMAT,
		                   "%s: header says %u profiles but %llu bytes of sample IDs (%d bytes an ID at least)", r->path,
		                   r->n, (unsigned long long)r->ids_len, MIN_ID_LINE);
	return 0;
}

/* A regular file's size against the header. */
static int check_size(const fidb_reader_t *r, uint64_t size, gvk_err_t *err)
{
	uint64_t prof = (uint64_t)r->n * r->nw * 8;
	if (r->version == 1) {
		if (size == FIDB_V1_HEADER + prof) return 0;
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: %llu bytes, but %u profiles of %u words need %llu", r->path,
		                   (unsigned long long)size, r->n, r->nw, (unsigned long long)(FIDB_V1_HEADER + prof));
	}
	/* Each part is at most the size first, so that their sum cannot wrap. */
	if (r->panel_len <= size && r->ids_len <= size && prof <= size &&
	    size == FIDB_V2_HEADER + r->panel_len + prof + r->ids_len)
		return 0;
	return gvk_err_set(err, GVK_ERR_FORMAT,
	                   "%s: %llu bytes, but the header's %llu-byte panel, %u profiles of %u words and %llu bytes of sample "
	                   "IDs need %llu",
	                   r->path, (unsigned long long)size, (unsigned long long)r->panel_len, r->n, r->nw,
	                   (unsigned long long)r->ids_len,
	                   (unsigned long long)(FIDB_V2_HEADER + r->panel_len + prof + r->ids_len));
}

/* Up to len bytes into a malloc'ed buffer of len + 1, *got of them read (fewer at the end of the
 * input). A regular file's size was checked against the header, so its buffer is taken at once; a
 * stream's grows (doubling) as the bytes arrive, so that one promising more than it holds ends as
 * truncated rather than as one huge allocation. */
static int read_growing(fidb_reader_t *r, uint64_t len, const char *what, char **out, uint64_t *got, gvk_err_t *err)
{
	const uint64_t step = (uint64_t)1 << 24;
	char *buf = NULL;
	*got = 0;
	while (*got < len || !buf) {
		uint64_t want = !r->stream ? len : *got > step ? *got : step;
		if (want > len - *got) want = len - *got;
		char *nb = realloc(buf, (size_t)(*got + want + 1));
		if (!nb) {
			free(buf);
			return gvk_err_set(err, GVK_ERR_NOMEM, "%s: out of memory for the %s", r->path, what);
		}
		buf = nb;
		size_t n = fread(buf + *got, 1, (size_t)want, r->fp);
		*got += n;
		if (n < want) break;
	}
	*out = buf;
	return 0;
}

/* The next len bytes, all of them, into a malloc'ed buffer of len + 1. */
static int read_section(fidb_reader_t *r, uint64_t len, const char *what, char **out, gvk_err_t *err)
{
	uint64_t got;
	int rc = read_growing(r, len, what, out, &got, err);
	if (rc == 0 && got < len) {
		free(*out);
		rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: ends inside the %s (%llu of %llu bytes)", r->path, what,
		                 (unsigned long long)got, (unsigned long long)len);
	}
	return rc;
}

static int read_panel(fidb_reader_t *r, gvk_err_t *err)
{
	char *raw = NULL;
	int rc = read_section(r, r->panel_len, "SNP panel", &raw, err);
	if (rc == 0) rc = fid_panel_parse(&r->panel, raw, r->panel_len, r->n_snp, r->path, err);
	if (rc == 0 && r->panel.hash != r->panel_hash)
		rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: the SNP panel hashes to %016llx but the header says %016llx", r->path,
		                 (unsigned long long)r->panel.hash, (unsigned long long)r->panel_hash);
	return rc;
}

int fidb_open(fidb_reader_t *r, const char *path, gvk_err_t *err)
{
	memset(r, 0, sizeof *r);
	struct stat st;
	int rc = open_fp(r, path, &st, err);
	if (rc == 0) rc = read_header(r, err);
	if (rc == 0) rc = check_header(r, err);
	if (rc == 0 && !r->stream) rc = check_size(r, (uint64_t)st.st_size, err);
	if (rc == 0 && r->version == 2) rc = read_panel(r, err);
	if (rc < 0) fidb_close(r);
	return rc;
}

void fidb_close(fidb_reader_t *r)
{
	if (r->fp && r->fp != stdin) fclose(r->fp);
	r->fp = NULL;
	fid_panel_free(&r->panel);
}

/* Profile idx from its w little-endian words at src into dst; bits past SNP n_snp are an error. */
static int decode_profile(const fidb_reader_t *r, const unsigned char *src, uint64_t *dst, int64_t idx, gvk_err_t *err)
{
	uint32_t w = r->nw;
	uint64_t tail = r->n_snp % 64 ? ~(((uint64_t)1 << (r->n_snp % 64)) - 1) : 0;
	for (uint32_t k = 0; k < w; ++k) {
		uint64_t v = 0;
		for (int b = 7; b >= 0; --b) v = v << 8 | src[8 * k + (uint32_t)b];
		dst[k] = v;
	}
	if (w && (dst[w - 1] & tail))
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: profile %lld has bits set beyond SNP %u", r->path, (long long)idx,
		                   r->n_snp);
	return 0;
}

static int ends_inside(const fidb_reader_t *r, int64_t idx, gvk_err_t *err)
{
	return gvk_err_set(err, GVK_ERR_FORMAT, "%s: ends inside profile %lld (the header says %u profiles)", r->path,
	                   (long long)idx, r->n);
}

/* A regular file's block, whose bytes the size check vouched for: one profile's bytes at a time. */
static int read_block_file(fidb_reader_t *r, fid_prof_t *p, gvk_err_t *err)
{
	size_t bytes = (size_t)r->nw * 8;
	unsigned char *buf = malloc(bytes + 1);
	int rc = buf ? 0 : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory reading %s", r->path);
	for (int64_t i = 0; i < p->n && rc == 0; ++i) {
		if (fread(buf, 1, bytes, r->fp) == bytes) rc = decode_profile(r, buf, p->w + (size_t)i * (size_t)p->stride, r->done + i, err);
		else if (feof(r->fp)) rc = ends_inside(r, r->done + i, err);
		else rc = gvk_err_set(err, GVK_ERR_IO, "%s: read error in profile %lld", r->path, (long long)(r->done + i));
	}
	free(buf);
	return rc;
}

/* A stream's block of n profiles: its bytes first, in a buffer that grows as they arrive (the
 * header's counts are not backed by bytes yet), then the profiles the bytes hold, so that a header
 * promising huge profiles costs memory only for the bytes that come. Errors in the order of the
 * bytes: a bad profile before the end of the input. */
static int read_block_stream(fidb_reader_t *r, int64_t n, fid_prof_t *p, gvk_err_t *err)
{
	uint64_t bytes = (uint64_t)r->nw * 8, got;
	char *raw;
	int rc = read_growing(r, (uint64_t)n * bytes, "profiles", &raw, &got, err);
	if (rc < 0) return rc;
	int64_t whole = (int64_t)(got / bytes);
	rc = fid_prof_alloc(p, whole, r->n_snp, err);
	for (int64_t i = 0; i < whole && rc == 0; ++i)
		rc = decode_profile(r, (const unsigned char *)raw + (size_t)i * bytes, p->w + (size_t)i * (size_t)p->stride,
		                    r->done + i, err);
	if (rc == 0 && whole < n)
		rc = ferror(r->fp) ? gvk_err_set(err, GVK_ERR_IO, "%s: read error", r->path) : ends_inside(r, r->done + whole, err);
	free(raw);
	return rc;
}

int fidb_read_block(fidb_reader_t *r, int64_t max, fid_prof_t *p, gvk_err_t *err)
{
	int64_t n = (int64_t)r->n - r->done < max ? (int64_t)r->n - r->done : max;
	int rc;
	memset(p, 0, sizeof *p);
	if (r->stream) rc = read_block_stream(r, n, p, err);
	else if ((rc = fid_prof_alloc(p, n, r->n_snp, err)) == 0) rc = read_block_file(r, p, err);
	if (rc < 0) {
		fid_prof_free(p);
		return rc;
	}
	r->done += n;
	return 0;
}

int fidb_seek(fidb_reader_t *r, int64_t i, gvk_err_t *err)
{
	if (r->stream) return gvk_err_set(err, GVK_ERR_ARG, "%s: cannot seek: not a regular file", r->path);
	const off_t at = r->version == 1 ? FIDB_V1_HEADER : (off_t)FIDB_V2_HEADER + (off_t)r->panel_len;
	if (fseeko(r->fp, at + (off_t)i * (off_t)r->nw * 8, SEEK_SET) == 0) {
		r->done = i;
		return 0;
	}
	if (i == (int64_t)r->n) return gvk_err_set(err, GVK_ERR_IO, "%s: cannot seek to the sample IDs", r->path);
	return gvk_err_set(err, GVK_ERR_IO, "%s: cannot seek to profile %lld", r->path, (long long)i);
}

/* A stream must end with its last section. */
static int check_end(fidb_reader_t *r, gvk_err_t *err)
{
	if (!r->stream || fgetc(r->fp) == EOF) return 0;
	return gvk_err_set(err, GVK_ERR_FORMAT, "%s: more bytes after the %s", r->path,
	                   r->version == 1 ? "last profile" : "last sample ID");
}

int fidb_read_ids(fidb_reader_t *r, const int64_t *want, size_t n_want, fid_ids_t *ids, gvk_err_t *err)
{
	memset(ids, 0, sizeof *ids);
	if (r->done != (int64_t)r->n)
		return gvk_err_set(err, GVK_ERR_ARG, "%s: sample IDs asked for before the profiles were read", r->path);
	char *text = NULL;
	int rc = 0;
	if (r->version == 1) rc = fid_ids_indices(ids, r->n, want, n_want, err);
	else if ((rc = read_section(r, r->ids_len, "sample IDs", &text, err)) == 0)
		rc = fid_ids_parse(ids, text, r->ids_len, r->n, want, n_want, r->path, err);
	if (rc == 0) rc = check_end(r, err);
	if (rc < 0) fid_ids_free(ids);
	return rc;
}

/* Appends b's profiles to p (same SNP count). */
static int prof_append(fid_prof_t *p, const fid_prof_t *b, gvk_err_t *err)
{
	fid_prof_t t;
	int rc = fid_prof_alloc(&t, p->n + b->n, p->n_snp, err);
	if (rc < 0) return rc;
	size_t row = (size_t)p->stride * 8;
	memcpy(t.w, p->w, (size_t)p->n * row);
	memcpy(t.w + (size_t)p->n * (size_t)p->stride, b->w, (size_t)b->n * row);
	fid_prof_free(p);
	*p = t;
	return 0;
}

/* Every profile. A stream's in growing blocks: its header's count is not yet backed by bytes. */
static int read_profiles(fidb_reader_t *r, fid_prof_t *p, gvk_err_t *err)
{
	if (!r->stream) return fidb_read_block(r, r->n, p, err);
	int rc = fid_prof_alloc(p, 0, r->n_snp, err);
	int64_t step = 1 << 16;
	while (rc == 0 && r->done < (int64_t)r->n) {
		fid_prof_t b;
		if ((rc = fidb_read_block(r, step, &b, err)) < 0) break;
		rc = prof_append(p, &b, err);
		fid_prof_free(&b);
		step = p->n > step ? p->n : step;
	}
	if (rc < 0) fid_prof_free(p);
	return rc;
}

int fidb_read_all(const char *path, fid_prof_t *p, fid_panel_t *panel, fid_ids_t *ids, gvk_err_t *err)
{
	fidb_reader_t r;
	fid_ids_t none;
	int64_t no_index = 0;
	memset(p, 0, sizeof *p);
	if (panel) memset(panel, 0, sizeof *panel);
	if (ids) memset(ids, 0, sizeof *ids);
	int rc = fidb_open(&r, path, err);
	if (rc == 0) rc = read_profiles(&r, p, err);
	/* Asking for no profile's ID (an empty list, not NULL) still checks every one. */
	if (rc == 0) rc = ids ? fidb_read_ids(&r, NULL, 0, ids, err) : fidb_read_ids(&r, &no_index, 0, &none, err);
	if (rc == 0 && !ids) fid_ids_free(&none);
	if (rc == 0 && panel) *panel = r.panel, memset(&r.panel, 0, sizeof r.panel);
	if (rc < 0) fid_prof_free(p);
	fidb_close(&r);
	return rc;
}

int fidb_read(const char *path, fid_prof_t *p, gvk_err_t *err)
{
	return fidb_read_all(path, p, NULL, NULL, err);
}

static int write_header(FILE *fp, const fid_prof_t *p, const fid_panel_t *panel, const fid_ids_t *ids)
{
	unsigned char h[FIDB_V2_HEADER];
	memcpy(h, "FID2", 4);
	wr32(h + 4, (uint32_t)p->n);
	wr32(h + 8, p->n_snp);
	wr32(h + 12, (uint32_t)p->nw);
	wr64(h + 16, panel->len);
	wr64(h + 24, fid_ids_len(ids));
	wr64(h + 32, panel->hash);
	return fwrite(h, 1, sizeof h, fp) == sizeof h ? 0 : GVK_ERR_IO;
}

static int write_profiles(FILE *fp, const fid_prof_t *p)
{
	unsigned char buf[8];
	for (int64_t i = 0; i < p->n; ++i)
		for (int k = 0; k < p->nw; ++k) {
			uint64_t x = p->w[(size_t)i * (size_t)p->stride + (size_t)k];
			wr64(buf, x);
			if (fwrite(buf, 1, 8, fp) != 8) return GVK_ERR_IO;
		}
	return 0;
}

static int write_ids(FILE *fp, const fid_ids_t *ids)
{
	for (size_t i = 0; i < ids->n; ++i)
		if (fputs(ids->id[i], fp) == EOF || fputc('\n', fp) == EOF) return GVK_ERR_IO;
	return 0;
}

int fidb_write(FILE *fp, const fid_prof_t *p, const fid_panel_t *panel, const fid_ids_t *ids, gvk_err_t *err)
{
	/* a version-1 file has no panel, and a version-2 file needs one */
	if (!panel->present)
		return gvk_err_set(err, GVK_ERR_ARG, ".fidb writer: these profiles have no SNP panel (a version-1 .fidb), "
		                   "which the written file needs");
	if (p->n > UINT32_MAX || p->n_snp == 0 || !panel->present || panel->n != p->n_snp || ids->idx ||
	    ids->n != (size_t)p->n)
		return gvk_err_set(err, GVK_ERR_ARG,
		                   ".fidb writer: %lld profiles of %u SNPs, a panel of %u SNPs and %zu IDs do not fit", (long long)p->n,
		                   p->n_snp, panel->n, ids->n);
	int rc = write_header(fp, p, panel, ids);
	if (rc == 0 && fwrite(panel->raw, 1, (size_t)panel->len, fp) != (size_t)panel->len) rc = GVK_ERR_IO;
	if (rc == 0) rc = write_profiles(fp, p);
	if (rc == 0) rc = write_ids(fp, ids);
	return rc < 0 ? gvk_err_set(err, rc, "write error") : 0;
}
