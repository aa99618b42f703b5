/* SPDX-License-Identifier: MIT */
/* GPU back end of the CNV EM (cnv_em.h): one region per thread, as gcn.MOPS does it (docs/cnv.md, Semantics 8).
 * The per-region arithmetic is cnv_em_kernel.h, i.e. cnv_em_cpu.c's operation order; compiled
 * with -fmad=false so that no multiply-add is contracted. CUDA's exp, log and lgamma are not
 * glibc's (both within 1-2 ulp of the true value), so results agree with the CPU to ~1e-14
 * relative rather than bit for bit (docs/cnv.md, "GPU").
 *
 * The model constants travel as a __grid_constant__ kernel parameter, which lives in the
 * constant bank: no global constant symbol, so concurrent callers cannot race on it. Regions are
 * processed in chunks sized to the free device memory, two chunk slots with pinned staging buffers
 * on two streams: while the device computes chunk c, the host unpacks chunk c - 1 (and overwrites
 * its minReadCount-shortcut rows) and packs chunk c + 1. */
#include "../common/gpu_port.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "cnv_em.h"
#include "../common/err.h"
#include "../common/log.h"
#include "../common/cuda_check.h"
#include "../common/gpu_probe.h"
#include "../common/threads.h"
}

#define CNV_K_FN static __device__ __forceinline__
#include "cnv_em_kernel.h"

enum { EM_BLOCK = 64 };

/* NC > 0 fixes the number of classes so that the per-class arrays live in registers. */
template <int NC>
__global__ void GPU_LAUNCH_BOUNDS(EM_BLOCK) em_kernel(const __grid_constant__ cnv_em_par_t p, size_t len,
                                                      const double *__restrict__ x, const double *__restrict__ cov,
                                                      double *lg, double *P, double *lam, double *alp, double *sini,
                                                      double *ini, uint8_t *cls)
{
	for (size_t r = (size_t)blockIdx.x * blockDim.x + threadIdx.x; r < len; r += (size_t)gridDim.x * blockDim.x)
		cnv_k_region(&p, NC ? NC : p.n, len, x + r, cov, lg + r, sini + r, P + r, lam + r, alp + r, sini + r, ini + r,
		             cls + r);
}

typedef struct {
	double *x, *lg, *P, *lam, *alp, *sini, *ini; /* device */
	uint8_t *cls;
	double *hx, *hlam, *halp, *hsini, *hini, *hpost; /* pinned */
	uint8_t *hcls, *sc;                              /* sc: shortcut flags (pageable) */
	cudaStream_t st;
	size_t r0, len;
} em_slot_t;

typedef struct {
	const cnv_em_par_t *p;
	cnv_em_job_t *j;
	em_slot_t s[2];
	double *cov;
	size_t mc;   /* regions per chunk */
	size_t forced_mc; /* chunk asked for by the caller, 0: sized here */
	const gvk_log_t *log;
	int nth;
} em_gpu_t;

int cnv_em_gpu_check(gvk_err_t *err)
{
	const int n = gvk_gpu_probe_err(err, GVK_ERR_GPU, " (cnv)");
	if (n < 0) return n;
	/* create the context now, so that the EM's timing does not include it */
	const cudaError_t e = cudaFree(0);
	if (e != cudaSuccess) return gvk_err_set(err, GVK_ERR_GPU, "no usable " GVK_GPU_API " GPU (cnv): %s", cudaGetErrorString(e));
	return 1;
}

int cnv_em_gpu_available(void) { return cnv_em_gpu_check(NULL) > 0; }

void cnv_em_gpu_name(char *buf, size_t n)
{
	cudaDeviceProp pr;
	int dev;
	if (!cnv_em_gpu_available() || cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&pr, dev) != cudaSuccess)
		snprintf(buf, n, "none");
	else
		snprintf(buf, n, "%s", pr.name);
}

