/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "../common/threads.h"
#include "pairhmm_merge.h"

enum { REQ_QUEUED = 0, REQ_TAKEN = 1, REQ_DONE = 2 };

struct phmm_merge_s {
	pthread_mutex_t lock;
	phmm_req_t *head, *tail; /* queued requests, oldest first */
	size_t queued_pairs;
	int nctx, free_ctx[PHMM_MERGE_MAX_CTX], n_free;
	int wait_us;
	size_t max_pairs;
	phmm_req_t *waiting_leader; /* a leader in its merge window, woken by arrivals */
	phmm_batch_fn fn;
	void *arg;
	phmm_merge_stats_t st;
};

phmm_merge_t *phmm_merge_create(int nctx, int wait_us, size_t max_pairs, phmm_batch_fn fn, void *arg)
{
	phmm_merge_t *m = calloc(1, sizeof *m);
	if (!m) return NULL;
	pthread_mutex_init(&m->lock, NULL);
	m->nctx = nctx < 1 ? 1 : nctx > PHMM_MERGE_MAX_CTX ? PHMM_MERGE_MAX_CTX : nctx;
	for (int k = 0; k < m->nctx; ++k) m->free_ctx[m->n_free++] = k;
	m->wait_us = wait_us < 0 ? 0 : wait_us;
	m->max_pairs = max_pairs ? max_pairs : 1;
	m->fn = fn, m->arg = arg;
	return m;
}

void phmm_merge_destroy(phmm_merge_t *m)
{
	if (!m) return;
	pthread_mutex_destroy(&m->lock);
	free(m);
}

static void unlink_req(phmm_merge_t *m, phmm_req_t *prev, phmm_req_t *r)
{
	if (prev) prev->next = r->next; else m->head = r->next;
	if (m->tail == r) m->tail = prev;
	r->next = NULL;
	m->queued_pairs -= r->n;
}

/* Takes the leader's request and, unless it is solo, the other queued non-solo requests from the
 * oldest on while the batch stays within max_pairs. Returns the batch, linked by next. */
static phmm_req_t *take_batch(phmm_merge_t *m, phmm_req_t *leader)
{
	phmm_req_t *prev = NULL;
	for (phmm_req_t *r = m->head; r; prev = r, r = r->next)
		if (r == leader) break;
	unlink_req(m, prev, leader);
	leader->state = REQ_TAKEN;
	phmm_req_t *batch = leader, *last = leader;
	size_t pairs = leader->n;
	if (leader->solo) return batch;
	prev = NULL;
	for (phmm_req_t *r = m->head, *nx; r; r = nx) {
		nx = r->next;
		if (r->solo || pairs + r->n > m->max_pairs) {
			prev = r;
			continue;
		}
		unlink_req(m, prev, r);
		r->state = REQ_TAKEN;
		pairs += r->n;
		last->next = r, last = r;
	}
	return batch;
}

/* Counts a batch taken (under the lock). */
static void count_batch(phmm_merge_t *m, const phmm_req_t *batch)
{
	uint64_t calls = 0, pairs = 0;
	for (const phmm_req_t *r = batch; r; r = r->next) ++calls, pairs += r->n;
	int b = 0;
	while (b < PHMM_MERGE_BUCKETS - 1 && calls >> (b + 1)) ++b;
	m->st.batches++, m->st.calls += calls, m->st.pairs += pairs, m->st.by_calls[b]++;
	if (pairs > m->st.max_pairs) m->st.max_pairs = pairs;
}

void phmm_merge_stats(phmm_merge_t *m, phmm_merge_stats_t *st)
{
	if (!m) return;
	pthread_mutex_lock(&m->lock);
	st->batches += m->st.batches, st->calls += m->st.calls, st->pairs += m->st.pairs;
	if (m->st.max_pairs > st->max_pairs) st->max_pairs = m->st.max_pairs;
	for (int b = 0; b < PHMM_MERGE_BUCKETS; ++b) st->by_calls[b] += m->st.by_calls[b];
	pthread_mutex_unlock(&m->lock);
}

