/* SPDX-License-Identifier: MIT */
/* gvk serve end to end, on the CPU back end: the real `gvk serve` in a child process and clients
 * made from the public API (engines whose options name the socket) or from raw messages.
 *   test_serve GVK proto        round trips of Pair-HMM and align, bit for bit against private CPU
 *                               engines; hostile requests; a client killed mid-call; the server
 *                               killed under a client (which says so once and goes on, exact)
 *   test_serve GVK load N CALLS KILLS   N client processes x CALLS calls, KILLS of them killed at
 *                               random: survivors exact, the server's resident memory flat
 *   test_serve GVK lock         device auto's GPU lock: one process holds it, another does not */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gvk.h"
#include "common/gpu_lock.h"
#include "serve/serve_proto.h"
#include "serve/serve_shm.h"

static int failures;
#define CHECK(c, ...)                                                                                                  \
	do {                                                                                                           \
		if (!(c)) {                                                                                            \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                           \
			fprintf(stderr, __VA_ARGS__);                                                                  \
			fputc('\n', stderr);                                                                           \
			++failures;                                                                                    \
		}                                                                                                      \
	} while (0)

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

/* ---- the server ---- */

static char sock_path[108], dir_path[64];

static int try_connect(void)
{
	struct sockaddr_un sa;
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, sock_path, strlen(sock_path));
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0) return fd;
	if (fd >= 0) close(fd);
	return -1;
}

static pid_t start_server(const char *gvk)
{
	pid_t pid = (fflush(NULL), fork());
	if (pid == 0) {
		char log[128];
		snprintf(log, sizeof log, "%s/serve.log", dir_path);
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
		if (fd >= 0) dup2(fd, 2);
		execl(gvk, gvk, "serve", "--socket", sock_path, "--device", "cpu", "-t", "2", "--poll-clients", "8", "-v", (char *)NULL);
		_exit(127);
	}
	for (int k = 0; k < 1000; ++k) {
		int fd = try_connect();
		if (fd >= 0) {
			close(fd);
			return pid;
		}
		usleep(10000);
	}
	fprintf(stderr, "the server did not start\n");
	exit(1);
}

static long rss_kb(pid_t pid)
{
	char p[64], line[256];
	long kb = -1;
	snprintf(p, sizeof p, "/proc/%d/status", (int)pid);
	FILE *fp = fopen(p, "r");
	while (fp && fgets(line, sizeof line, fp))
		if (!strncmp(line, "VmRSS:", 6)) kb = atol(line + 6);
	if (fp) fclose(fp);
	return kb;
}

static int alive(pid_t pid) { return waitpid(pid, NULL, WNOHANG) == 0; }

/* ---- random work ---- */

typedef struct {
	int nr, nh;
	gvk_read_t reads[24];
	gvk_hap_t haps[8];
	char buf[131072];
} region_t;

static void make_region(region_t *g, uint64_t *s, int maxr, int maxh, int maxlen)
{
	char *p = g->buf;
	g->nh = 1 + (int)(rng(s) % (uint64_t)maxh), g->nr = 1 + (int)(rng(s) % (uint64_t)maxr);
	for (int h = 0; h < g->nh; ++h) {
		int H = 10 + (int)(rng(s) % (uint64_t)(maxlen - 9));
		for (int k = 0; k < H; ++k) p[k] = "ACGT"[rng(s) % 4];
		g->haps[h] = (gvk_hap_t){H, p};
		p += H;
	}
	for (int r = 0; r < g->nr; ++r) {
		const gvk_hap_t *src = &g->haps[rng(s) % (uint64_t)g->nh];
		int R = 5 + (int)(rng(s) % (uint64_t)(maxlen - 4));
		if (R > src->len) R = src->len;
		int at = (int)(rng(s) % (uint64_t)(src->len - R + 1)), noisy = rng(s) % 8 == 0;
		char *b = p;
		uint8_t *q = (uint8_t *)p + R;
		for (int k = 0; k < R; ++k) {
			b[k] = rng(s) % 30 == 0 ? "ACGT"[rng(s) % 4] : src->bases[at + k];
			q[k] = noisy ? (uint8_t)(rng(s) % 128) : (uint8_t)(20 + rng(s) % 21);
			q[R + k] = q[2 * R + k] = noisy ? (uint8_t)(rng(s) % 128) : 45;
			q[3 * R + k] = 10;
		}
		g->reads[r] = (gvk_read_t){R, b, q, q + R, q + 2 * R, q + 3 * R};
		p += 5 * R;
	}
}

/* Pair-HMM: a region through both engines, compared bit for bit; 0 or -1. */
static int phmm_same(gvk_pairhmm_t *mine, gvk_pairhmm_t *srv, const region_t *g)
{
	gvk_pair_t pairs[24 * 8];
	double a[24 * 8], b[24 * 8];
	uint8_t ua[24 * 8], ub[24 * 8];
	size_t n = 0;
	for (int r = 0; r < g->nr; ++r)
		for (int h = 0; h < g->nh; ++h) pairs[n++] = (gvk_pair_t){r, h};
	gvk_pairhmm_out_t oa = {a, ua, NULL, NULL}, ob = {b, ub, NULL, NULL};
	gvk_err_t e1 = {0, ""}, e2 = {0, ""};
	int r1 = gvk_pairhmm_pairs(mine, g->reads, g->haps, pairs, n, &oa, &e1);
	int r2 = gvk_pairhmm_pairs(srv, g->reads, g->haps, pairs, n, &ob, &e2);
	if (r1 < 0 || r2 < 0) return fprintf(stderr, "pairhmm: %s / %s\n", e1.msg, e2.msg), -1;
	return memcmp(a, b, n * sizeof *a) || memcmp(ua, ub, n) ? -1 : 0;
}

