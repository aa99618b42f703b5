/* SPDX-License-Identifier: MIT */
/* The JNI copy helpers' job protocol (src/jni/jni_workers.c) without a JVM: a stand-in JavaVM
 * whose attach and detach only count. Several caller threads run jobs of random chunk counts
 * through one set of helpers (a busy set makes a caller run its chunks alone, as the JNI layer
 * does), parking it now and then; every chunk of every job must run exactly once, on some thread,
 * before its call returns, and every attached helper must detach when the set stops.
 * Usage: test_jni_workers [jobs per caller] [callers] [helpers] */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "jni_workers.h"

static atomic_int g_attached, g_detached;
static atomic_long g_by_helpers; /* chunks that ran on a helper thread */
static _Thread_local int t_caller;

static jint JNICALL fake_attach(JavaVM *vm, void **env, void *args)
{
	(void)vm, (void)args;
	*env = NULL; /* the chunks below never touch it */
	atomic_fetch_add(&g_attached, 1);
	return JNI_OK;
}

static jint JNICALL fake_detach(JavaVM *vm)
{
	(void)vm;
	atomic_fetch_add(&g_detached, 1);
	return JNI_OK;
}

enum { MAX_CHUNKS = 300 };

typedef struct {
	atomic_int runs[MAX_CHUNKS];
} job_t;

/* A chunk long enough (some hundreds of nanoseconds, like a JNI copy's) for helpers to take some. */
static void chunk(JNIEnv *env, void *arg, int c)
{
	volatile int spin = 0;
	(void)env;
	for (int i = 0; i < 300; ++i) spin += i;
	if (!t_caller) atomic_fetch_add(&g_by_helpers, 1);
	atomic_fetch_add(&((job_t *)arg)->runs[c], 1);
}

typedef struct {
	jni_workers_t *w;
	int jobs, id;
	long bad, shared;
} caller_t;

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

static void *caller(void *p)
{
	caller_t *c = (caller_t *)p;
	t_caller = 1;
	uint64_t s = 0x9e3779b97f4a7c15ull * (uint64_t)(c->id + 1);
	job_t *j = (job_t *)calloc(1, sizeof *j);
	for (int k = 0; k < c->jobs && j; ++k) {
		const int n = 1 + (int)(rng(&s) % MAX_CHUNKS);
		for (int i = 0; i < MAX_CHUNKS; ++i) atomic_store(&j->runs[i], 0);
		if (jni_workers_run(c->w, NULL, chunk, j, n) == 0) c->shared++;
		else
			for (int i = 0; i < n; ++i) chunk(NULL, j, i);
		for (int i = 0; i < MAX_CHUNKS; ++i) {
			const int want = i < n ? 1 : 0, got = atomic_load(&j->runs[i]);
			if (got != want) {
				if (c->bad++ < 5) fprintf(stderr, "caller %d job %d: chunk %d of %d ran %d times\n", c->id, k, i, n, got);
			}
		}
		if (rng(&s) % 7 == 0) jni_workers_park(c->w);
	}
	free(j);
	return NULL;
}

int main(int argc, char **argv)
{
	const int jobs = argc > 1 ? atoi(argv[1]) : 3000, ncallers = argc > 2 ? atoi(argv[2]) : 4;
	const int helpers = argc > 3 ? atoi(argv[3]) : 3;
	struct JNIInvokeInterface_ ifc = {0};
	ifc.AttachCurrentThreadAsDaemon = fake_attach;
	ifc.DetachCurrentThread = fake_detach;
	const struct JNIInvokeInterface_ *vmp = &ifc;
	JavaVM *vm = (JavaVM *)&vmp;
	long bad = 0, shared = 0;
	if (jni_workers_start(vm, 0) != NULL || jni_workers_start(NULL, 2) != NULL) {
		fprintf(stderr, "FAIL: helpers started without threads or without a VM\n");
		return 1;
	}
	if (jni_workers_run(NULL, NULL, chunk, NULL, 5) != -1) {
		fprintf(stderr, "FAIL: a NULL set ran a job\n");
		return 1;
	}
	for (int round = 0; round < 2; ++round) { /* a second set after the first stopped */
		jni_workers_t *w = jni_workers_start(vm, helpers);
		if (!w) {
			fprintf(stderr, "FAIL: no helpers started\n");
			return 1;
		}
		caller_t *c = (caller_t *)calloc((size_t)ncallers, sizeof *c);
		pthread_t *t = (pthread_t *)calloc((size_t)ncallers, sizeof *t);
		if (!c || !t) return 2;
		for (int i = 0; i < ncallers; ++i) {
			c[i].w = w, c[i].jobs = jobs, c[i].id = i;
			pthread_create(&t[i], NULL, caller, &c[i]);
		}
		for (int i = 0; i < ncallers; ++i) pthread_join(t[i], NULL), bad += c[i].bad, shared += c[i].shared;
		jni_workers_stop(w);
		free(c), free(t);
	}
	const int att = atomic_load(&g_attached), det = atomic_load(&g_detached);
	const long by_helpers = atomic_load(&g_by_helpers);
	printf("%d callers x %d jobs x 2 sets, %d helpers each: %ld jobs shared with the helpers, %ld chunks run by "
	       "helpers, %ld chunk counts wrong; %d attached, %d detached\n", ncallers, jobs, helpers, shared, by_helpers, bad,
	       att, det);
	if (bad || att != 2 * helpers || det != att || shared == 0 || by_helpers == 0) {
		printf("FAIL\n");
		return 1;
	}
	printf("PASS\n");
	return 0;
}
