/* SPDX-License-Identifier: MIT */
/* What the SNP API tests share: counted checks, the gvk binary and the data and scratch folders
 * from the command line, and paths and shell commands built like printf. */
#ifndef GVK_SNP_TEST_UTIL_H
#define GVK_SNP_TEST_UTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

static int fails;
static long checks;
#define CHECK(c, ...)                                                                                                  \
	do {                                                                                                           \
		++checks;                                                                                              \
		if (!(c) && fails++ < 20) fprintf(stderr, __VA_ARGS__);                                                \
	} while (0)

static const char *gvk_bin, *data_dir, *tmp_dir;

static inline void path(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline void path(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, n, fmt, ap);
	va_end(ap);
}

/* The exit status of a shell command, -1 when it did not exit normally. */
static inline int run(const char *cmd)
{
	int rc = system(cmd);
	return rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

#endif
