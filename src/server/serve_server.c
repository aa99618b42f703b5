/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../common/buf.h"
#include "../common/cuda_mem.h"
#include "../common/err.h"
#include "../common/log.h"
#include "../common/threads.h"
#include "../serve/serve_proto.h"
#include "serve_server.h"
#include "../serve/serve_shm.h"

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59
#endif

/* Align engines behind one merge queue: each context has an engine of its own (an align engine
 * takes one caller at a time) and the arrays of its merged batch. */
enum { AL_CTX = 8, AL_MERGE_PAIRS = 65536, AL_CHUNK_MB = 256 };
/* A connection's buffers above this size are freed after its call, so that one large call does
 * not keep the server's memory up. */
#define KEEP_BYTES ((size_t)16 << 20)
/* Seconds the calls in flight have to finish after a stop before their connections are cut. */
#define STOP_GRACE_S 30
/* Connection threads made before the first client and kept idle when one leaves: a thread made at
 * connect time waits up to a scheduler period for its first turn on a busy host (the kernel starts
 * new threads behind the running ones), where an idle one woken for the client runs at once. */
enum { SPARE_START = 64, SPARE_LOW = 8 };
/* How long a connection's thread polls for its client's next request (few_clients). */
#define SERVER_POLL_US 100

typedef struct {
	phmm_merge_t *merge;
	gvk_align_t *eng[AL_CTX];
	gvk_buf_t pairs[AL_CTX], res[AL_CTX];
} al_pool_t;

/* An align call in the merge queue (the queue sees base alone). */
typedef struct {
	phmm_req_t base;
	const gvk_align_pair_t *pairs;
	uint64_t text_cap;
	gvk_buf_t *out; /* the connection's output area, filled by the batch's leader */
	size_t out_len;
} al_req_t;

typedef struct conn_s conn_t;
struct conn_s {
	srv_server_t *s;
	int sock, seg;
	long pid, uid;
	uint64_t calls;
	gvk_buf_t in, out;
	srv_scratch_t sc;
	conn_t *prev, *next;
	conn_t *hnext; /* in the server's handoff queue */
};

struct gvk_serve_s {
	srv_opts_t o;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int lock_fd, lsock, stop[2];
	pthread_mutex_t lock; /* connections, and the engine pointers */
	pthread_mutex_t make; /* making an engine (slow on a GPU), without holding up the others */
	pthread_cond_t idle;
	conn_t *conns;
	int nconn;
	/* Connection threads: admitted connections wait in `handoff` for an idle one. */
	pthread_cond_t handoff_cv;
	conn_t *handoff;
	int n_handoff, n_idle, n_workers, cap_workers, workers_stop;
	pthread_t *workers;
	gvk_pairhmm_t *phmm[2][2]; /* [flavour][force_double] */
	al_pool_t *al[2][2];       /* [flavour][raw] */
	_Atomic uint64_t clients, refused, calls[2], pairs[2], errors;
	char device[128];
};

/* ---- engines ---- */

/* The engine behind *slot, made by make() the first time (under s->make, so that the calls of
 * engines that exist go on meanwhile). A slot is set once: every call reads it without a lock,
 * which many connections' calls would otherwise queue on. */
static void *engine_get(srv_server_t *s, void **slot, void *(*make)(srv_server_t *, int, int, gvk_err_t *), int a, int b,
                        gvk_err_t *err)
{
	void *e = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (e) return e;
	pthread_mutex_lock(&s->make);
	e = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (!e && (e = make(s, a, b, err)) != NULL) __atomic_store_n(slot, e, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&s->make);
	return e;
}

static void *phmm_make(srv_server_t *s, int flavour, int dbl, gvk_err_t *err)
{
	gvk_pairhmm_opts_t o;
	gvk_pairhmm_opts_init(&o);
	o.flavour = flavour, o.force_double = dbl, o.device = s->o.device, o.threads = s->o.threads, o.gpu = s->o.gpu;
	o.shared = 1, o.log = s->o.log, o.merge_wait_us = s->o.merge_wait_us;
	if (s->o.merge_contexts > 0) o.merge_contexts = s->o.merge_contexts;
	return gvk_pairhmm_create(&o, err);
}

static gvk_pairhmm_t *phmm_engine(srv_server_t *s, int flavour, int dbl, gvk_err_t *err)
{
	return engine_get(s, (void **)&s->phmm[flavour][dbl], phmm_make, flavour, dbl, err);
}

