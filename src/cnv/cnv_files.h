/* SPDX-License-Identifier: MIT */
/* The files the CNV writers make (the VCF, the plots): through the caller's gvk_cnv_files_t, or at
 * the path itself for a step it leaves NULL. */
#ifndef GVK_CNV_FILES_H
#define GVK_CNV_FILES_H

#include <stdio.h>
#include "gvk.h"

/* An output stream: from files->open (the caller closes it), or opened here (own). */
typedef struct {
	FILE *fp;
	int own;
} cnv_out_t;

/* 0, or an error code with err set. */
int cnv_out_open(const gvk_cnv_files_t *f, const char *path, cnv_out_t *out, gvk_err_t *err);
/* Closes a stream opened here; rc: the writer's status, returned unless it was 0 and the close
 * failed. */
int cnv_out_close(cnv_out_t *out, const char *path, int rc, gvk_err_t *err);
/* The name under which to create path; NULL with err set. */
const char *cnv_out_name(const gvk_cnv_files_t *f, const char *path, gvk_err_t *err);
/* A file that must not stay beside the outputs; 0 or an error code. */
int cnv_out_drop(const gvk_cnv_files_t *f, const char *path, gvk_err_t *err);

#endif
