/* SPDX-License-Identifier: MIT */
/* gzip output compressed on several threads at once. The text is cut at every PIECE bytes of the
 * whole stream and the pieces of a batch are compressed in parallel, then written in order. The
 * cuts depend on the text alone, so the bytes are the same whatever the threads, stripes or MPI
 * ranks that made the text, and any gzip reader (gunzip, zcat, zlib, Python) reads the file.
 * - With libdeflate (found with htslib, its user): each piece is a gzip member of its own
 *   (concatenated members are one gzip file), at a low level: on these tables a file about 7%
 *   larger than zlib's default level gives, in about a fifth of its time, as the compression would
 *   otherwise be a large share of writing a gz table.
 * - With zlib alone: one member; each piece is a raw deflate stream primed with the 32 KB of text
 *   before it and ended with a sync flush (an empty stored block, so that the next piece starts
 *   on a byte boundary); an empty final block and the CRC-32 and length of the text close it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ld_gz.h"
#include "../common/err.h"
#include "../common/threads.h"

#if defined(GVK_HAVE_LIBDEFLATE) || defined(GVK_HAVE_ZLIB)
#ifdef GVK_HAVE_LIBDEFLATE
#include <libdeflate.h>
enum { DICT = 0, LEVEL = 2 };
#else
#include <zlib.h>
enum { DICT = 32768, LEVEL = 6 };
#endif
enum { PIECE = 1 << 18 };

/* One compressing thread's state and output. */
typedef struct {
#ifdef GVK_HAVE_LIBDEFLATE
	struct libdeflate_compressor *c;
#else
	z_stream z;
	int ready;
#endif
	int failed;
	unsigned char *out;
	size_t out_len, out_cap;
} slot_t;

struct ld_gz {
	int n;               /* threads */
	slot_t *slot;
	char *text;          /* text not compressed yet, after the DICT bytes before it */
	size_t dict_len, len, cap; /* text[0, dict_len): the dictionary; then len bytes */
	unsigned char **piece_out; /* per piece of a batch: its compressed bytes */
	size_t *piece_len;
	uint32_t *piece_crc;
	int max_pieces;
	uint32_t crc;        /* zlib: the CRC-32 of the text written */
	uint64_t size;       /* bytes of text written */
};

/* Room for need bytes of output in s. */
static int out_room(slot_t *s, size_t need)
{
	if (need <= s->out_cap) return 0;
	unsigned char *o = realloc(s->out, need);
	if (!o) return -1;
	s->out = o, s->out_cap = need;
	return 0;
}

#ifdef GVK_HAVE_LIBDEFLATE
static void slot_free(slot_t *s) { libdeflate_free_compressor(s->c); }

/* n bytes at p as a gzip member into the slot's output. */
static void compress_piece(slot_t *s, const unsigned char *p, size_t n, size_t dl)
{
	(void)dl;
	if (!s->c && !(s->c = libdeflate_alloc_compressor(LEVEL))) return (void)(s->failed = 1);
	if (out_room(s, libdeflate_gzip_compress_bound(s->c, n)) < 0) return (void)(s->failed = 1);
	if (!(s->out_len = libdeflate_gzip_compress(s->c, p, n, s->out, s->out_cap))) s->failed = 1;
}

static uint32_t piece_crc(const unsigned char *p, size_t n) { return (void)p, (void)n, 0; }
#else
static void slot_free(slot_t *s)
{
	if (s->ready) deflateEnd(&s->z);
}

/* n bytes at p, primed with the dl bytes before them, as raw deflate up to a sync flush into the
 * slot's output. */
