/* SPDX-License-Identifier: MIT */
/* The GPU context every SNP engine's back end shares (snp_gpu.cu opens it; ld/ld_gpu.cu and
 * fastid/fastid_gpu.cu compute on it): the device's limits, streams and timing events, and the
 * buffers each engine keeps between calls, freed with the context. CUDA C++ only. */
#ifndef GVK_SNP_GPU_IMPL_CUH
#define GVK_SNP_GPU_IMPL_CUH

#include "../common/gpu_port.h"
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What every back end on the context uses: errors, log, checked CUDA calls, thread counts. */
extern "C" {
#include "snp_gpu.h"
#include "popgemm.h"
#include "../common/cuda_mem.h"
#include "../common/err.h"
#include "../common/log.h"
#include "../common/cuda_check.h"
#include "../common/threads.h"
}

enum { LD_CHUNKS = 4, LD_NBUF = 4, LD_EVENTS = 64 }; /* chunks per stripe (at least), result buffers, timing events */
enum { PATH_AUTO = GVK_SNP_PATH_AUTO, PATH_POPC = GVK_SNP_PATH_POPC, PATH_MMA = GVK_SNP_PATH_MMA };

struct snp_gpu_s {
	int dev, sms, max_threads_sm, cc;
	int ld_bps[2]; /* resident blocks per SM of the large-tile CUDA-core LD kernel (general, FULL) */
	size_t smem_block, smem_optin, mem_free;
	char name[272];   /* "gpu-" and cudaDeviceProp.name */
	char kernel[300]; /* name and the LD count path that ran */
	int path, ld_path; /* requested (snp_gpu_opt_t.path) and chosen LD count path */
	double kern_s;     /* summed kernel time */
	cudaStream_t st[3]; /* 0: kernels, 1: copies back, 2: LD's second kernel stream */
	cudaEvent_t ev[LD_EVENTS][2], done[LD_NBUF], copied[LD_NBUF], staged[2];
	/* LD: every SNP of the planes at ld_src resident in ld_w, their totals in ld_tot (ld_src NULL:
	 * ld_w holds a streamed stripe's rows, ld_yw two slices of its columns, staged in h_stage) */
	const uint64_t *ld_src;
	uint64_t *ld_w, *ld_yw[2], *h_stage[2];
	int32_t *ld_ytot[2];
	size_t ld_yw_cap[2], ld_ytot_cap[2], h_stage_cap[2];
	int32_t *ld_tot;
	size_t ld_w_cap, ld_tot_cap;
	int64_t *ld_jr;        /* jlo then jhi of a stripe, device */
	size_t ld_jr_cap;
	pg_ldcnt_t *ld_cnt[LD_NBUF], *h_cnt;
	double *ld_val[LD_NBUF];
	size_t ld_cnt_cap[LD_NBUF], ld_val_cap[LD_NBUF], h_cnt_cap;
	int64_t db_block, q_batch; /* snp_gpu_opt_t's limits; 0 = automatic */
	gvk_log_t log;
	/* --clump: pairs, their X flags, the male columns and the tables of one call */
	int64_t *cl_pairs;
	uint8_t *cl_x;
	uint64_t *cl_male;
	uint32_t *cl_cnt;
	size_t cl_pairs_cap, cl_x_cap, cl_male_cap, cl_cnt_cap;
	/* --indep-pairwise / --indep-pairphase: the planes of a band's SNPs, its row offsets, counts */
	uint64_t *pr_w;
	int64_t *pr_off;
	uint32_t *pr_cnt;
	size_t pr_w_cap, pr_off_cap, pr_cnt_cap;
};

/* Device and page-locked buffers that grow to the size asked for. */
static inline int dev_reserve(void **p, size_t *cap, size_t need, const char *what, gvk_err_t *err)
{
	return gvk_cuda_reserve(p, cap, need, GVK_MEM_DEVICE, GVK_GROW_EXACT, 0, what, err);
}

static inline int pinned_reserve(void **p, size_t *cap, size_t need, const char *what, gvk_err_t *err)
{
	return gvk_cuda_reserve(p, cap, need, GVK_MEM_PINNED, GVK_GROW_EXACT, 0, what, err);
}

#endif
