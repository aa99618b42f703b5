/* SPDX-License-Identifier: MIT */
/* Peak micro-benchmarks of the units the SNP kernels run on: every SM filled with independent
 * chains, timed with CUDA events after a warm-up launch. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "snp_peak.h"
#include "common/cuda_check.h"
#include "snp/snp_gpu_bmma.cuh"

/* Independent chains of 64-bit AND + popcount + add (CUDA cores) and of
 * m16n8k256 AND-popc MMAs (tensor cores); sink keeps the results alive. */
__global__ void peak_popc_kernel(int iters, uint64_t seed, unsigned long long *sink)
{
	uint64_t x[8], y = seed ^ threadIdx.x;
	uint32_t s[8];
#pragma unroll
	for (int i = 0; i < 8; ++i) x[i] = seed * (uint64_t)(threadIdx.x + 8 * i + 1), s[i] = 0;
	for (int it = 0; it < iters; ++it) {
#pragma unroll
		for (int i = 0; i < 8; ++i) s[i] += (uint32_t)__popcll(x[i] & y);
		y += 0x9e3779b97f4a7c15ull;
	}
	uint32_t t = 0;
#pragma unroll
	for (int i = 0; i < 8; ++i) t += s[i];
	if (t == 0xffffffffu) atomicAdd(sink, 1ull);
}

__global__ void peak_mma_kernel(int iters, uint32_t seed, unsigned long long *sink)
{
	uint32_t a[4] = {seed, seed ^ threadIdx.x, seed * 3u, seed + threadIdx.x}, b[2] = {seed * 7u, seed ^ 0x55u};
	int32_t d[8][4];
#pragma unroll
	for (int j = 0; j < 8; ++j) d[j][0] = d[j][1] = d[j][2] = d[j][3] = 0;
	for (int it = 0; it < iters; ++it)
#pragma unroll
		for (int j = 0; j < 8; ++j) bmma_and(d[j], a, b);
	int32_t t = 0;
#pragma unroll
	for (int j = 0; j < 8; ++j) t += d[j][0] + d[j][1] + d[j][2] + d[j][3];
	if (t == -1) atomicAdd(sink, 1ull);
}

/* Seconds of one launch of a peak kernel over every SM (warm-up run first). */
static int peak_time(int blocks, int threads, int mma, int iters, unsigned long long *sink, double *sec, gvk_err_t *err)
{
	cudaEvent_t ev[2];
	CK(cudaEventCreate(&ev[0]));
	CK(cudaEventCreate(&ev[1]));
	for (int rep = 0; rep < 2; ++rep) {
		CK(cudaEventRecord(ev[0], 0));
		if (mma) peak_mma_kernel<<<blocks, threads>>>(iters, 12345u, sink);
		else peak_popc_kernel<<<blocks, threads>>>(iters, 12345u, sink);
		CK(cudaGetLastError());
		CK(cudaEventRecord(ev[1], 0));
		CK(cudaEventSynchronize(ev[1]));
	}
	float ms = 0;
	CK(cudaEventElapsedTime(&ms, ev[0], ev[1]));
	cudaEventDestroy(ev[0]);
	cudaEventDestroy(ev[1]);
	*sec = ms * 1e-3;
	return 0;
}

extern "C" int snp_peak(int gpu, double *popc, double *mma, gvk_err_t *err)
{
	cudaDeviceProp prop;
	CK(cudaSetDevice(gpu));
	CK(cudaGetDeviceProperties(&prop, gpu));
	const int per_sm = prop.maxThreadsPerMultiProcessor, sms = prop.multiProcessorCount;
	unsigned long long *sink = NULL;
	CK(cudaMalloc((void **)&sink, sizeof *sink));
	double t = 0;
	const int ip = 1 << 14, im = 1 << 12;
	int rc = peak_time(sms * (per_sm / 256), 256, 0, ip, sink, &t, err);
	if (rc == 0) *popc = (double)sms * (per_sm / 256) * 256 * (double)ip * 8 * 64 / t;
	if (rc == 0 && (rc = peak_time(sms * (per_sm / 128), 128, 1, im, sink, &t, err)) == 0)
		*mma = (double)sms * (per_sm / 128) * 4 * (double)im * 8 * 16 * 8 * 256 / t;
	cudaFree(sink);
	return rc;
}
