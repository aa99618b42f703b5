/* SPDX-License-Identifier: MIT */
/* The files of a gvk ld job: made through the caller's hooks (gvk_ld_files_t), or opened here
 * and closed when the run ends. */
#ifndef GVK_LD_JOB_FILES_H
#define GVK_LD_JOB_FILES_H

#include <stdio.h>
#include "gvk.h"

typedef struct {
	gvk_ld_files_t hooks; /* the caller's, name defaulted; open NULL: opened here */
	FILE *own[8];         /* the streams the defaults opened, closed by ld_job_files_close */
	int n_own;
} ld_job_files_t;

/* The caller's hooks (files may be NULL, or have NULL members) with the defaults filled in. */
void ld_job_files_init(ld_job_files_t *f, const gvk_ld_files_t *files);
/* A stream for path that the caller of the hooks owns, or one opened here; NULL with err set. */
FILE *ld_job_files_open(ld_job_files_t *f, const char *path, gvk_err_t *err);
/* Closes the streams opened here; GVK_ERR_IO naming a write error (err NULL: none reported). */
int ld_job_files_close(ld_job_files_t *f, gvk_err_t *err);

/* prefix followed by ext, malloc'ed; NULL when out of memory. */
char *ld_job_path(const char *prefix, const char *ext);

#endif
