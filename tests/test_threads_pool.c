/* SPDX-License-Identifier: MIT */
/* The persistent worker pool (src/common/threads_pool.c): every share of every call runs exactly
 * once, for thread counts up to and past the pool's size, and from several callers at once (the
 * busy pool's calls fall back to fresh threads). And gvk_part, the shares the engines cut their
 * items into: contiguous, covering every item once, none more than one item longer than another. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "../src/common/threads.h"

enum { MAXT = 24, CALLS = 1000, CALLERS = 4 };

typedef struct {
	atomic_int hits[MAXT];
	int n;
} job_t;

static void count(void *arg, int tid)
{
	job_t *j = arg;
	if (tid >= 0 && tid < MAXT) atomic_fetch_add(&j->hits[tid], 1);
}

/* Runs CALLS calls of varying width; returns the number of wrong shares. */
static int calls(gvk_pool_t *p, unsigned seed)
{
	int bad = 0;
	for (int c = 0; c < CALLS; ++c) {
		job_t j;
		memset(&j, 0, sizeof j);
		seed = seed * 1103515245u + 12345u;
		j.n = 1 + (int)(seed >> 16) % MAXT;
		gvk_pool_run(p, j.n, count, &j);
		for (int t = 0; t < MAXT; ++t) bad += atomic_load(&j.hits[t]) != (t < j.n);
	}
	return bad;
}

typedef struct {
	gvk_pool_t *p;
	unsigned seed;
	int bad;
} caller_t;

static void *caller(void *arg)
{
	caller_t *c = arg;
	c->bad = calls(c->p, c->seed);
	return NULL;
}

/* The shares of n items over nt threads that break gvk_part's contract. */
static int part_errors(size_t n, int nt)
{
	size_t lo = (size_t)-1, hi = 0;
	int bad = gvk_part(n, 0, nt) != 0 || gvk_part(n, nt, nt) != n;
	for (int t = 0; t < nt; ++t) {
		const size_t b = gvk_part(n, t, nt), e = gvk_part(n, t + 1, nt);
		if (e < b) return bad + 1;
		lo = e - b < lo ? e - b : lo, hi = e - b > hi ? e - b : hi;
	}
	return bad + (hi - lo > 1);
}

int main(void)
{
	int fail = 0, part_bad = 0;
	const size_t big = (size_t)1 << 40; /* n * t must not overflow for the pass sizes in use */
	for (size_t n = 0; n < 300; ++n)
		for (int nt = 1; nt <= 70; ++nt) part_bad += part_errors(n, nt);
	part_bad += part_errors(big + 12345, 64) + part_errors(big, 7);
	if (part_bad) fprintf(stderr, "FAIL: gvk_part broke its contract %d times\n", part_bad), fail = 1;
	if (gvk_pool_create(1) != NULL) fprintf(stderr, "FAIL: a pool of 1 thread is not NULL\n"), fail = 1;
	int bad = calls(NULL, 1); /* no pool: gvk_parallel */
	if (bad) fprintf(stderr, "FAIL: without a pool, %d wrong shares\n", bad), fail = 1;
	gvk_pool_t *p = gvk_pool_create(16);
	if (!p) return fprintf(stderr, "FAIL: no pool\n"), 1;
	if ((bad = calls(p, 7))) fprintf(stderr, "FAIL: one caller, %d wrong shares\n", bad), fail = 1;
	pthread_t th[CALLERS];
	caller_t c[CALLERS];
	for (int k = 0; k < CALLERS; ++k) {
		c[k] = (caller_t){p, 100u + (unsigned)k, 0};
		pthread_create(&th[k], NULL, caller, &c[k]);
	}
	for (int k = 0; k < CALLERS; ++k) {
		pthread_join(th[k], NULL);
		if (c[k].bad) fprintf(stderr, "FAIL: caller %d of %d, %d wrong shares\n", k, CALLERS, c[k].bad), fail = 1;
	}
	gvk_pool_destroy(p);
	gvk_pool_destroy(NULL);
	if (!fail) printf("pool: %d calls from 1 and %d callers, every share once; gvk_part exact\n", CALLS, CALLERS);
	return fail;
}
