/* SPDX-License-Identifier: MIT */
/* Persistent fork-join workers. A call publishes its function and thread count with one atomic
 * word (generation << 32 | n), so that a worker never pairs one call's generation with
 * another's count; workers and caller spin briefly before sleeping, since the calls this pool
 * exists for (GATK's per-region batches) come tens of microseconds apart. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "threads.h"

enum { SPIN = 4000, POOL_STACK = 512 << 10 };

typedef struct {
	struct gvk_pool_s *p;
	int tid;
} pool_worker_t;

struct gvk_pool_s {
	pthread_mutex_t lock, busy; /* busy: held by the running call */
	pthread_cond_t wake, done;
	int size, started;
	pthread_t *th;
	pool_worker_t *w;
	gvk_worker_fn fn;
	void *arg;
	_Atomic uint64_t job;  /* generation << 32 | thread count of the current call */
	atomic_int pending;    /* workers of the current call not finished */
	atomic_int stop;
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* The next job word after seen: spins, then sleeps on wake. */
static uint64_t await_job(struct gvk_pool_s *p, uint64_t seen)
{
	uint64_t j;
	for (int k = 0; k < SPIN; ++k) {
		if ((j = atomic_load_explicit(&p->job, memory_order_acquire)) != seen || atomic_load(&p->stop)) return j;
		cpu_relax();
	}
	pthread_mutex_lock(&p->lock);
	while ((j = atomic_load_explicit(&p->job, memory_order_acquire)) == seen && !atomic_load(&p->stop))
		pthread_cond_wait(&p->wake, &p->lock);
	pthread_mutex_unlock(&p->lock);
	return j;
}

static void *pool_main(void *arg)
{
	pool_worker_t *w = arg;
	struct gvk_pool_s *p = w->p;
	/* 0, the word before the first call: a worker that starts late still takes that call. */
	uint64_t seen = 0;
	for (;;) {
		seen = await_job(p, seen);
		if (atomic_load(&p->stop)) return NULL;
		if (w->tid >= (int)(uint32_t)seen) continue; /* not one of this call's threads */
		p->fn(p->arg, w->tid);
		if (atomic_fetch_sub_explicit(&p->pending, 1, memory_order_acq_rel) == 1) {
			pthread_mutex_lock(&p->lock);
			pthread_cond_signal(&p->done);
			pthread_mutex_unlock(&p->lock);
		}
	}
}

gvk_pool_t *gvk_pool_create(int n)
{
	if (n < 2) return NULL;
	struct gvk_pool_s *p = calloc(1, sizeof *p);
	if (!p) return NULL;
	p->th = malloc(sizeof *p->th * (size_t)n);
	p->w = malloc(sizeof *p->w * (size_t)n);
	if (!p->th || !p->w) return free(p->th), free(p->w), free(p), NULL;
	pthread_mutex_init(&p->lock, NULL), pthread_mutex_init(&p->busy, NULL);
	pthread_cond_init(&p->wake, NULL), pthread_cond_init(&p->done, NULL);
	pthread_attr_t at, *pa = NULL;
	if (pthread_attr_init(&at) == 0) {
		pa = &at;
		if (pthread_attr_setstacksize(&at, POOL_STACK) != 0) pthread_attr_destroy(&at), pa = NULL;
	}
	p->started = 1;
	for (int i = 1; i < n; ++i, ++p->started) {
		p->w[i] = (pool_worker_t){p, i};
		if (pthread_create(&p->th[i], pa, pool_main, &p->w[i]) != 0) break;
	}
	if (pa) pthread_attr_destroy(pa);
	/* Fewer workers than asked: calls for more threads fall back to gvk_parallel. */
	p->size = p->started;
	return p;
}

void gvk_pool_run(gvk_pool_t *p, int n, gvk_worker_fn fn, void *arg)
{
	if (n <= 1) {
		if (n == 1) fn(arg, 0);
		return;
	}
	if (!p || n > p->size || pthread_mutex_trylock(&p->busy) != 0) {
		gvk_parallel(n, fn, arg);
		return;
	}
	p->fn = fn, p->arg = arg;
	atomic_store(&p->pending, n - 1);
	const uint64_t gen = (atomic_load(&p->job) >> 32) + 1;
	pthread_mutex_lock(&p->lock);
	atomic_store_explicit(&p->job, gen << 32 | (uint32_t)n, memory_order_release);
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
	fn(arg, 0);
	for (int k = 0; k < SPIN && atomic_load_explicit(&p->pending, memory_order_acquire) > 0; ++k) cpu_relax();
	if (atomic_load_explicit(&p->pending, memory_order_acquire) > 0) {
		pthread_mutex_lock(&p->lock);
		while (atomic_load_explicit(&p->pending, memory_order_acquire) > 0) pthread_cond_wait(&p->done, &p->lock);
		pthread_mutex_unlock(&p->lock);
	}
	pthread_mutex_unlock(&p->busy);
}

void gvk_pool_destroy(gvk_pool_t *p)
{
	if (!p) return;
	pthread_mutex_lock(&p->lock);
	atomic_store(&p->stop, 1);
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
	for (int i = 1; i < p->started; ++i) pthread_join(p->th[i], NULL);
	pthread_mutex_destroy(&p->lock), pthread_mutex_destroy(&p->busy);
	pthread_cond_destroy(&p->wake), pthread_cond_destroy(&p->done);
	free(p->th), free(p->w), free(p);
}
