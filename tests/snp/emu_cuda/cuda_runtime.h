/* SPDX-License-Identifier: MIT */
/* A stand-in for the CUDA runtime: host memory for device memory, kernels run by POSIX threads
 * (one per CUDA thread of a block, blocks in turn, __syncthreads a barrier). For
 * tests/snp/gpu_backend_emu.sh only. */
#ifndef GVK_EMU_CUDA_RUNTIME_H
#define GVK_EMU_CUDA_RUNTIME_H
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <thread>
#include <vector>

typedef enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2, cudaErrorNoDevice = 100 } cudaError_t;
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize };
struct cudaDeviceProp {
	char name[256];
	int major, minor, multiProcessorCount, maxThreadsPerMultiProcessor;
	size_t sharedMemPerBlock, sharedMemPerBlockOptin, sharedMemPerMultiprocessor, reservedSharedMemPerBlock;
	int regsPerMultiprocessor;
};
struct cudaFuncAttributes {
	int numRegs;
	size_t sharedSizeBytes;
};
struct dim3 {
	unsigned x, y, z;
	dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
struct uint3 { unsigned x, y, z; };
static thread_local uint3 threadIdx;
static uint3 blockIdx;
static dim3 blockDim, gridDim;
static void *emu_dyn;
static pthread_barrier_t emu_bar, emu_wbar[32];
static size_t emu_dyn_max = 48 * 1024;

#include "emu_device.h"

/* Streams and events: everything runs at once on the host, so ordering holds trivially; an event
 * records the host clock. */
typedef struct emu_stream_s { int unused; } *cudaStream_t;
typedef struct emu_event_s { double t; } *cudaEvent_t;
enum { cudaStreamNonBlocking = 1, cudaEventDisableTiming = 2 };
static inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned f) { (void)f; *s = (cudaStream_t)calloc(1, sizeof **s); return cudaSuccess; }
static inline cudaError_t cudaStreamDestroy(cudaStream_t s) { free(s); return cudaSuccess; }
static inline cudaError_t cudaStreamSynchronize(cudaStream_t s) { (void)s; return cudaSuccess; }
static inline cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = (cudaEvent_t)calloc(1, sizeof **e); return cudaSuccess; }
static inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned f) { (void)f; return cudaEventCreate(e); }
static inline cudaError_t cudaEventDestroy(cudaEvent_t e) { free(e); return cudaSuccess; }
static inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0)
{
	struct timespec ts;
	(void)s;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	e->t = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
	return cudaSuccess;
}
static inline cudaError_t cudaEventSynchronize(cudaEvent_t e) { (void)e; return cudaSuccess; }
static inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) { *ms = (float)((b->t - a->t) * 1e3); return cudaSuccess; }
static inline cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned f) { (void)s, (void)e, (void)f; return cudaSuccess; }

