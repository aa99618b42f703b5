/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "../common/err.h"
#include "serve_client.h"
#include "serve_proto.h"
#include "serve_shm.h"

/* How long a client polls for a reply when the server says it has few clients: about the time a
 * small call takes there; a longer call then sleeps as usual. */
#define CLIENT_POLL_US 300

struct srv_client_s {
	int sock, poll;
	srv_seg_t seg;
	int hello; /* the hello sent, its reply not read yet */
	char device[128];
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

static int greeted(srv_client_t *c, gvk_err_t *err);

/* Sends msg, with the segment when the server does not have it yet. */
static int send_msg(srv_client_t *c, const uint8_t *msg, size_t n, gvk_err_t *err)
{
	if (srv_send(c->sock, msg, n, c->seg.sent ? -1 : c->seg.fd) < 0) {
		const int e = errno;
		/* a server that closed the connection before greeting this client did not accept it */
		if (greeted(c, err) < 0) return SRV_REFUSED;
		return gvk_err_set(err, SRV_GONE, "server %s: %s", c->path, strerror(e));
	}
	c->seg.sent = c->seg.fd >= 0;
	return 0;
}

/* Waits for the reply to the message sent last; text (when not NULL) takes its text. */
static int recv_reply(srv_client_t *c, char *text, size_t size, gvk_err_t *err)
{
	uint8_t buf[SRV_MSG_MAX];
	int fd = -1, trunc = 0, rc = 0;
	ssize_t r = srv_recv_poll(c->sock, buf, sizeof buf, &fd, &trunc, c->poll ? CLIENT_POLL_US : 0);
	if (fd >= 0) close(fd);
	if (r <= 0) return gvk_err_set(err, SRV_GONE, "server %s: %s", c->path, r == 0 ? "connection closed" : strerror(errno));
	gvk_err_t perr = {0, ""};
	uint32_t flags = 0;
	if (trunc || srv_get_reply(buf, (size_t)r, &rc, &flags, text, size, &perr) < 0)
		return gvk_err_set(err, SRV_GONE, "server %s: %s", c->path, trunc ? "reply too long" : perr.msg);
	c->poll = (flags & SRV_F_POLL) != 0;
	if (rc < 0) return gvk_err_set(err, rc, "%s", perr.msg);
	return 0;
}

/* Reads the hello's reply when it is still due: a server that did not accept this client (another
 * user, another version, too many clients) says so here. */
static int greeted(srv_client_t *c, gvk_err_t *err)
{
	if (!c->hello) return 0;
	c->hello = 0;
	gvk_err_t e = {0, ""};
	char device[sizeof c->device];
	if (recv_reply(c, device, sizeof device, &e) == 0) return snprintf(c->device, sizeof c->device, "%s", device), 0;
	return gvk_err_set(err, SRV_REFUSED, "server %s did not accept this client: %s", c->path, e.msg);
}

/* The reply to the message sent last, after the hello's when that is still due. */
static int call_reply(srv_client_t *c, char *text, size_t size, gvk_err_t *err)
{
	int rc = greeted(c, err);
	return rc < 0 ? rc : recv_reply(c, text, size, err);
}

static int round_trip(srv_client_t *c, const uint8_t *msg, size_t n, char *text, size_t size, gvk_err_t *err)
{
	int rc = send_msg(c, msg, n, err);
	return rc < 0 ? rc : call_reply(c, text, size, err);
}

/* The device name from the server's file: 0, or -1 when there is none to read. */
static int read_device(srv_client_t *c)
{
	char path[sizeof c->path + 16];
	if (srv_device_file(c->path, path, sizeof path) < 0) return -1;
	FILE *fp = fopen(path, "re");
	if (!fp) return -1;
	const int ok = fgets(c->device, sizeof c->device, fp) != NULL;
	fclose(fp);
	c->device[strcspn(c->device, "\n")] = 0;
	return ok && c->device[0] ? 0 : -1;
}

srv_client_t *srv_client_connect(const char *path, gvk_err_t *err)
{
	struct sockaddr_un sa;
	if (strlen(path) >= sizeof sa.sun_path) {
		gvk_err_set(err, GVK_ERR_ARG, "server socket path too long: %s", path);
		return NULL;
	}
	srv_client_t *c = calloc(1, sizeof *c);
	if (!c) {
		gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		return NULL;
	}
	c->seg = (srv_seg_t)SRV_SEG_INIT;
	memcpy(c->path, path, strlen(path) + 1);
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, path, strlen(path));
	if ((c->sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) < 0 || connect(c->sock, (struct sockaddr *)&sa, sizeof sa) < 0) {
		gvk_err_set(err, GVK_ERR_IO, "server %s: %s", path, strerror(errno));
		srv_client_close(c);
		return NULL;
	}
	uint8_t msg[SRV_HDR_LEN];
	srv_put_hdr(msg, SRV_OP_HELLO, 0, 0);
	gvk_err_t e = {0, ""};
	int rc = send_msg(c, msg, sizeof msg, &e);
	c->hello = rc == 0;
	/* Without the server's file the reply is the only word on its device: wait for it now. */
	if (rc == 0 && read_device(c) < 0) rc = greeted(c, &e);
	if (rc < 0) {
		gvk_err_set(err, GVK_ERR_IO, "%s", e.msg);
		srv_client_close(c);
		return NULL;
	}
	return c;
}