typedef struct {
	gvk_align_pair_t p[16];
	char buf[16 * 700];
	size_t n;
} al_batch_t;

static void make_align(al_batch_t *b, uint64_t *s, int maxn, int maxlen)
{
	char *p = b->buf;
	b->n = 1 + (size_t)(rng(s) % (uint64_t)maxn);
	for (size_t k = 0; k < b->n; ++k) {
		int N = 1 + (int)(rng(s) % (uint64_t)maxlen), M = 1 + (int)(rng(s) % (uint64_t)maxlen);
		char *ref = p, *alt = p + N;
		for (int i = 0; i < N; ++i) ref[i] = "ACGT"[rng(s) % 4];
		for (int i = 0; i < M; ++i) alt[i] = rng(s) % 4 ? ref[(i + N / 3) % N] : "ACGT"[rng(s) % 4];
		gvk_sw_params_t par = {200, -150, -260, -11};
		if (rng(s) % 2) par = (gvk_sw_params_t){1 + (int)(rng(s) % 20), -(int)(rng(s) % 30), -(int)(rng(s) % 40), -(int)(rng(s) % 5)};
		b->p[k] = (gvk_align_pair_t){ref, alt, N, M, par, 9 + (int)(rng(s) % 4)};
		p += N + M;
	}
}

static int align_same(gvk_align_t *mine, gvk_align_t *srv, const al_batch_t *b)
{
	gvk_align_result_t a[16], r[16];
	gvk_err_t e1 = {0, ""}, e2 = {0, ""};
	if (gvk_align_batch(mine, b->p, b->n, a, &e1) < 0 || gvk_align_batch(srv, b->p, b->n, r, &e2) < 0)
		return fprintf(stderr, "align: %s / %s\n", e1.msg, e2.msg), -1;
	for (size_t k = 0; k < b->n; ++k)
		if (a[k].offset != r[k].offset || a[k].score != r[k].score || a[k].cigar_len != r[k].cigar_len || strcmp(a[k].cigar, r[k].cigar))
			return fprintf(stderr, "align pair %zu: %s %d %d / %s %d %d\n", k, a[k].cigar, a[k].offset, a[k].score, r[k].cigar,
			               r[k].offset, r[k].score), -1;
	return 0;
}

/* Warnings an engine said, counted (the fall-back must be said once). */
typedef struct {
	int warns;
	char last[512];
} said_t;

static void count_log(void *arg, int level, const char *msg)
{
	said_t *s = arg;
	if (level <= GVK_LOG_WARN) s->warns++, snprintf(s->last, sizeof s->last, "%s", msg);
}

static gvk_pairhmm_t *phmm_engine(int flavour, int dbl, const char *server, said_t *said)
{
	gvk_pairhmm_opts_t o;
	gvk_err_t err = {0, ""};
	gvk_pairhmm_opts_init(&o);
	o.flavour = flavour, o.force_double = dbl, o.device = server ? GVK_DEVICE_AUTO : GVK_DEVICE_CPU, o.server = server;
	if (said) o.log = (gvk_log_t){count_log, said, GVK_LOG_WARN};
	gvk_pairhmm_t *e = gvk_pairhmm_create(&o, &err);
	if (!e) fprintf(stderr, "gvk_pairhmm_create: %s\n", err.msg), exit(1);
	return e;
}

static gvk_align_t *align_engine(int flavour, int raw, const char *server, said_t *said)
{
	gvk_align_opts_t o;
	gvk_err_t err = {0, ""};
	gvk_align_opts_init(&o);
	o.flavour = flavour, o.raw = raw, o.device = server ? GVK_DEVICE_AUTO : GVK_DEVICE_CPU, o.server = server;
	o.server_min_work = 1; /* every batch to the server, the small ones of these tests too */
	if (said) o.log = (gvk_log_t){count_log, said, GVK_LOG_WARN};
	gvk_align_t *e = gvk_align_create(&o, &err);
	if (!e) fprintf(stderr, "gvk_align_create: %s\n", err.msg), exit(1);
	return e;
}

/* ---- protocol and faults ---- */

static void round_trips(void)
{
	uint64_t s = 12345;
	region_t g;
	for (int f = 0; f < 2; ++f)
		for (int d = 0; d < 2; ++d) {
			said_t said = {0, ""};
			gvk_pairhmm_t *mine = phmm_engine(f, d, NULL, NULL), *srv = phmm_engine(f, d, sock_path, &said);
			CHECK(!strncmp(gvk_pairhmm_device_name(srv), "server:", 7), "name %s", gvk_pairhmm_device_name(srv));
			int bad = 0;
			for (int k = 0; k < 60; ++k) make_region(&g, &s, 24, 8, 300), bad += phmm_same(mine, srv, &g) < 0;
			CHECK(bad == 0 && said.warns == 0, "Pair-HMM flavour %d double %d: %d regions differ, %d warnings (%s)", f, d, bad,
			      said.warns, said.last);
			gvk_pairhmm_destroy(mine), gvk_pairhmm_destroy(srv);
		}
	al_batch_t b;
	for (int f = 0; f < 2; ++f)
		for (int raw = 0; raw < 2; ++raw) {
			said_t said = {0, ""};
			gvk_align_t *mine = align_engine(f, raw, NULL, NULL), *srv = align_engine(f, raw, sock_path, &said);
			CHECK(!strncmp(gvk_align_device_name(srv), "server:", 7), "name %s", gvk_align_device_name(srv));
			int bad = 0;
			for (int k = 0; k < 60; ++k) make_align(&b, &s, 16, 300), bad += align_same(mine, srv, &b) < 0;
			CHECK(bad == 0 && said.warns == 0, "align flavour %d raw %d: %d batches differ, %d warnings", f, raw, bad, said.warns);
			gvk_align_destroy(mine), gvk_align_destroy(srv);
		}
	printf("round trips: Pair-HMM 4 x 60 regions, align 4 x 60 batches\n");
}

