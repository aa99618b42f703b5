/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "threads.h"

enum { WORKER_STACK = 512 << 10 };

typedef struct {
	gvk_worker_fn fn;
	void *arg;
	int tid;
} worker_t;

static void *worker_main(void *p)
{
	worker_t *w = p;
	w->fn(w->arg, w->tid);
	return NULL;
}

void gvk_parallel(int n, gvk_worker_fn fn, void *arg)
{
	if (n <= 1) {
		fn(arg, 0);
		return;
	}
	pthread_t *th = malloc(sizeof *th * (size_t)n);
	worker_t *w = malloc(sizeof *w * (size_t)n);
	int started = 1;
	/* Small stacks (the workers keep their data on the heap): glibc keeps up to 40 MiB of freed
	 * thread stacks for reuse, which with the default 8 MiB is five, so the stages of a pipeline,
	 * each starting a thread per core many times a second, would map and unmap fresh stacks. */
	pthread_attr_t at, *pa = NULL;
	if (pthread_attr_init(&at) == 0) {
		pa = &at;
		if (pthread_attr_setstacksize(&at, WORKER_STACK) != 0) pthread_attr_destroy(&at), pa = NULL;
	}
	if (th && w) {
		for (; started < n; ++started) {
			w[started] = (worker_t){fn, arg, started};
			if (pthread_create(&th[started], pa, worker_main, &w[started]) != 0) break;
		}
	}
	if (pa) pthread_attr_destroy(pa);
	fn(arg, 0);
	/* Shares whose thread could not start run here: a worker's share is fixed by its tid. */
	for (int i = started; i < n; ++i) fn(arg, i);
	for (int i = 1; i < started; ++i) pthread_join(th[i], NULL);
	free(th);
	free(w);
}

int gvk_ncpu(void)
{
#ifdef CPU_COUNT
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
#endif
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

double gvk_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