static void al_pool_destroy(al_pool_t *p)
{
	if (!p) return;
	phmm_merge_destroy(p->merge);
	for (int k = 0; k < AL_CTX; ++k) gvk_align_destroy(p->eng[k]), gvk_buf_free(&p->pairs[k]), gvk_buf_free(&p->res[k]);
	free(p);
}

/* Writes a request's results (its share of the merged results r) into its output area. */
static int al_write(al_req_t *q, const gvk_align_result_t *r, gvk_err_t *err)
{
	const size_t n = q->base.n;
	uint64_t text = 0;
	for (size_t k = 0; k < n; ++k) text += (uint64_t)r[k].cigar_len + 1;
	if (text > q->text_cap)
		return gvk_err_set(err, GVK_ERR_ARG, "the CIGARs need %llu bytes of text, the request has room for %llu",
		                   (unsigned long long)text, (unsigned long long)q->text_cap);
	uint8_t *o = gvk_buf_reserve(q->out, SRV_ALIGN_RES * n + (size_t)text);
	if (!o) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for %zu results", n);
	char *t = (char *)o + SRV_ALIGN_RES * n;
	uint32_t at = 0;
	for (size_t k = 0; k < n; ++k) {
		const int32_t v[4] = {r[k].offset, r[k].score, r[k].cigar_len, (int32_t)at};
		memcpy(o + SRV_ALIGN_RES * k, v, sizeof v);
		memcpy(t + at, r[k].cigar, (size_t)r[k].cigar_len + 1);
		at += (uint32_t)r[k].cigar_len + 1;
	}
	q->out_len = SRV_ALIGN_RES * n + (size_t)text;
	return 0;
}

/* The merge queue's batch (phmm_batch_fn): the requests' pairs side by side, one engine call. */
static void al_batch(void *arg, int ctx, phmm_req_t *batch)
{
	al_pool_t *p = arg;
	gvk_err_t err = {0, ""};
	size_t total = 0, off = 0;
	for (phmm_req_t *r = batch; r; r = r->next) total += r->n;
	gvk_align_pair_t *mp = gvk_buf_reserve(&p->pairs[ctx], total * sizeof *mp);
	gvk_align_result_t *mr = gvk_buf_reserve(&p->res[ctx], total * sizeof *mr);
	int rc = mp && mr ? 0 : gvk_err_set(&err, GVK_ERR_NOMEM, "out of memory merging %zu pairs", total);
	for (phmm_req_t *r = batch; r && rc == 0; r = r->next)
		memcpy(mp + off, ((al_req_t *)r)->pairs, r->n * sizeof *mp), off += r->n;
	if (rc == 0) rc = gvk_align_batch(p->eng[ctx], mp, total, mr, &err);
	off = 0;
	for (phmm_req_t *r = batch; r; r = r->next) {
		r->rc = rc < 0 ? rc : al_write((al_req_t *)r, mr + off, &r->err);
		if (rc < 0) r->err = err;
		off += r->n;
	}
	if (p->pairs[ctx].cap > KEEP_BYTES) gvk_buf_free(&p->pairs[ctx]), gvk_buf_free(&p->res[ctx]);
}

static void *al_make(srv_server_t *s, int flavour, int raw, gvk_err_t *err)
{
	al_pool_t *p = calloc(1, sizeof *p);
	if (!p) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory"), NULL;
	gvk_align_opts_t o;
	gvk_align_opts_init(&o);
	o.flavour = flavour, o.raw = raw, o.device = s->o.device, o.threads = s->o.threads, o.log = s->o.log;
	o.gpu_chunk_mb = AL_CHUNK_MB;
	int ok = (p->merge = phmm_merge_create(AL_CTX, 0, AL_MERGE_PAIRS, al_batch, p)) != NULL;
	if (!ok) gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	for (int k = 0; k < AL_CTX && ok; ++k) ok = (p->eng[k] = gvk_align_create(&o, err)) != NULL;
	if (ok) return p;
	al_pool_destroy(p);
	return NULL;
}

static al_pool_t *al_engine(srv_server_t *s, int flavour, int raw, gvk_err_t *err)
{
	return engine_get(s, (void **)&s->al[flavour][raw], al_make, flavour, raw, err);
}

/* ---- one call ---- */

static int read_area(int fd, uint8_t *dst, uint64_t n, gvk_err_t *err)
{
	uint64_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, dst + got, (size_t)(n - got), (off_t)got);
		if (r < 0 && errno == EINTR) continue;
		if (r < 0) return gvk_err_set(err, GVK_ERR_IO, "reading the segment: %s", strerror(errno));
		if (r == 0)
			return gvk_err_set(err, GVK_ERR_FORMAT, "the segment holds %llu bytes, the request needs %llu",
			                   (unsigned long long)got, (unsigned long long)n);
		got += (uint64_t)r;
	}
	return 0;
}

