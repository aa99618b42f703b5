/* SPDX-License-Identifier: MIT */
/* gzip output whose pieces are compressed on several threads (ld_gz.c), with bytes that depend
 * on the text alone: gvk ld's 'gz' tables and matrices, from one process or from MPI ranks. */
#ifndef GVK_SNP_LD_GZ_H
#define GVK_SNP_LD_GZ_H

#include <stdio.h>
#include "gvk.h"

typedef struct ld_gz ld_gz_t;

/* A compressor for up to `threads` threads; NULL when out of memory or built without zlib and
 * libdeflate. */
ld_gz_t *ld_gz_new(int threads);
void ld_gz_free(ld_gz_t *g);

/* The gzip header. */
int ld_gz_start(ld_gz_t *g, FILE *fp, gvk_err_t *err);

/* The next n bytes of the text; whole pieces are compressed (on pool, a gvk_pool_t of the
 * compressor's threads, or NULL) and written once there are enough for every thread. */
int ld_gz_add(ld_gz_t *g, FILE *fp, const char *b, size_t n, void *pool, gvk_err_t *err);

/* The rest of the text, the last block, the text's CRC-32 and length. */
int ld_gz_finish(ld_gz_t *g, FILE *fp, void *pool, gvk_err_t *err);

#endif
