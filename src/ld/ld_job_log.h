/* SPDX-License-Identifier: MIT */
/* PREFIX.log of gvk ld: gvk's own record of a --r/--r2 run in lines like PLINK's (the command line,
 * samples and variants loaded and kept, the output or why there is none); docs/snp.md lists it. */
#ifndef GVK_LD_JOB_LOG_H
#define GVK_LD_JOB_LOG_H

#include <stdint.h>
#include <stdio.h>
#include "../common/err.h"

typedef struct {
	char *s;
	size_t len, cap;
	int oom;
} ld_log_t;

void ld_log_printf(ld_log_t *l, const char *fmt, ...) GVK_PRINTF(2, 3);
/* "Options in effect:" and one line per option with its values. */
void ld_log_options(ld_log_t *l, int argc, char **argv);
/* "Total genotyping rate is X." over the n SNPs' rates, as PLINK logs it. */
void ld_log_rate(ld_log_t *l, const double *rate, int64_t n);
/* Writes the text to fp; GVK_ERR_NOMEM if a line could not be kept, GVK_ERR_IO on a write error. */
int ld_log_write(const ld_log_t *l, FILE *fp, gvk_err_t *err);
void ld_log_free(ld_log_t *l);

#endif