/* One raw message (with fd when >= 0); the reply's rc, or 1 when the server closed the connection. */
static int raw_call(int sock, const uint8_t *msg, size_t n, int fd, char *why)
{
	uint8_t buf[SRV_MSG_MAX];
	int rfd, trunc, rc = 0;
	why[0] = 0;
	if (srv_send(sock, msg, n, fd) < 0) return 1;
	ssize_t r = srv_recv(sock, buf, sizeof buf, &rfd, &trunc);
	if (r <= 0) return 1;
	gvk_err_t err = {0, ""};
	if (srv_get_reply(buf, (size_t)r, &rc, NULL, NULL, 0, &err) < 0) return snprintf(why, 512, "bad reply: %.400s", err.msg), 2;
	snprintf(why, 512, "%s", err.msg);
	return rc;
}

/* Replies carry the poll flag, and only replies: the server marks a lone client's reply, the
 * parser gives the flag back and refuses a flag it does not know. */
static void reply_flags(void)
{
	uint8_t msg[SRV_MSG_MAX], buf[SRV_MSG_MAX];
	uint32_t flags = 0;
	int rc = 1, rfd, trunc;
	gvk_err_t err = {0, ""};
	size_t n = srv_put_reply(msg, 0, "x", SRV_F_POLL);
	CHECK(srv_get_reply(msg, n, &rc, &flags, NULL, 0, &err) == 0 && rc == 0 && flags == SRV_F_POLL, "poll flag lost: %s", err.msg);
	n = srv_put_reply(msg, 0, "x", 4);
	CHECK(srv_get_reply(msg, n, &rc, &flags, NULL, 0, &err) < 0, "a reply with unknown flags was taken");
	int sock = try_connect();
	CHECK(sock >= 0, "cannot connect");
	if (sock < 0) return;
	ssize_t r = srv_send(sock, msg, srv_put_hdr(msg, SRV_OP_HELLO, 0, 0), -1) < 0 ? -1 : srv_recv(sock, buf, sizeof buf, &rfd, &trunc);
	flags = 0;
	CHECK(r > 0 && srv_get_reply(buf, (size_t)r, &rc, &flags, NULL, 0, &err) == 0 && (flags & SRV_F_POLL),
	      "a lone client's hello reply does not say poll (flags %u)", flags);
	close(sock);
	printf("reply flags: poll set for a lone client, unknown flags refused\n");
}

/* A good Pair-HMM call on a new connection still works. */
static void still_serving(const char *after)
{
	uint64_t s = 99;
	region_t g;
	make_region(&g, &s, 4, 2, 50);
	gvk_pairhmm_t *mine = phmm_engine(0, 0, NULL, NULL), *srv = phmm_engine(0, 0, sock_path, NULL);
	CHECK(!strncmp(gvk_pairhmm_device_name(srv), "server:", 7) && phmm_same(mine, srv, &g) == 0, "not serving after %s", after);
	gvk_pairhmm_destroy(mine), gvk_pairhmm_destroy(srv);
}

typedef struct {
	const char *name;
	size_t len;
	uint8_t msg[SRV_MSG_MAX + 64];
	int fd;      /* attached, or -1 */
	int reconnect; /* on a fresh connection, with no segment sent before */
} hostile_t;

/* A segment holding a valid one-pair Pair-HMM input; its size in *in. */
static int good_segment(uint64_t *in)
{
	static const char bases[] = "ACGTACGTAC";
	static const uint8_t q[10] = {30, 30, 30, 30, 30, 30, 30, 30, 30, 30};
	gvk_read_t r = {10, bases, q, q, q, q};
	gvk_hap_t h = {10, bases};
	gvk_pair_t p = {0, 0};
	srv_seg_t seg = SRV_SEG_INIT;
	*in = srv_phmm_in_size(&r, 1, &h, 1, 1);
	if (srv_seg_reserve(&seg, 4096, NULL) < 0) exit(1);
	srv_phmm_layout(seg.p, &r, 1, &h, 1, &p, 1);
	munmap(seg.p, seg.size);
	return seg.fd;
}

