/* SPDX-License-Identifier: MIT */
/* The client side of gvk serve, used by the engines when their options name a server: one
 * connection per caller at a time, one round trip per call (serve_proto.h). */
#ifndef GVK_SERVE_CLIENT_H
#define GVK_SERVE_CLIENT_H

#include <stddef.h>

#include "gvk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A call that could not reach the server, or whose connection broke: the caller computes on its
 * own (err says why). Never returned by the public API. */
#define SRV_GONE (-100)
/* A call too large for the protocol (4 GiB of input or output): the caller computes this one
 * itself and keeps the server for the others. */
#define SRV_LOCAL (-101)
/* The server did not accept this client (another user, another version, too many clients): the
 * first call says so, as the caller computes on its own from then on. */
#define SRV_REFUSED (-102)

/* How an engine words a failed call's code: the server did not take this client, or went away. */
static inline const char *srv_failure(int rc) { return rc == SRV_REFUSED ? "cannot be used" : "stopped answering"; }

typedef struct srv_client_s srv_client_t;

/* Connects to the server at path and says hello; NULL with err set when nothing listens there.
 * Whether the server accepts this client (user, version, room) is known with the first call,
 * which then fails with SRV_REFUSED; the connect itself never waits for the server. */
srv_client_t *srv_client_connect(const char *path, gvk_err_t *err);
void srv_client_close(srv_client_t *c);
/* What the server computes on ("gpu:NAME", "cpu-avx512"), from the file it writes beside its
 * socket (srv_device_file), or from its reply to the hello when there is no such file. */
const char *srv_client_device(const srv_client_t *c);

/* One Pair-HMM call: out->log10 (and used_double when not NULL) for n pairs. 0, a negative code
 * the server answered (err set), SRV_GONE or SRV_LOCAL. */
int srv_client_pairhmm(srv_client_t *c, int flavour, int force_double, const gvk_read_t *reads, const gvk_hap_t *haps,
                       const gvk_pair_t *pairs, size_t n, gvk_pairhmm_out_t *out, gvk_err_t *err);
/* One align call; each out[k].cigar points into the connection's segment, valid until its next
 * call. */
int srv_client_align(srv_client_t *c, int flavour, int raw, const gvk_align_pair_t *pairs, size_t n,
                     gvk_align_result_t *out, gvk_err_t *err);

/* Connections kept for reuse by an engine that many threads call at once. */
typedef struct srv_clients_s srv_clients_t;
srv_clients_t *srv_clients_create(const char *path);
void srv_clients_destroy(srv_clients_t *p);
/* A connection from the list, or a new one (NULL with err set when it cannot be made). */
srv_client_t *srv_clients_take(srv_clients_t *p, gvk_err_t *err);
/* Gives a connection back; broken = 1 closes it instead. */
void srv_clients_give(srv_clients_t *p, srv_client_t *c, int broken);

#ifdef __cplusplus
}
#endif

#endif
