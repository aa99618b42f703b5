/* SPDX-License-Identifier: MIT */
/* gvk serve's transport: shared-memory segments (memfd) on the client's side, and messages with
 * an optional file descriptor over a SOCK_SEQPACKET Unix socket on both sides. */
#ifndef GVK_SERVE_SHM_H
#define GVK_SERVE_SHM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gvk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A client's segment: fd and its mapping; sent = the server has this fd already. */
typedef struct {
	int fd;
	uint8_t *p;
	size_t size;
	int sent;
} srv_seg_t;

#define SRV_SEG_INIT {-1, NULL, 0, 0}

/* Makes the segment hold at least need bytes: a larger one replaces it (to be sent again). */
int srv_seg_reserve(srv_seg_t *s, size_t need, gvk_err_t *err);
void srv_seg_free(srv_seg_t *s);

/* Sends one message, with fd attached when fd >= 0. Returns 0 or -1 (errno set). */
int srv_send(int sock, const uint8_t *msg, size_t n, int fd);
/* Receives one message into buf: its length, 0 at the end of the connection, -1 on error. *fd is
 * the descriptor it carried, or -1 (extra ones are closed); *trunc is set when the message did not
 * fit in cap bytes or its descriptors were cut. */
ssize_t srv_recv(int sock, uint8_t *buf, size_t cap, int *fd, int *trunc);
/* srv_recv, polling without sleeping for up to poll_us microseconds first: a peer that answers
 * within that time is not paid a sleep and a wake-up. */
ssize_t srv_recv_poll(int sock, uint8_t *buf, size_t cap, int *fd, int *trunc, int poll_us);

#ifdef __cplusplus
}
#endif

#endif
