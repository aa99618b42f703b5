/* SPDX-License-Identifier: MIT */
/* The GKL drop-in's settings from the environment (src/jni/jni_pool.c): good values are taken, and
 * a malformed or out-of-range one gives one warning naming the variable and keeps the default,
 * where atoi/atof used to turn a typo into 0. */
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

/* name=value (NULL: unset) must give want with `warns` warnings naming the variable. */
static void check_int(const char *value, int want, int warns)
{
	const gvk_log_t log = {capture, NULL, GVK_LOG_WARN};
	char what[128];
	g_warnings = 0, g_last[0] = 0;
	if (value) setenv("GVK_TEST_INT", value, 1); else unsetenv("GVK_TEST_INT");
	const int got = jni_env_int(&log, "GVK_TEST_INT", 7, 0, 15);
	snprintf(what, sizeof what, "int \"%s\": got %d want %d, %d warnings want %d", value ? value : "(unset)", got, want, g_warnings, warns);
	expect(got == want && g_warnings == warns && (!warns || strstr(g_last, "GVK_TEST_INT")), what);
}

static void check_double(const char *value, double want, int warns)
{
	const gvk_log_t log = {capture, NULL, GVK_LOG_WARN};
	char what[128];
	g_warnings = 0, g_last[0] = 0;
	if (value) setenv("GVK_TEST_REAL", value, 1); else unsetenv("GVK_TEST_REAL");
	const double got = jni_env_double(&log, "GVK_TEST_REAL", 1e5, 0);
	snprintf(what, sizeof what, "real \"%s\": got %g want %g, %d warnings want %d", value ? value : "(unset)", got, want, g_warnings, warns);
	expect(got == want && g_warnings == warns && (!warns || strstr(g_last, "GVK_TEST_REAL")), what);
}

static void check_device(const char *value, int want, int warns)
{
	const gvk_log_t log = {capture, NULL, GVK_LOG_WARN};
	char what[128];
	g_warnings = 0, g_last[0] = 0;
	if (value) setenv("GVK_DEVICE", value, 1); else unsetenv("GVK_DEVICE");
	const int got = jni_env_device(&log);
	snprintf(what, sizeof what, "GVK_DEVICE \"%s\": got %d want %d, %d warnings want %d", value ? value : "(unset)", got, want, g_warnings, warns);
	expect(got == want && g_warnings == warns, what);
}

int main(void)
{
	check_int(NULL, 7, 0);
	check_int("", 7, 0);
	check_int("3", 3, 0);
	check_int("0", 0, 0);
	check_int("15", 15, 0);
	check_int("abc", 7, 1);
	check_int("3x", 7, 1);
	check_int("16", 7, 1);
	check_int("-1", 7, 1);
	check_int("99999999999999999999", 7, 1);
	check_double(NULL, 1e5, 0);
	check_double("0", 0, 0);
	check_double("3e4", 3e4, 0);
	check_double("1e5cells", 1e5, 1);
	check_double("-5", 1e5, 1);
	check_double("nan", 1e5, 1);
	check_double("inf", 1e5, 1);
	check_device(NULL, GVK_DEVICE_AUTO, 0);
	check_device("GPU", GVK_DEVICE_GPU, 0);
	check_device("cpu", GVK_DEVICE_CPU, 0);
	check_device("auto", GVK_DEVICE_AUTO, 0);
	check_device("gpus", GVK_DEVICE_AUTO, 1);
	if (!g_fail) printf("jni_env: every setting parsed or refused as documented\n");
	return g_fail;
}