static void slot_free(em_slot_t *s)
{
	cudaFree(s->x), cudaFree(s->lg), cudaFree(s->P), cudaFree(s->lam), cudaFree(s->alp), cudaFree(s->sini);
	cudaFree(s->ini), cudaFree(s->cls);
	cudaFreeHost(s->hx), cudaFreeHost(s->hlam), cudaFreeHost(s->halp), cudaFreeHost(s->hsini);
	cudaFreeHost(s->hini), cudaFreeHost(s->hpost), cudaFreeHost(s->hcls);
	free(s->sc);
	if (s->st) cudaStreamDestroy(s->st);
	memset(s, 0, sizeof *s);
}

static int slot_alloc(em_slot_t *s, size_t mc, int n, int N, int post, gvk_err_t *err)
{
	size_t nN = (size_t)n * N;
	CK(cudaStreamCreateWithFlags(&s->st, cudaStreamNonBlocking));
	CK(cudaMalloc(&s->x, N * mc * sizeof(double)));
	CK(cudaMalloc(&s->lg, N * mc * sizeof(double)));
	CK(cudaMalloc(&s->P, nN * mc * sizeof(double)));
	CK(cudaMalloc(&s->lam, n * mc * sizeof(double)));
	CK(cudaMalloc(&s->alp, n * mc * sizeof(double)));
	CK(cudaMalloc(&s->sini, N * mc * sizeof(double)));
	CK(cudaMalloc(&s->ini, mc * sizeof(double)));
	CK(cudaMalloc(&s->cls, N * mc));
	CK(cudaHostAlloc(&s->hx, N * mc * sizeof(double), cudaHostAllocDefault));
	CK(cudaHostAlloc(&s->hlam, n * mc * sizeof(double), cudaHostAllocDefault));
	CK(cudaHostAlloc(&s->halp, n * mc * sizeof(double), cudaHostAllocDefault));
	CK(cudaHostAlloc(&s->hsini, N * mc * sizeof(double), cudaHostAllocDefault));
	CK(cudaHostAlloc(&s->hini, mc * sizeof(double), cudaHostAllocDefault));
	CK(cudaHostAlloc(&s->hcls, N * mc, cudaHostAllocDefault));
	if (post) CK(cudaHostAlloc(&s->hpost, nN * mc * sizeof(double), cudaHostAllocDefault));
	if (!(s->sc = (uint8_t *)malloc(mc))) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory in the GPU EM");
	return 0;
}

/* Device bytes of one region: x, lg, sini (N each), the posteriors (n * N), lambda and alpha, I/NI,
 * classes. */
static size_t region_bytes(int n, int N)
{
	return sizeof(double) * (3 * (size_t)N + (size_t)n * N + 2 * (size_t)n + 1) + (size_t)N;
}

/* Chunk size: the caller's when given (tests force streaming with it), else what fits twice
 * into 70 % of the free device memory, at most 2^18 regions so that large inputs overlap. */
static size_t chunk_size(const em_gpu_t *g)
{
	size_t m = g->j->m, mc = (size_t)1 << 18;
	if (g->forced_mc > 0) {
		mc = g->forced_mc;
	} else {
		size_t fr = 0, tot = 0;
		if (cudaMemGetInfo(&fr, &tot) == cudaSuccess) {
			size_t fit = fr / 10 * 7 / 2 / region_bytes(g->p->n, g->p->N);
			if (fit < mc) mc = fit;
		}
		if (mc < 32) mc = 32;
	}
	return mc < m ? mc : m;
}