static int write_area(int fd, const uint8_t *src, size_t n, uint64_t off, gvk_err_t *err)
{
	size_t done = 0;
	while (done < n) {
		ssize_t r = pwrite(fd, src + done, n - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR) continue;
		if (r <= 0) return gvk_err_set(err, GVK_ERR_IO, "writing the results into the segment: %s", r < 0 ? strerror(errno) : "no progress");
		done += (size_t)r;
	}
	return 0;
}

/* The connection's input area, in memory of the server's own. */
static uint8_t *take_input(conn_t *c, uint64_t in_size, gvk_err_t *err)
{
	if (c->seg < 0) {
		gvk_err_set(err, GVK_ERR_FORMAT, "a request before any segment was sent");
		return NULL;
	}
	uint8_t *in = gvk_buf_reserve(&c->in, in_size ? (size_t)in_size : 1);
	if (!in) {
		gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for an input area of %llu bytes", (unsigned long long)in_size);
		return NULL;
	}
	return read_area(c->seg, in, in_size, err) < 0 ? NULL : in;
}

static int do_pairhmm(conn_t *c, const uint8_t *msg, size_t len, gvk_err_t *err)
{
	srv_phmm_req_t q;
	gvk_read_t *reads;
	gvk_hap_t *haps;
	gvk_pair_t *pairs;
	int rc = srv_get_phmm(msg, len, &q, err);
	if (rc < 0) return rc;
	const uint8_t *in = take_input(c, q.in_size, err);
	if (!in) return err->code;
	if ((rc = srv_parse_phmm(&q, in, &c->sc, &reads, &haps, &pairs, err)) < 0) return rc;
	const size_t n = (size_t)q.n_pairs;
	gvk_pairhmm_t *e = phmm_engine(c->s, (int)q.flavour, (int)q.force_double, err);
	uint8_t *out = gvk_buf_reserve(&c->out, 9 * n + 1);
	if (!e) return err->code;
	if (!out) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for %zu results", n);
	gvk_pairhmm_out_t o = {(double *)out, out + 8 * n, NULL, NULL};
	if ((rc = gvk_pairhmm_pairs(e, reads, haps, pairs, n, &o, err)) < 0) return rc;
	atomic_fetch_add(&c->s->pairs[0], n);
	c->calls++;
	return write_area(c->seg, out, 9 * n, srv_out_off(q.in_size), err);
}

static int do_align(conn_t *c, const uint8_t *msg, size_t len, gvk_err_t *err)
{
	srv_align_req_t q;
	gvk_align_pair_t *pairs;
	int rc = srv_get_align(msg, len, &q, err);
	if (rc < 0) return rc;
	const uint8_t *in = take_input(c, q.in_size, err);
	if (!in) return err->code;
	if ((rc = srv_parse_align(&q, in, &c->sc, &pairs, err)) < 0) return rc;
	for (size_t k = 0; k < (size_t)q.n_pairs; ++k) {
		gvk_err_t perr = {0, ""};
		if (gvk_align_check_pair(&pairs[k], &perr) < 0) return gvk_err_set(err, GVK_ERR_ARG, "pair %zu: %s", k, perr.msg);
	}
	if (q.n_pairs == 0) return 0;
	al_pool_t *p = al_engine(c->s, (int)q.flavour, (int)q.raw, err);
	if (!p) return err->code;
	al_req_t r;
	memset(&r, 0, sizeof r);
	r.base.n = (size_t)q.n_pairs, r.pairs = pairs, r.text_cap = q.text_cap, r.out = &c->out;
	if ((rc = phmm_merge_submit(p->merge, &r.base)) < 0) return *err = r.base.err, rc;
	atomic_fetch_add(&c->s->pairs[1], q.n_pairs);
	c->calls++;
	return write_area(c->seg, c->out.p, r.out_len, srv_out_off(q.in_size), err);
}

/* A memfd, and nothing else, may serve as a segment: a pipe, socket or device could block the
 * connection's thread in pread or give it endless data. */
static int is_memfd(int fd) { return fcntl(fd, F_GET_SEALS) >= 0; }

/* Handles one message: 0 or a negative code with err set; *fatal asks to close the connection
 * after the reply (the message was not one of ours). */
