/* SPDX-License-Identifier: MIT */
/* One gzip member written from pieces of text compressed on several threads at once: each piece
 * is a raw deflate stream primed with the 32 KB of text before it and ended with a sync flush (an
 * empty stored block, so that the next piece starts on a byte boundary); an empty final block and
 * the CRC-32 and length of the whole text close the member. Any gzip reader reads it as one
 * stream; the bytes differ from a single deflate stream's, the text does not. */
#include <stdlib.h>
#include <string.h>

#include "ld_gz.h"
#include "../common/err.h"
#include "../common/threads.h"

#ifdef GVK_HAVE_ZLIB
#include <zlib.h>

enum { DICT = 32768, LEVEL = 6 };

typedef struct {
	z_stream z;
	int ready;
	unsigned char dict[DICT];
	size_t dict_len;
	unsigned char *out;
	size_t out_len, out_cap;
	uLong crc;
	int failed;
} slot_t;

struct ld_gz {
	int n;
	slot_t *slot;
	unsigned char dict[DICT]; /* the last 32 KB of the text so far */
	size_t dict_len;
	uLong crc;
	uint64_t size;
};

ld_gz_t *ld_gz_new(int parts)
{
	ld_gz_t *g = calloc(1, sizeof *g);
	if (!g) return NULL;
	g->n = parts > 0 ? parts : 1;
	if (!(g->slot = calloc((size_t)g->n, sizeof *g->slot))) return free(g), NULL;
	g->crc = crc32(0, NULL, 0);
	return g;
}

void ld_gz_free(ld_gz_t *g)
{
	if (!g) return;
	for (int k = 0; k < g->n; ++k) {
		if (g->slot[k].ready) deflateEnd(&g->slot[k].z);
		free(g->slot[k].out);
	}
	free(g->slot);
	free(g);
}

int ld_gz_start(ld_gz_t *g, FILE *fp, gvk_err_t *err)
{
	(void)g;
	/* what zlib writes for level 6: no name, no time, OS Unix */
	static const unsigned char head[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
	return fwrite(head, 1, sizeof head, fp) == sizeof head ? 0 : gvk_err_set(err, GVK_ERR_IO, "write error");
}

/* The last DICT bytes of (d, texts 0 .. k - 1) into out. */
static size_t tail(const unsigned char *d, size_t dl, const char *const *b, const size_t *len, int k, unsigned char *out)
{
	size_t need = DICT, at = DICT;
	for (int q = k - 1; q >= -1 && need; --q) {
		const unsigned char *s = q >= 0 ? (const unsigned char *)b[q] : d;
		size_t l = q >= 0 ? len[q] : dl, take = l < need ? l : need;
		at -= take, need -= take;
		memcpy(out + at, s + l - take, take);
	}
	memmove(out, out + at, DICT - at);
	return DICT - at;
}

typedef struct {
	ld_gz_t *g;
	const char *const *b;
	const size_t *len;
} batch_t;

/* Piece tid: primed with its dictionary, compressed up to a sync flush. */
static void compress_piece(void *arg, int tid)
{
	batch_t *j = arg;
	slot_t *s = &j->g->slot[tid];
	size_t n = j->len[tid];
	s->out_len = 0, s->failed = 0;
	if (!n) return;
	s->crc = crc32(0, (const Bytef *)j->b[tid], (uInt)n);
	if (!s->ready) {
		if (deflateInit2(&s->z, LEVEL, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return (void)(s->failed = 1);
		s->ready = 1;
	} else if (deflateReset(&s->z) != Z_OK) {
		return (void)(s->failed = 1);
	}
	size_t need = deflateBound(&s->z, (uLong)n) + 16;
	if (need > s->out_cap) {
		unsigned char *o = realloc(s->out, need);
		if (!o) return (void)(s->failed = 1);
		s->out = o, s->out_cap = need;
	}
	if (s->dict_len && deflateSetDictionary(&s->z, s->dict, (uInt)s->dict_len) != Z_OK) return (void)(s->failed = 1);
	s->z.next_in = (Bytef *)j->b[tid], s->z.avail_in = (uInt)n;
	for (;;) {
		s->z.next_out = s->out + s->out_len, s->z.avail_out = (uInt)(s->out_cap - s->out_len);
		if (deflate(&s->z, Z_SYNC_FLUSH) != Z_OK) return (void)(s->failed = 1);
		s->out_len = s->out_cap - s->z.avail_out;
		if (!s->z.avail_in && s->z.avail_out) return;
		unsigned char *o = realloc(s->out, 2 * s->out_cap); /* past the bound: grow and go on */
		if (!o) return (void)(s->failed = 1);
		s->out = o, s->out_cap *= 2;
	}
}

int ld_gz_write(ld_gz_t *g, FILE *fp, int n, const char *const *b, const size_t *len, void *pool, gvk_err_t *err)
{
	if (n > g->n) return gvk_err_set(err, GVK_ERR_ARG, "too many pieces for the compressor");
	int busy = 0;
	for (int k = 0; k < n; ++k) {
		if (len[k] > (size_t)1 << 30) return gvk_err_set(err, GVK_ERR_ARG, "a piece of text too large to compress");
		g->slot[k].dict_len = tail(g->dict, g->dict_len, b, len, k, g->slot[k].dict);
		busy += len[k] > 0;
	}
	batch_t j = {g, b, len};
	if (busy > 1) gvk_pool_run(pool, n, compress_piece, &j);
	else
		for (int k = 0; k < n; ++k) compress_piece(&j, k);
	for (int k = 0; k < n; ++k) {
		slot_t *s = &g->slot[k];
		if (s->failed) return gvk_err_set(err, GVK_ERR_NOMEM, "compression failed (out of memory?)");
		if (s->out_len && fwrite(s->out, 1, s->out_len, fp) != s->out_len) return gvk_err_set(err, GVK_ERR_IO, "write error");
		if (len[k]) g->crc = crc32_combine(g->crc, s->crc, (z_off_t)len[k]), g->size += len[k];
	}
	unsigned char d[DICT];
	g->dict_len = tail(g->dict, g->dict_len, b, len, n, d);
	memcpy(g->dict, d, g->dict_len);
	return 0;
}

int ld_gz_finish(ld_gz_t *g, FILE *fp, gvk_err_t *err)
{
	/* a final empty block with fixed codes, then CRC-32 and length, little-endian */
	unsigned char end[10] = {3, 0};
	for (int k = 0; k < 4; ++k) {
		end[2 + k] = (unsigned char)(g->crc >> (8 * k));
		end[6 + k] = (unsigned char)(g->size >> (8 * k));
	}
	return fwrite(end, 1, sizeof end, fp) == sizeof end ? 0 : gvk_err_set(err, GVK_ERR_IO, "write error");
}

#else

ld_gz_t *ld_gz_new(int parts) { return (void)parts, NULL; }
void ld_gz_free(ld_gz_t *g) { (void)g; }
int ld_gz_start(ld_gz_t *g, FILE *fp, gvk_err_t *err) { return (void)g, (void)fp, gvk_err_set(err, GVK_ERR_UNSUPPORTED, "built without zlib"); }
int ld_gz_write(ld_gz_t *g, FILE *fp, int n, const char *const *b, const size_t *len, void *pool, gvk_err_t *err)
{
	(void)g, (void)fp, (void)n, (void)b, (void)len, (void)pool;
	return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "built without zlib");
}
int ld_gz_finish(ld_gz_t *g, FILE *fp, gvk_err_t *err) { return (void)g, (void)fp, gvk_err_set(err, GVK_ERR_UNSUPPORTED, "built without zlib"); }

#endif
