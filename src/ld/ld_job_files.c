/* SPDX-License-Identifier: MIT */
/* A job's outputs go wherever the caller's hooks put them (gvk ld: temporaries renamed on
 * success); without hooks they are opened at their paths, "-" being standard output. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ld_job_files.h"
#include "../common/buf.h"
#include "../common/err.h"

static const char *same_name(void *arg, const char *path, gvk_err_t *err)
{
	(void)arg, (void)err;
	return path;
}

void ld_job_files_init(ld_job_files_t *f, const gvk_ld_files_t *files)
{
	memset(f, 0, sizeof *f);
	if (files) f->hooks = *files;
	/* a NULL open stays NULL: the default, opened here (ld_job_files_open) */
	if (!f->hooks.name) f->hooks.name = same_name;
}

FILE *ld_job_files_open(ld_job_files_t *f, const char *path, gvk_err_t *err)
{
	if (f->hooks.open) return f->hooks.open(f->hooks.arg, path, err);
	if (!strcmp(path, "-")) return stdout;
	if (f->n_own == (int)(sizeof f->own / sizeof *f->own))
		return gvk_err_set(err, GVK_ERR_IO, "%s: too many outputs", path), NULL;
	FILE *fp = fopen(path, "wb");
	if (!fp) return gvk_err_set(err, GVK_ERR_IO, "cannot create %s: %s", path, strerror(errno)), NULL;
	return f->own[f->n_own++] = fp;
}

int ld_job_files_close(ld_job_files_t *f, gvk_err_t *err)
{
	int rc = 0;
	for (int k = 0; k < f->n_own; ++k)
		if (fclose(f->own[k]) != 0 && rc == 0) rc = err ? gvk_err_set(err, GVK_ERR_IO, "write error on an output") : GVK_ERR_IO;
	if (fflush(stdout) != 0 && rc == 0) rc = err ? gvk_err_set(err, GVK_ERR_IO, "write error on standard output") : GVK_ERR_IO;
	f->n_own = 0;
	return rc;
}

char *ld_job_path(const char *prefix, const char *ext) { return gvk_concat(prefix, ext); }
