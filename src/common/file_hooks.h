/* SPDX-License-Identifier: MIT */
/* The writers' side of gvk_files_t: each output made through the caller's hook, or at its path
 * for a hook left NULL, the streams opened here closed by the writer. */
#ifndef GVK_COMMON_FILE_HOOKS_H
#define GVK_COMMON_FILE_HOOKS_H

#include <stdio.h>
#include "gvk.h"

typedef struct {
	gvk_files_t hooks; /* the caller's (all NULL without files) */
	FILE *own[8];      /* open streams the defaults made, closed by file_hooks_close */
	char *own_path[8];
	int n_own;
	int used_stdout;   /* "-" was opened: standard output is flushed at the end */
} file_hooks_t;

void file_hooks_init(file_hooks_t *f, const gvk_files_t *files);
/* A stream for path: the caller's hook's, standard output for "-", or a file opened here; NULL with
 * err set. */
FILE *file_hooks_open(file_hooks_t *f, const char *path, gvk_err_t *err);
/* Closes fp when it was opened here (a hook's stream stays the caller's). rc: the writer's status,
 * returned unless it was 0 and the close failed ("PATH: write error"). */
int file_hooks_close(file_hooks_t *f, FILE *fp, int rc, gvk_err_t *err);
/* Closes every stream still open here, and flushes standard output when a path was "-"; the first
 * write error, named. */
int file_hooks_close_all(file_hooks_t *f, int rc, gvk_err_t *err);
/* The name under which to create path by name; NULL with err set. */
const char *file_hooks_name(const file_hooks_t *f, const char *path, gvk_err_t *err);
/* Removes a file that must not stay beside the outputs (or leaves that to the hook); 0 or a code. */
int file_hooks_drop(const file_hooks_t *f, const char *path, gvk_err_t *err);

#endif
