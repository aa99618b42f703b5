/* SPDX-License-Identifier: MIT */
/* Fork-join parallelism: run one function on n threads, the caller being thread 0. */
#ifndef GVK_COMMON_THREADS_H
#define GVK_COMMON_THREADS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*gvk_worker_fn)(void *arg, int tid);

/* Runs fn(arg, tid) for tid = 0..n-1 concurrently and waits for all. Falls back to fewer threads
 * if the system refuses to create more; never fails. */
void gvk_parallel(int n, gvk_worker_fn fn, void *arg);

/* Number of processors available to this process. */
int gvk_ncpu(void);

/* Seconds from a monotonic clock. */
double gvk_seconds(void);

#ifdef __cplusplus
}
#endif

#endif
