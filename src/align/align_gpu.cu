/* SPDX-License-Identifier: MIT */
/* GPU back end of the align engine (CUDA, or HIP through gpu_port.h): one thread per pair (fill,
 * end cell and traceback all on the GPU; only CIGAR elements, offsets and scores come back), pairs
 * sorted by shape into blocks of AG_B. The chunk pipeline (align_gpu_pipe.c) drives it through host slots of pinned buffers and
 * two streams with their own device buffers, so that the copies and kernel of one chunk overlap
 * the other's. The per-pair logic is align_gpu_pair.h, shared with the emulation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "../common/err.h"
#include "align_engine.h"
}
#include "../common/cuda_check.h"
#include "../common/cuda_mem.h"
#include "../common/gpu_probe.h"

#define AL_HD static __device__ __forceinline__
#include "align_gpu_pair.h"

__global__ void GPU_LAUNCH_BOUNDS(AG_B) ag_kernel(ag_chunk_dev_t c, size_t n, int java)
{
	const size_t k = (size_t)blockIdx.x * AG_B + threadIdx.x;
	if (k < n) ag_pair(&c, k, java);
}

/* The passes of one pair on its block's warps, strips W wide (a constant here, so that the lanes'
 * cells stay in registers). The thread holding the last strip leaves the last-column scan's best
 * in *lc_best / *lc_row. ring: AG_WRING rows per warp boundary. */
template <int W>
static __device__ __forceinline__ void ag_warp_fill(ag_wpair_t *p, int t, ag_int2_t *ring, int32_t *lc_best, int *lc_row)
{
	const int lane = t % AG_LANES, w = t / AG_LANES, nw = p->nl / AG_LANES;
	ag_lane_t L;
	for (int g = 0; g * p->nl < p->nq; ++g) {
		ag_wlane_start_w(p, g, t, &L, W);
		ag_int2_t out = ag_int2(0, 0);
		const int steps = ag_wpass_steps(p, g);
		for (int tau = 1; tau <= steps; ++tau) {
			ag_int2_t in;
			in.x = gpu_shfl_up(out.x, 1, AG_LANES), in.y = gpu_shfl_up(out.y, 1, AG_LANES);
			const int i = ag_wlane_row(&L, tau);
			const int live = i >= 1 && i <= p->n;
			if (lane == 0 && w > 0 && live) in = ring[(w - 1) * AG_WRING + i % AG_WRING];
			out = ag_wlane_step_w(p, &L, tau, in, W);
			if (lane == AG_LANES - 1 && w < nw - 1 && live) ring[w * AG_WRING + i % AG_WRING] = out;
			/* a row crosses a warp boundary AG_WLAG steps after it is written: a barrier that often
			 * orders both the read and the ring slot's next write (ag_woff) */
			if (nw > 1 && tau % AG_WLAG == 0) __syncthreads();
		}
		ag_wlane_end_w(p, &L, W);
		if (L.s == p->nq - 1) *lc_best = L.lc_best, *lc_row = L.lc_row;
		__syncthreads(); /* the last lane's carry before the next pass reads it */
	}
}

/* One block of ag_plan_t.nw warps per pair (ag_use_warp): the lanes' strips in a wavefront,
 * thread 0 traces back. The ref is copied into shared memory (one load a row per lane otherwise
 * waits on global memory), and so are the moves when the launch gave room for them (smem bytes in
 * all). */
__global__ void GPU_LAUNCH_BOUNDS(AG_LANES * AG_WMAX_WARPS) ag_warp_kernel(ag_chunk_dev_t c, int java, unsigned smem)
{
	extern __shared__ uint64_t ag_sm[];
	__shared__ ag_int2_t ring[(AG_WMAX_WARPS - 1) * AG_WRING];
	__shared__ int32_t last_best;
	__shared__ int last_row;
	const size_t k = blockIdx.x;
	const int t = (int)threadIdx.x, nw = (int)blockDim.x / AG_LANES;
	const ag_job_t *jb = &c.jobs[k];
	const size_t ref_room = ((size_t)jb->n + 7) & ~(size_t)7;
	uint8_t *sref = (uint8_t *)ag_sm;
	for (int q = t; q < jb->n; q += (int)blockDim.x) sref[q] = c.seq[jb->seq + (size_t)q];
	uint64_t *smoves = ref_room + ag_wmoves_bytes(jb->n, jb->m) <= smem ? ag_sm + ref_room / 8 : NULL;
	__syncthreads();
	ag_wpair_t p;
	ag_wpair_init(&c, k, java, nw, smoves, sref, &p);
	int32_t lc_best = INT32_MIN;
	int lc_row = 0;
	if (p.W == 4)
		ag_warp_fill<4>(&p, t, ring, &lc_best, &lc_row);
	else if (p.W == 8)
		ag_warp_fill<8>(&p, t, ring, &lc_best, &lc_row);
	else
		ag_warp_fill<AG_W>(&p, t, ring, &lc_best, &lc_row);
	if (t == (p.nq - 1) % p.nl) last_best = lc_best, last_row = lc_row;
	__syncthreads(); /* every lane's moves and bottom row, and the scan's best, before thread 0 reads them */
	if (t == 0) ag_finish(&c, k, &p.mv, java, last_best, last_row);
}

