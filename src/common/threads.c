#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "threads.h"

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
	pthread_attr_t at, *pa = NULL;
	const char *xs = getenv("GVK_XSTACK");
	if (xs && atoi(xs) > 0 && pthread_attr_init(&at) == 0) {
		pa = &at;
		pthread_attr_setstacksize(&at, (size_t)atoi(xs) << 10);
	}
	if (th && w) {
		for (; started < n; ++started) {
			w[started] = (worker_t){fn, arg, started};
			if (pthread_create(&th[started], pa, worker_main, &w[started]) != 0) break;
		}
	}
	if (pa) pthread_attr_destroy(pa);
	fn(arg, 0);
	for (int i = 1; i < started; ++i) pthread_join(th[i], NULL);
	free(th);
	free(w);
}

void gvk_advise_huge(void *p, size_t n)
{
	static const size_t huge = (size_t)2 << 20;
	if (n < 2 * huge || !getenv("GVK_XHUGE")) return;
	uintptr_t b = ((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1), e = ((uintptr_t)p + n) & ~(uintptr_t)(huge - 1);
	if (e > b) madvise((void *)b, e - b, MADV_HUGEPAGE);
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
