/* SPDX-License-Identifier: MIT */
/* The wire protocol of gvk serve (docs/gatk.md, "One GPU, many HaplotypeCallers").
 *
 * Control goes over a Unix SOCK_SEQPACKET socket, one message per request and one per reply, so
 * that a message arrives whole or not at all. Batches and results go through a shared-memory
 * segment (a memfd) that the client passes once with SCM_RIGHTS and reuses until it needs a larger
 * one. The server never maps a client's segment: it preads the request's input area into memory
 * of its own, checks every count, offset and length there, computes, and pwrites the results
 * after the input area. A segment that is shrunk, sealed or replaced while the server works can
 * therefore only make that client's own call fail.
 *
 * Every message starts with a 16-byte header (native byte order: the peers share a host):
 *   u32 magic, u16 version, u16 op, u32 body_len, u32 flags (requests: SRV_F_SEGMENT, an fd is
 *   attached; replies: SRV_F_POLL, poll for the next reply)
 *
 * SRV_OP_HELLO (empty body) -> reply with the server's device name as message. A client sends it
 *   right after connecting and reads the reply with its first call's (the server answers messages
 *   in order), so that starting a client never waits for the server to be scheduled; it takes the
 *   device name from the file srv_device_file names, which the server writes beside the socket.
 * SRV_OP_PAIRHMM body (48 bytes): u32 flavour, u32 force_double, u32 want_used, u32 0,
 *   u64 n_reads, u64 n_haps, u64 n_pairs, u64 in_size.
 *   Input area [0, in_size): n_reads read descriptors {u64 off, u32 len, u32 0} (five arrays of len
 *   bytes at off: bases, qual, ins, del, gcp), n_haps haplotype descriptors {u64 off, u32 len,
 *   u32 0} (len bases at off), n_pairs pairs {i32 read, i32 hap}, then the bytes.
 *   Output at srv_out_off(in_size): n_pairs doubles (log10), then n_pairs bytes (used_double).
 * SRV_OP_ALIGN body (40 bytes): u32 flavour, u32 raw, u64 n_pairs, u64 in_size, u64 text_cap, u64 0.
 *   Input area: n_pairs pair descriptors {u64 ref_off, u64 alt_off, i32 ref_len, i32 alt_len,
 *   i32 match, mismatch, gap_open, gap_extend, overhang, i32 0} (48 bytes), then the bytes.
 *   Output at srv_out_off(in_size): n_pairs results {i32 offset, i32 score, i32 cigar_len,
 *   u32 text_off}, then text_cap bytes of CIGAR text (each NUL-terminated, at text_off).
 * SRV_OP_REPLY body: i32 rc, u32 msg_len, then msg_len bytes of message (rc < 0: the error). */
#ifndef GVK_SERVE_PROTO_H
#define GVK_SERVE_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "gvk.h"
#include "../common/buf.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SRV_MAGIC 0x534b5647u /* "GVKS" */
#define SRV_VERSION 2

enum { SRV_OP_HELLO = 1, SRV_OP_PAIRHMM = 2, SRV_OP_ALIGN = 3, SRV_OP_REPLY = 0x80 };
/* SRV_F_SEGMENT: a request carries the segment's fd. SRV_F_POLL: a reply says the server has few
 * clients, so the client may poll briefly for the next reply instead of sleeping. */
enum { SRV_F_SEGMENT = 1, SRV_F_POLL = 2 };

enum {
	SRV_HDR_LEN = 16,
	SRV_PHMM_BODY = 48,
	SRV_ALIGN_BODY = 40,
	SRV_REPLY_MSG_MAX = 511,
	SRV_MSG_MAX = SRV_HDR_LEN + 8 + SRV_REPLY_MSG_MAX + 1, /* the longest message either side sends */
	SRV_PHMM_DESC = 16, /* a read or haplotype descriptor */
	SRV_PAIR_DESC = 8,
	SRV_ALIGN_DESC = 48,
	SRV_ALIGN_RES = 16
};

/* Largest input area, and largest output area, of one call: 4 GiB each. */
#define SRV_MAX_AREA ((uint64_t)1 << 32)

typedef struct {
	uint32_t magic;
	uint16_t version, op;
	uint32_t body_len, flags;
} srv_hdr_t;

typedef struct {
	uint32_t flavour, force_double, want_used;
	uint64_t n_reads, n_haps, n_pairs, in_size;
} srv_phmm_req_t;