static void compress_piece(slot_t *s, const unsigned char *p, size_t n, size_t dl)
{
	if (!s->ready) {
		if (deflateInit2(&s->z, LEVEL, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return (void)(s->failed = 1);
		s->ready = 1;
	} else if (deflateReset(&s->z) != Z_OK) {
		return (void)(s->failed = 1);
	}
	if (dl && deflateSetDictionary(&s->z, p - dl, (uInt)dl) != Z_OK) return (void)(s->failed = 1);
	s->z.next_in = (Bytef *)p, s->z.avail_in = (uInt)n;
	for (;;) {
		if (out_room(s, s->out_len + deflateBound(&s->z, (uLong)s->z.avail_in) + 64) < 0) return (void)(s->failed = 1);
		s->z.next_out = s->out + s->out_len, s->z.avail_out = (uInt)(s->out_cap - s->out_len);
		if (deflate(&s->z, Z_SYNC_FLUSH) != Z_OK) return (void)(s->failed = 1);
		s->out_len = s->out_cap - s->z.avail_out;
		if (!s->z.avail_in && s->z.avail_out) return;
	}
}

static uint32_t piece_crc(const unsigned char *p, size_t n) { return (uint32_t)crc32(0, p, (uInt)n); }
#endif

ld_gz_t *ld_gz_new(int threads)
{
	ld_gz_t *g = calloc(1, sizeof *g);
	if (!g) return NULL;
	g->n = threads > 0 ? threads : 1;
	g->cap = DICT + 2 * (size_t)g->n * PIECE;
	g->slot = calloc((size_t)g->n, sizeof *g->slot);
	g->text = malloc(g->cap);
	if (!g->slot || !g->text) return ld_gz_free(g), NULL;
	return g;
}

void ld_gz_free(ld_gz_t *g)
{
	if (!g) return;
	for (int k = 0; g->slot && k < g->n; ++k) {
		slot_free(&g->slot[k]);
		free(g->slot[k].out);
	}
	free(g->slot);
	free(g->text);
	free(g->piece_out);
	free(g->piece_len);
	free(g->piece_crc);
	free(g);
}

int ld_gz_start(ld_gz_t *g, FILE *fp, gvk_err_t *err)
{
	(void)g;
#ifdef GVK_HAVE_LIBDEFLATE
	(void)fp, (void)err; /* each piece carries its own header */
	return 0;
#else
	/* what zlib writes at level 6: no name, no time, OS Unix */
	static const unsigned char head[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
	return fwrite(head, 1, sizeof head, fp) == sizeof head ? 0 : gvk_err_set(err, GVK_ERR_IO, "write error");
#endif
}

typedef struct {
	ld_gz_t *g;
	int pieces;
	size_t last; /* length of the last piece */
} batch_t;

/* Thread tid compresses pieces tid, tid + n, ...; each piece's bytes are kept apart. */
static void batch_worker(void *arg, int tid)
{
	batch_t *b = arg;
	ld_gz_t *g = b->g;
	slot_t *s = &g->slot[tid];
	for (int k = tid; k < b->pieces; k += g->n) {
		const unsigned char *p = (const unsigned char *)g->text + g->dict_len + (size_t)k * PIECE;
		size_t n = k + 1 < b->pieces ? PIECE : b->last;
		size_t dl = k ? DICT : g->dict_len;
		s->out_len = 0;
		compress_piece(s, p, n, dl);
		g->piece_crc[k] = piece_crc(p, n);
		unsigned char *o = s->failed ? NULL : malloc(s->out_len + 1);
		if (!o) return (void)(s->failed = 1);
		memcpy(o, s->out, s->out_len);
		g->piece_out[k] = o, g->piece_len[k] = s->out_len;
	}
}

/* Compresses and writes the first `pieces` pieces of the pending text (the last one `last` bytes
 * long), then keeps the rest after its dictionary. */
static int flush_pieces(ld_gz_t *g, FILE *fp, int pieces, size_t last, void *pool, gvk_err_t *err)
{
	if (pieces > g->max_pieces) {
		unsigned char **po = realloc(g->piece_out, sizeof *po * (size_t)pieces);
		if (po) g->piece_out = po;
		size_t *pl = po ? realloc(g->piece_len, sizeof *pl * (size_t)pieces) : NULL;
		if (pl) g->piece_len = pl;
		uint32_t *pc = pl ? realloc(g->piece_crc, sizeof *pc * (size_t)pieces) : NULL;
		if (!pc) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		g->piece_crc = pc, g->max_pieces = pieces;
	}
	memset(g->piece_out, 0, sizeof *g->piece_out * (size_t)pieces);
	batch_t b = {g, pieces, last};
	int nt = pieces < g->n ? pieces : g->n, rc = 0;
	if (nt > 1) gvk_pool_run(pool, nt, batch_worker, &b);
	else batch_worker(&b, 0);
	for (int t = 0; t < nt; ++t)
		if (g->slot[t].failed) rc = gvk_err_set(err, GVK_ERR_NOMEM, "compression failed (out of memory?)");
	for (int k = 0; k < pieces; ++k) {
		size_t n = k + 1 < pieces ? PIECE : last;
		if (rc == 0 && fwrite(g->piece_out[k], 1, g->piece_len[k], fp) != g->piece_len[k])
			rc = gvk_err_set(err, GVK_ERR_IO, "write error");
#ifndef GVK_HAVE_LIBDEFLATE
		if (rc == 0) g->crc = (uint32_t)crc32_combine(g->crc, g->piece_crc[k], (z_off_t)n);
#endif
		if (rc == 0) g->size += n;
		free(g->piece_out[k]);
	}
	size_t done = (size_t)(pieces - 1) * PIECE + last, end = g->dict_len + done;
	size_t dict = DICT, keep = end < dict ? end : dict, rest = g->len - done;
	memmove(g->text, g->text + end - keep, keep + rest);
	g->dict_len = keep, g->len = rest;
	return rc;
}

int ld_gz_add(ld_gz_t *g, FILE *fp, const char *b, size_t n, void *pool, gvk_err_t *err)
{
	while (n) {
		size_t room = g->cap - g->dict_len - g->len, take = n < room ? n : room;
		memcpy(g->text + g->dict_len + g->len, b, take);
		g->len += take, b += take, n -= take;
		if (g->len < (size_t)g->n * PIECE && n == 0) break;
		int pieces = (int)(g->len / PIECE);
		if (pieces && flush_pieces(g, fp, pieces, PIECE, pool, err) < 0) return GVK_ERR_IO;
	}
	return 0;
}

int ld_gz_finish(ld_gz_t *g, FILE *fp, void *pool, gvk_err_t *err)
{
	int pieces = (int)((g->len + PIECE - 1) / PIECE);
#ifdef GVK_HAVE_LIBDEFLATE
	/* an empty text is still one (empty) member */
	if (!pieces && !g->size) pieces = 1;
#endif
	if (pieces && flush_pieces(g, fp, pieces, g->len - (size_t)(pieces - 1) * PIECE, pool, err) < 0) return GVK_ERR_IO;
#ifdef GVK_HAVE_LIBDEFLATE
	return 0;
#else
	/* a final empty block with fixed codes, then CRC-32 and length, little-endian */
	unsigned char end[10] = {3, 0};
	for (int k = 0; k < 4; ++k) {
		end[2 + k] = (unsigned char)(g->crc >> (8 * k));
		end[6 + k] = (unsigned char)(g->size >> (8 * k));
	}
	return fwrite(end, 1, sizeof end, fp) == sizeof end ? 0 : gvk_err_set(err, GVK_ERR_IO, "write error");
#endif
}

#else

ld_gz_t *ld_gz_new(int threads) { return (void)threads, NULL; }
void ld_gz_free(ld_gz_t *g) { (void)g; }
int ld_gz_start(ld_gz_t *g, FILE *fp, gvk_err_t *err)
{
	return (void)g, (void)fp, gvk_err_set(err, GVK_ERR_UNSUPPORTED, "built without zlib");
}
int ld_gz_add(ld_gz_t *g, FILE *fp, const char *b, size_t n, void *pool, gvk_err_t *err)
{
	(void)g, (void)fp, (void)b, (void)n, (void)pool;
	return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "built without zlib");
}
int ld_gz_finish(ld_gz_t *g, FILE *fp, void *pool, gvk_err_t *err)
{
	return (void)g, (void)fp, (void)pool, gvk_err_set(err, GVK_ERR_UNSUPPORTED, "built without zlib");
}

#endif