enum { NDEV = 2 };

typedef struct {
	uint8_t *hin, *hout; /* pinned */
	size_t chin, chout;
	int dev;             /* the device set its chunk was submitted to */
} hslot_t;

typedef struct {
	uint8_t *din, *dout, *scr;
	size_t cdin, cdout, cscr;
	size_t el_at; /* the submitted chunk's full elements in scr */
	cudaEvent_t k0, k1;
} dset_t;

struct al_gpu_s {
	int dev;
	cudaStream_t st[NDEV];
	dset_t d[NDEV];
	hslot_t h[AG_SLOTS];
	int next;      /* device set of the next submit */
	size_t budget; /* device bytes per chunk */
	int nsm;       /* multiprocessors */
	size_t smem;   /* shared memory a block may have (opt-in) */
	char name[300];
};

static int gpu_init(al_gpu_t *g, const gvk_align_opts_t *opt, gvk_err_t *err)
{
	/* No GPU at all: nothing to warn about in auto mode (GVK_ERR_UNSUPPORTED). */
	const int n = gvk_gpu_probe_err(err, GVK_ERR_UNSUPPORTED, "");
	if (n < 0) return n;
	g->dev = opt->gpu < 0 ? 0 : opt->gpu;
	if (g->dev >= n)
		return gvk_err_set(err, GVK_ERR_ARG, "align: gpu %d, but " GVK_GPU_API " sees %d GPU%s", g->dev, n, n == 1 ? "" : "s");
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, g->dev));
	if (prop.major < 7)
		return gvk_err_set(err, GVK_ERR_GPU, "GPU %s has compute capability %d.%d; the align engine needs 7.0 or newer",
		                   prop.name, prop.major, prop.minor);
	CK(cudaSetDevice(g->dev));
	snprintf(g->name, sizeof g->name, "gpu-%s", prop.name);
	g->nsm = prop.multiProcessorCount;
	/* the dynamic part: the kernel's own ring and scan result take the rest */
	cudaFuncAttributes fa;
	CK(cudaFuncGetAttributes(&fa, ag_warp_kernel));
	g->smem = GPU_PROP_SMEM_OPTIN(prop) - fa.sharedSizeBytes;
	CK(cudaFuncSetAttribute(ag_warp_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)g->smem));
	for (int s = 0; s < NDEV; ++s) {
		CK(cudaStreamCreateWithFlags(&g->st[s], cudaStreamNonBlocking));
		CK(cudaEventCreate(&g->d[s].k0));
		CK(cudaEventCreate(&g->d[s].k1));
	}
	size_t fr = 0, tot = 0;
	CK(cudaMemGetInfo(&fr, &tot));
	/* Two chunks in flight, buffers grown with 25 % slack: at most ~60 % of the free memory. */
	g->budget = fr / 4;
	if (g->budget > ((size_t)4 << 30)) g->budget = (size_t)4 << 30;
	if (opt->gpu_chunk_mb > 0) g->budget = (size_t)opt->gpu_chunk_mb << 20;
	return 0;
}

extern "C" void al_gpu_close(al_gpu_t *g)
{
	if (!g) return;
	for (int s = 0; s < NDEV; ++s) {
		dset_t *q = &g->d[s];
		if (g->st[s]) cudaStreamSynchronize(g->st[s]), cudaStreamDestroy(g->st[s]);
		cudaFree(q->din), cudaFree(q->dout), cudaFree(q->scr);
		if (q->k0) cudaEventDestroy(q->k0);
		if (q->k1) cudaEventDestroy(q->k1);
	}
	for (int s = 0; s < AG_SLOTS; ++s) {
		hslot_t *h = &g->h[s];
		gvk_cuda_free((void **)&h->hin, &h->chin, GVK_MEM_PINNED), gvk_cuda_free((void **)&h->hout, &h->chout, GVK_MEM_PINNED);
	}
	free(g);
}