static void hostile(void)
{
	uint64_t in;
	int seg = good_segment(&in);
	srv_phmm_req_t good = {0, 0, 1, 1, 1, 1, in};
	uint8_t m[SRV_MSG_MAX];
	char why[512];
	/* The good call first, so that each case below changes one thing. */
	int sock = try_connect();
	size_t n = srv_put_phmm(m, &good, SRV_F_SEGMENT);
	CHECK(raw_call(sock, m, n, seg, why) == 0, "the good raw call fails: %s", why);
	close(sock);

	static hostile_t cases[40];
	int nc = 0;
#define CASE(nm) (cases[nc] = (hostile_t){nm, 0, {0}, -1, 0}, &cases[nc++])
	hostile_t *c;
	c = CASE("garbage bytes");
	for (int k = 0; k < 200; ++k) c->msg[k] = (uint8_t)(k * 37 + 11);
	c->len = 200;
	c = CASE("a message shorter than a header"), c->len = srv_put_phmm(c->msg, &good, 0) - 40;
	c = CASE("a truncated body"), c->len = srv_put_phmm(c->msg, &good, 0) - 8;
	c = CASE("a longer message than the header says"), c->len = srv_put_phmm(c->msg, &good, 0) + 8;
	c = CASE("wrong magic"), c->len = srv_put_phmm(c->msg, &good, 0), c->msg[0] ^= 1;
	c = CASE("wrong version"), c->len = srv_put_phmm(c->msg, &good, 0), c->msg[4] = 9;
	c = CASE("an unknown operation"), c->len = srv_put_phmm(c->msg, &good, 0), c->msg[6] = 77;
	c = CASE("a reply sent as a request"), c->len = srv_put_reply(c->msg, 0, "x", 0);
	c = CASE("unknown flags"), c->len = srv_put_phmm(c->msg, &good, 0), c->msg[12] = 0x10;
	c = CASE("a reply's poll flag on a request"), c->len = srv_put_phmm(c->msg, &good, SRV_F_POLL);
	c = CASE("a message over the size limit"), c->len = SRV_MSG_MAX + 40, srv_put_hdr(c->msg, SRV_OP_HELLO, SRV_MSG_MAX + 24, 0);
	c = CASE("the segment flag without a descriptor"), c->len = srv_put_phmm(c->msg, &good, SRV_F_SEGMENT);
	c = CASE("a descriptor without the segment flag"), c->len = srv_put_phmm(c->msg, &good, 0), c->fd = seg;
	int pfd[2];
	if (pipe(pfd) < 0) exit(1);
	c = CASE("a pipe as the segment"), c->len = srv_put_phmm(c->msg, &good, SRV_F_SEGMENT), c->fd = pfd[0], c->reconnect = 1;
	c = CASE("a request before any segment"), c->len = srv_put_phmm(c->msg, &good, 0), c->reconnect = 1;
	srv_phmm_req_t q;
	q = good, q.n_reads = (uint64_t)-1;
	c = CASE("a negative count of reads"), c->len = srv_put_phmm(c->msg, &q, 0);
	q = good, q.n_pairs = (uint64_t)1 << 40;
	c = CASE("a huge count of pairs"), c->len = srv_put_phmm(c->msg, &q, 0);
	q = good, q.n_pairs = 1000;
	c = CASE("tables larger than the input area"), c->len = srv_put_phmm(c->msg, &q, 0);
	q = good, q.in_size = 2 << 20;
	c = CASE("an input area past the segment's end"), c->len = srv_put_phmm(c->msg, &q, 0);
	q = good, q.in_size = (uint64_t)-8;
	c = CASE("an input area of 2^64 - 8 bytes"), c->len = srv_put_phmm(c->msg, &q, 0);
	q = good, q.n_reads = 2;
	c = CASE("a read descriptor past the input area"), c->len = srv_put_phmm(c->msg, &q, 0);
	q = good, q.flavour = 7;
	c = CASE("a flavour out of range"), c->len = srv_put_phmm(c->msg, &q, 0);
	srv_align_req_t a = {0, 0, 1, 48, 10};
	c = CASE("align: lengths past the input area"), c->len = srv_put_align(c->msg, &a, 0);
	a.n_pairs = (uint64_t)1 << 62;
	c = CASE("align: a huge count"), c->len = srv_put_align(c->msg, &a, 0);
	int nfixed = nc;
	for (int k = 0; k < nfixed; ++k) {
		c = &cases[k];
		int s2 = try_connect();
		/* Most cases follow a good call that sent the segment, so that they meet the checks after it. */
		if (!c->reconnect) {
			n = srv_put_phmm(m, &good, SRV_F_SEGMENT);
			CHECK(raw_call(s2, m, n, seg, why) == 0, "%s: the call before fails: %s", c->name, why);
		}
		int rc = raw_call(s2, c->msg, c->len, c->fd, why);
		CHECK(rc < 0 || rc == 1, "%s: answered %d (%s)", c->name, rc, why);
		close(s2);
	}
	close(pfd[0]), close(pfd[1]);
	still_serving("the malformed requests");

	/* Bad descriptors inside a well-formed request: a read past the area, a pair out of range. */
	uint8_t *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, seg, 0);
	const int nbad = 4;
	for (int k = 0; k < nbad; ++k) {
		uint8_t save[64];
		memcpy(save, p, sizeof save);
		if (k == 0) { uint32_t v = 0xffffffffu; memcpy(p + 8, &v, 4); }          /* read length 2^32 - 1 */
		if (k == 1) { uint64_t v = (uint64_t)-5; memcpy(p, &v, 8); }            /* read offset near 2^64 */
		if (k == 2) { int32_t v = -1; memcpy(p + 32, &v, 4); }                  /* pair's read -1 */
		if (k == 3) { uint32_t v = 0; memcpy(p + 24, &v, 4); }                  /* haplotype length 0 */
		int s2 = try_connect();
		n = srv_put_phmm(m, &good, SRV_F_SEGMENT);
		int rc = raw_call(s2, m, n, seg, why);
		CHECK(rc < 0, "bad descriptor %d: answered %d", k, rc);
		close(s2);
		memcpy(p, save, sizeof save);
	}
	munmap(p, 4096);

	/* A segment shrunk after it was sent. */
	int s2 = try_connect();
	n = srv_put_phmm(m, &good, SRV_F_SEGMENT);
	CHECK(raw_call(s2, m, n, seg, why) == 0, "shrink: the first call fails: %s", why);
	if (ftruncate(seg, 16) < 0) exit(1);
	n = srv_put_phmm(m, &good, 0);
	int rc = raw_call(s2, m, n, -1, why);
	CHECK(rc < 0 && strstr(why, "segment holds"), "a shrunk segment: answered %d (%s)", rc, why);
	if (ftruncate(seg, 0) < 0) exit(1);
	rc = raw_call(s2, m, n, -1, why);
	CHECK(rc < 0, "an empty segment: answered %d (%s)", rc, why);
	close(s2);
	close(seg);
	still_serving("a shrunk segment");
	printf("hostile requests: %d kinds, each refused; the server serves on\n", nfixed + nbad + 2);
}

