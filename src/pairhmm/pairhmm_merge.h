/* SPDX-License-Identifier: MIT */
/* Many callers, one engine: calls of a shared Pair-HMM engine queue here, and whichever caller
 * finds a free context leads: it takes every queued call (up to a pair budget), has the engine
 * compute them as one batch, and wakes their callers. While one leader's batch is on the GPU the
 * next calls queue up, so the launches grow with the load without a fixed wait. */
#ifndef GVK_PAIRHMM_MERGE_H
#define GVK_PAIRHMM_MERGE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "gvk.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { PHMM_MERGE_MAX_CTX = 16 };

typedef struct phmm_req_s phmm_req_t;
struct phmm_req_s {
	const gvk_read_t *reads;
	const gvk_hap_t *haps;
	const gvk_pair_t *pairs;
	size_t n;
	gvk_pairhmm_out_t *out;
	int solo;      /* computed in a batch of its own (it asked for raw sums) */
	int state;     /* REQ_QUEUED, REQ_TAKEN, REQ_DONE */
	int rc;
	gvk_err_t err;
	double t_queued;
	pthread_cond_t wake;
	int released;  /* its leader has woken it and no longer touches it (atomic) */
	phmm_req_t *next;
};

/* Computes a batch of taken requests (linked by next) with context ctx, setting each one's rc and
 * err; called without the queue's lock. */
typedef void (*phmm_batch_fn)(void *arg, int ctx, phmm_req_t *batch);

typedef struct phmm_merge_s phmm_merge_t;

/* What the merging did: batches computed, the calls and pairs in them, the largest batch, and
 * batches by calls merged (bucket b: 2^b .. 2^(b+1) - 1 calls; the last one and more). */
/* The public figures (gvk_serve_merge_t), which gvk serve reports. */
enum { PHMM_MERGE_BUCKETS = GVK_SERVE_MERGE_BUCKETS };
typedef gvk_serve_merge_t phmm_merge_stats_t;

/* NULL when out of memory. wait_us: how long a leader waits for more calls before it starts;
 * max_pairs: a batch stops taking calls beyond this many pairs (it always takes its leader's). */
phmm_merge_t *phmm_merge_create(int nctx, int wait_us, size_t max_pairs, phmm_batch_fn fn, void *arg);
void phmm_merge_destroy(phmm_merge_t *m);

/* Queues r (reads ... solo set by the caller), blocks until it is computed, returns r->rc. */
int phmm_merge_submit(phmm_merge_t *m, phmm_req_t *r);

/* Adds m's figures to *st (m NULL: nothing). */
void phmm_merge_stats(phmm_merge_t *m, phmm_merge_stats_t *st);
/* The merge figures of a shared engine (pairhmm_engine.c), added to *st; nothing for another. */
void phmm_shared_merge_stats(const gvk_pairhmm_t *e, phmm_merge_stats_t *st);

#ifdef __cplusplus
}
#endif

#endif
