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

/* The service's calls are gvk.h's (gvk_serve_*); these are its internal names. */
typedef gvk_serve_opts_t srv_opts_t;
typedef gvk_serve_summary_t srv_summary_t;
typedef gvk_serve_t srv_server_t;

#ifdef __cplusplus
}
#endif

#endif
