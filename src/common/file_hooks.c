/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "file_hooks.h"
#include "err.h"

void file_hooks_init(file_hooks_t *f, const gvk_files_t *files)
{
	memset(f, 0, sizeof *f);
	if (files) f->hooks = *files;
}

FILE *file_hooks_open(file_hooks_t *f, const char *path, gvk_err_t *err)
{
	if (f->hooks.open) {
		FILE *fp = f->hooks.open(f->hooks.arg, path, err);
		/* the hook said why, or should have */
		if (!fp && err && err->code == 0) gvk_err_set(err, GVK_ERR_IO, "%s: cannot create", path);
		return fp;
	}
	if (!strcmp(path, "-")) return f->used_stdout = 1, stdout;
	if (f->n_own == (int)(sizeof f->own / sizeof *f->own))
		return gvk_err_set(err, GVK_ERR_IO, "%s: too many outputs open at once", path), NULL;
	char *name = strdup(path);
	if (!name) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory"), NULL;
	FILE *fp = fopen(path, "wb");
	if (!fp) {
		int e = errno;
		free(name);
		return gvk_err_set(err, GVK_ERR_IO, "%s: cannot create (%s)", path, strerror(e)), NULL;
	}
	f->own_path[f->n_own] = name;
	return f->own[f->n_own++] = fp;
}

static int close_at(file_hooks_t *f, int k, int rc, gvk_err_t *err)
{
	int bad = fclose(f->own[k]) != 0;
	if (rc == 0 && bad) rc = gvk_err_set(err, GVK_ERR_IO, "%s: write error", f->own_path[k]);
	free(f->own_path[k]);
	--f->n_own;
	f->own[k] = f->own[f->n_own], f->own_path[k] = f->own_path[f->n_own];
	return rc;
}

int file_hooks_close(file_hooks_t *f, FILE *fp, int rc, gvk_err_t *err)
{
	for (int k = 0; k < f->n_own; ++k)
		if (f->own[k] == fp) return close_at(f, k, rc, err);
	return rc;
}

int file_hooks_close_all(file_hooks_t *f, int rc, gvk_err_t *err)
{
	while (f->n_own > 0) rc = close_at(f, f->n_own - 1, rc, err);
	/* the caller's own standard output is none of this writer's business unless it wrote there */
	if (f->used_stdout && fflush(stdout) != 0 && rc == 0)
		rc = gvk_err_set(err, GVK_ERR_IO, "write error on standard output");
	return rc;
}

const char *file_hooks_name(const file_hooks_t *f, const char *path, gvk_err_t *err)
{
	return f->hooks.name ? f->hooks.name(f->hooks.arg, path, err) : path;
}

int file_hooks_drop(const file_hooks_t *f, const char *path, gvk_err_t *err)
{
	if (f->hooks.drop) return f->hooks.drop(f->hooks.arg, path, err);
	if (remove(path) == 0 || errno == ENOENT) return 0;
	return gvk_err_set(err, GVK_ERR_IO, "%s: cannot remove (%s)", path, strerror(errno));
}