static int handle(conn_t *c, const uint8_t *msg, size_t n, int fd, int trunc, gvk_err_t *err, int *fatal)
{
	srv_hdr_t h;
	int rc;
	*fatal = 1;
	if (trunc) return gvk_err_set(err, GVK_ERR_FORMAT, "message too long");
	if ((rc = srv_get_hdr(msg, n, &h, err)) < 0) return rc;
	if (!!(h.flags & SRV_F_SEGMENT) != (fd >= 0))
		return gvk_err_set(err, GVK_ERR_FORMAT, fd >= 0 ? "a descriptor without the segment flag" : "the segment flag without a descriptor");
	*fatal = 0;
	if (fd >= 0) {
		if (c->seg >= 0) close(c->seg);
		c->seg = fd;
		if (!is_memfd(fd)) {
			close(fd), c->seg = -1;
			return gvk_err_set(err, GVK_ERR_FORMAT, "the segment is not a memfd");
		}
	}
	switch (h.op) {
	case SRV_OP_HELLO: return h.body_len == 0 ? 0 : gvk_err_set(err, GVK_ERR_FORMAT, "hello with a body");
	case SRV_OP_PAIRHMM: atomic_fetch_add(&c->s->calls[0], 1); return do_pairhmm(c, msg, n, err);
	case SRV_OP_ALIGN: atomic_fetch_add(&c->s->calls[1], 1); return do_align(c, msg, n, err);
	default: *fatal = 1; return gvk_err_set(err, GVK_ERR_FORMAT, "operation %u is not a request", h.op);
	}
}

static void conn_end(conn_t *c)
{
	srv_server_t *s = c->s;
	gvk_logf(&s->o.log, GVK_LOG_INFO, "client pid %ld (uid %ld) disconnected after %llu calls", c->pid, c->uid,
	         (unsigned long long)c->calls);
	close(c->sock);
	if (c->seg >= 0) close(c->seg);
	gvk_buf_free(&c->in), gvk_buf_free(&c->out);
	srv_scratch_free(&c->sc);
	pthread_mutex_lock(&s->lock);
	if (c->prev) c->prev->next = c->next; else s->conns = c->next;
	if (c->next) c->next->prev = c->prev;
	if (--s->nconn == 0) pthread_cond_broadcast(&s->idle);
	pthread_mutex_unlock(&s->lock);
	free(c);
}

/* With few clients on many cores, a connection's thread and its client poll for each other's next
 * message instead of sleeping: each sleep and wake-up costs a call several microseconds, a tenth
 * of a small one. With many clients the polling would take the cores they and the engines need. */
static int few_clients(const srv_server_t *s, int more)
{
	return s->o.poll_clients > 0 && __atomic_load_n(&s->nconn, __ATOMIC_RELAXED) + more <= s->o.poll_clients;
}

static void trim(gvk_buf_t *b)
{
	if (b->cap > KEEP_BYTES) gvk_buf_free(b);
}

static void conn_serve(conn_t *c)
{
	uint8_t msg[SRV_MSG_MAX], rep[SRV_MSG_MAX];
	int poll_us = 0;
	for (;;) {
		int fd = -1, trunc = 0, fatal = 0;
		ssize_t n = srv_recv_poll(c->sock, msg, sizeof msg, &fd, &trunc, poll_us);
		if (n <= 0) {
			if (fd >= 0) close(fd);
			break;
		}
		gvk_err_t err = {0, ""};
		int rc = handle(c, msg, (size_t)n, fd, trunc, &err, &fatal);
		if (fatal && fd >= 0 && fd != c->seg) close(fd);
		if (rc < 0) atomic_fetch_add(&c->s->errors, 1);
		const int poll = few_clients(c->s, 0);
		size_t len = srv_put_reply(rep, rc, rc < 0 ? err.msg : c->s->device, poll ? SRV_F_POLL : 0);
		if (srv_send(c->sock, rep, len, -1) < 0 || fatal) break;
		poll_us = poll ? SERVER_POLL_US : 0;
		trim(&c->in), trim(&c->out), trim(&c->sc.reads), trim(&c->sc.haps), trim(&c->sc.pairs);
	}
	conn_end(c);
}

