/* SPDX-License-Identifier: MIT */
/* Fork-join parallelism: run one function on n threads, the caller being thread 0. */
#ifndef GVK_COMMON_THREADS_H
#define GVK_COMMON_THREADS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*gvk_worker_fn)(void *arg, int tid);

/* Runs fn(arg, tid) for tid = 0..n-1 concurrently and waits for all. Where the system refuses
 * a thread, the caller runs that share itself; never fails. */
void gvk_parallel(int n, gvk_worker_fn fn, void *arg);

/* A set of worker threads kept for many fork-join calls (threads_pool.c): a call costs a wake-up,
 * not a thread creation per worker, which dominated small batches on many threads. */
typedef struct gvk_pool_s gvk_pool_t;

/* A pool for calls of up to n threads (the caller is thread 0, so n - 1 workers start), or NULL
 * when n < 2 or the system refuses; gvk_pool_run then behaves as gvk_parallel. */
gvk_pool_t *gvk_pool_create(int n);

/* As gvk_parallel(n, fn, arg), on the pool's threads. A call while another is running on the
 * same pool, or for more threads than the pool has, falls back to gvk_parallel. */
void gvk_pool_run(gvk_pool_t *p, int n, gvk_worker_fn fn, void *arg);

/* Stops and joins the workers; NULL is fine. No call may be running. */
void gvk_pool_destroy(gvk_pool_t *p);

/* Where thread t of nt starts in n items (thread t takes [gvk_part(n, t, nt), gvk_part(n, t + 1,
 * nt))): contiguous shares that differ by at most one item. */
static inline size_t gvk_part(size_t n, int t, int nt) { return n * (size_t)t / (size_t)nt; }

/* Number of processors available to this process. */
int gvk_ncpu(void);

/* Seconds from a monotonic clock. */
double gvk_seconds(void);

#ifdef __cplusplus
}
#endif

#endif
