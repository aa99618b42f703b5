/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

#include "log.h"

/* The one process-wide setting the API has (gvk_set_log): the default that *_opts_init copies.
 * Engines hold their own copy, so changing it never races with running work. */
static _Atomic(gvk_log_fn) default_fn;
static _Atomic(void *) default_arg;
static atomic_int default_level = GVK_LOG_WARN;

void gvk_set_log(gvk_log_fn fn, void *arg, int level)
{
	atomic_store(&default_arg, arg);
	atomic_store(&default_level, level);
	atomic_store(&default_fn, fn);
}

void gvk_log_default(gvk_log_t *log)
{
	if (!log) return;
	log->fn = atomic_load(&default_fn);
	log->arg = atomic_load(&default_arg);
	log->level = atomic_load(&default_level);
}

int gvk_log_on(const gvk_log_t *log, int level) { return log && log->fn && level <= log->level; }

void gvk_logf(const gvk_log_t *log, int level, const char *fmt, ...)
{
	if (!gvk_log_on(log, level)) return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	log->fn(log->arg, level, msg);
}