static void deadline_after(struct timespec *ts, double t0, int us)
{
	/* gvk_seconds() and CLOCK_MONOTONIC are the same clock (src/common/threads.c). */
	double t = t0 + 1e-6 * us;
	ts->tv_sec = (time_t)t;
	ts->tv_nsec = (long)((t - (double)ts->tv_sec) * 1e9);
}

/* The leader's merge window: waits until the oldest queued call has waited wait_us, or enough
 * pairs are queued, or its own request was taken by another leader. */
static void merge_window(phmm_merge_t *m, phmm_req_t *r)
{
	if (m->wait_us == 0 || r->solo || !m->head) return;
	struct timespec ts;
	deadline_after(&ts, m->head->t_queued, m->wait_us);
	m->waiting_leader = r;
	while (r->state == REQ_QUEUED && m->queued_pairs < m->max_pairs && gvk_seconds() < m->head->t_queued + 1e-6 * m->wait_us)
		if (pthread_cond_timedwait(&r->wake, &m->lock, &ts) == ETIMEDOUT) break;
	if (m->waiting_leader == r) m->waiting_leader = NULL;
}

/* Wakes the callers of a computed batch but the leader's own (b != self), with the queue's lock
 * free: a signal that finds its caller asleep is a system call, and a batch of many callers woken
 * under the lock kept every other caller from queueing or leading meanwhile. A caller that sees
 * its request done may not return (its request and condition variable are on its stack) before
 * its leader has released it. */
static void wake_batch(phmm_req_t *batch, const phmm_req_t *self)
{
	for (phmm_req_t *b = batch, *nx; b; b = nx) {
		nx = b->next;
		if (b == self) continue;
		pthread_cond_signal(&b->wake);
		__atomic_store_n(&b->released, 1, __ATOMIC_RELEASE);
	}
}

/* Wakes the oldest queued request so that it leads with the context just freed. */
static void hand_over(phmm_merge_t *m)
{
	if (m->head && m->n_free > 0) pthread_cond_signal(&m->head->wake);
}

int phmm_merge_submit(phmm_merge_t *m, phmm_req_t *r)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->wake, &ca);
	pthread_condattr_destroy(&ca);
	r->state = REQ_QUEUED, r->next = NULL, r->rc = 0, r->released = 0;
	pthread_mutex_lock(&m->lock);
	r->t_queued = gvk_seconds();
	if (m->tail) m->tail->next = r; else m->head = r;
	m->tail = r;
	m->queued_pairs += r->n;
	if (m->waiting_leader && m->queued_pairs >= m->max_pairs) pthread_cond_signal(&m->waiting_leader->wake);
	while (r->state != REQ_DONE) {
		if (r->state == REQ_QUEUED && m->n_free > 0) {
			const int ctx = m->free_ctx[--m->n_free];
			merge_window(m, r);
			if (r->state != REQ_QUEUED) { /* another leader took it meanwhile */
				m->free_ctx[m->n_free++] = ctx;
				hand_over(m);
				continue;
			}
			phmm_req_t *batch = take_batch(m, r);
			count_batch(m, batch);
			hand_over(m);
			pthread_mutex_unlock(&m->lock);
			m->fn(m->arg, ctx, batch);
			pthread_mutex_lock(&m->lock);
			for (phmm_req_t *b = batch; b; b = b->next) b->state = REQ_DONE;
			m->free_ctx[m->n_free++] = ctx;
			hand_over(m);
			pthread_mutex_unlock(&m->lock);
			wake_batch(batch, r);
			r->released = 1;
			pthread_cond_destroy(&r->wake);
			return r->rc;
		}
		pthread_cond_wait(&r->wake, &m->lock);
	}
	pthread_mutex_unlock(&m->lock);
	/* Done by another leader, which may still be about to signal this request (wake_batch). */
	while (!__atomic_load_n(&r->released, __ATOMIC_ACQUIRE)) sched_yield();
	pthread_cond_destroy(&r->wake);
	return r->rc;
}