static inline const char *cudaGetErrorString(cudaError_t e) { return e == cudaErrorMemoryAllocation ? "out of memory" : "emulated error"; }
static inline cudaError_t cudaGetDeviceCount(int *n) { *n = 1; return cudaSuccess; }
static inline cudaError_t cudaDriverGetVersion(int *v) { *v = 12000; return cudaSuccess; }
static inline cudaError_t cudaRuntimeGetVersion(int *v) { *v = 12000; return cudaSuccess; }
static inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int dev)
{
	(void)dev;
	memset(p, 0, sizeof *p);
	strcpy(p->name, "CPU emulation");
	p->major = 9, p->multiProcessorCount = 3, p->maxThreadsPerMultiProcessor = 2048;
	p->sharedMemPerBlock = 48 * 1024, p->sharedMemPerBlockOptin = 227 * 1024;
	p->sharedMemPerMultiprocessor = 228 * 1024, p->reservedSharedMemPerBlock = 1024, p->regsPerMultiprocessor = 65536;
	return cudaSuccess;
}
/* What ptxas reports for the CUDA-core LD kernel on sm_90 (64 registers, a 16-byte static flag). */
static inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, const void *f)
{
	(void)f;
	a->numRegs = 64, a->sharedSizeBytes = 16;
	return cudaSuccess;
}
template <typename F> static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, F f, int t, size_t sm)
{
	(void)f, (void)t, (void)sm;
	*n = 2;
	return cudaSuccess;
}
static inline cudaError_t cudaSetDevice(int d) { (void)d; return cudaSuccess; }
enum { cudaDeviceScheduleAuto = 0, cudaDeviceScheduleSpin = 1, cudaDeviceScheduleYield = 2, cudaDeviceScheduleBlockingSync = 4 };
static inline cudaError_t cudaSetDeviceFlags(unsigned f) { (void)f; return cudaSuccess; }
static inline cudaError_t cudaMemGetInfo(size_t *f, size_t *t) { *f = *t = (size_t)1 << 30; return cudaSuccess; }
static inline cudaError_t cudaMalloc(void **p, size_t n) { *p = malloc(n ? n : 1); return *p ? cudaSuccess : cudaErrorMemoryAllocation; }
template <typename T> static inline cudaError_t cudaMalloc(T **p, size_t n) { return cudaMalloc((void **)p, n); }
static inline cudaError_t cudaFree(void *p) { free(p); return cudaSuccess; }
static inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind k) { (void)k; memcpy(d, s, n); return cudaSuccess; }
static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind k, cudaStream_t st)
{
	(void)st;
	return cudaMemcpy(d, s, n, k);
}
static inline cudaError_t cudaMemcpy2DAsync(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h,
                                            cudaMemcpyKind k, cudaStream_t st)
{
	(void)k, (void)st;
	for (size_t r = 0; r < h; ++r) memcpy((char *)d + r * dp, (const char *)s + r * sp, w);
	return cudaSuccess;
}
static inline cudaError_t cudaMallocHost(void **p, size_t n) { return cudaMalloc(p, n); }
template <typename T> static inline cudaError_t cudaMallocHost(T **p, size_t n) { return cudaMalloc((void **)p, n); }
static inline cudaError_t cudaFreeHost(void *p) { free(p); return cudaSuccess; }
enum { cudaHostRegisterDefault = 0, cudaHostRegisterPortable = 1, cudaHostRegisterMapped = 2 };
/* host memory is the device's here */
static inline cudaError_t cudaHostGetDevicePointer(void **d, void *h, unsigned f) { (void)f; *d = h; return cudaSuccess; }
static inline cudaError_t cudaHostRegister(void *p, size_t n, unsigned f) { (void)p, (void)n, (void)f; return cudaSuccess; }
static inline cudaError_t cudaHostUnregister(void *p) { (void)p; return cudaSuccess; }
static inline cudaError_t cudaMemset(void *d, int v, size_t n) { memset(d, v, n); return cudaSuccess; }
static inline cudaError_t cudaGetLastError(void) { return cudaSuccess; }
template <typename F> static inline cudaError_t cudaFuncSetAttribute(F f, cudaFuncAttribute a, int v)
{
	(void)f, (void)a;
	if ((size_t)v > emu_dyn_max) emu_dyn_max = (size_t)v;
	return cudaSuccess;
}

template <typename F> static void emu_launch(dim3 grid, dim3 block, size_t smem, F f)
{
	if (smem > emu_dyn_max) abort(); /* the real launch would fail */
	blockDim = block, gridDim = grid;
	std::vector<char> dyn(smem + 64);
	emu_dyn = dyn.data();
	const int n = (int)(block.x * block.y * block.z);
	pthread_barrier_t between;
	pthread_barrier_init(&emu_bar, NULL, (unsigned)n);
	pthread_barrier_init(&between, NULL, (unsigned)n);
	for (int w = 0; w < n / 32; ++w) pthread_barrier_init(&emu_wbar[w], NULL, 32);
	std::vector<std::thread> th;
	for (int t = 0; t < n; ++t)
		th.emplace_back([&, t] {
			threadIdx = {(unsigned)t % block.x, (unsigned)t / block.x % block.y, (unsigned)t / (block.x * block.y)};
			for (unsigned by = 0; by < grid.y; ++by)
				for (unsigned bx = 0; bx < grid.x; ++bx) {
					if (t == 0) blockIdx = {bx, by, 0};
					pthread_barrier_wait(&between);
					f();
					pthread_barrier_wait(&between);
				}
		});
	for (auto &x : th) x.join();
	pthread_barrier_destroy(&emu_bar);
	pthread_barrier_destroy(&between);
	for (int w = 0; w < n / 32; ++w) pthread_barrier_destroy(&emu_wbar[w]);
}
template <typename F> static void emu_launch(dim3 grid, dim3 block, size_t smem, cudaStream_t s, F f)
{
	(void)s;
	emu_launch(grid, block, smem, f);
}
template <typename F> static void emu_launch(dim3 grid, dim3 block, F f) { emu_launch(grid, block, 0, f); }
#endif
