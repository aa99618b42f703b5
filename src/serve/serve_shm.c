/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../common/err.h"
#include "../common/threads.h"
#include "serve_shm.h"

int srv_seg_reserve(srv_seg_t *s, size_t need, gvk_err_t *err)
{
	if (need <= s->size && s->p) return 0;
	size_t size = s->size * 2 > need ? s->size * 2 : need;
	if (size < ((size_t)1 << 20)) size = (size_t)1 << 20;
	size = (size + 4095) & ~(size_t)4095;
	int fd = memfd_create("gvk-serve", MFD_CLOEXEC);
	if (fd < 0) return gvk_err_set(err, GVK_ERR_IO, "memfd_create: %s", strerror(errno));
	if (ftruncate(fd, (off_t)size) < 0) {
		int e = errno;
		close(fd);
		return gvk_err_set(err, GVK_ERR_NOMEM, "a shared segment of %zu bytes: %s", size, strerror(e));
	}
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		int e = errno;
		close(fd);
		return gvk_err_set(err, GVK_ERR_NOMEM, "mapping a shared segment of %zu bytes: %s", size, strerror(e));
	}
	srv_seg_free(s);
	s->fd = fd, s->p = p, s->size = size, s->sent = 0;
	return 0;
}

void srv_seg_free(srv_seg_t *s)
{
	if (s->p) munmap(s->p, s->size);
	if (s->fd >= 0) close(s->fd);
	s->fd = -1, s->p = NULL, s->size = 0, s->sent = 0;
}

int srv_send(int sock, const uint8_t *msg, size_t n, int fd)
{
	struct iovec iov = {(void *)msg, n};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh;
	memset(&mh, 0, sizeof mh);
	mh.msg_iov = &iov, mh.msg_iovlen = 1;
	if (fd >= 0) {
		memset(&u, 0, sizeof u);
		mh.msg_control = u.buf, mh.msg_controllen = sizeof u.buf;
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET, c->cmsg_type = SCM_RIGHTS, c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof fd);
	}
	ssize_t r;
	do r = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	if (r < 0) return -1;
	if ((size_t)r != n) return errno = EMSGSIZE, -1;
	return 0;
}

static ssize_t recv_once(int sock, uint8_t *buf, size_t cap, int *fd, int *trunc, int flags)
{
	struct iovec iov = {buf, cap};
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh;
	memset(&mh, 0, sizeof mh);
	mh.msg_iov = &iov, mh.msg_iovlen = 1;
	mh.msg_control = u.buf, mh.msg_controllen = sizeof u.buf;
	*fd = -1, *trunc = 0;
	ssize_t r;
	do r = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | flags);
	while (r < 0 && errno == EINTR);
	if (r < 0) return -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
		size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t k = 0; k < nfd; ++k) {
			int f;
			memcpy(&f, CMSG_DATA(c) + k * sizeof(int), sizeof f);
			if (*fd < 0) *fd = f;
			else close(f), *trunc = 1;
		}
	}
	if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) *trunc = 1;
	return r;
}

ssize_t srv_recv(int sock, uint8_t *buf, size_t cap, int *fd, int *trunc)
{
	return recv_once(sock, buf, cap, fd, trunc, 0);
}

ssize_t srv_recv_poll(int sock, uint8_t *buf, size_t cap, int *fd, int *trunc, int poll_us)
{
	if (poll_us > 0) {
		const double until = gvk_seconds() + poll_us * 1e-6;
		do {
			ssize_t r = recv_once(sock, buf, cap, fd, trunc, MSG_DONTWAIT);
			if (r >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) return r;
		} while (gvk_seconds() < until);
	}
	return recv_once(sock, buf, cap, fd, trunc, 0);
}
