/* SPDX-License-Identifier: MIT */
/* A free list of engines shared by the Java threads calling one JNI library. A gvk engine must not
 * be used by two threads at once, and the JNI calls carry no handle of ours, so each call borrows
 * an engine and puts it back. */
#ifndef GVK_JNI_POOL_H
#define GVK_JNI_POOL_H

#include <pthread.h>
#include <stddef.h>

#include "gvk.h"

#define JNI_POOL_MAX 256 /* engines kept for reuse; more concurrent callers get a fresh one each */

typedef struct {
	pthread_mutex_t lock;
	int n;
	void *free[JNI_POOL_MAX];
	void (*destroy)(void *engine);
} jni_pool_t;

#define JNI_POOL_INIT(destroy_fn) { PTHREAD_MUTEX_INITIALIZER, 0, { 0 }, (destroy_fn) }

/* An engine from the list, or NULL when it is empty (the caller creates one). */
void *jni_pool_take(jni_pool_t *p);
/* Gives an engine back; destroyed when the list is full. */
void jni_pool_give(jni_pool_t *p, void *engine);
/* Destroys every engine in the list (settings changed, or the library is unloaded). */
void jni_pool_clear(jni_pool_t *p);

/* The JNI libraries read their settings from the environment (GATK's JNI calls carry no options;
 * docs/gatk.md lists the variables). A malformed or out-of-range value is reported through log
 * and the default kept: a typo must not silently become 0. */
/* GVK_DEVICE: cpu, gpu or auto (default). */
int jni_env_device(const gvk_log_t *log);
/* An integer setting in [lo, hi]; def when unset. */
int jni_env_int(const gvk_log_t *log, const char *name, int def, int lo, int hi);
/* A real setting of at least lo; def when unset. */
double jni_env_double(const gvk_log_t *log, const char *name, double def, double lo);

/* The JNI libraries play the command line's part for GATK: the library's messages go to stderr,
 * warnings always and information too when GVK_VERBOSE is set to anything but 0 or nothing. */
void jni_log_setup(gvk_log_t *log);
/* A message of the JNI layer itself, through the same log. */
void jni_log(const gvk_log_t *log, int level, const char *fmt, ...)
#ifdef __GNUC__
	__attribute__((format(printf, 3, 4)))
#endif
	;

/* GVK_SERVER: the socket of gvk serve (docs/gatk.md), or NULL when unset or empty. */
const char *jni_env_server(void);
/* Device auto's GPU lock, gpu.lock in the per-user gvk directory (as the CLI's), into buf; NULL when
 * the directory cannot be used (then no lock is taken). */
const char *jni_gpu_lock_path(char *buf, size_t size);

/* Processors of this process (for GKL's max_threads cap). */
int jni_ncpu(void);

#endif
