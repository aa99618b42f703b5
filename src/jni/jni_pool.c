/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "gvk.h"
#include "jni_pool.h"
#include "../common/parse_num.h"

void *jni_pool_take(jni_pool_t *p)
{
	void *e = NULL;
	pthread_mutex_lock(&p->lock);
	if (p->n > 0) e = p->free[--p->n];
	pthread_mutex_unlock(&p->lock);
	return e;
}

void jni_pool_give(jni_pool_t *p, void *engine)
{
	int kept = 0;
	if (!engine) return;
	pthread_mutex_lock(&p->lock);
	if (p->n < JNI_POOL_MAX) p->free[p->n++] = engine, kept = 1;
	pthread_mutex_unlock(&p->lock);
	if (!kept) p->destroy(engine);
}

void jni_pool_clear(jni_pool_t *p)
{
	for (;;) {
		void *e = jni_pool_take(p);
		if (!e) break;
		p->destroy(e);
	}
}

int jni_env_device(const gvk_log_t *log)
{
	const char *s = getenv("GVK_DEVICE");
	if (!s || !*s || strcasecmp(s, "auto") == 0) return GVK_DEVICE_AUTO;
	if (strcasecmp(s, "cpu") == 0) return GVK_DEVICE_CPU;
	if (strcasecmp(s, "gpu") == 0) return GVK_DEVICE_GPU;
	jni_log(log, GVK_LOG_WARN, "GVK_DEVICE=%s is not cpu, gpu or auto: using auto", s);
	return GVK_DEVICE_AUTO;
}

int jni_env_int(const gvk_log_t *log, const char *name, int def, int lo, int hi)
{
	const char *s = getenv(name);
	long v;
	if (!s || !*s) return def;
	if (gvk_parse_long(s, lo, hi, &v) == 0) return (int)v;
	if (def < lo || def > hi) /* a default that means "the library's" */
		jni_log(log, GVK_LOG_WARN, "%s=%s is not an integer from %d to %d: using the default", name, s, lo, hi);
	else
		jni_log(log, GVK_LOG_WARN, "%s=%s is not an integer from %d to %d: using %d", name, s, lo, hi, def);
	return def;
}

double jni_env_double(const gvk_log_t *log, const char *name, double def, double lo)
{
	const char *s = getenv(name);
	double v;
	if (!s || !*s) return def;
	if (gvk_parse_real(s, lo, &v) == 0) return v;
	jni_log(log, GVK_LOG_WARN, "%s=%s is not a number of at least %g: using %g", name, s, lo, def);
	return def;
}

static void jni_stderr(void *arg, int level, const char *msg)
{
	(void)arg;
	fprintf(stderr, "[gvk] %s%s\n", level <= GVK_LOG_WARN ? "warning: " : "", msg);
}

void jni_log_setup(gvk_log_t *log)
{
	log->fn = jni_stderr;
	log->arg = NULL;
	const char *v = getenv("GVK_VERBOSE");
	log->level = v && *v && strcmp(v, "0") != 0 ? GVK_LOG_INFO : GVK_LOG_WARN;
}

void jni_log(const gvk_log_t *log, int level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	if (!log->fn || level > log->level) return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	log->fn(log->arg, level, msg);
}

int jni_ncpu(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

const char *jni_env_server(void)
{
	const char *s = getenv("GVK_SERVER");
	return s && *s ? s : NULL;
}

const char *jni_gpu_lock_path(char *buf, size_t size)
{
	char dir[4000];
	if (gvk_serve_user_dir(getenv("XDG_RUNTIME_DIR"), (unsigned)getuid(), dir, sizeof dir, NULL) < 0) return NULL;
	return (size_t)snprintf(buf, size, "%s/gpu.lock", dir) < size ? buf : NULL;
}
