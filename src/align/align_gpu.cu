/* SPDX-License-Identifier: MIT */
/* CUDA back end of the align engine: one thread per pair (fill, end cell and traceback all on the
 * GPU; only CIGAR elements, offsets and scores come back), pairs sorted by shape into blocks of
 * AG_B, batches streamed in chunks through two streams so that packing, copies and kernels of
 * consecutive chunks overlap. The per-pair logic is align_gpu_pair.h, shared with the emulation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "../common/err.h"
#include "align_engine.h"
}
#include "../common/cuda_check.h"
#include "../common/cuda_mem.h"

#define AL_HD static __device__ __forceinline__
#include "align_gpu_pair.h"

__global__ void __launch_bounds__(AG_B) ag_kernel(ag_chunk_dev_t c, size_t n, int java)
{
	const size_t k = (size_t)blockIdx.x * AG_B + threadIdx.x;
	if (k < n) ag_pair(&c, k, java);
}

enum { NSLOT = 2 };

typedef struct {
	uint8_t *hin, *hout;       /* pinned */
	uint8_t *din, *dout, *scr; /* device */
	size_t chin, chout, cdin, cdout, cscr; /* capacities */
	cudaEvent_t k0, k1;
	ag_plan_t plan;
	int busy;
} slot_t;

struct al_gpu_s {
	int dev;
	cudaStream_t st[NSLOT];
	slot_t slot[NSLOT];
	size_t budget; /* device bytes per chunk */
	double kernel_s;
	char name[300];
};

static int gpu_init(al_gpu_t *g, gvk_err_t *err)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n == 0)
		/* No GPU or no driver: nothing to warn about in auto mode (GVK_ERR_UNSUPPORTED). */
		return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "no CUDA GPU: %s", e != cudaSuccess ? cudaGetErrorString(e) : "none found");
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, 0));
	if (prop.major < 7)
		return gvk_err_set(err, GVK_ERR_GPU, "GPU %s has compute capability %d.%d; the align engine needs 7.0 or newer",
		                   prop.name, prop.major, prop.minor);
	CK(cudaSetDevice(0));
	snprintf(g->name, sizeof g->name, "gpu-%s", prop.name);
	for (int s = 0; s < NSLOT; ++s) {
		CK(cudaStreamCreateWithFlags(&g->st[s], cudaStreamNonBlocking));
		CK(cudaEventCreate(&g->slot[s].k0));
		CK(cudaEventCreate(&g->slot[s].k1));
	}
	size_t fr = 0, tot = 0;
	CK(cudaMemGetInfo(&fr, &tot));
	/* Two chunks in flight, buffers grown with 25 % slack: at most ~60 % of the free memory. */
	g->budget = fr / 4;
	if (g->budget > ((size_t)4 << 30)) g->budget = (size_t)4 << 30;
	const char *env = getenv("GVK_ALIGN_GPU_CHUNK_MB"); /* tests: force many small chunks */
	if (env && atol(env) > 0) g->budget = (size_t)atol(env) << 20;
	return 0;
}

extern "C" void al_gpu_close(al_gpu_t *g)
{
	if (!g) return;
	for (int s = 0; s < NSLOT; ++s) {
		slot_t *q = &g->slot[s];
		if (g->st[s]) cudaStreamSynchronize(g->st[s]), cudaStreamDestroy(g->st[s]);
		gvk_cuda_free((void **)&q->hin, &q->chin, GVK_MEM_PINNED), gvk_cuda_free((void **)&q->hout, &q->chout, GVK_MEM_PINNED);
		cudaFree(q->din), cudaFree(q->dout), cudaFree(q->scr);
		if (q->k0) cudaEventDestroy(q->k0);
		if (q->k1) cudaEventDestroy(q->k1);
	}
	free(g);
}