extern "C" al_gpu_t *al_gpu_open(const gvk_align_opts_t *opt, gvk_err_t *err)
{
	al_gpu_t *g = (al_gpu_t *)calloc(1, sizeof *g);
	if (!g) {
		gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (gpu_init(g, opt, err) < 0) {
		al_gpu_close(g);
		return NULL;
	}
	return g;
}

extern "C" const char *al_gpu_name(const al_gpu_t *g) { return g ? g->name : "none"; }
extern "C" size_t al_gpu_budget(const al_gpu_t *g) { return g->budget; }

static int grow(uint8_t **p, size_t *cap, size_t need, gvk_mem_t kind, const char *what, gvk_err_t *err)
{
	return gvk_cuda_reserve((void **)p, cap, need, kind, GVK_GROW_QUARTER, 0, what, err);
}

static int gpu_buffers(void *ctx, int s, const ag_plan_t *p, uint8_t **in, uint8_t **out, gvk_err_t *err)
{
	hslot_t *h = &((al_gpu_t *)ctx)->h[s];
	int rc;
	if ((rc = grow(&h->hin, &h->chin, p->in_bytes, GVK_MEM_PINNED, "a batch's pairs", err)) < 0) return rc;
	if ((rc = grow(&h->hout, &h->chout, p->out_bytes, GVK_MEM_PINNED, "a batch's results", err)) < 0) return rc;
	*in = h->hin, *out = h->hout;
	return 0;
}

/* Shared memory of a warp-schedule launch: every pair's ref, and every pair's moves too when that
 * still lets all the chunk's pairs run at once (otherwise more warps in flight hide the scratch's
 * latency better). */
static unsigned warp_smem(const al_gpu_t *g, const ag_plan_t *p, const uint8_t *in)
{
	const ag_job_t *jo = (const ag_job_t *)(in + p->jobs_at);
	size_t ref = 0, all = 0;
	for (size_t k = 0; k < p->n; ++k) {
		const size_t r = ((size_t)jo[k].n + 7) & ~(size_t)7, a = r + ag_wmoves_bytes(jo[k].n, jo[k].m);
		if (r > ref) ref = r;
		if (a > all) all = a;
	}
	const size_t per_sm = all <= g->smem ? g->smem / (all + 1024) : 0;
	return (unsigned)(per_sm > 0 && p->n <= per_sm * (size_t)g->nsm ? all : ref);
}

static int gpu_submit(void *ctx, int s, const ag_plan_t *p, int java, gvk_err_t *err)
{
	al_gpu_t *g = (al_gpu_t *)ctx;
	hslot_t *h = &g->h[s];
	const int d = g->next;
	dset_t *q = &g->d[d];
	cudaStream_t st = g->st[d];
	g->next = (d + 1) % NDEV;
	h->dev = d;
	int rc;
	if (cudaSetDevice(g->dev) != cudaSuccess) return gvk_err_set(err, GVK_ERR_GPU, GVK_GPU_API ": cannot select the GPU");
	if ((rc = grow(&q->din, &q->cdin, p->in_bytes, GVK_MEM_DEVICE, "a batch's pairs", err)) < 0) return rc;
	if ((rc = grow(&q->dout, &q->cdout, p->out_bytes, GVK_MEM_DEVICE, "a batch's results", err)) < 0) return rc;
	if ((rc = grow(&q->scr, &q->cscr, p->scratch_bytes, GVK_MEM_DEVICE, "a batch's traceback scratch", err)) < 0) return rc;
	q->el_at = p->el_at;
	CK(cudaMemcpyAsync(q->din, h->hin, p->in_bytes, cudaMemcpyHostToDevice, st));
	const ag_chunk_dev_t c = ag_view(p, q->din, q->dout, q->scr);
	CK(cudaEventRecord(q->k0, st));
	if (ag_use_warp(p)) {
		const unsigned smem = warp_smem(g, p, h->hin);
		ag_warp_kernel<<<(unsigned)p->n, (unsigned)(AG_LANES * p->nw), smem, st>>>(c, java, smem);
	} else {
		ag_kernel<<<(unsigned)p->nb, AG_B, 0, st>>>(c, p->n, java);
	}
	CK(cudaGetLastError());
	CK(cudaEventRecord(q->k1, st));
	CK(cudaMemcpyAsync(h->hout, q->dout, p->out_bytes, cudaMemcpyDeviceToHost, st));
	return 0;
}

static int gpu_wait(void *ctx, int s, double *kernel_s, gvk_err_t *err)
{
	al_gpu_t *g = (al_gpu_t *)ctx;
	const int d = g->h[s].dev;
	CK(cudaStreamSynchronize(g->st[d]));
	float ms = 0;
	CK(cudaEventElapsedTime(&ms, g->d[d].k0, g->d[d].k1));
	*kernel_s += ms * 1e-3;
	return 0;
}

static int gpu_fetch(void *ctx, int s, uint64_t el, int count, uint32_t *dst, gvk_err_t *err)
{
	al_gpu_t *g = (al_gpu_t *)ctx;
	const dset_t *q = &g->d[g->h[s].dev];
	/* Rare long CIGARs: fetched one by one from the device scratch. */
	const cudaError_t e = cudaMemcpy(dst, (const uint32_t *)(q->scr + q->el_at) + el, (size_t)count * 4, cudaMemcpyDeviceToHost);
	if (e != cudaSuccess)
		return gvk_err_set(err, GVK_ERR_GPU, GVK_GPU_API ": copying a CIGAR back: %s", cudaGetErrorString(e));
	return 0;
}

extern "C" ag_backend_t al_gpu_backend(al_gpu_t *g)
{
	ag_backend_t be = {g, gpu_buffers, gpu_submit, gpu_wait, gpu_fetch};
	return be;
}