/* A connection thread: serves the connections handed to it, one after the other, until the stop. */
static void *worker_main(void *arg)
{
	srv_server_t *s = arg;
	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->handoff && !s->workers_stop) pthread_cond_wait(&s->handoff_cv, &s->lock);
		conn_t *c = s->handoff;
		if (!c) break;
		s->handoff = c->hnext, --s->n_handoff, --s->n_idle;
		pthread_mutex_unlock(&s->lock);
		conn_serve(c);
		pthread_mutex_lock(&s->lock);
		++s->n_idle;
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Adds k idle connection threads (under s->lock); fewer when the system has no more. */
static void spawn_workers(srv_server_t *s, int k)
{
	if (s->n_workers + k > s->cap_workers) {
		const int cap = (s->n_workers + k) * 2;
		pthread_t *w = realloc(s->workers, (size_t)cap * sizeof *w);
		if (!w) return;
		s->workers = w, s->cap_workers = cap;
	}
	for (; k > 0; --k) {
		if (pthread_create(&s->workers[s->n_workers], NULL, worker_main, s) != 0) return;
		++s->n_workers, ++s->n_idle;
	}
}

/* Stops and joins the connection threads once no connection is left (idempotent). */
static void workers_join(srv_server_t *s)
{
	pthread_mutex_lock(&s->lock);
	s->workers_stop = 1;
	pthread_cond_broadcast(&s->handoff_cv);
	pthread_mutex_unlock(&s->lock);
	for (int k = 0; k < s->n_workers; ++k) pthread_join(s->workers[k], NULL);
	s->n_workers = 0;
}

/* ---- the socket ---- */

static int peer_allowed(const srv_server_t *s, int fd, struct ucred *cr)
{
	socklen_t l = sizeof *cr;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, cr, &l) < 0) return 0;
	if (cr->uid == geteuid()) return 1;
	if (s->o.group < 0) return 0;
	if ((long)cr->gid == s->o.group) return 1;
	gid_t g[256];
	l = sizeof g;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &l) < 0) return 0;
	for (size_t k = 0; k < l / sizeof g[0]; ++k)
		if ((long)g[k] == s->o.group) return 1;
	return 0;
}

/* A client sends its hello right after connecting: when it is already there it is answered here,
 * so that starting a client does not wait for a connection thread to be woken and scheduled, which
 * on a host busy with many clients is most of a connect. Anything else is left to that thread. */
static void greet(srv_server_t *s, int fd)
{
	uint8_t msg[SRV_HDR_LEN + 1], rep[SRV_MSG_MAX];
	srv_hdr_t h;
	gvk_err_t err = {0, ""};
	ssize_t n = recv(fd, msg, sizeof msg, MSG_PEEK | MSG_DONTWAIT);
	if (n != SRV_HDR_LEN || srv_get_hdr(msg, (size_t)n, &h, &err) < 0 || h.op != SRV_OP_HELLO || h.flags) return;
	if (recv(fd, msg, sizeof msg, MSG_DONTWAIT) != SRV_HDR_LEN) return;
	srv_send(fd, rep, srv_put_reply(rep, 0, s->device, few_clients(s, 1) ? SRV_F_POLL : 0), -1);
}

static void admit(srv_server_t *s, int fd)
{
	struct ucred cr = {0, 0, 0};
	if (!peer_allowed(s, fd, &cr)) {
		atomic_fetch_add(&s->refused, 1);
		gvk_logf(&s->o.log, GVK_LOG_WARN, "refused a connection from pid %ld, uid %ld (not this user%s)", (long)cr.pid,
		         (long)cr.uid, s->o.group >= 0 ? " nor in the group" : "");
		close(fd);
		return;
	}
	conn_t *c = calloc(1, sizeof *c);
	pthread_mutex_lock(&s->lock);
	if (s->n_idle - s->n_handoff < SPARE_LOW) spawn_workers(s, SPARE_LOW);
	if (!c || s->nconn >= s->o.max_clients || s->n_workers == 0) {
		pthread_mutex_unlock(&s->lock);
		uint8_t rep[SRV_MSG_MAX];
		srv_send(fd, rep, srv_put_reply(rep, GVK_ERR_NOMEM, !c ? "out of memory" : s->n_workers ? "too many clients" : "no thread for a client", 0), -1);
		gvk_logf(&s->o.log, GVK_LOG_WARN, "refused a connection from pid %ld: %d clients already", (long)cr.pid, s->nconn);
		close(fd);
		free(c);
		return;
	}
	c->s = s, c->sock = fd, c->seg = -1, c->pid = cr.pid, c->uid = (long)cr.uid;
	pthread_mutex_unlock(&s->lock);
	greet(s, fd);
	pthread_mutex_lock(&s->lock);
	c->next = s->conns;
	if (s->conns) s->conns->prev = c;
	s->conns = c;
	int n = ++s->nconn;
	conn_t **tail = &s->handoff;
	while (*tail) tail = &(*tail)->hnext;
	*tail = c, ++s->n_handoff;
	pthread_cond_signal(&s->handoff_cv);
	pthread_mutex_unlock(&s->lock);
	/* c belongs to its worker now, which may already have served and freed it */
	atomic_fetch_add(&s->clients, 1);
	gvk_logf(&s->o.log, GVK_LOG_INFO, "client pid %ld (uid %ld) connected; %d connected", (long)cr.pid, (long)cr.uid, n);
}