/* Allocates both slots, halving the chunk while the device runs out of memory. */
static int em_gpu_alloc(em_gpu_t *g, gvk_err_t *err)
{
	int N = g->p->N, n = g->p->n, post = g->j->post != NULL, rc;
	if ((rc = cudaMalloc(&g->cov, N * sizeof(double))) != cudaSuccess)
		return gvk_err_set(err, GVK_ERR_GPU, GVK_GPU_API ": %s", cudaGetErrorString((cudaError_t)rc));
	CK(cudaMemcpy(g->cov, g->j->cov, N * sizeof(double), cudaMemcpyHostToDevice));
	for (g->mc = chunk_size(g);; g->mc /= 2) {
		rc = slot_alloc(&g->s[0], g->mc, n, N, post, err);
		if (rc == 0 && g->mc < g->j->m) rc = slot_alloc(&g->s[1], g->mc, n, N, post, err); /* one chunk: one slot */
		if (rc == 0) return 0;
		slot_free(&g->s[0]), slot_free(&g->s[1]);
		cudaGetLastError(); /* clear the allocation error */
		if (rc != GVK_ERR_NOMEM || g->mc < 2) return rc;
		gvk_logf(g->log, GVK_LOG_INFO, "GPU memory short, EM chunks of %zu regions instead of %zu", g->mc / 2, g->mc);
	}
}

typedef struct {
	em_gpu_t *g;
	em_slot_t *s;
} em_host_t;

/* Host side of a chunk, regions [a, b) of it per thread: copy into the pinned input and flag the
 * shortcut regions. */
static void pack_worker(void *arg, int tid)
{
	em_host_t *h = (em_host_t *)arg;
	em_slot_t *s = h->s;
	const cnv_em_job_t *j = h->g->j;
	int N = h->g->p->N;
	size_t a = s->len * tid / h->g->nth, b = s->len * (tid + 1) / h->g->nth;
	if (a == b) return;
	for (int k = 0; k < N; ++k)
		memcpy(s->hx + k * s->len + a, j->x + k * j->ld + s->r0 + a, (b - a) * sizeof(double));
	double mrc = h->g->p->min_read_count;
	memset(s->sc + a, 1, b - a);
	for (int k = 0; k < N; ++k) {
		const double *xk = s->hx + k * s->len;
		for (size_t r = a; r < b; ++r)
			if (!(xk[r] <= mrc)) s->sc[r] = 0;
	}
}

/* Copies the results of the chunk out and overwrites the shortcut regions with their constants. */
static void unpack_worker(void *arg, int tid)
{
	em_host_t *h = (em_host_t *)arg;
	em_slot_t *s = h->s;
	cnv_em_job_t *j = h->g->j;
	int N = h->g->p->N, n = h->g->p->n;
	size_t a = s->len * tid / h->g->nth, b = s->len * (tid + 1) / h->g->nth, w = (b - a) * sizeof(double);
	size_t L = s->len, ld = j->ld, o = s->r0 + a;
	if (a == b) return;
	for (int i = 0; i < n; ++i) {
		memcpy(j->lambda + i * ld + o, s->hlam + i * L + a, w);
		memcpy(j->alpha + i * ld + o, s->halp + i * L + a, w);
	}
	for (int k = 0; k < N; ++k) {
		memcpy(j->sini + k * ld + o, s->hsini + k * L + a, w);
		memcpy(j->cls + k * ld + o, s->hcls + k * L + a, b - a);
	}
	memcpy(j->ini + o, s->hini + a, w);
	if (j->post)
		for (size_t c = 0; c < (size_t)n * N; ++c) memcpy(j->post + c * ld + o, s->hpost + c * L + a, w);
	for (size_t r = a; r < b; ++r)
		if (s->sc[r]) cnv_em_set_shortcut(h->g->p, j, s->r0 + r);
}

static void host_stage(em_gpu_t *g, em_slot_t *s, gvk_worker_fn fn)
{
	em_host_t h = {g, s};
	gvk_parallel(g->nth, fn, &h);
}

