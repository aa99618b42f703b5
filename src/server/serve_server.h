/* SPDX-License-Identifier: MIT */
/* gvk serve: one process per host owns the GPUs and runs the shared engines; every client
 * process's calls go into them and are merged into large launches. One thread per connection
 * reads a request, computes it through the engine its options need (Pair-HMM: a shared engine per
 * flavour and precision; align: engines behind a merge queue per flavour and mode), writes the
 * results into the client's segment and replies. A bad request gets an error reply, garbage a
 * closed connection; neither touches another client. */
#ifndef GVK_SERVE_SERVER_H
#define GVK_SERVE_SERVER_H

#include <stdint.h>

#include "gvk.h"
#include "../pairhmm/pairhmm_merge.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
	const char *socket; /* path of the socket (its directory must exist) */
	int device;         /* gvk_device_t of the engines */
	int threads;        /* CPU threads of each engine (< 1: all processors) */
	int gpu;            /* gvk_pairhmm_opts_t.gpu */
	long group;         /* a group id whose members may connect (socket 0660), or -1 (0600) */
	int max_clients;    /* connections at once (0: 1024) */
	int merge_contexts; /* Pair-HMM merged batches in flight (0: the library's default) */
	int merge_wait_us;  /* how long a merged batch waits for more calls (gvk_pairhmm_opts_t) */
	int gpu_wait;       /* gvk_gpu_wait_t: how the engines' threads wait for the GPU (GPU builds) */
	int poll_clients;   /* up to this many connections, connection threads and clients poll for the
	                     * next message instead of sleeping (0: a quarter of the processors; -1: never) */
	gvk_log_t log;      /* connects and disconnects (GVK_LOG_INFO), refused peers (GVK_LOG_WARN) */
} srv_opts_t;

typedef struct {
	uint64_t clients, refused, calls[2], pairs[2], errors;
	phmm_merge_stats_t merge[2]; /* [0] Pair-HMM, [1] align */
	char device[128];
} srv_summary_t;

typedef struct srv_server_s srv_server_t;

/* Binds the socket: refuses (GVK_ERR_IO) when a live server holds it, replaces a stale one. NULL
 * with err set on failure. */
srv_server_t *srv_server_create(const srv_opts_t *o, gvk_err_t *err);
/* Serves until srv_server_stop, then lets the calls in flight finish, closes every connection
 * and removes the socket. 0 or an error code. */
int srv_server_run(srv_server_t *s, gvk_err_t *err);
/* Asks srv_server_run to return; safe from any thread. */
void srv_server_stop(srv_server_t *s);
void srv_server_summary(srv_server_t *s, srv_summary_t *sum);
void srv_server_destroy(srv_server_t *s);

#ifdef __cplusplus
}
#endif

#endif