/* A client killed in the middle of a long call. */
static void killed_client(pid_t server)
{
	int go[2];
	if (pipe(go) < 0) exit(1);
	pid_t pid = (fflush(NULL), fork());
	if (pid == 0) {
		/* About 100 M cells or more: long enough to be killed in it. */
		static region_t g;
		uint64_t s = 7;
		make_region(&g, &s, 24, 8, 1000);
		gvk_pairhmm_t *srv = phmm_engine(0, 0, sock_path, NULL);
		gvk_pair_t pairs[24 * 8 * 4];
		size_t n = 0;
		for (int k = 0; k < 4; ++k)
			for (int r = 0; r < g.nr; ++r)
				for (int h = 0; h < g.nh; ++h) pairs[n++] = (gvk_pair_t){r, h};
		static double out[24 * 8 * 4];
		gvk_pairhmm_out_t o = {out, NULL, NULL, NULL};
		if (write(go[1], "x", 1) < 0) _exit(3);
		gvk_pairhmm_pairs(srv, g.reads, g.haps, pairs, n, &o, NULL);
		_exit(0);
	}
	char x;
	if (read(go[0], &x, 1) < 0) exit(1);
	usleep(20000);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(go[0]), close(go[1]);
	CHECK(alive(server), "the server died with its client");
	still_serving("a client killed mid-call");
	printf("a client killed mid-call: the server serves on\n");
}

/* SIGTERM while a call is computed: the call finishes and its client gets the server's answer
 * (no fall-back), then the server exits 0 and removes its socket. */
static void stop_in_flight(const char *gvk)
{
	pid_t server = start_server(gvk);
	int go[2];
	if (pipe(go) < 0) exit(1);
	pid_t pid = (fflush(NULL), fork());
	if (pid == 0) {
		static region_t g;
		uint64_t s = 11;
		make_region(&g, &s, 24, 8, 1000);
		said_t said = {0, ""};
		gvk_pairhmm_t *mine = phmm_engine(0, 0, NULL, NULL), *srv = phmm_engine(0, 0, sock_path, &said);
		static gvk_pair_t pairs[24 * 8];
		static double a[24 * 8], b[24 * 8];
		size_t n = 0;
		for (int r = 0; r < g.nr; ++r)
			for (int h = 0; h < g.nh; ++h) pairs[n++] = (gvk_pair_t){r, h};
		gvk_pairhmm_out_t oa = {a, NULL, NULL, NULL}, ob = {b, NULL, NULL, NULL};
		if (write(go[1], "x", 1) < 0) _exit(3);
		/* The server's call first, so that the signal finds it in flight. */
		int r1 = gvk_pairhmm_pairs(srv, g.reads, g.haps, pairs, n, &ob, NULL);
		int r2 = gvk_pairhmm_pairs(mine, g.reads, g.haps, pairs, n, &oa, NULL);
		_exit(r1 || r2 || memcmp(a, b, n * sizeof *a) ? 1 : said.warns ? 2 : 0);
	}
	char x;
	if (read(go[0], &x, 1) < 0) exit(1);
	usleep(5000);
	kill(server, SIGTERM);
	int st, cst;
	waitpid(pid, &cst, 0);
	waitpid(server, &st, 0);
	close(go[0]), close(go[1]);
	CHECK(WIFEXITED(cst) && WEXITSTATUS(cst) == 0, "the call in flight at SIGTERM: client status %d (1: values differ, 2: fell back)", cst);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the server's status %d after SIGTERM", st);
	CHECK(access(sock_path, F_OK) != 0, "the socket is left after SIGTERM");
	printf("SIGTERM during a call: the call finished, the server exited 0 and removed its socket\n");
}

/* The server killed under a client: the client says so once and computes the same on its own. */
/* A client's start never waits for the server: against a socket that nobody accepts on, with a
 * device file beside it, an engine is made at once and named after that file. When the listener
 * then goes without a word, the first call says the server cannot be used, once, and computes on
 * the CPU. */