typedef struct {
	uint32_t flavour, raw;
	uint64_t n_pairs, in_size, text_cap;
} srv_align_req_t;

/* Where the output area of a call starts in its segment: after the input area, 8-byte aligned. */
static inline uint64_t srv_out_off(uint64_t in_size) { return (in_size + 7) & ~(uint64_t)7; }

/* Messages: encode into buf (at least SRV_MSG_MAX bytes), returning the length. */
size_t srv_put_hdr(uint8_t *buf, int op, uint32_t body_len, uint32_t flags);
size_t srv_put_phmm(uint8_t *buf, const srv_phmm_req_t *r, uint32_t flags);
size_t srv_put_align(uint8_t *buf, const srv_align_req_t *r, uint32_t flags);
size_t srv_put_reply(uint8_t *buf, int rc, const char *msg, uint32_t flags);

/* Decoding, strict: magic, version, a known op and a body of exactly its length (the message's
 * whole length n), reserved fields zero, counts and sizes within SRV_MAX_AREA. 0 or GVK_ERR_FORMAT
 * with a message. */
int srv_get_hdr(const uint8_t *msg, size_t n, srv_hdr_t *h, gvk_err_t *err);
int srv_get_phmm(const uint8_t *msg, size_t n, srv_phmm_req_t *r, gvk_err_t *err);
int srv_get_align(const uint8_t *msg, size_t n, srv_align_req_t *r, gvk_err_t *err);
/* A reply: its rc, and its message into err when rc < 0 (or into text, size bytes, when given). */
int srv_get_reply(const uint8_t *msg, size_t n, int *rc, uint32_t *flags, char *text, size_t size, gvk_err_t *err);

/* A Pair-HMM call's input area (in, in_size bytes of private memory) as engine arrays that point
 * into it: every descriptor checked (lengths >= 1, arrays inside the area, pair indices in range).
 * The arrays live in the scratch buffers. 0 or GVK_ERR_FORMAT naming the bad entry. */
typedef struct {
	gvk_buf_t reads, haps, pairs;
} srv_scratch_t;

int srv_parse_phmm(const srv_phmm_req_t *r, const uint8_t *in, srv_scratch_t *s, gvk_read_t **reads,
                   gvk_hap_t **haps, gvk_pair_t **pairs, gvk_err_t *err);
/* An align call's input area as pairs, every one inside the area; their scores and lengths are the
 * engine's to check (gvk_align_check_pair), as the server does before it aligns them. */
int srv_parse_align(const srv_align_req_t *r, const uint8_t *in, srv_scratch_t *s, gvk_align_pair_t **pairs,
                    gvk_err_t *err);
void srv_scratch_free(srv_scratch_t *s);

/* Input area sizes a client lays out (srv_layout_*), and the layout itself. */
uint64_t srv_phmm_in_size(const gvk_read_t *reads, size_t n_reads, const gvk_hap_t *haps, size_t n_haps, size_t n_pairs);
void srv_phmm_layout(uint8_t *seg, const gvk_read_t *reads, size_t n_reads, const gvk_hap_t *haps, size_t n_haps,
                     const gvk_pair_t *pairs, size_t n_pairs);
uint64_t srv_align_in_size(const gvk_align_pair_t *pairs, size_t n);
/* The CIGAR text an align call may need: at most 2 (ref_len + alt_len) + 1 bytes a pair (each
 * element's count has no more digits than the bases it covers, plus its letter). */
uint64_t srv_align_text_cap(const gvk_align_pair_t *pairs, size_t n);
void srv_align_layout(uint8_t *seg, const gvk_align_pair_t *pairs, size_t n);

/* The file beside socket that holds the server's device name: 0, or -1 when it does not fit. */
int srv_device_file(const char *socket, char *buf, size_t size);

/* The per-user directory of the default socket and GPU lock: XDG_RUNTIME_DIR/gvk when xdg (the
 * caller's getenv("XDG_RUNTIME_DIR")) is set and not empty, else /tmp/gvk-UID. The library reads
 * no environment: the CLI and the JNI libraries pass it. 0, or GVK_ERR_ARG when it does not fit. */
int srv_default_dir(const char *xdg, unsigned uid, char *buf, size_t size);
/* The same directory, made (mode 0700) when missing; refused (GVK_ERR_IO) when it is not a
 * directory of user uid, which another user could have made first under /tmp. */
int srv_user_dir(const char *xdg, unsigned uid, char *buf, size_t size, gvk_err_t *err);

#ifdef __cplusplus
}
#endif

#endif
