/* SPDX-License-Identifier: MIT */
/* GPU back end of the SNP engines (snp_gpu.h). Both engines use one popcount-GEMM idea: operand
 * words staged in shared memory, AND / XOR / AND-NOT and a population count summed in 32-bit
 * integers, so the counts are the CPU kernels' integers exactly. LD has two count kernels, one on
 * the CUDA cores (__popcll) and one on the tensor cores (binary MMA, AND + popc), picked by a
 * timing on the first chunk or forced (snp_gpu_opt_t.path); r / r^2 are then formed on the
 * device with the host's exact operations and copied back while the next chunk is computed.
 * FastID keeps per-thread top-k lists of (score, index) keys on the device and reduces them
 * there, so no score matrix is stored. Every CUDA call is checked. */
#include "../common/gpu_port.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "snp_gpu.h"
#include "../common/err.h"
#include "../common/log.h"
#include "../common/cuda_check.h"
#include "../common/cuda_mem.h"
#include "../common/gpu_probe.h"
#include "../common/threads.h"
}

/* The tensor-core kernels are NVIDIA's alone (binary MMA in PTX, 32-lane fragments): under HIP
 * they are not compiled, and gpu_init sends every request to the popcount kernels. */
#if GPU_HAVE_BMMA
#include "snp_gpu_bmma.cuh"
#endif
#include "snp_gpu_kernels.cuh"
#include "snp_gpu_clump.cuh"
#if GPU_HAVE_BMMA
#include "snp_gpu_mma.cuh"
#endif

enum { LD_CHUNKS = 4, LD_NBUF = 4, LD_EVENTS = 64 }; /* chunks per stripe (at least), result buffers, timing events */
enum { PATH_AUTO = GVK_SNP_PATH_AUTO, PATH_POPC = GVK_SNP_PATH_POPC, PATH_MMA = GVK_SNP_PATH_MMA };
enum { FID_TRIAL = 1 << 18 }; /* profiles scored by both FastID kernels to pick one */

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
};

/* ---- device set-up -------------------------------------------------------------------------- */

static int gpu_init(snp_gpu_t *g, const snp_gpu_opt_t *o, gvk_err_t *err)
{
	const int n = gvk_gpu_probe_err(err, GVK_ERR_GPU, " for the SNP engines");
	if (n < 0) return n;
	if (o->gpu < 0 || o->gpu >= n)
		return gvk_err_set(err, GVK_ERR_GPU,
		                   "no usable " GVK_GPU_API " GPU for the SNP engines: GPU %d asked for, %d visible",
		                   o->gpu, n);
	if (o->path < PATH_AUTO || o->path > PATH_MMA)
		return gvk_err_set(err, GVK_ERR_ARG, "GPU count kernel %d is not auto, popc or mma", o->path);
	g->dev = o->gpu;
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, g->dev));
	if (prop.major < 8)
		return gvk_err_set(err, GVK_ERR_GPU, "GPU %s has compute capability %d.%d; gvk needs 8.0 or newer", prop.name,
		                   prop.major, prop.minor);
	CK(cudaSetDevice(g->dev));
	snprintf(g->name, sizeof g->name, "gpu-%s", prop.name);
	snprintf(g->kernel, sizeof g->kernel, "%s", g->name);
	g->cc = prop.major * 10 + prop.minor;
	g->sms = prop.multiProcessorCount;
	g->max_threads_sm = prop.maxThreadsPerMultiProcessor;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&g->ld_bps[0], ld_count_kernel<0, 4, 2>, LD_T * LD_T, 0));
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&g->ld_bps[1], ld_count_kernel<1, 4, 4>, LD_T * LD_T, 0));
	g->smem_block = prop.sharedMemPerBlock;
	g->smem_optin = GPU_PROP_SMEM_OPTIN(prop) > prop.sharedMemPerBlock ? GPU_PROP_SMEM_OPTIN(prop)
	                                                                   : prop.sharedMemPerBlock;
	size_t total = 0;
	CK(cudaMemGetInfo(&g->mem_free, &total));
	if (o->mem > 0 && o->mem < g->mem_free) g->mem_free = o->mem; /* tests: streaming and blocking with little memory */
	g->db_block = o->db_block > 0 ? o->db_block : 0;
	g->q_batch = o->q_batch > 0 ? o->q_batch : 0;
	g->path = o->path;
#if !GPU_HAVE_BMMA
	if (g->path == PATH_MMA)
		gvk_logf(&o->log, GVK_LOG_INFO, "no tensor-core count kernel on %s GPUs; using the popcount kernels", GVK_GPU_API);
	g->path = PATH_POPC;
#endif
	g->log = o->log;
	g->ld_path = g->path;
	for (int i = 0; i < 3; ++i) CK(cudaStreamCreateWithFlags(&g->st[i], cudaStreamNonBlocking));
	for (int i = 0; i < LD_NBUF; ++i) {
		CK(cudaEventCreateWithFlags(&g->done[i], cudaEventDisableTiming));
		CK(cudaEventCreateWithFlags(&g->copied[i], cudaEventDisableTiming));
	}
	for (int i = 0; i < 2; ++i) CK(cudaEventCreateWithFlags(&g->staged[i], cudaEventDisableTiming));
	for (int i = 0; i < LD_EVENTS; ++i) {
		CK(cudaEventCreate(&g->ev[i][0]));
		CK(cudaEventCreate(&g->ev[i][1]));
	}
	return 0;
}