static void deferred_hello(void)
{
	char sp[sizeof sock_path + 8], dev[sizeof sp + 16];
	snprintf(sp, sizeof sp, "%s.mute", sock_path);
	snprintf(dev, sizeof dev, "%s.device", sp);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	CHECK(strlen(sp) < sizeof sa.sun_path, "socket path too long: %s", sp);
	memcpy(sa.sun_path, sp, strlen(sp) < sizeof sa.sun_path ? strlen(sp) : 0);
	int ls = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	FILE *fp = fopen(dev, "w");
	CHECK(ls >= 0 && bind(ls, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(ls, 4) == 0 && fp, "a silent listener: %s",
	      strerror(errno));
	if (fp) fputs("gpu:TEST\n", fp), fclose(fp);
	said_t said = {0, ""};
	gvk_pairhmm_t *mine = phmm_engine(0, 0, NULL, NULL), *srv = phmm_engine(0, 0, sp, &said);
	CHECK(!strcmp(gvk_pairhmm_device_name(srv), "server:gpu:TEST"), "named %s", gvk_pairhmm_device_name(srv));
	close(ls);
	uint64_t s = 8;
	region_t g;
	make_region(&g, &s, 8, 4, 100);
	CHECK(phmm_same(mine, srv, &g) == 0 && said.warns == 1 && strstr(said.last, "cannot be used") &&
	          strstr(said.last, "did not accept"), "a listener gone before its hello: %d warnings (%s)", said.warns, said.last);
	make_region(&g, &s, 8, 4, 100);
	CHECK(phmm_same(mine, srv, &g) == 0 && said.warns == 1, "the next call: %d warnings", said.warns);
	gvk_pairhmm_destroy(mine), gvk_pairhmm_destroy(srv);
	unlink(sp), unlink(dev);
	printf("deferred hello: the engine made without an answer, the listener's silence said at the first call\n");
}

static void server_gone(pid_t server)
{
	said_t said = {0, ""};
	gvk_pairhmm_t *mine = phmm_engine(0, 0, NULL, NULL), *srv = phmm_engine(0, 0, sock_path, &said);
	gvk_align_t *amine = align_engine(0, 0, NULL, NULL), *asrv = align_engine(0, 0, sock_path, &said);
	uint64_t s = 5;
	region_t g;
	al_batch_t b;
	int bad = 0;
	for (int k = 0; k < 30; ++k) {
		if (k == 10) kill(server, SIGKILL), waitpid(server, NULL, 0);
		make_region(&g, &s, 8, 4, 100), bad += phmm_same(mine, srv, &g) < 0;
		make_align(&b, &s, 8, 100), bad += align_same(amine, asrv, &b) < 0;
	}
	CHECK(bad == 0, "%d calls differ after the server went", bad);
	CHECK(said.warns == 2 && strstr(said.last, "stopped answering"), "%d warnings (%s)", said.warns, said.last);
	CHECK(!strncmp(gvk_pairhmm_device_name(srv), "cpu-", 4), "Pair-HMM still named %s", gvk_pairhmm_device_name(srv));
	gvk_pairhmm_destroy(mine), gvk_pairhmm_destroy(srv), gvk_align_destroy(amine), gvk_align_destroy(asrv);
	/* No server at all: said at creation, once. */
	said = (said_t){0, ""};
	srv = phmm_engine(0, 0, sock_path, &said);
	mine = phmm_engine(0, 0, NULL, NULL);
	make_region(&g, &s, 8, 4, 100);
	CHECK(phmm_same(mine, srv, &g) == 0 && said.warns == 1 && strstr(said.last, "cannot be used"), "no server: %d warnings (%s)",
	      said.warns, said.last);
	gvk_pairhmm_destroy(mine), gvk_pairhmm_destroy(srv);
	printf("the server gone: each engine said so once and computed the same on the CPU\n");
}

/* ---- load ---- */

/* One client process: calls of its own, each checked against a private engine. Exit 0, 1 on a
 * difference, 2 when it fell back (the server must serve every survivor). */
static int client_main(int id, int calls)
{
	uint64_t s = 0x9e3779b97f4a7c15ull * (uint64_t)(id + 1);
	said_t said = {0, ""};
	gvk_pairhmm_t *mine = phmm_engine(0, 0, NULL, NULL), *srv = phmm_engine(0, 0, sock_path, &said);
	gvk_align_t *amine = align_engine(0, 1, NULL, NULL), *asrv = align_engine(0, 1, sock_path, &said);
	region_t g;
	al_batch_t b;
	int bad = 0;
	for (int k = 0; k < calls && !bad; ++k) {
		if (k % 4 == 3) make_align(&b, &s, 3, 40), bad += align_same(amine, asrv, &b) < 0;
		else make_region(&g, &s, 4, 3, 40), bad += phmm_same(mine, srv, &g) < 0;
	}
	int rc = bad ? 1 : said.warns ? 2 : 0;
	if (rc == 2) fprintf(stderr, "client %d: %s\n", id, said.last);
	gvk_pairhmm_destroy(mine), gvk_pairhmm_destroy(srv), gvk_align_destroy(amine), gvk_align_destroy(asrv);
	return rc;
}

/* n clients at once, `kills` of them killed at random times; returns the survivors that failed. */
static int run_clients(int n, int calls, int kills, uint64_t *s)
{
	pid_t pids[1024];
	int failed = 0, killed = 0;
	for (int k = 0; k < n; ++k)
		if ((pids[k] = (fflush(NULL), fork())) == 0) _exit(client_main(k, calls));
	for (int k = 0; k < kills; ++k) {
		usleep((useconds_t)(rng(s) % 200000));
		kill(pids[rng(s) % (uint64_t)n], SIGKILL);
	}
	for (int k = 0; k < n; ++k) {
		int st;
		waitpid(pids[k], &st, 0);
		if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) ++killed;
		else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) ++failed, fprintf(stderr, "client %d: status %d\n", k, st);
	}
	printf("%d clients x %d calls: %d killed, %d survivors failed\n", n, calls, killed, failed);
	return failed;
}

