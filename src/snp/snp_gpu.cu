/* SPDX-License-Identifier: MIT */
/* The GPU context of the SNP engines (snp_gpu.h); their kernels are LD's (ld/ld_gpu.cu) and FastID's
 * (fastid/fastid_gpu.cu). Both engines use one popcount-GEMM idea: operand
 * words staged in shared memory, AND / XOR / AND-NOT and a population count summed in 32-bit
 * integers, so the counts are the CPU kernels' integers exactly. LD has two count kernels, one on
 * the CUDA cores (__popcll) and one on the tensor cores (binary MMA, AND + popc), picked by a
 * timing on the first chunk or forced (snp_gpu_opt_t.path); r / r^2 are then formed on the
 * device with the host's exact operations and copied back while the next chunk is computed.
 * FastID keeps per-thread top-k lists of (score, index) keys on the device and reduces them
 * there, so no score matrix is stored. Every CUDA call is checked. */
#include "snp_gpu_impl.cuh"
extern "C" {
#include "../common/gpu_probe.h"
}

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
	cudaFree(g->pr_w), cudaFree(g->pr_off), cudaFree(g->pr_cnt);
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