extern "C" al_gpu_t *al_gpu_open(const gvk_align_opts_t *opt, gvk_err_t *err)
{
	(void)opt;
	al_gpu_t *g = (al_gpu_t *)calloc(1, sizeof *g);
	if (!g) {
		gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (gpu_init(g, err) < 0) {
		al_gpu_close(g);
		return NULL;
	}
	return g;
}

extern "C" const char *al_gpu_name(const al_gpu_t *g) { return g ? g->name : "none"; }
extern "C" double al_gpu_kernel_seconds(const al_gpu_t *g) { return g ? g->kernel_s : 0.0; }

static int grow(uint8_t **p, size_t *cap, size_t need, gvk_mem_t kind, const char *what, gvk_err_t *err)
{
	return gvk_cuda_reserve((void **)p, cap, need, kind, GVK_GROW_QUARTER, 0, what, err);
}

static int slot_reserve(slot_t *q, const ag_plan_t *p, gvk_err_t *err)
{
	int rc;
	if ((rc = grow(&q->hin, &q->chin, p->in_bytes, GVK_MEM_PINNED, "a batch's pairs", err)) < 0) return rc;
	if ((rc = grow(&q->din, &q->cdin, p->in_bytes, GVK_MEM_DEVICE, "a batch's pairs", err)) < 0) return rc;
	if ((rc = grow(&q->hout, &q->chout, p->out_bytes, GVK_MEM_PINNED, "a batch's results", err)) < 0) return rc;
	if ((rc = grow(&q->dout, &q->cdout, p->out_bytes, GVK_MEM_DEVICE, "a batch's results", err)) < 0) return rc;
	return grow(&q->scr, &q->cscr, p->scratch_bytes, GVK_MEM_DEVICE, "a batch's traceback scratch", err);
}

/* Waits for a slot's chunk and copies its results out. */
static int slot_drain(al_gpu_t *g, int s, const size_t *order, al_elems_t *el, size_t *el_at, int *ne,
                      int32_t *offset, int32_t *score, gvk_err_t *err)
{
	slot_t *q = &g->slot[s];
	if (!q->busy) return 0;
	q->busy = 0;
	CK(cudaStreamSynchronize(g->st[s]));
	float ms = 0;
	CK(cudaEventElapsedTime(&ms, q->k0, q->k1));
	g->kernel_s += ms * 1e-3;
	const ag_plan_t *p = &q->plan;
	const long over = ag_unpack(order, p, q->hout, el, el_at, ne, offset, score);
	if (over < 0) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for CIGAR elements");
	if (over == 0) return 0;
	/* Rare long CIGARs: fetched one by one from the device scratch. */
	const ag_chunk_dev_t h = ag_view(p, q->hin, q->hout, q->scr);
	uint32_t *tmp = NULL;
	int rc = 0;
	for (size_t k = 0; k < p->n && rc == 0; ++k) {
		const int c = h.res[k].ne;
		if (c <= AG_CAP) continue;
		uint32_t *t2 = (uint32_t *)realloc(tmp, (size_t)c * 4);
		if (!t2) {
			rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
			break;
		}
		tmp = t2;
		cudaError_t e = cudaMemcpy(tmp, h.el + h.jobs[k].el, (size_t)c * 4, cudaMemcpyDeviceToHost);
		if (e != cudaSuccess)
			rc = gvk_err_set(err, GVK_ERR_GPU, "CUDA: copying a CIGAR back: %s", cudaGetErrorString(e));
		else
			ag_decode(tmp, c, el->p + el_at[order[p->beg + k]]);
	}
	free(tmp);
	return rc;
}

static int slot_launch(al_gpu_t *g, int s, const al_job_t *jobs, const size_t *order, int java, gvk_err_t *err)
{
	slot_t *q = &g->slot[s];
	const ag_plan_t *p = &q->plan;
	cudaStream_t st = g->st[s];
	int rc = slot_reserve(q, p, err);
	if (rc < 0) return rc;
	ag_pack(jobs, order, p, q->hin);
	CK(cudaMemcpyAsync(q->din, q->hin, p->in_bytes, cudaMemcpyHostToDevice, st));
	const ag_chunk_dev_t c = ag_view(p, q->din, q->dout, q->scr);
	CK(cudaEventRecord(q->k0, st));
	ag_kernel<<<(unsigned)p->nb, AG_B, 0, st>>>(c, p->n, java);
	CK(cudaGetLastError());
	CK(cudaEventRecord(q->k1, st));
	CK(cudaMemcpyAsync(q->hout, q->dout, p->out_bytes, cudaMemcpyDeviceToHost, st));
	q->busy = 1;
	return 0;
}

extern "C" int al_gpu_align(al_gpu_t *g, const al_job_t *jobs, size_t n, int java, al_elems_t *el, size_t *el_at,
                            int *ne, int32_t *offset, int32_t *score, gvk_err_t *err)
{
	g->kernel_s = 0;
	if (n == 0) return 0;
	size_t *order = (size_t *)malloc(n * sizeof *order);
	if (!order) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for %zu pairs", n);
	ag_sort(jobs, n, order);
	int rc = cudaSetDevice(g->dev) == cudaSuccess ? 0 : gvk_err_set(err, GVK_ERR_GPU, "CUDA: cannot select the GPU");
	int s = 0;
	for (size_t beg = 0; beg < n && rc == 0; s ^= 1) {
		/* Refill slot s once its previous chunk is back; the other slot's chunk runs meanwhile. */
		if ((rc = slot_drain(g, s, order, el, el_at, ne, offset, score, err)) < 0) break;
		ag_plan(jobs, order, beg, n, g->budget, &g->slot[s].plan);
		const ag_plan_t *p = &g->slot[s].plan;
		rc = slot_launch(g, s, jobs, order, java, err);
		beg += p->n;
	}
	for (int k = 0; k < NSLOT; ++k) {
		int r2 = rc == 0 ? slot_drain(g, s, order, el, el_at, ne, offset, score, err) : 0;
		if (rc < 0) {
			cudaStreamSynchronize(g->st[s]);
			g->slot[s].busy = 0;
		}
		if (r2 < 0) rc = r2;
		s ^= 1;
	}
	free(order);
	return rc;
}
