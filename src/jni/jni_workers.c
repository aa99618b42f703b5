/* SPDX-License-Identifier: MIT */
/* jni_workers.h. A job is published as one 64-bit word: its generation, its chunk count and the
 * next chunk to take. A thread takes a chunk by a compare-and-swap on that word, so a helper that
 * wakes late for a job that is over cannot take a chunk of the next one: the generation differs. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "jni_workers.h"

/* How long a helper polls for the next job before it sleeps. One Java thread calls batch after
 * batch with a GPU round trip between them, shorter than this; a helper asleep would wake too late
 * to take a chunk. Between polls it yields, so the cores stay with threads that have work. */
#define JNI_WORKERS_POLL_NS 500000

struct jni_workers_s {
	JavaVM *vm;
	int n;
	pthread_t *tid;
	pthread_mutex_t busy;          /* held by the thread whose job runs */
	pthread_mutex_t lock;          /* with wake: helpers asleep */
	pthread_cond_t wake;
	int sleepers;                  /* under lock */
	_Atomic uint64_t word;         /* generation << 32 | chunks << 16 | next chunk */
	_Atomic int done;              /* chunks of the current job finished */
	_Atomic int stopping;          /* set before the lock is taken to wake the sleepers */
	_Atomic uint32_t parked;       /* the generation after which helpers sleep at once */
	jni_chunk_fn fn;               /* the current job's, set before its word is published */
	void *arg;
};

static uint32_t word_gen(uint64_t x) { return (uint32_t)(x >> 32); }
static int word_chunks(uint64_t x) { return (int)(x >> 16 & 0xffff); }
static int word_next(uint64_t x) { return (int)(x & 0xffff); }

static int64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Takes and runs chunks of job x's generation until none is left. fn and arg are read only once a
 * chunk is taken: the job cannot end while one of its chunks is not done. */
static void take_chunks(jni_workers_t *w, JNIEnv *env, uint64_t x)
{
	const uint32_t gen = word_gen(x);
	while (word_gen(x) == gen && word_next(x) < word_chunks(x)) {
		if (!atomic_compare_exchange_weak(&w->word, &x, x + 1)) continue;
		w->fn(env, w->arg, word_next(x));
		atomic_fetch_add_explicit(&w->done, 1, memory_order_release);
		x = atomic_load_explicit(&w->word, memory_order_acquire);
	}
}

/* Polls for a new generation for up to JNI_WORKERS_POLL_NS, or until the helpers are parked after
 * generation seen; its word, or the old one. */
static uint64_t poll_job(jni_workers_t *w, uint32_t seen)
{
	const int64_t t0 = now_ns();
	for (int i = 1;; ++i) {
		uint64_t x = atomic_load_explicit(&w->word, memory_order_acquire);
		if (word_gen(x) != seen || atomic_load_explicit(&w->stopping, memory_order_relaxed) ||
		    atomic_load_explicit(&w->parked, memory_order_relaxed) == seen)
			return x;
		if ((i & 63) == 0) {
			if (now_ns() - t0 > JNI_WORKERS_POLL_NS) return x;
			sched_yield();
		}
	}
}

static void *helper_main(void *p)
{
	jni_workers_t *w = (jni_workers_t *)p;
	JNIEnv *env = NULL;
	if ((*w->vm)->AttachCurrentThreadAsDaemon(w->vm, (void **)&env, NULL) != JNI_OK) return NULL;
	uint32_t seen = word_gen(atomic_load(&w->word));
	while (!atomic_load_explicit(&w->stopping, memory_order_relaxed)) {
		uint64_t x = poll_job(w, seen);
		if (word_gen(x) != seen) {
			seen = word_gen(x);
			take_chunks(w, env, x);
			continue;
		}
		pthread_mutex_lock(&w->lock);
		w->sleepers++;
		while (!atomic_load(&w->stopping) && word_gen(atomic_load(&w->word)) == seen)
			pthread_cond_wait(&w->wake, &w->lock);
		w->sleepers--;
		pthread_mutex_unlock(&w->lock);
	}
	(*w->vm)->DetachCurrentThread(w->vm);
	return NULL;
}

jni_workers_t *jni_workers_start(JavaVM *vm, int n)
{
	jni_workers_t *w;
	if (n < 1 || !vm || !(w = (jni_workers_t *)calloc(1, sizeof(*w)))) return NULL;
	if (!(w->tid = (pthread_t *)calloc((size_t)n, sizeof(*w->tid)))) {
		free(w);
		return NULL;
	}
	w->vm = vm;
	pthread_mutex_init(&w->busy, NULL);
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	atomic_init(&w->word, 0), atomic_init(&w->done, 0), atomic_init(&w->stopping, 0);
	atomic_init(&w->parked, UINT32_MAX);
	for (w->n = 0; w->n < n; ++w->n)
		if (pthread_create(&w->tid[w->n], NULL, helper_main, w) != 0) break;
	if (w->n == 0) {
		jni_workers_stop(w);
		return NULL;
	}
	return w;
}

void jni_workers_stop(jni_workers_t *w)
{
	if (!w) return;
	atomic_store(&w->stopping, 1);
	pthread_mutex_lock(&w->lock);
	pthread_cond_broadcast(&w->wake);
	pthread_mutex_unlock(&w->lock);
	for (int i = 0; i < w->n; ++i) pthread_join(w->tid[i], NULL);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	pthread_mutex_destroy(&w->busy);
	free(w->tid);
	free(w);
}

int jni_workers_run(jni_workers_t *w, JNIEnv *env, jni_chunk_fn fn, void *arg, int nchunks)
{
	if (nchunks <= 0) return 0;
	if (!w || nchunks > JNI_WORKERS_MAX_CHUNKS || pthread_mutex_trylock(&w->busy) != 0) return -1;
	w->fn = fn, w->arg = arg;
	atomic_store_explicit(&w->done, 0, memory_order_relaxed);
	const uint64_t x = (uint64_t)(word_gen(atomic_load(&w->word)) + 1u) << 32 | (uint64_t)nchunks << 16;
	atomic_store_explicit(&w->word, x, memory_order_release);
	/* Under the lock, so that a helper going to sleep either sees the new generation or is woken. */
	pthread_mutex_lock(&w->lock);
	if (w->sleepers) pthread_cond_broadcast(&w->wake);
	pthread_mutex_unlock(&w->lock);
	take_chunks(w, env, x);
	while (atomic_load_explicit(&w->done, memory_order_acquire) < nchunks) sched_yield();
	pthread_mutex_unlock(&w->busy);
	return 0;
}

void jni_workers_park(jni_workers_t *w)
{
	if (w) atomic_store_explicit(&w->parked, word_gen(atomic_load(&w->word)), memory_order_relaxed);
}