/* ---- the service embedded through gvk.h ---- */

typedef struct {
	gvk_serve_t *s;
	int rc;
	gvk_err_t err;
} serve_run_t;

static void *serve_main(void *arg)
{
	serve_run_t *r = arg;
	r->rc = gvk_serve_run(r->s, &r->err);
	return NULL;
}

/* Each bad field of gvk_serve_opts_t alone: GVK_ERR_ARG naming it. */
static void serve_opts_checks(void)
{
	static const char *fields[] = {"socket", "device", "threads", "gpu", "group", "max_clients", "merge_contexts",
	                               "merge_wait_us", "gpu_wait", "poll_clients"};
	for (int k = 0; k < 10; ++k) {
		gvk_serve_opts_t o;
		gvk_serve_opts_init(&o);
		o.socket = sock_path;
		switch (k) {
		case 0: o.socket = NULL; break;
		case 1: o.device = 7; break;
		case 2: o.threads = -1; break;
		case 3: o.gpu = -2; break;
		case 4: o.group = -5; break;
		case 5: o.max_clients = -1; break;
		case 6: o.merge_contexts = 17; break;
		case 7: o.merge_wait_us = -1; break;
		case 8: o.gpu_wait = 9; break;
		default: o.poll_clients = -2; break;
		}
		gvk_err_t err = {0, ""};
		CHECK(gvk_serve_opts_check(&o, &err) == GVK_ERR_ARG && strstr(err.msg, fields[k]), "bad %s: '%s'", fields[k], err.msg);
		CHECK(gvk_serve_create(&o, &err) == NULL && err.code == GVK_ERR_ARG, "gvk_serve_create took a bad %s", fields[k]);
	}
	gvk_serve_opts_t o;
	gvk_serve_opts_init(&o);
	o.socket = sock_path;
	CHECK(gvk_serve_opts_check(&o, NULL) == 0, "the defaults with a socket do not pass");
}

/* A service made, run on a thread, used by client engines and stopped, all through gvk.h: the
 * clients' values are a private engine's, a second service on the socket is refused, the summary
 * counts the clients and calls, and the socket is gone after the stop. */
