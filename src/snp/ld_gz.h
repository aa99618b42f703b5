/* SPDX-License-Identifier: MIT */
/* gzip output compressed a batch of text pieces at a time, the pieces on several threads
 * (ld_gz.c); the writer's 'gz' tables and matrices. */
#ifndef GVK_SNP_LD_GZ_H
#define GVK_SNP_LD_GZ_H

#include <stdio.h>
#include "gvk.h"

typedef struct ld_gz ld_gz_t;

/* A compressor for batches of up to parts pieces; NULL when out of memory or built without zlib. */
ld_gz_t *ld_gz_new(int parts);
void ld_gz_free(ld_gz_t *g);

/* The gzip header. */
int ld_gz_start(ld_gz_t *g, FILE *fp, gvk_err_t *err);

/* The next n pieces of the text (b[k], len[k] bytes, in order), compressed on pool (a gvk_pool_t
 * of at least n threads, or NULL) and written. */
int ld_gz_write(ld_gz_t *g, FILE *fp, int n, const char *const *b, const size_t *len, void *pool, gvk_err_t *err);

/* The end of the stream: the last block, the text's CRC-32 and length. */
int ld_gz_finish(ld_gz_t *g, FILE *fp, gvk_err_t *err);

#endif