/* Inputs of slot s up, the kernel, results down, all queued on the slot's stream. */
static int chunk_launch(em_gpu_t *g, em_slot_t *s, gvk_err_t *err)
{
	const cnv_em_par_t *p = g->p;
	size_t L = s->len, N = (size_t)p->N, n = (size_t)p->n, db = sizeof(double);
	CK(cudaMemcpyAsync(s->x, s->hx, N * L * db, cudaMemcpyHostToDevice, s->st));
	int dev, sms;
	CK(cudaGetDevice(&dev));
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	size_t blocks = (L + EM_BLOCK - 1) / EM_BLOCK, cap = (size_t)sms * 64;
	unsigned grid = (unsigned)(blocks < cap ? blocks : cap);
	if (p->n == 9)
		em_kernel<9><<<grid, EM_BLOCK, 0, s->st>>>(*p, L, s->x, g->cov, s->lg, s->P, s->lam, s->alp, s->sini,
		                                           s->ini, s->cls);
	else
		em_kernel<0><<<grid, EM_BLOCK, 0, s->st>>>(*p, L, s->x, g->cov, s->lg, s->P, s->lam, s->alp, s->sini,
		                                           s->ini, s->cls);
	CK(cudaGetLastError());
	CK(cudaMemcpyAsync(s->hlam, s->lam, n * L * db, cudaMemcpyDeviceToHost, s->st));
	CK(cudaMemcpyAsync(s->halp, s->alp, n * L * db, cudaMemcpyDeviceToHost, s->st));
	CK(cudaMemcpyAsync(s->hsini, s->sini, N * L * db, cudaMemcpyDeviceToHost, s->st));
	CK(cudaMemcpyAsync(s->hini, s->ini, L * db, cudaMemcpyDeviceToHost, s->st));
	CK(cudaMemcpyAsync(s->hcls, s->cls, N * L, cudaMemcpyDeviceToHost, s->st));
	if (g->j->post) CK(cudaMemcpyAsync(s->hpost, s->P, n * N * L * db, cudaMemcpyDeviceToHost, s->st));
	return 0;
}

static int chunk_finish(em_gpu_t *g, em_slot_t *s, gvk_err_t *err)
{
	CK(cudaStreamSynchronize(s->st));
	host_stage(g, s, unpack_worker);
	return 0;
}

static int em_gpu_run(em_gpu_t *g, gvk_err_t *err)
{
	size_t m = g->j->m, nc = (m + g->mc - 1) / g->mc;
	int rc;
	for (size_t c = 0; c < nc; ++c) {
		em_slot_t *s = &g->s[c & 1];
		s->r0 = c * g->mc, s->len = m - s->r0 < g->mc ? m - s->r0 : g->mc;
		host_stage(g, s, pack_worker);
		if ((rc = chunk_launch(g, s, err)) < 0) return rc;
		if (c > 0 && (rc = chunk_finish(g, &g->s[(c - 1) & 1], err)) < 0) return rc;
	}
	return chunk_finish(g, &g->s[(nc - 1) & 1], err);
}

int cnv_em_gpu(const cnv_em_par_t *p, cnv_em_job_t *j, int threads, size_t chunk, int gpu, const gvk_log_t *log,
               gvk_err_t *err)
{
	int rc = cnv_em_gpu_check(err);
	if (rc < 0) return rc;
	/* The EM runs on the current device of the calling thread: the options' GPU. */
	const cudaError_t se = cudaSetDevice(gpu < 0 ? 0 : gpu);
	if (se != cudaSuccess) return gvk_err_set(err, GVK_ERR_GPU, "cnv: GPU %d: %s", gpu < 0 ? 0 : gpu, cudaGetErrorString(se));
	if (j->m == 0) return 0;
	em_gpu_t g;
	memset(&g, 0, sizeof g);
	g.p = p, g.j = j, g.nth = threads < 1 ? 1 : threads, g.forced_mc = chunk, g.log = log;
	rc = em_gpu_alloc(&g, err);
	if (rc == 0) rc = em_gpu_run(&g, err);
	if (rc < 0) cudaDeviceSynchronize(); /* nothing may still be writing into buffers freed below */
	slot_free(&g.s[0]), slot_free(&g.s[1]);
	cudaFree(g.cov);
	return rc;
}
