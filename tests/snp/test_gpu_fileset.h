/* SPDX-License-Identifier: MIT */
/* The set-up the LD GPU tests (test_clump_gpu, test_prune_gpu) share: the GPU, or exit status 77
 * with the reason, and one fileset both decoded into planes and as .bed rows to stream from. */
#ifndef GVK_TEST_GPU_FILESET_H
#define GVK_TEST_GPU_FILESET_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snp/plink_io.h"
#include "snp/snp_gpu.h"

typedef struct {
	snp_gpu_t *gpu;
	snp_data_t d, ds;    /* the planes; the variant table of the rows src streams */
	snp_geno_ctx_t gc;
	int64_t *row, n_rows;
	char bed[4096];
	snp_bed_src_t src;   /* points into this struct: keep it where it was opened */
} gpu_fileset_t;

/* 0, 77 (no GPU; the reason printed) or 1 (the reading error printed). */
static int gpu_fileset_open(const char *prefix, gpu_fileset_t *f)
{
	gvk_err_t err = {0, ""};
	snp_gpu_opt_t go;
	snp_plink_opt_t po = {0, 0};
	memset(f, 0, sizeof *f), memset(&go, 0, sizeof go);
	if (!(f->gpu = snp_gpu_open(&go, &err))) return printf("skipped: %s\n", err.msg), 77;
	snprintf(f->bed, sizeof f->bed, "%s.bed", prefix);
	if (snp_read_bfile(prefix, &po, &f->d, &err) < 0 ||
	    snp_read_bfile_rows(prefix, &po, 0, &f->ds, &f->gc, &f->row, &f->n_rows, &err) < 0)
		return fprintf(stderr, "%s\n", err.msg), 1;
	f->src = (snp_bed_src_t){f->bed, f->row, f->n_rows, f->ds.n_samples, &f->gc, 1};
	return 0;
}

static void gpu_fileset_close(gpu_fileset_t *f)
{
	snp_gpu_close(f->gpu), f->gpu = NULL;
	snp_data_free(&f->d), snp_data_free(&f->ds);
	snp_geno_ctx_free(&f->gc);
	free(f->row), f->row = NULL;
}

#endif