extern "C" snp_gpu_t *snp_gpu_open(const snp_gpu_opt_t *o, gvk_err_t *err)
{
	snp_gpu_opt_t def;
	if (!o) memset(&def, 0, sizeof def), o = &def;
	snp_gpu_t *g = (snp_gpu_t *)calloc(1, sizeof *g);
	if (!g) {
		gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (gpu_init(g, o, err) < 0) {
		snp_gpu_close(g);
		return NULL;
	}
	return g;
}

extern "C" void snp_gpu_close(snp_gpu_t *g)
{
	if (!g) return;
	cudaFree(g->ld_w);
	cudaFree(g->ld_tot);
	cudaFree(g->ld_jr);
	for (int i = 0; i < LD_NBUF; ++i) {
		cudaFree(g->ld_cnt[i]), cudaFree(g->ld_val[i]);
		if (g->done[i]) cudaEventDestroy(g->done[i]);
		if (g->copied[i]) cudaEventDestroy(g->copied[i]);
	}
	for (int i = 0; i < 2; ++i) {
		cudaFree(g->ld_yw[i]), cudaFree(g->ld_ytot[i]);
		gvk_cuda_free((void **)&g->h_stage[i], &g->h_stage_cap[i], GVK_MEM_PINNED);
		if (g->staged[i]) cudaEventDestroy(g->staged[i]);
	}
	for (int i = 0; i < 3; ++i)
		if (g->st[i]) cudaStreamDestroy(g->st[i]);
	for (int i = 0; i < LD_EVENTS; ++i)
		for (int j = 0; j < 2; ++j)
			if (g->ev[i][j]) cudaEventDestroy(g->ev[i][j]);
	gvk_cuda_free((void **)&g->h_cnt, &g->h_cnt_cap, GVK_MEM_PINNED);
	cudaFree(g->cl_pairs), cudaFree(g->cl_x), cudaFree(g->cl_male), cudaFree(g->cl_cnt);
	free(g);
}

extern "C" int snp_gpu_probe(const snp_gpu_opt_t *o, char *name, size_t size, gvk_err_t *err)
{
	if (name && size) name[0] = 0;
	snp_gpu_t *g = snp_gpu_open(o, err);
	if (!g) return err ? err->code : GVK_ERR_GPU;
	if (name && size) snprintf(name, size, "%s", g->name);
	snp_gpu_close(g);
	return 0;
}

extern "C" const char *snp_gpu_name(const snp_gpu_t *g) { return g->name; }
extern "C" const char *snp_gpu_kernel(const snp_gpu_t *g) { return g->kernel; }
extern "C" double snp_gpu_kernel_seconds(const snp_gpu_t *g) { return g->kern_s; }

/* Ordinary memory, page-locked when the system allows it (else copies are merely slower). */
extern "C" void *snp_gpu_host_alloc(snp_gpu_t *g, size_t bytes)
{
	(void)g;
	void *p = malloc(bytes ? bytes : 1);
	if (p && cudaHostRegister(p, bytes ? bytes : 1, cudaHostRegisterDefault) != cudaSuccess)
		(void)cudaGetLastError(); /* not page-locked: clear the error, keep the memory */
	return p;
}

extern "C" void snp_gpu_host_free(snp_gpu_t *g, void *p)
{
	(void)g;
	if (!p) return;
	if (cudaHostUnregister(p) != cudaSuccess) (void)cudaGetLastError(); /* it was not registered */
	free(p);
}

static int dev_reserve(void **p, size_t *cap, size_t need, const char *what, gvk_err_t *err)
{
	return gvk_cuda_reserve(p, cap, need, GVK_MEM_DEVICE, GVK_GROW_EXACT, 0, what, err);
}

static int pinned_reserve(void **p, size_t *cap, size_t need, const char *what, gvk_err_t *err)
{
	return gvk_cuda_reserve(p, cap, need, GVK_MEM_PINNED, GVK_GROW_EXACT, 0, what, err);
}

/* ---- LD ------------------------------------------------------------------------------------- */

typedef struct {
	const ld_opt_t *o;
	ld_stripe_t *s;
	const pg_ldcnt_t *cnt;
	int nt;
} ld_epi_t;

/* The CPU engine's haplotype epilogue (ld_engine.c) on the counts, rows interleaved over the threads. */
static void ld_epilogue(void *arg, int tid)
{
	const ld_epi_t *e = (const ld_epi_t *)arg;
	ld_stripe_t *s = e->s;
	for (int64_t i = s->i0 + tid; i < s->i1; i += e->nt) {
		size_t off = (size_t)(i - s->i0) * (size_t)s->width;
		for (int64_t j = s->jlo[i - s->i0]; j < s->jhi[i - s->i0]; ++j) {
			size_t c = off + (size_t)(j - s->cbase);
			ld_haplotype(&e->cnt[c], &s->r[c], &s->d[c], &s->dp[c]);
			if (e->o->r2) s->r[c] *= fabs(s->r[c]);
		}
	}
}

/* Makes every SNP resident with its plane totals (once per data set) when all of them fit in half
 * the free memory; returns 1 then, 0 when the stripes must stream their planes instead. */
static int ld_resident(snp_gpu_t *g, const snp_data_t *d, gvk_err_t *err)
{
	const size_t per = (size_t)SNP_PLANES * (size_t)d->nw * sizeof(uint64_t);
	if ((size_t)d->n_snp * per > g->mem_free / 2) return 0;
	if (g->ld_src == d->w) return 1;
	const size_t bytes = (size_t)d->n_snp * per;
	int rc = dev_reserve((void **)&g->ld_w, &g->ld_w_cap, bytes, "the SNP bit planes", err);
	if (rc == 0) rc = dev_reserve((void **)&g->ld_tot, &g->ld_tot_cap, 2 * (size_t)d->n_snp * sizeof(int32_t), "plane totals", err);
	if (rc < 0) return rc;
	CK(cudaMemcpyAsync(g->ld_w, d->w, bytes, cudaMemcpyHostToDevice, g->st[0]));
	ld_totals_kernel<<<(unsigned)((d->n_snp + 255) / 256), 256, 0, g->st[0]>>>(g->ld_w, d->n_snp, d->nw, g->ld_tot);
	CK(cudaGetLastError());
	g->ld_src = d->w;
	return 1;
}

/* ---- --clump -------------------------------------------------------------------------------- */

extern "C" void snp_gpu_planes_changed(snp_gpu_t *g)
{
	if (g) g->ld_src = NULL;
}

extern "C" int snp_gpu_clump_counts(snp_gpu_t *g, const snp_data_t *d, const int64_t *pairs, const uint8_t *x,
                                    int64_t n, uint32_t *c, gvk_err_t *err)
{
	if (n <= 0) return 0;
	CK(cudaSetDevice(g->dev));
	int rc = ld_resident(g, d, err);
	if (rc == 0)
		rc = gvk_err_set(err, GVK_ERR_NOMEM, "--clump: the bit planes of %lld SNPs do not fit in half the GPU's free memory",
		                 (long long)d->n_snp);
	if (rc < 0) return rc;
	const size_t male_bytes = (size_t)d->nw * sizeof(uint64_t);
	rc = dev_reserve((void **)&g->cl_pairs, &g->cl_pairs_cap, 2 * (size_t)n * sizeof(int64_t), "clump pairs", err);
	if (rc == 0) rc = dev_reserve((void **)&g->cl_x, &g->cl_x_cap, (size_t)n, "clump X flags", err);
	if (rc == 0) rc = dev_reserve((void **)&g->cl_male, &g->cl_male_cap, male_bytes, "male columns", err);
	if (rc == 0) rc = dev_reserve((void **)&g->cl_cnt, &g->cl_cnt_cap, 18 * (size_t)n * sizeof(uint32_t), "clump tables", err);
	if (rc < 0) return rc;
	CK(cudaMemcpyAsync(g->cl_pairs, pairs, 2 * (size_t)n * sizeof(int64_t), cudaMemcpyHostToDevice, g->st[0]));
	CK(cudaMemcpyAsync(g->cl_x, x, (size_t)n, cudaMemcpyHostToDevice, g->st[0]));
	/* without male columns no pair has x set, and the kernel reads none */
	if (d->male) CK(cudaMemcpyAsync(g->cl_male, d->male, male_bytes, cudaMemcpyHostToDevice, g->st[0]));
	clump_count_kernel<<<(unsigned)((n + 127) / 128), 128, 0, g->st[0]>>>(g->ld_w, d->nw, g->cl_pairs, g->cl_x, g->cl_male,
	                                                                     n, g->cl_cnt);
	CK(cudaGetLastError());
	CK(cudaMemcpyAsync(c, g->cl_cnt, 18 * (size_t)n * sizeof(uint32_t), cudaMemcpyDeviceToHost, g->st[0]));
	CK(cudaStreamSynchronize(g->st[0]));
	return 0;
}

/* One count launch: rows [i0, i0 + nrows) against columns [cbase, cbase + width), results at
 * row * width + (column - cbase) of out (counts) or val (values). */
typedef struct {
	ld_src_t src;
	int64_t i0, cbase, width;
	int nrows;
	const int64_t *jlo, *jhi;
	pg_ldcnt_t *out;
	double *val;
} ld_launch_t;

/* FULL when every SNP of the launch has all samples called. */
static int ld_count_launch(snp_gpu_t *g, cudaStream_t st, int path, int full, const snp_data_t *d, const ld_launch_t *L,
                           const ld_opt_t *o, gvk_err_t *err)
{
	const int32_t nbits = (int32_t)d->n_bits;
#if GPU_HAVE_BMMA
	if (path == PATH_MMA) {
		const int r = MMA_S * (full ? 2 : 3);
		const size_t stage = 2 * (size_t)r * (MMA_KW + 2) * sizeof(uint64_t), ctile = (size_t)r * r * sizeof(int32_t);
		const size_t smem = stage > ctile ? stage : ctile;
		dim3 grid((unsigned)((L->width + MMA_S - 1) / MMA_S), (unsigned)((L->nrows + MMA_S - 1) / MMA_S));
		if (full)
			ld_mma_kernel<2><<<grid, MMA_THREADS, smem, st>>>(L->src, d->nw, L->i0, L->nrows, L->cbase, L->width, L->jlo,
			                                                  L->jhi, nbits, L->out, L->val, o->r2, o->single);
		else
			ld_mma_kernel<3><<<grid, MMA_THREADS, smem, st>>>(L->src, d->nw, L->i0, L->nrows, L->cbase, L->width, L->jlo,
			                                                  L->jhi, nbits, L->out, L->val, o->r2, o->single);
	} else
#endif
	{
		/* Register tiles: 4 x 4 pairs per thread with 2 planes, 4 x 2 with 3 (7 sums per pair); 2 x 2
		 * when the large tiles would not fill every SM's resident blocks (narrow windows, small
		 * stripes), trading operand reuse for parallelism. */
		const int64_t big = ((L->width + LD_T * (full ? 4 : 2) - 1) / (LD_T * (full ? 4 : 2))) * ((L->nrows + 4 * LD_T - 1) / (4 * LD_T));
		const int small = big < (int64_t)g->sms * g->ld_bps[full];
		const int tm = LD_T * (small ? 2 : 4), tn = LD_T * (small ? 2 : full ? 4 : 2);
		dim3 grid((unsigned)((L->width + tn - 1) / tn), (unsigned)((L->nrows + tm - 1) / tm)), block(LD_T, LD_T);
		if (full && small)
			ld_count_kernel<1, 2, 2><<<grid, block, 0, st>>>(L->src, d->nw, L->i0, L->nrows, L->cbase, L->width, L->jlo,
			                                                 L->jhi, nbits, L->out, L->val, o->r2, o->single);
		else if (full)
			ld_count_kernel<1, 4, 4><<<grid, block, 0, st>>>(L->src, d->nw, L->i0, L->nrows, L->cbase, L->width, L->jlo,
			                                                 L->jhi, nbits, L->out, L->val, o->r2, o->single);
		else if (small)
			ld_count_kernel<0, 2, 2><<<grid, block, 0, st>>>(L->src, d->nw, L->i0, L->nrows, L->cbase, L->width, L->jlo,
			                                                 L->jhi, nbits, L->out, L->val, o->r2, o->single);
		else
			ld_count_kernel<0, 4, 2><<<grid, block, 0, st>>>(L->src, d->nw, L->i0, L->nrows, L->cbase, L->width, L->jlo,
			                                                 L->jhi, nbits, L->out, L->val, o->r2, o->single);
	}
	CK(cudaGetLastError());
	return 0;
}

/* Path auto: both count kernels on the first chunk, the faster one kept (they write
 * the same integers). */
static int ld_pick_path(snp_gpu_t *g, int full, const snp_data_t *d, const ld_launch_t *L, const ld_opt_t *o,
                        gvk_err_t *err)
{
	float ms[2] = {0, 0};
	for (int p = 0; p < 2; ++p) {
		cudaEvent_t *e = g->ev[LD_EVENTS - 1 - p];
		CK(cudaEventRecord(e[0], g->st[0]));
		int rc = ld_count_launch(g, g->st[0], p ? PATH_MMA : PATH_POPC, full, d, L, o, err);
		if (rc < 0) return rc;
		CK(cudaEventRecord(e[1], g->st[0]));
		CK(cudaEventSynchronize(e[1]));
		CK(cudaEventElapsedTime(&ms[p], e[0], e[1]));
	}
	g->ld_path = ms[1] < ms[0] ? PATH_MMA : PATH_POPC;
	return 0;
}

/* Whether every SNP the stripe touches has all samples called (then 4 products per word). */
static int ld_stripe_full(const snp_data_t *d, const ld_stripe_t *s)
{
	for (int64_t i = s->i0; i < s->i1; ++i)
		if (!d->full[i]) return 0;
	for (int64_t j = s->cbase; j < s->cbase + s->width; ++j)
		if (!d->full[j]) return 0;
	return 1;
}

/* Kernel time of a stripe's chunks: the union of their [start, end] intervals (measured from t0),
 * since chunks on the two kernel streams overlap. */
static int ld_add_busy(snp_gpu_t *g, cudaEvent_t t0, int nch, gvk_err_t *err)
{
	float iv[LD_EVENTS][2];
	for (int c = 0; c < nch; ++c) {
		CK(cudaEventElapsedTime(&iv[c][0], t0, g->ev[c][0]));
		CK(cudaEventElapsedTime(&iv[c][1], t0, g->ev[c][1]));
		for (int k = c; k > 0 && iv[k][0] < iv[k - 1][0]; --k) { /* by start */
			const float a = iv[k][0], b = iv[k][1];
			iv[k][0] = iv[k - 1][0], iv[k][1] = iv[k - 1][1], iv[k - 1][0] = a, iv[k - 1][1] = b;
		}
	}
	float end = -1e30f, busy = 0;
	for (int c = 0; c < nch; ++c) {
		const float lo = iv[c][0] > end ? iv[c][0] : end;
		if (iv[c][1] > lo) busy += iv[c][1] - lo;
		if (iv[c][1] > end) end = iv[c][1];
	}
	g->kern_s += busy * 1e-3;
	return 0;
}

/* Chunk c's results (rows r0.. of nr, columns c0.. of nc, packed in buffer b) to the stripe's
 * host rows, on the copy stream once the chunk's kernel is done. */
static int ld_copy_back(snp_gpu_t *g, const ld_stripe_t *s, int hap, int b, int64_t r0, int nr, int64_t c0, int64_t nc,
                        gvk_err_t *err)
{
	const size_t elt = hap ? sizeof(pg_ldcnt_t) : sizeof(double);
	char *dst = hap ? (char *)g->h_cnt : (char *)s->r;
	dst += ((size_t)r0 * (size_t)s->width + (size_t)(c0 - s->cbase)) * elt;
	const void *src = hap ? (const void *)g->ld_cnt[b] : (const void *)g->ld_val[b];
	CK(cudaStreamWaitEvent(g->st[1], g->done[b], 0));
	CK(cudaMemcpy2DAsync(dst, (size_t)s->width * elt, src, (size_t)nc * elt, (size_t)nc * elt, (size_t)nr,
	                     cudaMemcpyDeviceToHost, g->st[1]));
	CK(cudaEventRecord(g->copied[b], g->st[1]));
	return 0;
}

/* nb device output buffers of cells pairs each (counts when phased, else values). */
static int ld_out_reserve(snp_gpu_t *g, int hap, int nb, size_t cells, gvk_err_t *err)
{
	int rc = 0;
	for (int b = 0; b < nb && rc == 0; ++b)
		rc = hap ? dev_reserve((void **)&g->ld_cnt[b], &g->ld_cnt_cap[b], cells * sizeof(pg_ldcnt_t), "a stripe's counts", err)
		         : dev_reserve((void **)&g->ld_val[b], &g->ld_val_cap[b], cells * sizeof(double), "a stripe's values", err);
	return rc;
}

/* Every SNP resident: chunks of whole tiles of rows of both kernels (4 LD_T, a multiple of MMA_S),
 * alternating between two kernel streams so that one chunk's last blocks share the SMs with the
 * next chunk's first ones, and copied back while the next ones run. A result buffer per chunk
 * (LD_NBUF), so that the kernels, faster than the copies, never wait for one. */
static int ld_stripe_resident(snp_gpu_t *g, const snp_data_t *d, const ld_opt_t *o, const ld_stripe_t *s, int full,
                              gvk_err_t *err)
{
	const int64_t nrows = s->i1 - s->i0, width = s->width;
	const int hap = o->haplotype;
	int64_t ch = (nrows + LD_CHUNKS - 1) / LD_CHUNKS;
	ch = (ch + 4 * LD_T - 1) / (4 * LD_T) * (4 * LD_T);
	int rc = ld_out_reserve(g, hap, LD_NBUF, (size_t)ch * (size_t)width, err);
	if (rc < 0) return rc;
	cudaEvent_t t0 = g->ev[LD_EVENTS - 3][0];
	CK(cudaEventRecord(t0, g->st[0]));
	CK(cudaStreamWaitEvent(g->st[2], t0, 0));
	int nch = 0;
	for (int64_t r = 0; r < nrows; r += ch, ++nch) {
		const int b = nch % LD_NBUF, nr = (int)(nrows - r < ch ? nrows - r : ch);
		cudaStream_t ks = g->st[nch & 1 ? 2 : 0];
		const ld_launch_t L = {{g->ld_w, g->ld_w, 0, 0, g->ld_tot, g->ld_tot}, s->i0 + r, s->cbase, width, nr,
		                       g->ld_jr + r, g->ld_jr + nrows + r, hap ? g->ld_cnt[b] : NULL, hap ? NULL : g->ld_val[b]};
		if (nch >= LD_NBUF) CK(cudaStreamWaitEvent(ks, g->copied[b], 0)); /* buffer b copied out */
		if (g->ld_path == PATH_AUTO && (rc = ld_pick_path(g, full, d, &L, o, err)) < 0) return rc;
		CK(cudaEventRecord(g->ev[nch][0], ks));
		if ((rc = ld_count_launch(g, ks, g->ld_path, full, d, &L, o, err)) < 0) return rc;
		CK(cudaEventRecord(g->ev[nch][1], ks));
		CK(cudaEventRecord(g->done[b], ks));
		if ((rc = ld_copy_back(g, s, hap, b, r, nr, s->cbase, width, err)) < 0) return rc;
	}
	for (int i = 0; i < 3; ++i) CK(cudaStreamSynchronize(g->st[i]));
	return ld_add_busy(g, t0, nch, err);
}

/* Planes beyond GPU memory, rows [r0, r0 + nr) of the stripe (cw columns per slice): the rows are
 * uploaded, then the stripe's columns stream through a ring of two device slices, each staged on
 * the host in pinned memory and copied on stream 2 while the kernels (stream 0) work on the
 * previous slice and the results of the one before go back (stream 1). */
static int ld_stream_rows(snp_gpu_t *g, const snp_data_t *d, const ld_opt_t *o, const ld_stripe_t *s, int full,
                          int64_t r0, int nr, int64_t cw, gvk_err_t *err)
{
	const int64_t nrows = s->i1 - s->i0, width = s->width;
	const int hap = o->haplotype;
	const size_t per = (size_t)SNP_PLANES * (size_t)d->nw * sizeof(uint64_t);
	int rc;
	CK(cudaMemcpyAsync(g->ld_w, snp_plane(d, s->i0 + r0, 0), (size_t)nr * per, cudaMemcpyHostToDevice, g->st[0]));
	ld_totals_kernel<<<(unsigned)((nr + 255) / 256), 256, 0, g->st[0]>>>(g->ld_w, nr, d->nw, g->ld_tot);
	CK(cudaGetLastError());
	cudaEvent_t t0 = g->ev[LD_EVENTS - 3][0];
	CK(cudaEventRecord(t0, g->st[0]));
	int nch = 0;
	for (int64_t c0 = s->cbase; c0 < s->cbase + width; c0 += cw, ++nch) {
		const int b = nch & 1;
		const int64_t nc = s->cbase + width - c0 < cw ? s->cbase + width - c0 : cw;
		if (nch >= 2) CK(cudaEventSynchronize(g->staged[b])); /* stage b's last upload is done */
		memcpy(g->h_stage[b], snp_plane(d, c0, 0), (size_t)nc * per);
		if (nch >= 2) CK(cudaStreamWaitEvent(g->st[2], g->done[b], 0)); /* slice b's last kernel is done */
		CK(cudaMemcpyAsync(g->ld_yw[b], g->h_stage[b], (size_t)nc * per, cudaMemcpyHostToDevice, g->st[2]));
		ld_totals_kernel<<<(unsigned)((nc + 255) / 256), 256, 0, g->st[2]>>>(g->ld_yw[b], nc, d->nw, g->ld_ytot[b]);
		CK(cudaGetLastError());
		CK(cudaEventRecord(g->staged[b], g->st[2]));
		CK(cudaStreamWaitEvent(g->st[0], g->staged[b], 0));
		if (nch >= 2) CK(cudaStreamWaitEvent(g->st[0], g->copied[b], 0)); /* result buffer b copied out */
		const int64_t xb = s->i0 + r0;
		const ld_launch_t L = {{g->ld_w, g->ld_yw[b], xb, c0, g->ld_tot, g->ld_ytot[b]}, xb, c0, nc, nr,
		                       g->ld_jr + r0, g->ld_jr + nrows + r0, hap ? g->ld_cnt[b] : NULL, hap ? NULL : g->ld_val[b]};
		if (g->ld_path == PATH_AUTO && (rc = ld_pick_path(g, full, d, &L, o, err)) < 0) return rc;
		CK(cudaEventRecord(g->ev[nch][0], g->st[0]));
		if ((rc = ld_count_launch(g, g->st[0], g->ld_path, full, d, &L, o, err)) < 0) return rc;
		CK(cudaEventRecord(g->ev[nch][1], g->st[0]));
		CK(cudaEventRecord(g->done[b], g->st[0]));
		if ((rc = ld_copy_back(g, s, hap, b, r0, nr, c0, nc, err)) < 0) return rc;
		if (nch == LD_EVENTS - 4) { /* timing slots used up: account for them and start again */
			for (int i = 0; i < 3; ++i) CK(cudaStreamSynchronize(g->st[i]));
			if ((rc = ld_add_busy(g, t0, nch + 1, err)) < 0) return rc;
			nch = -1;
		}
	}
	for (int i = 0; i < 3; ++i) CK(cudaStreamSynchronize(g->st[i]));
	return ld_add_busy(g, t0, nch, err);
}

/* Planes beyond GPU memory: within half the free memory, the stripe's rows (in groups, when they
 * do not all fit), two column slices and two result buffers; at least LD_CHUNKS slices per stripe,
 * so that uploads, kernels and copies back overlap. */
static int ld_stripe_streamed(snp_gpu_t *g, const snp_data_t *d, const ld_opt_t *o, const ld_stripe_t *s, int full,
                              gvk_err_t *err)
{
	const int64_t nrows = s->i1 - s->i0, width = s->width;
	const int hap = o->haplotype;
	const size_t per = (size_t)SNP_PLANES * (size_t)d->nw * sizeof(uint64_t);
	const size_t elt = hap ? sizeof(pg_ldcnt_t) : sizeof(double), budget = g->mem_free / 2;
	int64_t rg = nrows; /* rows per group: one column per slice at least must fit beside them */
	while (rg > 1 && (size_t)rg * per + 2 * (per + 2 * sizeof(int32_t) + (size_t)rg * elt) > budget) rg = (rg + 1) / 2;
	const size_t rows = (size_t)rg * per;
	const int64_t fit = rows < budget ? (int64_t)((budget - rows) / (2 * (per + 2 * sizeof(int32_t) + (size_t)rg * elt))) : 0;
	int64_t cw = (width + LD_CHUNKS - 1) / LD_CHUNKS;
	cw = (cw + 4 * LD_T - 1) / (4 * LD_T) * (4 * LD_T);
	if (cw > fit) cw = fit;
	if (cw < 1)
		return gvk_err_set(err, GVK_ERR_NOMEM, "GPU memory too small for one SNP of %lld samples beside another",
		                   (long long)d->n_bits);
	int rc = dev_reserve((void **)&g->ld_w, &g->ld_w_cap, rows, "a stripe's SNP planes", err);
	if (rc == 0) rc = dev_reserve((void **)&g->ld_tot, &g->ld_tot_cap, 2 * (size_t)rg * sizeof(int32_t), "plane totals", err);
	if (rc == 0) rc = ld_out_reserve(g, hap, 2, (size_t)cw * (size_t)rg, err);
	for (int b = 0; b < 2 && rc == 0; ++b) {
		rc = dev_reserve((void **)&g->ld_yw[b], &g->ld_yw_cap[b], (size_t)cw * per, "a column slice", err);
		if (rc == 0) rc = dev_reserve((void **)&g->ld_ytot[b], &g->ld_ytot_cap[b], 2 * (size_t)cw * sizeof(int32_t), "slice totals", err);
		if (rc == 0) rc = pinned_reserve((void **)&g->h_stage[b], &g->h_stage_cap[b], (size_t)cw * per, "a column slice", err);
	}
	if (rc < 0) return rc;
	g->ld_src = NULL; /* ld_w now holds stripe rows only */
	for (int64_t r0 = 0; r0 < nrows && rc == 0; r0 += rg)
		rc = ld_stream_rows(g, d, o, s, full, r0, (int)(nrows - r0 < rg ? nrows - r0 : rg), cw, err);
	return rc;
}

extern "C" int snp_gpu_ld_stripe(snp_gpu_t *g, const snp_data_t *d, const ld_opt_t *o, ld_stripe_t *s, gvk_err_t *err)
{
	const int64_t nrows = s->i1 - s->i0, width = s->width;
	if (nrows <= 0 || width <= 0) return 0;
	int rc = ld_resident(g, d, err);
	if (rc < 0) return rc;
	const int resident = rc, full = ld_stripe_full(d, s), hap = o->haplotype;
	if ((rc = dev_reserve((void **)&g->ld_jr, &g->ld_jr_cap, 2 * (size_t)nrows * sizeof(int64_t), "a stripe", err)) < 0)
		return rc;
	/* phased: the counts come back to pinned memory for the host's haplotype epilogue */
	if (hap && (rc = pinned_reserve((void **)&g->h_cnt, &g->h_cnt_cap, (size_t)nrows * (size_t)width * sizeof(pg_ldcnt_t),
	                                "a stripe's counts", err)) < 0)
		return rc;
	CK(cudaMemcpyAsync(g->ld_jr, s->jlo, (size_t)nrows * sizeof(int64_t), cudaMemcpyHostToDevice, g->st[0]));
	CK(cudaMemcpyAsync(g->ld_jr + nrows, s->jhi, (size_t)nrows * sizeof(int64_t), cudaMemcpyHostToDevice, g->st[0]));
	rc = resident ? ld_stripe_resident(g, d, o, s, full, err) : ld_stripe_streamed(g, d, o, s, full, err);
	if (rc < 0) return rc;
	snprintf(g->kernel, sizeof g->kernel, "%s %s", g->name, g->ld_path == PATH_MMA ? "bmma" : "popc");
	if (hap) {
		int nt = o->threads > 0 ? o->threads : 1;
		if (nt > nrows) nt = (int)nrows;
		ld_epi_t e = {o, s, g->h_cnt, nt};
		gvk_parallel(nt, ld_epilogue, &e);
	}
	return 0;
}

/* ---- FastID --------------------------------------------------------------------------------- */

/* Adds the time between the two events of timing slot i (both recorded and passed). */
static int add_elapsed(snp_gpu_t *g, int i, gvk_err_t *err)
{
	float ms = 0;
	CK(cudaEventSynchronize(g->ev[i][1]));
	CK(cudaEventElapsedTime(&ms, g->ev[i][0], g->ev[i][1]));
	g->kern_s += ms * 1e-3;
	return 0;
}

typedef struct {
	uint64_t *q, *db, *top, *sel;
	uint64_t *dbuf[2]; /* database blocks: db is one, the next block is copied into the other */
	size_t dbuf_cap[2];
	const uint64_t *pf_src; /* next block to copy once the current one's first kernel runs */
	uint64_t *pf_dst;
	size_t pf_bytes;
	dhit_t *hits;
	unsigned long long *n_hits;
	size_t top_cap, sel_cap, hits_cap_b;
	unsigned long long hit_cap;
	uint64_t *h_sel;
	dhit_t *h_hits;
	size_t h_sel_cap, h_hits_cap;
	int path;               /* PATH_POPC or PATH_MMA, PATH_AUTO until the first batch has timed both */
	int qgroup;             /* queries per block of the CUDA-core kernel (FID_QB or FID_QB_LONG) */
	size_t smem_popc, smem_mma; /* dynamic shared memory of each kernel */
} fid_bufs_t;

static void fid_bufs_free(fid_bufs_t *b)
{
	cudaFree(b->q), cudaFree(b->dbuf[0]), cudaFree(b->dbuf[1]), cudaFree(b->top), cudaFree(b->sel), cudaFree(b->hits), cudaFree(b->n_hits);
	free(b->h_sel);
	free(b->h_hits);
}

static int host_reserve(void **p, size_t *cap, size_t need, gvk_err_t *err)
{
	if (need <= *cap) return 0;
	void *n = realloc(*p, need);
	if (!n) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory (%zu bytes)", need);
	*p = n, *cap = need;
	return 0;
}

template <int QB>
static int fid_launch_qb(int op, dim3 grid, size_t smem, const fid_bufs_t *b, const uint64_t *q, int nq, int64_t nd,
                         int stride, int64_t per_part, int nparts, int k, int64_t thresh, gvk_err_t *err)
{
	if (op == PG_XOR)
		fid_score_kernel<PG_XOR, QB><<<grid, FID_THREADS, smem>>>(q, nq, b->db, nd, stride, per_part, nparts, k, thresh,
		                                                          b->top, b->hits, b->n_hits, b->hit_cap);
	else if (op == PG_ANDNOT)
		fid_score_kernel<PG_ANDNOT, QB><<<grid, FID_THREADS, smem>>>(q, nq, b->db, nd, stride, per_part, nparts, k, thresh,
		                                                             b->top, b->hits, b->n_hits, b->hit_cap);
	else
		fid_score_kernel<PG_AND, QB><<<grid, FID_THREADS, smem>>>(q, nq, b->db, nd, stride, per_part, nparts, k, thresh,
		                                                          b->top, b->hits, b->n_hits, b->hit_cap);
	CK(cudaGetLastError());
	return 0;
}

static int fid_launch_mma(int op, dim3 grid, size_t smem, const fid_bufs_t *b, const uint64_t *q, int nq, int64_t nd,
                          int stride, int64_t per_part, int nparts, int k, int64_t thresh, gvk_err_t *err)
{
#if GPU_HAVE_BMMA
	if (op == PG_XOR)
		fid_mma_kernel<PG_XOR><<<grid, FMMA_THREADS, smem>>>(q, nq, b->db, nd, stride, per_part, nparts, k, thresh, b->top,
		                                                     b->hits, b->n_hits, b->hit_cap);
	else if (op == PG_ANDNOT)
		fid_mma_kernel<PG_ANDNOT><<<grid, FMMA_THREADS, smem>>>(q, nq, b->db, nd, stride, per_part, nparts, k, thresh,
		                                                        b->top, b->hits, b->n_hits, b->hit_cap);
	else
		fid_mma_kernel<PG_AND><<<grid, FMMA_THREADS, smem>>>(q, nq, b->db, nd, stride, per_part, nparts, k, thresh, b->top,
		                                                     b->hits, b->n_hits, b->hit_cap);
	CK(cudaGetLastError());
	return 0;
#else
	return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "no tensor-core FastID kernel on %s GPUs", GVK_GPU_API);
#endif
}