static void serve_api(void)
{
	serve_opts_checks();
	char dir[4200];
	gvk_err_t err = {0, ""};
	struct stat st;
	CHECK(gvk_serve_user_dir(dir_path, (unsigned)getuid(), dir, sizeof dir, &err) == 0 && stat(dir, &st) == 0 &&
	          S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700 && strstr(dir, dir_path) == dir,
	      "gvk_serve_user_dir: %s (%s)", dir, err.msg);
	gvk_serve_opts_t o;
	gvk_serve_opts_init(&o);
	o.socket = sock_path, o.device = GVK_DEVICE_CPU, o.threads = 2;
	serve_run_t r = {gvk_serve_create(&o, &err), 0, {0, ""}};
	CHECK(r.s != NULL, "gvk_serve_create: %s", err.msg);
	if (!r.s) return;
	gvk_serve_t *second = gvk_serve_create(&o, &err);
	CHECK(!second && err.code == GVK_ERR_IO, "a second service on the same socket: %s", second ? "made" : err.msg);
	gvk_serve_destroy(second);
	pthread_t th;
	CHECK(pthread_create(&th, NULL, serve_main, &r) == 0, "no thread for the service");
	uint64_t s = 777;
	region_t g;
	al_batch_t b;
	gvk_pairhmm_t *mine = phmm_engine(0, 0, NULL, NULL), *srv = phmm_engine(0, 0, sock_path, NULL);
	gvk_align_t *amine = align_engine(0, 0, NULL, NULL), *asrv = align_engine(0, 0, sock_path, NULL);
	CHECK(!strncmp(gvk_pairhmm_device_name(srv), "server:", 7), "the client computes on %s", gvk_pairhmm_device_name(srv));
	int bad = 0;
	for (int k = 0; k < 20; ++k) {
		make_region(&g, &s, 24, 8, 300), bad += phmm_same(mine, srv, &g) < 0;
		make_align(&b, &s, 16, 300), bad += align_same(amine, asrv, &b) < 0;
	}
	CHECK(bad == 0, "%d calls through the embedded service differ from a private engine's", bad);
	gvk_serve_summary_t m;
	gvk_serve_summary(r.s, &m);
	CHECK(m.clients >= 2 && m.calls[0] >= 20 && m.calls[1] >= 20 && m.errors == 0 && !strncmp(m.device, "cpu-", 4),
	      "summary: %llu clients, %llu + %llu calls, %llu errors, device '%s'", (unsigned long long)m.clients,
	      (unsigned long long)m.calls[0], (unsigned long long)m.calls[1], (unsigned long long)m.errors, m.device);
	gvk_pairhmm_destroy(srv), gvk_align_destroy(asrv), gvk_pairhmm_destroy(mine), gvk_align_destroy(amine);
	gvk_serve_stop(r.s);
	pthread_join(th, NULL);
	CHECK(r.rc == 0, "gvk_serve_run: %s", r.err.msg);
	CHECK(access(sock_path, F_OK) != 0, "the socket is left after the stop");
	gvk_serve_destroy(r.s);
	rmdir(dir);
	printf("the service through gvk.h: options checked field by field, 40 calls equal to private engines', a second "
	       "service refused, stopped cleanly\n");
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_serve GVK proto | load N CALLS KILLS | lock | api\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	snprintf(dir_path, sizeof dir_path, "/tmp/gvk-serve-test-XXXXXX");
	if (!mkdtemp(dir_path)) return perror("mkdtemp"), 1;
	snprintf(sock_path, sizeof sock_path, "%s/s.sock", dir_path);
	const char *mode = argv[2];
	if (!strcmp(mode, "lock")) {
		char lk[128];
		int fd, fd2, won;
		snprintf(lk, sizeof lk, "%s/gpu.lock", dir_path);
		CHECK(gvk_gpu_lock_take(lk, &fd, NULL) == 1, "the first process does not get the lock");
		CHECK(gvk_gpu_lock_take(lk, &fd2, NULL) == 1, "a second engine of the same process does not share it");
		pid_t pid = (fflush(NULL), fork());
		if (pid == 0) _exit(gvk_gpu_lock_take(lk, &won, NULL) == 0 ? 0 : 1);
		int st;
		waitpid(pid, &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "another process got the lock too");
		gvk_gpu_lock_release(fd2), gvk_gpu_lock_release(fd);
		if ((pid = (fflush(NULL), fork())) == 0) _exit(gvk_gpu_lock_take(lk, &won, NULL) == 1 ? 0 : 1);
		waitpid(pid, &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the lock is not free once released");
		CHECK(gvk_gpu_lock_take("/nonexistent-dir/gpu.lock", &won, NULL) < 0, "a lock that cannot be made");
		printf("GPU lock: held by one process, refused to another, free after\n");
		if (gvk_pairhmm_gpu_count() > 0) {
			/* Engines in device auto: the first process's shared engine takes the GPU, another
			 * process's stays on its CPU and says so once. */
			gvk_pairhmm_opts_t po;
			gvk_pairhmm_opts_init(&po);
			po.shared = 1, po.gpu_lock = lk;
			gvk_pairhmm_t *e = gvk_pairhmm_create(&po, NULL);
			CHECK(e && !strncmp(gvk_pairhmm_device_name(e), "gpu:", 4), "the first engine is on %s", e ? gvk_pairhmm_device_name(e) : "nothing");
			if ((pid = (fflush(NULL), fork())) == 0) {
				said_t said = {0, ""};
				po.log = (gvk_log_t){count_log, &said, GVK_LOG_WARN};
				gvk_pairhmm_t *e2 = gvk_pairhmm_create(&po, NULL);
				int ok = e2 && !strncmp(gvk_pairhmm_device_name(e2), "cpu-", 4) && said.warns == 1 && strstr(said.last, "GPU lock");
				_exit(ok ? 0 : 1);
			}
			waitpid(pid, &st, 0);
			CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a second process's engine took the GPU or said nothing");
			gvk_pairhmm_destroy(e);
			printf("GPU lock: a second process's engine in device auto stays on the CPU\n");
		}
	} else if (!strcmp(mode, "api")) {
		serve_api();
	} else if (!strcmp(mode, "proto")) {
		pid_t server = start_server(argv[1]);
		round_trips();
		reply_flags();
		hostile();
		killed_client(server);
		deferred_hello();
		CHECK(alive(server), "the server died");
		server_gone(server);
		stop_in_flight(argv[1]);
	} else if (!strcmp(mode, "load") && argc >= 6) {
		int n = atoi(argv[3]), calls = atoi(argv[4]), kills = atoi(argv[5]);
		uint64_t s = 2024;
		pid_t server = start_server(argv[1]);
		failures += run_clients(n, calls / 20 + 1, 0, &s);
		long before = rss_kb(server);
		failures += run_clients(n, calls, kills, &s);
		failures += run_clients(n, calls / 10 + 1, 0, &s);
		long after = rss_kb(server);
		printf("server resident memory: %ld kB before, %ld kB after\n", before, after);
		CHECK(alive(server), "the server died");
#ifndef __SANITIZE_ADDRESS__ /* AddressSanitizer's quarantine keeps freed memory resident */
		CHECK(after <= before + before / 4 + 8192, "resident memory grew from %ld to %ld kB", before, after);
#endif
		kill(server, SIGTERM);
		int st;
		waitpid(server, &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the server's exit status %d after SIGTERM", st);
		CHECK(access(sock_path, F_OK) != 0, "the socket is left after SIGTERM");
		char cmd[256];
		snprintf(cmd, sizeof cmd, "grep -v connected %s/serve.log", dir_path);
		if (system(cmd) != 0) CHECK(0, "no summary from the server");
	} else {
		fprintf(stderr, "unknown mode %s\n", mode);
		return 2;
	}
	char cmd[256];
	if (failures) {
		snprintf(cmd, sizeof cmd, "tail -20 %s/serve.log >&2", dir_path);
		if (system(cmd) != 0) fprintf(stderr, "(no server log)\n");
	}
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir_path);
	if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir_path);
	printf("%s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
