/* SPDX-License-Identifier: MIT */
/* libkspan.so: the GPU time a process spends in kernels, for comparing GPU programs we do not
 * control (gpuPairHMM prints no kernel time) with ours on equal terms, where Nsight Systems is
 * absent. Injected into any CUDA program by the driver:
 *
 *   CUDA_INJECTION64_PATH=build-gpu/bench/libkspan.so PROGRAM ARGS...
 *
 * it records every kernel's start and end through CUPTI's activity API (kernels keep running
 * concurrently, unlike under Nsight Compute, which serialises them) and prints one line on stderr
 * when the process exits:
 *
 *   kspan: N kernels, busy B ms, sum S ms, span P ms
 *
 * busy: the union of the kernels' intervals (the time at least one kernel ran); sum: their
 * durations added up (what a serialised profile shows); span: first start to last end.
 * KSPAN_FILTER=TEXT counts only kernels whose name contains TEXT; KSPAN_LIST=1 also prints a line
 * per kernel (microseconds, grid, name) as CUPTI delivers them. */
#define _GNU_SOURCE
#include <cupti.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if CUPTI_API_VERSION >= 130000
typedef CUpti_ActivityKernel10 kspan_rec_t;
#else
typedef CUpti_ActivityKernel9 kspan_rec_t;
#endif

#define KSPAN_BUF (8u << 20)

typedef struct {
	uint64_t start, end;
} kspan_iv_t;

/* The one process-wide record that CUPTI's C callbacks can reach: a preloaded tracer has no
 * caller to hand it a context. */
static struct {
	pthread_mutex_t lock; /* CUPTI hands buffers over on threads of its own */
	kspan_iv_t *iv;
	size_t n, cap;
	const char *filter;
	int dropped, reported, list;
} ks = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void CUPTIAPI buf_requested(uint8_t **buf, size_t *size, size_t *max_records)
{
	*buf = aligned_alloc(8, KSPAN_BUF);
	*size = *buf ? KSPAN_BUF : 0;
	*max_records = 0;
}

static void keep(uint64_t start, uint64_t end)
{
	if (ks.n == ks.cap) {
		size_t cap = ks.cap ? ks.cap * 2 : 4096;
		kspan_iv_t *p = realloc(ks.iv, cap * sizeof *p);
		if (!p) {
			++ks.dropped;
			return;
		}
		ks.iv = p, ks.cap = cap;
	}
	ks.iv[ks.n].start = start, ks.iv[ks.n].end = end;
	++ks.n;
}

static void CUPTIAPI buf_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid)
{
	(void)ctx, (void)stream, (void)size;
	CUpti_Activity *rec = NULL;
	pthread_mutex_lock(&ks.lock);
	while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS) {
		if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && rec->kind != CUPTI_ACTIVITY_KIND_KERNEL) continue;
		const kspan_rec_t *k = (const kspan_rec_t *)rec;
		if (ks.filter && (!k->name || !strstr(k->name, ks.filter))) continue;
		keep(k->start, k->end);
		if (ks.list)
			fprintf(stderr, "kspan-kernel: %.1f us, grid %d x %d, %s\n", (k->end - k->start) * 1e-3, k->gridX, k->blockX,
			        k->name ? k->name : "?");
	}
	size_t lost = 0;
	if (cuptiActivityGetNumDroppedRecords(ctx, stream, &lost) == CUPTI_SUCCESS && lost) ks.dropped += (int)lost;
	pthread_mutex_unlock(&ks.lock);
	free(buf);
}

static int by_start(const void *a, const void *b)
{
	const kspan_iv_t *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static void report(void)
{
	pthread_mutex_lock(&ks.lock);
	if (ks.reported) {
		pthread_mutex_unlock(&ks.lock);
		return;
	}
	ks.reported = 1;
	qsort(ks.iv, ks.n, sizeof *ks.iv, by_start);
	uint64_t busy = 0, sum = 0, lo = 0, hi = 0, last = 0;
	for (size_t i = 0; i < ks.n; ++i) {
		const kspan_iv_t *v = &ks.iv[i];
		sum += v->end - v->start;
		if (i == 0 || v->start > hi) {
			busy += hi - lo;
			lo = v->start, hi = v->end;
		} else if (v->end > hi)
			hi = v->end;
		if (v->end > last) last = v->end;
	}
	busy += hi - lo;
	fprintf(stderr, "kspan: %zu kernels, busy %.3f ms, sum %.3f ms, span %.3f ms%s\n", ks.n, busy * 1e-6, sum * 1e-6,
	        ks.n ? (last - ks.iv[0].start) * 1e-6 : 0.0, ks.dropped ? " (records dropped: figures too low)" : "");
	free(ks.iv);
	ks.iv = NULL;
	pthread_mutex_unlock(&ks.lock);
}

/* A context's records must be read before the context goes: at a reset or a context's
 * destruction (the API's entry, before the work), and at exit, before the driver's own teardown
 * (the handler is registered during the driver's initialisation, so it runs first). */
static void CUPTIAPI on_api(void *user, CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data)
{
	(void)user;
	const CUpti_CallbackData *cb = data;
	if (cb->callbackSite != CUPTI_API_ENTER) return;
	if ((dom == CUPTI_CB_DOMAIN_RUNTIME_API && id == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020) ||
	    (dom == CUPTI_CB_DOMAIN_DRIVER_API && (id == CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2 ||
	                                           id == CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2)))
		cuptiActivityFlushAll(1);
}

static void at_exit(void)
{
	if (ks.reported) return;
	cuptiActivityFlushAll(1);
	report();
}

/* The driver's entry point for CUDA_INJECTION64_PATH, called once during its initialisation. */
int InitializeInjection(void)
{
	static CUpti_SubscriberHandle sub;
	ks.filter = getenv("KSPAN_FILTER");
	if (ks.filter && !*ks.filter) ks.filter = NULL;
	const char *list = getenv("KSPAN_LIST");
	ks.list = list && *list && strcmp(list, "0");
	if (cuptiActivityRegisterCallbacks(buf_requested, buf_completed) != CUPTI_SUCCESS ||
	    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) {
		fprintf(stderr, "kspan: CUPTI could not be started: no kernel times\n");
		return 1;
	}
	if (cuptiSubscribe(&sub, on_api, NULL) == CUPTI_SUCCESS) {
		cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
		cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2);
		cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2);
	}
	atexit(at_exit);
	return 1;
}