void srv_client_close(srv_client_t *c)
{
	if (!c) return;
	if (c->sock >= 0) close(c->sock);
	srv_seg_free(&c->seg);
	free(c);
}

const char *srv_client_device(const srv_client_t *c) { return c->device; }

int srv_client_pairhmm(srv_client_t *c, int flavour, int force_double, const gvk_read_t *reads, const gvk_hap_t *haps,
                       const gvk_pair_t *pairs, size_t n, gvk_pairhmm_out_t *out, gvk_err_t *err)
{
	int32_t mr = -1, mh = -1;
	for (size_t k = 0; k < n; ++k) {
		if (pairs[k].read > mr) mr = pairs[k].read;
		if (pairs[k].hap > mh) mh = pairs[k].hap;
	}
	const size_t nr = (size_t)(mr + 1), nh = (size_t)(mh + 1);
	const uint64_t in = srv_phmm_in_size(reads, nr, haps, nh, n), at = srv_out_off(in);
	if (in > SRV_MAX_AREA || 9 * (uint64_t)n > SRV_MAX_AREA)
		return gvk_err_set(err, SRV_LOCAL, "a batch of %llu bytes is over the server's limit", (unsigned long long)in);
	int rc = srv_seg_reserve(&c->seg, (size_t)(at + 9 * (uint64_t)n), err);
	if (rc < 0) return rc;
	srv_phmm_layout(c->seg.p, reads, nr, haps, nh, pairs, n);
	srv_phmm_req_t q = {(uint32_t)flavour, (uint32_t)(force_double != 0), out->used_double != NULL, nr, nh, n, in};
	uint8_t msg[SRV_MSG_MAX];
	size_t len = srv_put_phmm(msg, &q, c->seg.sent ? 0 : SRV_F_SEGMENT);
	if ((rc = round_trip(c, msg, len, NULL, 0, err)) < 0) return rc;
	memcpy(out->log10, c->seg.p + at, n * sizeof(double));
	if (out->used_double) memcpy(out->used_double, c->seg.p + at + 8 * n, n);
	return 0;
}

int srv_client_align(srv_client_t *c, int flavour, int raw, const gvk_align_pair_t *pairs, size_t n,
                     gvk_align_result_t *out, gvk_err_t *err)
{
	const uint64_t in = srv_align_in_size(pairs, n), at = srv_out_off(in), cap = srv_align_text_cap(pairs, n);
	if (in > SRV_MAX_AREA || cap > SRV_MAX_AREA)
		return gvk_err_set(err, SRV_LOCAL, "a batch of %llu bytes is over the server's limit", (unsigned long long)in);
	int rc = srv_seg_reserve(&c->seg, (size_t)(at + SRV_ALIGN_RES * (uint64_t)n + cap), err);
	if (rc < 0) return rc;
	srv_align_layout(c->seg.p, pairs, n);
	srv_align_req_t q = {(uint32_t)flavour, (uint32_t)(raw != 0), n, in, cap};
	uint8_t msg[SRV_MSG_MAX];
	size_t len = srv_put_align(msg, &q, c->seg.sent ? 0 : SRV_F_SEGMENT);
	if ((rc = round_trip(c, msg, len, NULL, 0, err)) < 0) return rc;
	const uint8_t *res = c->seg.p + at;
	char *text = (char *)(c->seg.p + at + SRV_ALIGN_RES * (uint64_t)n);
	for (size_t k = 0; k < n; ++k) {
		int32_t v[4];
		memcpy(v, res + SRV_ALIGN_RES * k, sizeof v);
		uint32_t toff = (uint32_t)v[3];
		if (v[2] < 0 || (uint64_t)toff + (uint64_t)v[2] >= cap || text[toff + (uint32_t)v[2]] != 0)
			return gvk_err_set(err, SRV_GONE, "server %s: result %zu is malformed", c->path, k);
		out[k] = (gvk_align_result_t){text + toff, v[2], v[0], v[1]};
	}
	return 0;
}

enum { POOL_MAX = 64 };

struct srv_clients_s {
	pthread_mutex_t lock;
	char *path;
	int n;
	srv_client_t *free[POOL_MAX];
};

srv_clients_t *srv_clients_create(const char *path)
{
	srv_clients_t *p = calloc(1, sizeof *p);
	if (!p || !(p->path = strdup(path))) {
		free(p);
		return NULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	return p;
}

void srv_clients_destroy(srv_clients_t *p)
{
	if (!p) return;
	for (int k = 0; k < p->n; ++k) srv_client_close(p->free[k]);
	pthread_mutex_destroy(&p->lock);
	free(p->path);
	free(p);
}

srv_client_t *srv_clients_take(srv_clients_t *p, gvk_err_t *err)
{
	pthread_mutex_lock(&p->lock);
	srv_client_t *c = p->n > 0 ? p->free[--p->n] : NULL;
	pthread_mutex_unlock(&p->lock);
	return c ? c : srv_client_connect(p->path, err);
}

void srv_clients_give(srv_clients_t *p, srv_client_t *c, int broken)
{
	if (!c) return;
	pthread_mutex_lock(&p->lock);
	if (!broken && p->n < POOL_MAX) p->free[p->n++] = c, c = NULL;
	pthread_mutex_unlock(&p->lock);
	srv_client_close(c);
}
