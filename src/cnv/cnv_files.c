/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../common/err.h"
#include "cnv_files.h"

int cnv_out_open(const gvk_cnv_files_t *f, const char *path, cnv_out_t *out, gvk_err_t *err)
{
	out->own = !f || !f->open;
	out->fp = out->own ? fopen(path, "w") : f->open(f->arg, path, err);
	if (out->fp) return 0;
	if (out->own) return gvk_err_set(err, GVK_ERR_IO, "%s: cannot write (%s)", path, strerror(errno));
	/* the caller's call said why, or should have */
	return err && err->code < 0 ? err->code : GVK_ERR_IO;
}

int cnv_out_close(cnv_out_t *out, const char *path, int rc, gvk_err_t *err)
{
	if (!out->own || !out->fp) return rc;
	int bad = fclose(out->fp) != 0;
	out->fp = NULL;
	return rc == 0 && bad ? gvk_err_set(err, GVK_ERR_IO, "%s: write error", path) : rc;
}

const char *cnv_out_name(const gvk_cnv_files_t *f, const char *path, gvk_err_t *err)
{
	return f && f->name ? f->name(f->arg, path, err) : path;
}

int cnv_out_drop(const gvk_cnv_files_t *f, const char *path, gvk_err_t *err)
{
	if (f && f->drop) return f->drop(f->arg, path, err);
	if (remove(path) == 0 || errno == ENOENT) return 0;
	return gvk_err_set(err, GVK_ERR_IO, "%s: cannot remove (%s)", path, strerror(errno));
}