/* Takes the lock file beside the socket, or says which server holds it. */
static int take_lock(srv_server_t *s, gvk_err_t *err)
{
	char lp[sizeof s->path + 8];
	snprintf(lp, sizeof lp, "%s.lock", s->path);
	if ((s->lock_fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0)
		return gvk_err_set(err, GVK_ERR_IO, "%s: %s", lp, strerror(errno));
	if (flock(s->lock_fd, LOCK_EX | LOCK_NB) < 0)
		return gvk_err_set(err, GVK_ERR_IO, "%s: a gvk serve is already running on this socket", s->path);
	return 0;
}

/* A live server answers on the socket; a file left by one that died does not. */
static int live_server(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0) return 0;
	int live = connect(fd, (const struct sockaddr *)sa, sizeof *sa) == 0;
	close(fd);
	return live;
}

static int bind_socket(srv_server_t *s, gvk_err_t *err)
{
	struct sockaddr_un sa;
	struct stat st;
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, s->path, strlen(s->path));
	if (lstat(s->path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) return gvk_err_set(err, GVK_ERR_IO, "%s exists and is not a socket", s->path);
		if (live_server(&sa)) return gvk_err_set(err, GVK_ERR_IO, "%s: a gvk serve is already running on this socket", s->path);
		if (unlink(s->path) < 0) return gvk_err_set(err, GVK_ERR_IO, "%s: cannot replace the stale socket: %s", s->path, strerror(errno));
	}
	if ((s->lsock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0 || bind(s->lsock, (struct sockaddr *)&sa, sizeof sa) < 0)
		return gvk_err_set(err, GVK_ERR_IO, "%s: %s", s->path, strerror(errno));
	/* Owner only, or owner and group: the directory is private as well, and every peer's
	 * credentials are checked anyway. */
	if (chmod(s->path, s->o.group >= 0 ? 0660 : 0600) < 0 ||
	    (s->o.group >= 0 && chown(s->path, (uid_t)-1, (gid_t)s->o.group) < 0) || listen(s->lsock, 256) < 0) {
		int e = errno;
		unlink(s->path);
		return gvk_err_set(err, GVK_ERR_IO, "%s: %s", s->path, strerror(e));
	}
	return 0;
}

/* The device name beside the socket, for clients to read without waiting for a reply
 * (serve_proto.h); replaced whole, so a client never reads half of it. Readable to whoever may
 * enter the directory, which is what guards it. */
static void write_device_file(srv_server_t *s)
{
	char path[sizeof s->path + 16], tmp[sizeof path + 8];
	if (srv_device_file(s->path, path, sizeof path) < 0 || snprintf(tmp, sizeof tmp, "%s.new", path) >= (int)sizeof tmp) return;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) return;
	const size_t n = strlen(s->device);
	const int ok = fchmod(fd, 0644) == 0 && write(fd, s->device, n) == (ssize_t)n && write(fd, "\n", 1) == 1;
	if (close(fd) == 0 && ok && rename(tmp, path) == 0) return;
	unlink(tmp);
	gvk_logf(&s->o.log, GVK_LOG_WARN, "cannot write %s: clients wait for the server's hello when they start", path);
}

/* The socket and the device file beside it. */
static void remove_socket(srv_server_t *s)
{
	char path[sizeof s->path + 16];
	unlink(s->path);
	if (srv_device_file(s->path, path, sizeof path) == 0) unlink(path);
}

void gvk_serve_opts_init(gvk_serve_opts_t *o)
{
	if (!o) return;
	memset(o, 0, sizeof *o);
	o->device = GVK_DEVICE_AUTO, o->gpu = -1, o->group = -1, o->gpu_wait = GVK_GPU_WAIT_AUTO;
	gvk_log_default(&o->log);
}

