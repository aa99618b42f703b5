/* SPDX-License-Identifier: MIT */
/* A stand-in for the CUDA runtime, enough for src/cnv/cnv_em_gpu.cu: host memory for device and
 * pinned memory, copies done at once (streams are in-order queues, so that is one legal
 * schedule), kernels run thread after thread (the EM's threads never synchronize).
 * EMU_CUDA_MALLOC_LIMIT=BYTES makes larger device allocations fail as out of memory, to drive the
 * chunk-halving path. For tests/cnv/gpu_backend_emu.sh only. */
#ifndef GVK_CNV_EMU_CUDA_RUNTIME_H
#define GVK_CNV_EMU_CUDA_RUNTIME_H
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2, cudaErrorNoDevice = 100, cudaErrorInvalidDevice = 101 } cudaError_t;
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost };
enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount };
typedef int cudaStream_t;
#define cudaStreamNonBlocking 1
#define cudaHostAllocDefault 0
struct cudaDeviceProp {
	char name[256];
};
struct uint3 {
	unsigned x, y, z;
};
static uint3 threadIdx, blockIdx, blockDim, gridDim;

#define __global__ static
#define __device__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __grid_constant__
#define __launch_bounds__(x)

static inline const char *cudaGetErrorString(cudaError_t e) { return e == cudaErrorMemoryAllocation ? "out of memory" : "emulated error"; }
static inline cudaError_t cudaGetDeviceCount(int *n) { *n = 1; return cudaSuccess; }
static inline cudaError_t cudaDriverGetVersion(int *v) { *v = 12000; return cudaSuccess; }
static inline cudaError_t cudaRuntimeGetVersion(int *v) { *v = 12000; return cudaSuccess; }
static inline cudaError_t cudaGetDevice(int *d) { *d = 0; return cudaSuccess; }
static inline cudaError_t cudaSetDevice(int d) { return d == 0 ? cudaSuccess : cudaErrorInvalidDevice; }
static inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int dev)
{
	(void)dev;
	strcpy(p->name, "CPU emulation");
	return cudaSuccess;
}
static inline cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int dev) { (void)a, (void)dev; *v = 3; return cudaSuccess; }
static inline cudaError_t cudaMemGetInfo(size_t *f, size_t *t) { *f = *t = (size_t)1 << 30; return cudaSuccess; }
static inline cudaError_t cudaMalloc(void **p, size_t n)
{
	const char *lim = getenv("EMU_CUDA_MALLOC_LIMIT");
	if (lim && n > (size_t)atol(lim)) return *p = NULL, cudaErrorMemoryAllocation;
	*p = malloc(n ? n : 1);
	return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
template <typename T> static inline cudaError_t cudaMalloc(T **p, size_t n) { return cudaMalloc((void **)p, n); }
static inline cudaError_t cudaFree(void *p) { free(p); return cudaSuccess; }
template <typename T> static inline cudaError_t cudaHostAlloc(T **p, size_t n, int f)
{
	(void)f;
	*p = (T *)malloc(n ? n : 1);
	return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
static inline cudaError_t cudaFreeHost(void *p) { free(p); return cudaSuccess; }
static inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind k) { (void)k; memcpy(d, s, n); return cudaSuccess; }
static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind k, cudaStream_t st)
{
	(void)k, (void)st;
	memcpy(d, s, n);
	return cudaSuccess;
}
static inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, int f) { (void)f; *s = 1; return cudaSuccess; }
static inline cudaError_t cudaStreamDestroy(cudaStream_t s) { (void)s; return cudaSuccess; }
static inline cudaError_t cudaStreamSynchronize(cudaStream_t s) { (void)s; return cudaSuccess; }
static inline cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
static inline cudaError_t cudaGetLastError(void) { return cudaSuccess; }

/* A launch: every thread of every block in turn. */
template <typename F> static void emu_launch(unsigned grid, unsigned block, F f)
{
	gridDim = {grid, 1, 1}, blockDim = {block, 1, 1};
	for (unsigned b = 0; b < grid; ++b)
		for (unsigned t = 0; t < block; ++t) {
			blockIdx = {b, 0, 0}, threadIdx = {t, 0, 0};
			f();
		}
}
#endif
