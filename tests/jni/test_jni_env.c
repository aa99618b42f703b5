/* SPDX-License-Identifier: MIT */
/* The GKL drop-in's settings from the environment (src/jni/jni_pool.c): good values are taken, and
 * a malformed or out-of-range one gives one warning naming the variable and keeps the default,
 * where atoi/atof used to turn a typo into 0; GVK_VERBOSE=0 means off. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jni_pool.h"

static int g_warnings;
static char g_last[1024];

static void capture(void *arg, int level, const char *msg)
{
	(void)arg;
	if (level <= GVK_LOG_WARN) ++g_warnings;
	snprintf(g_last, sizeof g_last, "%s", msg);
}

static int g_fail;

static void expect(int ok, const char *what)
{
	if (!ok) fprintf(stderr, "FAIL: %s (last message: %s)\n", what, g_last), g_fail = 1;
}

enum { INT, REAL, DEVICE, VERBOSE };

/* The variable of `kind` set to value (NULL: unset) must read as want, with `warns` warnings that
 * name the variable. */
static void check(int kind, const char *value, double want, int warns)
{
	static const char *const var[] = {"GVK_TEST_INT", "GVK_TEST_REAL", "GVK_DEVICE", "GVK_VERBOSE"};
	const gvk_log_t log = {capture, NULL, GVK_LOG_WARN};
	char what[192];
	g_warnings = 0, g_last[0] = 0;
	if (value) setenv(var[kind], value, 1); else unsetenv(var[kind]);
	gvk_log_t setup;
	if (kind == VERBOSE) jni_log_setup(&setup);
	const double got = kind == INT ? jni_env_int(&log, var[kind], 7, 0, 15)
	                 : kind == REAL ? jni_env_double(&log, var[kind], 1e5, 0)
	                 : kind == DEVICE ? jni_env_device(&log) : setup.level == GVK_LOG_INFO;
	snprintf(what, sizeof what, "%s=\"%s\": got %g want %g, %d warnings want %d", var[kind], value ? value : "(unset)", got,
	         want, g_warnings, warns);
	expect(got == want && g_warnings == warns && (!warns || strstr(g_last, var[kind])), what);
}

int main(void)
{
	static const struct {
		int kind;
		const char *value; /* NULL: unset */
		double want;
		int warns;
	} cases[] = {
		{INT, NULL, 7, 0},
		{INT, "", 7, 0},
		{INT, "3", 3, 0},
		{INT, "0", 0, 0},
		{INT, "15", 15, 0},
		{INT, "abc", 7, 1},
		{INT, "3x", 7, 1},
		{INT, "16", 7, 1},
		{INT, "-1", 7, 1},
		{INT, "99999999999999999999", 7, 1},
		{REAL, NULL, 1e5, 0},
		{REAL, "0", 0, 0},
		{REAL, "3e4", 3e4, 0},
		{REAL, "1e5cells", 1e5, 1},
		{REAL, "-5", 1e5, 1},
		{REAL, "nan", 1e5, 1},
		{REAL, "inf", 1e5, 1},
		{DEVICE, NULL, GVK_DEVICE_AUTO, 0},
		{DEVICE, "GPU", GVK_DEVICE_GPU, 0},
		{DEVICE, "cpu", GVK_DEVICE_CPU, 0},
		{DEVICE, "auto", GVK_DEVICE_AUTO, 0},
		{DEVICE, "gpus", GVK_DEVICE_AUTO, 1},
		{VERBOSE, NULL, 0, 0},
		{VERBOSE, "", 0, 0},
		{VERBOSE, "0", 0, 0},
		{VERBOSE, "1", 1, 0},
		{VERBOSE, "yes", 1, 0},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) check(cases[k].kind, cases[k].value, cases[k].want, cases[k].warns);
	if (!g_fail) printf("jni_env: every setting parsed or refused as documented\n");
	return g_fail;
}
