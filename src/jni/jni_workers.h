/* SPDX-License-Identifier: MIT */
/* Helper threads, attached to the JVM, that share a JNI call's reads of Java arrays with the
 * calling thread. Copying a GATK batch out of its holders takes a dozen JNI calls a read, as long
 * as the GPU's whole round trip (docs/gatk.md), and one Java thread calls batch after batch: the
 * copy is split into chunks that the caller and the free helpers take in turn. */
#ifndef GVK_JNI_WORKERS_H
#define GVK_JNI_WORKERS_H

#include <jni.h>

typedef struct jni_workers_s jni_workers_t;

/* One chunk of a job, run on the calling thread or on a helper (its own env). */
typedef void (*jni_chunk_fn)(JNIEnv *env, void *arg, int chunk);

enum { JNI_WORKERS_MAX_CHUNKS = 65535 };

/* Starts n helpers attached to vm as daemon threads; NULL when n < 1 or none could start. */
jni_workers_t *jni_workers_start(JavaVM *vm, int n);
/* Stops and joins the helpers (no job may be running), frees w; NULL is a no-op. */
void jni_workers_stop(jni_workers_t *w);
/* Runs fn(env, arg, c) for every c in [0, nchunks) (at most JNI_WORKERS_MAX_CHUNKS), on the
 * calling thread and on the helpers that are free, and returns when all are done: 0. Returns -1
 * having run nothing when another thread's job holds the helpers (the caller runs the chunks). */
int jni_workers_run(jni_workers_t *w, JNIEnv *env, jni_chunk_fn fn, void *arg, int nchunks);
/* Sends the helpers to sleep until the next job instead of polling for it: the caller is about
 * to compute on all of the cores itself. */
void jni_workers_park(jni_workers_t *w);

#endif