int gvk_serve_opts_check(const gvk_serve_opts_t *o, gvk_err_t *err)
{
	if (!o) return gvk_err_null(err, __func__, "o");
	if (!o->socket) return gvk_err_set(err, GVK_ERR_ARG, "socket is NULL (the path the service listens on)");
	if (strlen(o->socket) >= sizeof((srv_server_t *)0)->path)
		return gvk_err_set(err, GVK_ERR_ARG, "socket must be at most %zu bytes, not %zu", sizeof((srv_server_t *)0)->path - 1,
		                   strlen(o->socket));
	if (o->device < GVK_DEVICE_AUTO || o->device > GVK_DEVICE_GPU)
		return gvk_err_set(err, GVK_ERR_ARG, "device %d is not GVK_DEVICE_AUTO, _CPU or _GPU", o->device);
	if (o->threads < 0) return gvk_err_set(err, GVK_ERR_ARG, "threads must be >= 0 (0: all processors), not %d", o->threads);
	if (o->gpu < -1) return gvk_err_set(err, GVK_ERR_ARG, "gpu must be -1 (every GPU) or a device index, not %d", o->gpu);
	if (o->group < -1) return gvk_err_set(err, GVK_ERR_ARG, "group must be -1 (none) or a group id, not %ld", o->group);
	if (o->max_clients < 0) return gvk_err_set(err, GVK_ERR_ARG, "max_clients must be >= 0 (0: 1024), not %d", o->max_clients);
	if (o->merge_contexts < 0 || o->merge_contexts > PHMM_MERGE_MAX_CTX)
		return gvk_err_set(err, GVK_ERR_ARG, "merge_contexts must be 0 (the default) to %d, not %d", PHMM_MERGE_MAX_CTX,
		                   o->merge_contexts);
	if (o->merge_wait_us < 0 || o->merge_wait_us > 1000000)
		return gvk_err_set(err, GVK_ERR_ARG, "merge_wait_us must be 0 to 1000000, not %d", o->merge_wait_us);
	if (o->gpu_wait < GVK_GPU_WAIT_AUTO || o->gpu_wait > GVK_GPU_WAIT_BLOCK)
		return gvk_err_set(err, GVK_ERR_ARG, "gpu_wait %d is not a gvk_gpu_wait_t", o->gpu_wait);
	if (o->poll_clients < -1) return gvk_err_set(err, GVK_ERR_ARG, "poll_clients must be >= -1 (-1: never), not %d", o->poll_clients);
	return 0;
}

int gvk_serve_user_dir(const char *runtime_dir, unsigned uid, char *dir, size_t size, gvk_err_t *err)
{
	if (!dir) return gvk_err_null(err, __func__, "dir");
	return srv_user_dir(runtime_dir, uid, dir, size, err);
}

srv_server_t *gvk_serve_create(const srv_opts_t *o, gvk_err_t *err)
{
	if (!o) {
		gvk_err_null(err, __func__, "o");
		return NULL;
	}
	if (gvk_serve_opts_check(o, err) < 0) return NULL;
	srv_server_t *s = calloc(1, sizeof *s);
	if (!s) {
		gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		return NULL;
	}
	s->o = *o, s->lock_fd = s->lsock = s->stop[0] = s->stop[1] = -1;
	if (s->o.max_clients < 1) s->o.max_clients = 1024;
	if (s->o.poll_clients == 0) s->o.poll_clients = gvk_ncpu() >= 8 ? gvk_ncpu() / 4 : 1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->make, NULL);
	pthread_cond_init(&s->idle, NULL);
	pthread_cond_init(&s->handoff_cv, NULL);
	int rc = 0;
	memcpy(s->path, o->socket, strlen(o->socket) + 1); /* its length checked with the options */
	if (rc == 0 && pipe2(s->stop, O_CLOEXEC | O_NONBLOCK) < 0) rc = gvk_err_set(err, GVK_ERR_IO, "pipe: %s", strerror(errno));
	if (rc == 0) rc = take_lock(s, err);
#ifdef GVK_HAVE_CUDA
	/* Before the engines make the GPU's context: its flags are fixed then. */
	if (rc == 0 && o->device != GVK_DEVICE_CPU && o->gpu_wait != GVK_GPU_WAIT_AUTO) rc = gvk_cuda_set_wait((gvk_gpu_wait_t)o->gpu_wait, err);
