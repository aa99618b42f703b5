/* SPDX-License-Identifier: MIT */
/* The log text is kept in memory and written with the other outputs of the run, so that a failed
 * run leaves no log either. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ld_job_log.h"

void ld_log_printf(ld_log_t *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || l->oom) return;
	if (l->len + (size_t)n + 1 > l->cap) {
		size_t cap = (l->len + (size_t)n + 1) * 2 + 256;
		char *s = realloc(l->s, cap);
		if (!s) {
			l->oom = 1;
			return;
		}
		l->s = s, l->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(l->s + l->len, l->cap - l->len, fmt, ap);
	va_end(ap);
	l->len += (size_t)n;
}

static int starts_option(const char *s) { return s[0] == '-' && s[1] && !(s[1] >= '0' && s[1] <= '9') && s[1] != '.'; }

void ld_log_options(ld_log_t *l, int argc, char **argv)
{
	ld_log_printf(l, "Options in effect:");
	for (int i = 1; i < argc; ++i) ld_log_printf(l, starts_option(argv[i]) || i == 1 ? "\n  %s" : " %s", argv[i]);
	ld_log_printf(l, "\n\n");
}

int ld_log_write(const ld_log_t *l, FILE *fp, gvk_err_t *err)
{
	if (l->oom) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for the log");
	if (l->len && fwrite(l->s, 1, l->len, fp) != l->len) return gvk_err_set(err, GVK_ERR_IO, "write error on the log");
	return 0;
}

void ld_log_free(ld_log_t *l)
{
	free(l->s);
	memset(l, 0, sizeof *l);
}

void ld_log_rate(ld_log_t *l, const double *rate, int64_t n)
{
	double tot = 0;
	for (int64_t i = 0; i < n; ++i) tot += rate[i];
	ld_log_printf(l, "Total genotyping rate is %g.\n", n ? tot / (double)n : 0.0);
}

