/* SPDX-License-Identifier: MIT */
/* gvk serve's request parser (src/serve/serve_proto.c), as the server runs it on a message and the
 * input area it preads from the client's segment. The input: two bytes giving the message's length
 * (at most SRV_MSG_MAX + 16, so that over-long messages are tried too), the message, then the
 * segment. Every request accepted must describe arrays inside its input area (read here, byte by
 * byte, from a copy of exactly in_size bytes) and pairs whose indices are in range; every refusal
 * must carry a message. */
#include <stdlib.h>
#include <string.h>

#include "serve/serve_proto.h"

static volatile unsigned sink;

static void refused(int rc, const gvk_err_t *err)
{
	if (rc < 0 && !err->msg[0]) abort();
}

static void check_phmm(const uint8_t *msg, size_t n, const uint8_t *seg, size_t seg_n)
{
	srv_phmm_req_t q;
	gvk_err_t err = {0, ""};
	int rc = srv_get_phmm(msg, n, &q, &err);
	refused(rc, &err);
	if (rc < 0 || q.in_size > seg_n) return; /* the server's pread would come up short */
	uint8_t *in = malloc(q.in_size ? (size_t)q.in_size : 1);
	if (q.in_size) memcpy(in, seg, (size_t)q.in_size);
	srv_scratch_t sc;
	memset(&sc, 0, sizeof sc);
	gvk_read_t *reads;
	gvk_hap_t *haps;
	gvk_pair_t *pairs;
	rc = srv_parse_phmm(&q, in, &sc, &reads, &haps, &pairs, &err);
	refused(rc, &err);
	unsigned s = 0;
	for (uint64_t k = 0; rc == 0 && k < q.n_reads; ++k) {
		const gvk_read_t *r = &reads[k];
		if (r->len < 1) abort();
		for (int i = 0; i < r->len; ++i) s += (unsigned)r->bases[i] + r->qual[i] + r->ins[i] + r->del[i] + r->gcp[i];
	}
	for (uint64_t k = 0; rc == 0 && k < q.n_haps; ++k)
		for (int i = 0; i < haps[k].len; ++i) s += (unsigned)haps[k].bases[i];
	for (uint64_t k = 0; rc == 0 && k < q.n_pairs; ++k) s += (unsigned)reads[pairs[k].read].len + (unsigned)haps[pairs[k].hap].len;
	sink = s;
	srv_scratch_free(&sc);
	free(in);
}

static void check_align(const uint8_t *msg, size_t n, const uint8_t *seg, size_t seg_n)
{
	srv_align_req_t q;
	gvk_err_t err = {0, ""};
	int rc = srv_get_align(msg, n, &q, &err);
	refused(rc, &err);
	if (rc < 0 || q.in_size > seg_n) return;
	uint8_t *in = malloc(q.in_size ? (size_t)q.in_size : 1);
	if (q.in_size) memcpy(in, seg, (size_t)q.in_size);
	srv_scratch_t sc;
	memset(&sc, 0, sizeof sc);
	gvk_align_pair_t *pairs;
	rc = srv_parse_align(&q, in, &sc, &pairs, &err);
	refused(rc, &err);
	unsigned s = 0;
	for (uint64_t k = 0; rc == 0 && k < q.n_pairs; ++k) {
		if (gvk_align_check_pair(&pairs[k], NULL) < 0) break; /* the server refuses the call here */
		for (int i = 0; i < pairs[k].ref_len; ++i) s += (unsigned)pairs[k].ref[i];
		for (int i = 0; i < pairs[k].alt_len; ++i) s += (unsigned)pairs[k].alt[i];
	}
	sink = s;
	srv_scratch_free(&sc);
	free(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2) return 0;
	size_t n = ((size_t)data[0] | (size_t)data[1] << 8) % (SRV_MSG_MAX + 17);
	data += 2, size -= 2;
	if (n > size) n = size;
	/* The message in a buffer of its own size, as the server's recvmsg hands it over. */
	uint8_t *msg = malloc(n ? n : 1);
	if (n) memcpy(msg, data, n);
	srv_hdr_t h;
	gvk_err_t err = {0, ""};
	int rc = n > SRV_MSG_MAX ? -1 : srv_get_hdr(msg, n, &h, &err);
	if (n <= SRV_MSG_MAX) refused(rc, &err);
	if (rc == 0 && h.op == SRV_OP_PAIRHMM) check_phmm(msg, n, data + n, size - n);
	if (rc == 0 && h.op == SRV_OP_ALIGN) check_align(msg, n, data + n, size - n);
	if (rc == 0 && h.op == SRV_OP_REPLY) {
		int r;
		char text[64];
		srv_get_reply(msg, n, &r, NULL, text, sizeof text, &err);
	}
	free(msg);
	return 0;
}
