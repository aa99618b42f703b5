/* SPDX-License-Identifier: MIT */
/* gvk serve's messages and segment layouts (serve_proto.h): encoding for both sides, and the
 * server's strict decoding, which trusts nothing a client sends. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/err.h"
#include "serve_proto.h"

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static uint32_t get32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}
static uint64_t get64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

size_t srv_put_hdr(uint8_t *buf, int op, uint32_t body_len, uint32_t flags)
{
	uint16_t ver = SRV_VERSION, o = (uint16_t)op;
	put32(buf, SRV_MAGIC);
	memcpy(buf + 4, &ver, 2);
	memcpy(buf + 6, &o, 2);
	put32(buf + 8, body_len);
	put32(buf + 12, flags);
	return SRV_HDR_LEN;
}

size_t srv_put_phmm(uint8_t *buf, const srv_phmm_req_t *r, uint32_t flags)
{
	uint8_t *b = buf + srv_put_hdr(buf, SRV_OP_PAIRHMM, SRV_PHMM_BODY, flags);
	put32(b, r->flavour), put32(b + 4, r->force_double), put32(b + 8, r->want_used), put32(b + 12, 0);
	put64(b + 16, r->n_reads), put64(b + 24, r->n_haps), put64(b + 32, r->n_pairs), put64(b + 40, r->in_size);
	return SRV_HDR_LEN + SRV_PHMM_BODY;
}

size_t srv_put_align(uint8_t *buf, const srv_align_req_t *r, uint32_t flags)
{
	uint8_t *b = buf + srv_put_hdr(buf, SRV_OP_ALIGN, SRV_ALIGN_BODY, flags);
	put32(b, r->flavour), put32(b + 4, r->raw);
	put64(b + 8, r->n_pairs), put64(b + 16, r->in_size), put64(b + 24, r->text_cap), put64(b + 32, 0);
	return SRV_HDR_LEN + SRV_ALIGN_BODY;
}

size_t srv_put_reply(uint8_t *buf, int rc, const char *msg, uint32_t flags)
{
	size_t len = msg ? strnlen(msg, SRV_REPLY_MSG_MAX) : 0;
	uint8_t *b = buf + srv_put_hdr(buf, SRV_OP_REPLY, (uint32_t)(8 + len), flags);
	put32(b, (uint32_t)rc), put32(b + 4, (uint32_t)len);
	if (len) memcpy(b + 8, msg, len);
	return SRV_HDR_LEN + 8 + len;
}

int srv_get_hdr(const uint8_t *msg, size_t n, srv_hdr_t *h, gvk_err_t *err)
{
	if (n < SRV_HDR_LEN) return gvk_err_set(err, GVK_ERR_FORMAT, "message of %zu bytes, shorter than a header", n);
	h->magic = get32(msg);
	memcpy(&h->version, msg + 4, 2);
	memcpy(&h->op, msg + 6, 2);
	h->body_len = get32(msg + 8), h->flags = get32(msg + 12);
	if (h->magic != SRV_MAGIC) return gvk_err_set(err, GVK_ERR_FORMAT, "not a gvk serve message (magic %08x)", h->magic);
	if (h->version != SRV_VERSION)
		return gvk_err_set(err, GVK_ERR_FORMAT, "protocol version %u, this side speaks %d", h->version, SRV_VERSION);
	if (h->op != SRV_OP_HELLO && h->op != SRV_OP_PAIRHMM && h->op != SRV_OP_ALIGN && h->op != SRV_OP_REPLY)
		return gvk_err_set(err, GVK_ERR_FORMAT, "unknown operation %u", h->op);
	if ((uint64_t)h->body_len != n - SRV_HDR_LEN)
		return gvk_err_set(err, GVK_ERR_FORMAT, "header says %u body bytes, the message has %zu", h->body_len, n - SRV_HDR_LEN);
	const uint32_t known = h->op == SRV_OP_REPLY ? SRV_F_POLL : SRV_F_SEGMENT;
	if (h->flags & ~known) return gvk_err_set(err, GVK_ERR_FORMAT, "unknown flags %08x", h->flags);
	return 0;
}

static int want_body(const srv_hdr_t *h, int op, uint32_t len, gvk_err_t *err)
{
	if (h->op != op) return gvk_err_set(err, GVK_ERR_FORMAT, "operation %u where %d was expected", h->op, op);
	if (h->body_len != len) return gvk_err_set(err, GVK_ERR_FORMAT, "operation %d with a body of %u bytes, not %u", op, h->body_len, len);
	return 0;
}

int srv_get_phmm(const uint8_t *msg, size_t n, srv_phmm_req_t *r, gvk_err_t *err)
{
	srv_hdr_t h = {0, 0, 0, 0, 0};
	int rc = srv_get_hdr(msg, n, &h, err);
	if (rc < 0 || (rc = want_body(&h, SRV_OP_PAIRHMM, SRV_PHMM_BODY, err)) < 0) return rc;
	const uint8_t *b = msg + SRV_HDR_LEN;
	r->flavour = get32(b), r->force_double = get32(b + 4), r->want_used = get32(b + 8);
	r->n_reads = get64(b + 16), r->n_haps = get64(b + 24), r->n_pairs = get64(b + 32), r->in_size = get64(b + 40);
	if (r->flavour > 1 || r->force_double > 1 || r->want_used > 1 || get32(b + 12) != 0)
		return gvk_err_set(err, GVK_ERR_FORMAT, "Pair-HMM request: flags out of range");
	if (r->n_reads > INT32_MAX || r->n_haps > INT32_MAX || r->in_size > SRV_MAX_AREA || r->n_pairs > SRV_MAX_AREA / 9)
		return gvk_err_set(err, GVK_ERR_FORMAT, "Pair-HMM request: counts out of range (%llu reads, %llu haplotypes, %llu pairs, %llu bytes)",
		                   (unsigned long long)r->n_reads, (unsigned long long)r->n_haps,
		                   (unsigned long long)r->n_pairs, (unsigned long long)r->in_size);
	uint64_t tables = SRV_PHMM_DESC * (r->n_reads + r->n_haps) + SRV_PAIR_DESC * r->n_pairs;
	if (tables > r->in_size)
		return gvk_err_set(err, GVK_ERR_FORMAT, "Pair-HMM request: tables of %llu bytes in an input area of %llu",
		                   (unsigned long long)tables, (unsigned long long)r->in_size);
	return 0;
}

int srv_get_align(const uint8_t *msg, size_t n, srv_align_req_t *r, gvk_err_t *err)
{
	srv_hdr_t h = {0, 0, 0, 0, 0};
	int rc = srv_get_hdr(msg, n, &h, err);
	if (rc < 0 || (rc = want_body(&h, SRV_OP_ALIGN, SRV_ALIGN_BODY, err)) < 0) return rc;
	const uint8_t *b = msg + SRV_HDR_LEN;
	r->flavour = get32(b), r->raw = get32(b + 4);
	r->n_pairs = get64(b + 8), r->in_size = get64(b + 16), r->text_cap = get64(b + 24);
	if (r->flavour > 1 || r->raw > 1 || get64(b + 32) != 0) return gvk_err_set(err, GVK_ERR_FORMAT, "align request: flags out of range");
	if (r->in_size > SRV_MAX_AREA || r->text_cap > SRV_MAX_AREA || r->n_pairs > SRV_MAX_AREA / SRV_ALIGN_DESC)
		return gvk_err_set(err, GVK_ERR_FORMAT, "align request: counts out of range (%llu pairs, %llu bytes, %llu bytes of text)",
		                   (unsigned long long)r->n_pairs, (unsigned long long)r->in_size, (unsigned long long)r->text_cap);
	if (SRV_ALIGN_DESC * r->n_pairs > r->in_size)
		return gvk_err_set(err, GVK_ERR_FORMAT, "align request: %llu pairs in an input area of %llu bytes",
		                   (unsigned long long)r->n_pairs, (unsigned long long)r->in_size);
	return 0;
}

int srv_get_reply(const uint8_t *msg, size_t n, int *rc, uint32_t *flags, char *text, size_t size, gvk_err_t *err)
{
	srv_hdr_t h = {0, 0, 0, 0, 0};
	int r = srv_get_hdr(msg, n, &h, err);
	if (r < 0) return r;
	if (h.op != SRV_OP_REPLY || h.body_len < 8) return gvk_err_set(err, GVK_ERR_FORMAT, "not a reply (operation %u)", h.op);
	const uint8_t *b = msg + SRV_HDR_LEN;
	uint32_t len = get32(b + 4);
	*rc = (int32_t)get32(b);
	if (flags) *flags = h.flags;
	if (len != h.body_len - 8 || len > SRV_REPLY_MSG_MAX || *rc > 0 || *rc < GVK_ERR_UNSUPPORTED)
		return gvk_err_set(err, GVK_ERR_FORMAT, "malformed reply");
	if (text && size) {
		size_t k = len < size - 1 ? len : size - 1;
		memcpy(text, b + 8, k);
		text[k] = 0;
	}
	if (*rc < 0) gvk_err_set(err, *rc, "%.*s", (int)len, (const char *)(b + 8));
	return 0;
}

int srv_parse_phmm(const srv_phmm_req_t *r, const uint8_t *in, srv_scratch_t *s, gvk_read_t **reads,
                   gvk_hap_t **haps, gvk_pair_t **pairs, gvk_err_t *err)
{
	const size_t nr = (size_t)r->n_reads, nh = (size_t)r->n_haps, np = (size_t)r->n_pairs;
	const uint64_t in_size = r->in_size;
	gvk_read_t *rd = gvk_buf_reserve(&s->reads, (nr ? nr : 1) * sizeof *rd);
	gvk_hap_t *hp = gvk_buf_reserve(&s->haps, (nh ? nh : 1) * sizeof *hp);
	gvk_pair_t *pp = gvk_buf_reserve(&s->pairs, (np ? np : 1) * sizeof *pp);
	if (!rd || !hp || !pp) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for a request of %zu pairs", np);
	const uint8_t *d = in;
	for (size_t k = 0; k < nr; ++k, d += SRV_PHMM_DESC) {
		uint64_t off = get64(d), len = get32(d + 8);
		if (len < 1 || len > INT_MAX || get32(d + 12) != 0 || off > in_size || 5 * len > in_size - off)
			return gvk_err_set(err, GVK_ERR_FORMAT, "read %zu: length %llu at offset %llu is not inside the input area of %llu bytes",
			                   k, (unsigned long long)len, (unsigned long long)off, (unsigned long long)in_size);
		const uint8_t *p = in + off;
		rd[k] = (gvk_read_t){(int)len, (const char *)p, p + len, p + 2 * len, p + 3 * len, p + 4 * len};
	}
	for (size_t k = 0; k < nh; ++k, d += SRV_PHMM_DESC) {
		uint64_t off = get64(d), len = get32(d + 8);
		if (len < 1 || len > INT_MAX || get32(d + 12) != 0 || off > in_size || len > in_size - off)
			return gvk_err_set(err, GVK_ERR_FORMAT, "haplotype %zu: length %llu at offset %llu is not inside the input area of %llu bytes",
			                   k, (unsigned long long)len, (unsigned long long)off, (unsigned long long)in_size);
		hp[k] = (gvk_hap_t){(int)len, (const char *)(in + off)};
	}
	for (size_t k = 0; k < np; ++k, d += SRV_PAIR_DESC) {
		int32_t a = (int32_t)get32(d), b = (int32_t)get32(d + 4);
		if (a < 0 || (size_t)a >= nr || b < 0 || (size_t)b >= nh)
			return gvk_err_set(err, GVK_ERR_FORMAT, "pair %zu: read %d, haplotype %d out of range (%zu reads, %zu haplotypes)",
			                   k, a, b, nr, nh);
		pp[k] = (gvk_pair_t){a, b};
	}
	*reads = rd, *haps = hp, *pairs = pp;
	return 0;
}

int srv_parse_align(const srv_align_req_t *r, const uint8_t *in, srv_scratch_t *s, gvk_align_pair_t **pairs,
                    gvk_err_t *err)
{
	const size_t n = (size_t)r->n_pairs;
	const uint64_t in_size = r->in_size;
	gvk_align_pair_t *pp = gvk_buf_reserve(&s->pairs, (n ? n : 1) * sizeof *pp);
	if (!pp) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for a request of %zu pairs", n);
	const uint8_t *d = in;
	for (size_t k = 0; k < n; ++k, d += SRV_ALIGN_DESC) {
		uint64_t ro = get64(d), ao = get64(d + 8);
		int32_t v[8];
		for (int i = 0; i < 8; ++i) v[i] = (int32_t)get32(d + 16 + 4 * i);
		if (v[0] < 1 || v[1] < 1 || v[7] != 0 || ro > in_size || (uint64_t)v[0] > in_size - ro || ao > in_size ||
		    (uint64_t)v[1] > in_size - ao)
			return gvk_err_set(err, GVK_ERR_FORMAT, "pair %zu: sequences of %d and %d bytes at offsets %llu and %llu are not inside the input area of %llu bytes",
			                   k, v[0], v[1], (unsigned long long)ro, (unsigned long long)ao, (unsigned long long)in_size);
		pp[k] = (gvk_align_pair_t){(const char *)(in + ro), (const char *)(in + ao), v[0], v[1], {v[2], v[3], v[4], v[5]}, v[6]};
	}
	*pairs = pp;
	return 0;
}

void srv_scratch_free(srv_scratch_t *s)
{
	gvk_buf_free(&s->reads), gvk_buf_free(&s->haps), gvk_buf_free(&s->pairs);
}

uint64_t srv_phmm_in_size(const gvk_read_t *reads, size_t n_reads, const gvk_hap_t *haps, size_t n_haps, size_t n_pairs)
{
	uint64_t sz = SRV_PHMM_DESC * (uint64_t)(n_reads + n_haps) + SRV_PAIR_DESC * (uint64_t)n_pairs;
	for (size_t k = 0; k < n_reads; ++k) sz += 5 * (uint64_t)reads[k].len;
	for (size_t k = 0; k < n_haps; ++k) sz += (uint64_t)haps[k].len;
	return sz;
}

void srv_phmm_layout(uint8_t *seg, const gvk_read_t *reads, size_t n_reads, const gvk_hap_t *haps, size_t n_haps,
                     const gvk_pair_t *pairs, size_t n_pairs)
{
	uint8_t *d = seg;
	uint64_t at = SRV_PHMM_DESC * (uint64_t)(n_reads + n_haps) + SRV_PAIR_DESC * (uint64_t)n_pairs;
	for (size_t k = 0; k < n_reads; ++k, d += SRV_PHMM_DESC) {
		const gvk_read_t *r = &reads[k];
		const size_t L = (size_t)r->len;
		put64(d, at), put32(d + 8, (uint32_t)L), put32(d + 12, 0);
		memcpy(seg + at, r->bases, L), memcpy(seg + at + L, r->qual, L), memcpy(seg + at + 2 * L, r->ins, L);
		memcpy(seg + at + 3 * L, r->del, L), memcpy(seg + at + 4 * L, r->gcp, L);
		at += 5 * L;
	}
	for (size_t k = 0; k < n_haps; ++k, d += SRV_PHMM_DESC) {
		put64(d, at), put32(d + 8, (uint32_t)haps[k].len), put32(d + 12, 0);
		memcpy(seg + at, haps[k].bases, (size_t)haps[k].len);
		at += (uint64_t)haps[k].len;
	}
	for (size_t k = 0; k < n_pairs; ++k, d += SRV_PAIR_DESC) put32(d, (uint32_t)pairs[k].read), put32(d + 4, (uint32_t)pairs[k].hap);
}

uint64_t srv_align_in_size(const gvk_align_pair_t *pairs, size_t n)
{
	uint64_t sz = SRV_ALIGN_DESC * (uint64_t)n;
	for (size_t k = 0; k < n; ++k) sz += (uint64_t)pairs[k].ref_len + (uint64_t)pairs[k].alt_len;
	return sz;
}

uint64_t srv_align_text_cap(const gvk_align_pair_t *pairs, size_t n)
{
	uint64_t sz = 0;
	for (size_t k = 0; k < n; ++k) sz += 2 * ((uint64_t)pairs[k].ref_len + (uint64_t)pairs[k].alt_len) + 1;
	return sz;
}

void srv_align_layout(uint8_t *seg, const gvk_align_pair_t *pairs, size_t n)
{
	uint8_t *d = seg;
	uint64_t at = SRV_ALIGN_DESC * (uint64_t)n;
	for (size_t k = 0; k < n; ++k, d += SRV_ALIGN_DESC) {
		const gvk_align_pair_t *p = &pairs[k];
		const int32_t v[8] = {p->ref_len, p->alt_len, p->par.match, p->par.mismatch, p->par.gap_open, p->par.gap_extend, p->overhang, 0};
		put64(d, at), put64(d + 8, at + (uint64_t)p->ref_len);
		for (int i = 0; i < 8; ++i) put32(d + 16 + 4 * i, (uint32_t)v[i]);
		memcpy(seg + at, p->ref, (size_t)p->ref_len), memcpy(seg + at + p->ref_len, p->alt, (size_t)p->alt_len);
		at += (uint64_t)p->ref_len + (uint64_t)p->alt_len;
	}
}

int srv_device_file(const char *socket, char *buf, size_t size)
{
	const int n = snprintf(buf, size, "%s.device", socket);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

int srv_default_dir(const char *xdg, unsigned uid, char *buf, size_t size)
{
	int n = xdg && *xdg ? snprintf(buf, size, "%s/gvk", xdg) : snprintf(buf, size, "/tmp/gvk-%u", uid);
	return n < 0 || (size_t)n >= size ? gvk_err_set(NULL, GVK_ERR_ARG, "path too long") : 0;
}

int srv_user_dir(const char *xdg, unsigned uid, char *buf, size_t size, gvk_err_t *err)
{
	struct stat st;
	if (srv_default_dir(xdg, uid, buf, size) < 0) return gvk_err_set(err, GVK_ERR_ARG, "the per-user directory's path is too long");
	if (mkdir(buf, 0700) < 0 && errno != EEXIST) return gvk_err_set(err, GVK_ERR_IO, "%s: %s", buf, strerror(errno));
	if (lstat(buf, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != uid)
		return gvk_err_set(err, GVK_ERR_IO, "%s is not a directory of this user", buf);
	return 0;
}
