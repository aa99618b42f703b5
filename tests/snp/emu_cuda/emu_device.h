/* SPDX-License-Identifier: MIT */
/* CUDA keywords and device intrinsics of the SNP kernels for the CPU emulations
 * (gpu_kernel_emu.cpp and emu_cuda/cuda_runtime.h): kernels as static functions, shared memory as
 * statics, round-to-nearest arithmetic as the host does it (build with -ffp-contract=off) and the
 * binary MMA from the PTX ISA's fragment layout. The includer includes <pthread.h> and defines
 * threadIdx, blockDim, the block barrier emu_bar and one barrier of 32 threads per warp, emu_wbar. */
#ifndef GVK_EMU_DEVICE_H
#define GVK_EMU_DEVICE_H
#include <math.h>
#include <stdint.h>
#include <string.h>

#define GVK_SNP_EMU_MMA
#define __global__ static
#define __device__ static
#define __forceinline__ inline
#define __restrict__ __restrict
#define __shared__ static
#define __launch_bounds__(...)
#define __syncthreads() pthread_barrier_wait(&emu_bar)
#define __popcll(x) __builtin_popcountll(x)
#define __popc(x) __builtin_popcount(x)
#define __align__(n) __attribute__((aligned(n)))
struct uint4 { unsigned x, y, z, w; };
struct uint2 { unsigned x, y; };
static inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v)
{
	return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
/* Round-to-nearest intrinsics: the host's operations (built with -ffp-contract=off). */
static double __longlong_as_double(long long x) { double d; memcpy(&d, &x, 8); return d; }
static double __ll2double_rn(long long x) { return (double)x; }
static double __dmul_rn(double a, double b) { return a * b; }
static double __ddiv_rn(double a, double b) { return a / b; }
static double __dsqrt_rn(double a) { return sqrt(a); }
static float __ll2float_rn(long long x) { return (float)x; }
static float __fmul_rn(float a, float b) { return a * b; }
static float __fadd_rn(float a, float b) { return a + b; }
static float __fsub_rn(float a, float b) { return a - b; }
static float __fdiv_rn(float a, float b) { return a / b; }
static float __fsqrt_rn(float a) { return sqrtf(a); }

/* mma.sync m16n8k256 .b1 AND.popc / XOR.popc for the calling lane, from the PTX ISA layout (g =
 * lane / 4, t = lane % 4): A element (row, 32-bit word c of the 256-bit k chunk) sits in lane
 * (row % 8) * 4 + c % 4, register (row >= 8) + 2 (c >= 4); B element (word c, column n) in lane
 * n * 4 + c % 4, register c >= 4; D register i is (row g + 8 (i >= 2), column 2t + i % 2). */
static struct { uint32_t a[32][4], b[32][2], v[32]; } emu_frag[32];
static void emu_bmma(int32_t *d, const uint32_t *a, const uint32_t *b, int xor_op)
{
	const int tid = threadIdx.y * blockDim.x + threadIdx.x, w = tid / 32, l = tid % 32;
	memcpy(emu_frag[w].a[l], a, 16), memcpy(emu_frag[w].b[l], b, 8);
	pthread_barrier_wait(&emu_wbar[w]);
	for (int i = 0; i < 4; ++i) {
		const int row = l / 4 + (i >= 2 ? 8 : 0), col = 2 * (l % 4) + (i & 1);
		int32_t s = 0;
		for (int c = 0; c < 8; ++c) {
			const uint32_t x = emu_frag[w].a[(row % 8) * 4 + c % 4][(row >= 8) + 2 * (c >= 4)];
			const uint32_t y = emu_frag[w].b[col * 4 + c % 4][c >= 4];
			s += __builtin_popcount(xor_op ? x ^ y : x & y);
		}
		d[i] += s;
	}
	pthread_barrier_wait(&emu_wbar[w]);
}
static void bmma_and(int32_t *d, const uint32_t *a, const uint32_t *b) { emu_bmma(d, a, b, 0); }
static void bmma_xor(int32_t *d, const uint32_t *a, const uint32_t *b) { emu_bmma(d, a, b, 1); }

/* __shfl_xor_sync over the full warp (every lane takes part, as in the kernels). */
static uint32_t __shfl_xor_sync(unsigned mask, uint32_t v, int m)
{
	const int tid = threadIdx.y * blockDim.x + threadIdx.x, w = tid / 32, l = tid % 32;
	(void)mask;
	emu_frag[w].v[l] = v;
	pthread_barrier_wait(&emu_wbar[w]);
	const uint32_t r = emu_frag[w].v[l ^ m];
	pthread_barrier_wait(&emu_wbar[w]);
	return r;
}
#endif