static int fid_launch(int op, int path, int qb, int blocks_x, int blocks_y, size_t smem, const fid_bufs_t *b,
                      const uint64_t *q, int nq, int64_t nd, int stride, int64_t per_part, int nparts, int k,
                      int64_t thresh, gvk_err_t *err)
{
	dim3 grid((unsigned)blocks_x, (unsigned)blocks_y);
	if (path == PATH_MMA) return fid_launch_mma(op, dim3((unsigned)blocks_y, (unsigned)blocks_x), smem, b, q, nq, nd, stride, per_part, nparts, k, thresh, err);
	return qb == FID_QB ? fid_launch_qb<FID_QB>(op, grid, smem, b, q, nq, nd, stride, per_part, nparts, k, thresh, err)
	                    : fid_launch_qb<FID_QB_LONG>(op, grid, smem, b, q, nq, nd, stride, per_part, nparts, k, thresh, err);
}

/* Allows smem bytes of dynamic shared memory to the kernels of QB queries. */
template <int QB>
static int fid_allow_smem(size_t smem, gvk_err_t *err)
{
	CK(cudaFuncSetAttribute(fid_score_kernel<PG_XOR, QB>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	CK(cudaFuncSetAttribute(fid_score_kernel<PG_ANDNOT, QB>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	CK(cudaFuncSetAttribute(fid_score_kernel<PG_AND, QB>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	return 0;
}

static int fid_allow_smem_mma(size_t smem, gvk_err_t *err)
{
#if GPU_HAVE_BMMA
	CK(cudaFuncSetAttribute(fid_mma_kernel<PG_XOR>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	CK(cudaFuncSetAttribute(fid_mma_kernel<PG_ANDNOT>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	CK(cudaFuncSetAttribute(fid_mma_kernel<PG_AND>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
#endif
	return 0;
}

/* One batch of nqb queries (from q0) against the resident database block of nd profiles with the
 * kernel of path: fills blk->top rows q0.. (blk->k per query) and appends to blk->hits. */
static int fid_batch(snp_gpu_t *g, const fid_job_t *job, fid_bufs_t *b, int path, int64_t q0, int nqb, int64_t nd,
                     int64_t dbase, fid_result_t *blk, gvk_err_t *err)
{
	const int stride = job->db->stride, k = blk->k;
	const int qgroup = path == PATH_MMA ? (int)FMMA_QB : b->qgroup, lists = path == PATH_MMA ? (int)FMMA_LISTS : (int)FID_THREADS;
	const int groups = (nqb + qgroup - 1) / qgroup;
	/* Enough (part, group) blocks to fill every SM, each part at least one profile per thread. */
	int64_t want = ((int64_t)g->sms * g->max_threads_sm + (int64_t)groups * FID_THREADS - 1) / ((int64_t)groups * FID_THREADS);
	int64_t most = (nd + FID_THREADS - 1) / FID_THREADS;
	int64_t nparts = want < 1 ? 1 : want > most ? most : want;
	if (k > 0) {
		/* Per-thread lists cost nqb * nparts * FID_THREADS * k keys; keep them to a quarter of memory. */
		size_t per_part = (size_t)nqb * (size_t)lists * (size_t)k * sizeof(uint64_t);
		int64_t fit = (int64_t)(g->mem_free / 4 / per_part);
		if (nparts > fit) nparts = fit < 1 ? 1 : fit;
	}
	if (k > 0) { /* the selection scans every list entry once per rank: keep the lists short */
		int64_t cap = 65536 / ((int64_t)lists * k);
		if (nparts > cap) nparts = cap < 1 ? 1 : cap;
	}
	if (nparts > (path == PATH_MMA ? 65535 : 65535 * 1024)) nparts = path == PATH_MMA ? 65535 : 65535 * 1024;
	const int64_t per_part = (nd + nparts - 1) / nparts;
	const size_t len = (size_t)nparts * (size_t)lists * (size_t)k; /* keys per query */
	int rc;
	if (k > 0) {
		if ((rc = dev_reserve((void **)&b->top, &b->top_cap, (size_t)nqb * len * sizeof(uint64_t), "top-k lists", err)) < 0 ||
		    (rc = dev_reserve((void **)&b->sel, &b->sel_cap, (size_t)nqb * (size_t)k * sizeof(uint64_t), "top-k lists", err)) < 0 ||
		    (rc = host_reserve((void **)&b->h_sel, &b->h_sel_cap, (size_t)nqb * (size_t)k * sizeof(uint64_t), err)) < 0)
			return rc;
	}
	const size_t smem = path == PATH_MMA ? b->smem_mma : b->smem_popc;
	const uint64_t *q = b->q + (size_t)q0 * (size_t)stride;
	for (int attempt = 0;; ++attempt) {
		if (k > 0) CK(cudaMemset(b->top, 0xff, (size_t)nqb * len * sizeof(uint64_t)));
		CK(cudaMemset(b->n_hits, 0, sizeof *b->n_hits));
		CK(cudaEventRecord(g->ev[0][0], 0));
		if ((rc = fid_launch(job->op, path, qgroup, (int)nparts, groups, smem, b, q, nqb, nd, stride, per_part, (int)nparts, k,
		                     job->thresh, err)) < 0)
			return rc;
		CK(cudaEventRecord(g->ev[0][1], 0));
		if (b->pf_src) { /* the next database block travels while this kernel runs */
			CK(cudaMemcpyAsync(b->pf_dst, b->pf_src, b->pf_bytes, cudaMemcpyHostToDevice, g->st[1]));
			b->pf_src = NULL;
		}
		unsigned long long nh = 0;
		CK(cudaMemcpy(&nh, b->n_hits, sizeof nh, cudaMemcpyDeviceToHost));
		if ((rc = add_elapsed(g, 0, err)) < 0) return rc;
		if (nh <= b->hit_cap) {
			if (nh > 0) {
				if ((rc = host_reserve((void **)&b->h_hits, &b->h_hits_cap, nh * sizeof(dhit_t), err)) < 0) return rc;
				CK(cudaMemcpy(b->h_hits, b->hits, nh * sizeof(dhit_t), cudaMemcpyDeviceToHost));
				fid_hit_t *nhits = (fid_hit_t *)realloc(blk->hits, (blk->n_hits + nh) * sizeof(fid_hit_t));
				if (!nhits) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for %llu threshold hits", nh);
				blk->hits = nhits;
				for (unsigned long long h = 0; h < nh; ++h) {
					const dhit_t *x = &b->h_hits[h];
					fid_hit_t *y = &blk->hits[blk->n_hits++];
					y->db = job->db_offset + dbase + x->d, y->q = (uint32_t)q0 + x->q, y->score = x->score;
				}
			}
			break;
		}
		if (attempt > 0) return gvk_err_set(err, GVK_ERR_GPU, "GPU threshold hit count changed between runs");
		/* More hits than room: grow the buffer to the exact count and score the batch again. */
		cudaFree(b->hits);
		b->hits = NULL, b->hits_cap_b = 0, b->hit_cap = 0;
		if ((rc = dev_reserve((void **)&b->hits, &b->hits_cap_b, nh * sizeof(dhit_t), "threshold hits", err)) < 0) return rc;
		b->hit_cap = nh;
	}
	if (k > 0) {
		CK(cudaEventRecord(g->ev[1][0], 0));
		fid_select_kernel<<<(unsigned)nqb, SEL_THREADS>>>(b->top, len, k, b->sel);
		CK(cudaGetLastError());
		CK(cudaEventRecord(g->ev[1][1], 0));
		CK(cudaMemcpy(b->h_sel, b->sel, (size_t)nqb * (size_t)k * sizeof(uint64_t), cudaMemcpyDeviceToHost));
		if ((rc = add_elapsed(g, 1, err)) < 0) return rc;
		for (int x = 0; x < nqb; ++x)
			for (int r = 0; r < k; ++r) {
				uint64_t key = b->h_sel[(size_t)x * k + r];
				fid_hit_t *y = &blk->top[(size_t)(q0 + x) * k + r];
				y->db = job->db_offset + dbase + (int64_t)(key & 0xffffffffu);
				y->q = (uint32_t)(q0 + x), y->score = (uint32_t)(key >> 32);
			}
	}
	return 0;
}

/* Path auto: both kernels score the first batch against the first FID_TRIAL profiles
 * (at most) into a scratch result, each timed with its selection, and the faster is kept for the
 * whole search (they give the same results); then the batch is scored for real. */
static int fid_pick_batch(snp_gpu_t *g, const fid_job_t *job, fid_bufs_t *b, int64_t q0, int nqb, int64_t nd,
                          int64_t dbase, fid_result_t *blk, gvk_err_t *err)
{
	const int64_t tn = nd < (int64_t)FID_TRIAL ? nd : (int64_t)FID_TRIAL;
	double t[2] = {0, 0};
	int rc = 0;
	for (int p = 0; p < 2 && rc == 0; ++p) {
		fid_result_t tmp;
		memset(&tmp, 0, sizeof tmp);
		tmp.k = blk->k < tn ? blk->k : (int)tn;
		if (tmp.k > 0 && !(tmp.top = (fid_hit_t *)malloc((size_t)(q0 + nqb) * (size_t)tmp.k * sizeof(fid_hit_t))))
			return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for top-%d lists", tmp.k);
		const double t0 = g->kern_s;
		rc = fid_batch(g, job, b, p ? PATH_MMA : PATH_POPC, q0, nqb, tn, dbase, &tmp, err);
		t[p] = g->kern_s - t0;
		fid_result_free(&tmp);
	}
	if (rc < 0) return rc;
	b->path = t[1] < t[0] ? PATH_MMA : PATH_POPC;
	return fid_batch(g, job, b, b->path, q0, nqb, nd, dbase, blk, err);
}

static int fid_run(snp_gpu_t *g, const fid_job_t *job, fid_bufs_t *b, fid_result_t *res, gvk_err_t *err)
{
	const int64_t nq = job->q->n, n = job->db->n;
	const int stride = job->db->stride;
	const size_t pbytes = (size_t)stride * sizeof(uint64_t);
	const int qgroup = (size_t)FID_QB * pbytes <= g->smem_optin ? FID_QB : FID_QB_LONG;
	const size_t smem = (size_t)qgroup * pbytes;
	if (smem > g->smem_optin)
		return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "profiles of %u SNPs are too long for this GPU's shared memory",
		                   job->db->n_snp);
	int rc = 0;
	if (smem > g->smem_block &&
	    (rc = qgroup == FID_QB ? fid_allow_smem<FID_QB>(smem, err) : fid_allow_smem<FID_QB_LONG>(smem, err)) < 0)
		return rc;
	/* The tensor-core kernel holds FMMA_QB queries in fragment order, 256-bit chunks: the CUDA-core
	 * kernel runs alone when they do not fit in shared memory. */
	b->qgroup = qgroup, b->smem_popc = smem;
	b->smem_mma = (size_t)((stride + 3) / 4) * FMMA_NF * 32 * sizeof(uint64_t);
	b->path = b->smem_mma > g->smem_optin ? PATH_POPC : g->path;
	if (g->path == PATH_MMA && b->path == PATH_POPC)
		gvk_logf(&g->log, GVK_LOG_INFO, "profiles of %u SNPs are too long for the tensor-core FastID kernel; using the CUDA cores",
		         job->db->n_snp);
	if (b->path != PATH_POPC && b->smem_mma > g->smem_block && (rc = fid_allow_smem_mma(b->smem_mma, err)) < 0)
		return rc;
	if (nq == 0 || n == 0) return 0;
	if (nq > UINT32_MAX) return gvk_err_set(err, GVK_ERR_ARG, "too many queries for the GPU engine");
	size_t qcap = 0;
	rc = dev_reserve((void **)&b->q, &qcap, (size_t)nq * pbytes, "the queries", err);
	if (rc < 0) return rc;
	CK(cudaMemcpy(b->q, job->q->w, (size_t)nq * pbytes, cudaMemcpyHostToDevice));
	size_t one = 0;
	if ((rc = dev_reserve((void **)&b->n_hits, &one, sizeof *b->n_hits, "a counter", err)) < 0) return rc;
	if (job->thresh >= 0) {
		b->hit_cap = 1u << 20;
		if ((rc = dev_reserve((void **)&b->hits, &b->hits_cap_b, b->hit_cap * sizeof(dhit_t), "threshold hits", err)) < 0)
			return rc;
	}
	/* Database blocks of a quarter of free memory (indices within a block fit the keys' 32 bits). */
	int64_t blk_n = (int64_t)(g->mem_free / 4 / pbytes);
	if (blk_n < n) blk_n /= 2; /* two block buffers (copy and search overlap) in the same memory */
	if (blk_n > INT32_MAX) blk_n = INT32_MAX;
	if (g->db_block > 0 && g->db_block < blk_n) blk_n = g->db_block;
	if (blk_n < 1) blk_n = 1;
	const int topk = job->topk > 0 ? job->topk : 0;
	int64_t qb = g->q_batch > 0 ? g->q_batch : 65535 * (int64_t)qgroup;
	if (topk > 0) { /* one part per query group at least: a batch's lists within a quarter of memory */
		int64_t fit = (int64_t)(g->mem_free / 4 / ((size_t)FID_THREADS * (size_t)topk * sizeof(uint64_t)));
		if (qb > fit) qb = fit < 1 ? 1 : fit;
	}
	const size_t buf_bytes = (size_t)(n < blk_n ? n : blk_n) * pbytes;
	for (int i = 0; i < (blk_n < n ? 2 : 1); ++i)
		if ((rc = dev_reserve((void **)&b->dbuf[i], &b->dbuf_cap[i], buf_bytes, "a database block", err)) < 0) return rc;
	CK(cudaMemcpyAsync(b->dbuf[0], job->db->w, (size_t)(n < blk_n ? n : blk_n) * pbytes, cudaMemcpyHostToDevice, g->st[1]));
	for (int64_t d0 = 0, bi = 0; d0 < n; d0 += blk_n, ++bi) {
		const int64_t nd = n - d0 < blk_n ? n - d0 : blk_n, d1 = d0 + nd;
		CK(cudaStreamSynchronize(g->st[1])); /* block bi is on the device */
		b->db = b->dbuf[bi & 1];
		if (d1 < n) { /* copy block bi + 1 during block bi's first kernel (fid_batch) */
			b->pf_src = job->db->w + (size_t)d1 * stride, b->pf_dst = b->dbuf[(bi + 1) & 1];
			b->pf_bytes = (size_t)(n - d1 < blk_n ? n - d1 : blk_n) * pbytes;
		}
		fid_result_t blk;
		memset(&blk, 0, sizeof blk);
		blk.k = (int)(topk < nd ? topk : nd);
		if (blk.k > 0 && !(blk.top = (fid_hit_t *)malloc((size_t)nq * (size_t)blk.k * sizeof(fid_hit_t))))
			return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for top-%d lists", blk.k);
		for (int64_t q0 = 0; q0 < nq && rc == 0; q0 += qb) {
			const int nqb = (int)(nq - q0 < qb ? nq - q0 : qb);
			rc = b->path == PATH_AUTO ? fid_pick_batch(g, job, b, q0, nqb, nd, d0, &blk, err)
			                          : fid_batch(g, job, b, b->path, q0, nqb, nd, d0, &blk, err);
		}
		blk.pairs = (uint64_t)nq * (uint64_t)nd;
		if (rc == 0 && b->pf_src) { /* not sent by a kernel launch (none ran) */
			CK(cudaMemcpyAsync(b->pf_dst, b->pf_src, b->pf_bytes, cudaMemcpyHostToDevice, g->st[1]));
			b->pf_src = NULL;
		}
		if (rc == 0) rc = fid_result_merge(res, &blk, nq, topk, err);
		fid_result_free(&blk);
		if (rc < 0) return rc;
	}
	fid_result_sort_hits(res);
	return 0;
}

extern "C" int snp_gpu_fastid(snp_gpu_t *g, const fid_job_t *job, fid_result_t *res, gvk_err_t *err)
{
	memset(res, 0, sizeof *res);
	fid_bufs_t b;
	memset(&b, 0, sizeof b);
	int rc = fid_run(g, job, &b, res, err);
	snprintf(g->kernel, sizeof g->kernel, "%s %s", g->name, b.path == PATH_MMA ? "bmma" : "popc");
	fid_bufs_free(&b);
	if (rc < 0) fid_result_free(res);
	return rc;
}