#endif
	/* The default Pair-HMM engine now: --device gpu fails before the socket exists, and the
	 * GPU's start-up is paid once, not by the first client. */
	gvk_pairhmm_t *e = rc == 0 ? phmm_engine(s, GVK_PHMM_FMA, 0, err) : NULL;
	if (rc == 0 && !e) rc = gvk_err_code(err, GVK_ERR_GPU);
	if (e) snprintf(s->device, sizeof s->device, "%s", gvk_pairhmm_device_name(e));
	/* GATK's aligner (GKL flavour, no shortcut) likewise; without it the first align call makes it. */
	gvk_err_t aerr = {0, ""};
	if (rc == 0 && !al_engine(s, GVK_SW_GKL, 1, &aerr))
		gvk_logf(&s->o.log, GVK_LOG_WARN, "the align engine could not start now (%s); the first align call tries again", aerr.msg);
	if (rc == 0) rc = bind_socket(s, err);
	if (rc == 0) write_device_file(s);
	if (rc == 0) {
		pthread_mutex_lock(&s->lock);
		spawn_workers(s, SPARE_START);
		pthread_mutex_unlock(&s->lock);
	}
	if (rc < 0) {
		if (s->lsock >= 0) close(s->lsock), s->lsock = -1;
		gvk_serve_destroy(s);
		return NULL;
	}
	return s;
}

void gvk_serve_stop(srv_server_t *s)
{
	if (!s) return;
	char b = 1;
	ssize_t r = write(s->stop[1], &b, 1);
	(void)r;
}

int gvk_serve_run(srv_server_t *s, gvk_err_t *err)
{
	if (!s) return gvk_err_null(err, __func__, "s");
	int rc = 0;
	for (;;) {
		struct pollfd p[2] = {{s->lsock, POLLIN, 0}, {s->stop[0], POLLIN, 0}};
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR) continue;
			rc = gvk_err_set(err, GVK_ERR_IO, "poll: %s", strerror(errno));
			break;
		}
		if (p[1].revents) break;
		/* Every connection waiting, not one a wake-up: many clients start at once. */
		int fd;
		while ((p[0].revents & POLLIN) && (fd = accept4(s->lsock, NULL, NULL, SOCK_CLOEXEC)) >= 0) admit(s, fd);
		if ((p[0].revents & POLLIN) && (errno == EMFILE || errno == ENFILE)) usleep(10000); /* the backlog waits; no spinning */
	}
	/* No new clients; the ones connected finish the call they are in (its reply goes out), then
	 * see the end of their connection. A client that does not read its replies would hold its
	 * thread in a send: after a grace period every connection is shut both ways, so that such a
	 * call fails and its client computes on its own. */
	close(s->lsock), s->lsock = -1;
	remove_socket(s);
	pthread_mutex_lock(&s->lock);
	for (conn_t *c = s->conns; c; c = c->next) shutdown(c->sock, SHUT_RD);
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += STOP_GRACE_S;
	while (s->nconn > 0)
		if (pthread_cond_timedwait(&s->idle, &s->lock, &until) == ETIMEDOUT) break;
	for (conn_t *c = s->conns; c; c = c->next) shutdown(c->sock, SHUT_RDWR);
	while (s->nconn > 0) pthread_cond_wait(&s->idle, &s->lock);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

void gvk_serve_summary(srv_server_t *s, srv_summary_t *sum)
{
	if (!sum) return;
	memset(sum, 0, sizeof *sum);
	if (!s) return;
	sum->clients = atomic_load(&s->clients), sum->refused = atomic_load(&s->refused), sum->errors = atomic_load(&s->errors);
	for (int k = 0; k < 2; ++k) sum->calls[k] = atomic_load(&s->calls[k]), sum->pairs[k] = atomic_load(&s->pairs[k]);
	pthread_mutex_lock(&s->lock);
	for (int f = 0; f < 2; ++f)
		for (int d = 0; d < 2; ++d) {
			phmm_shared_merge_stats(__atomic_load_n(&s->phmm[f][d], __ATOMIC_ACQUIRE), &sum->merge[0]);
			al_pool_t *al = __atomic_load_n(&s->al[f][d], __ATOMIC_ACQUIRE);
			if (al) phmm_merge_stats(al->merge, &sum->merge[1]);
		}
	pthread_mutex_unlock(&s->lock);
	snprintf(sum->device, sizeof sum->device, "%s", s->device);
}

void gvk_serve_destroy(srv_server_t *s)
{
	if (!s) return;
	if (s->lsock >= 0) close(s->lsock), remove_socket(s);
	for (int f = 0; f < 2; ++f)
		for (int d = 0; d < 2; ++d) gvk_pairhmm_destroy(s->phmm[f][d]), al_pool_destroy(s->al[f][d]);
	for (int k = 0; k < 2; ++k)
		if (s->stop[k] >= 0) close(s->stop[k]);
	if (s->lock_fd >= 0) close(s->lock_fd);
	workers_join(s);
	free(s->workers);
	pthread_cond_destroy(&s->handoff_cv);
	pthread_cond_destroy(&s->idle);
	pthread_mutex_destroy(&s->make);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
