/* SPDX-License-Identifier: MIT */
/* --indep-pairwise and --indep-pairphase with the GPU counting each pair a window can compare:
 * a worker of ld_prune_win.c hands over a band of rows (SNPs r0 .. r1 - 1 of a chromosome, each with
 * the later SNPs below its window end) and receives one bit per pair, set when the pair's r^2,
 * formed on the host from the GPU's integers exactly as the CPU forms it, is over the threshold.
 * Workers share the GPU one band at a time. */
#ifndef GVK_LD_PRUNE_GPU_H
#define GVK_LD_PRUNE_GPU_H

#include <pthread.h>
#include <stdint.h>

#include "ld_prune_pair.h"
#include "../snp/snp_gpu.h"

/* The GPU and its lock, shared by the workers. */
typedef struct {
	snp_gpu_t *g;
	pthread_mutex_t lock;
} prune_gpu_t;

/* A worker's host buffers: the band's row offsets and counts. */
typedef struct {
	int64_t *off;
	uint32_t *cnt;
	int64_t off_cap, cnt_cap;
} prune_gpu_buf_t;

/* One band. The worker's rings hold SNP i in slot i % n_slot: its planes at ring (SNP_PLANES * nw
 * words a slot; ring_slots 0: SNP i at ring + i * SNP_PLANES * nw, no ring), its sums at s, and
 * the bits of row i at bits (stride words a slot; bit t: the pair (i, i + 1 + t)). */
typedef struct {
	const uint64_t *ring;
	int64_t ring_slots;
	const prune_snp_t *s;
	uint64_t *bits;
	int64_t n_slot, stride;
	int nw;
	int64_t n_bits;
	int phased;
	const uint64_t *xmale; /* --indep-pairphase on X: the male columns */
	double thr;
	int64_t r0, r1;      /* the rows */
	const int64_t *kend; /* kend[r - r0]: the first SNP after row r's window (the rows' last one below r1's) */
} prune_band_t;

/* The band's bits; 0, or a negative code with err set (the GPU's error). */
int prune_gpu_band(prune_gpu_t *pg, prune_gpu_buf_t *b, const prune_band_t *bd, gvk_err_t *err);

/* The rows a band takes: as many as keep its counts and planes within a worker's budget, at least 1. */
int64_t prune_gpu_rows(int64_t cap, int phased, int nw);

void prune_gpu_buf_free(prune_gpu_buf_t *b);

#endif
