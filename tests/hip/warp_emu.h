/* SPDX-License-Identifier: MIT */
/* A GPU warp of W lanes simulated on the CPU, for running kernels written against
 * src/common/gpu_port.h at any warp width (32 as on NVIDIA and AMD wave32, 64 as on AMD wave64).
 * Include it before the kernels: it defines GVK_GPU_EMU, which turns gpu_port.h off, and supplies
 * what the layer and the CUDA/HIP headers would.
 *
 * Each lane of a warp is a ucontext fiber. A warp primitive is two barriers: every live lane
 * stores its value, then reads what it needs, then may go on. The lanes pass the barriers in a
 * fixed ring (lane i hands over to the next live lane), so a lane leaves a barrier only once every
 * other live lane has reached it: the lock step a converged GPU warp has at a shuffle. The warps
 * of a block run one after another, so kernels that synchronise a whole block (__syncthreads) are
 * not for this harness; the Pair-HMM kernels do not. Shared memory is one buffer the test gives
 * (emu_smem_base), reused by every block. */
#ifndef GVK_TESTS_HIP_WARP_EMU_H
#define GVK_TESTS_HIP_WARP_EMU_H

#define GVK_GPU_EMU 1

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include <algorithm>
#include <functional>

using std::max;
using std::min;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __shared__
#define __align__(n) __attribute__((aligned(n)))
#define GPU_LAUNCH_BOUNDS(...)
#define GPU_HOST_TABLE const
#define GVK_GPU_API "emulated"

struct emu_dim3 {
	unsigned x, y, z;
};
static emu_dim3 threadIdx, blockIdx, blockDim, gridDim;

struct uint4 {
	unsigned x, y, z, w;
};
struct float2 {
	float x, y;
};
struct double2 {
	double x, y;
};
struct float4 {
	float x, y, z, w;
};
static inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
static inline double2 make_double2(double x, double y) { return {x, y}; }

/* Rounded operations: compiled with -ffp-contract=off, so each is one IEEE operation; float
 * flush-to-zero is the MXCSR's (the test sets FTZ and DAZ for the float kernels, as -ftz=true
 * flushes results and operands). */
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
static inline int __double2hiint(double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	return (int)(uint32_t)(u >> 32);
}

/* ---- the warp ----------------------------------------------------------------------------- */

enum { EMU_MAX_W = 64, EMU_STACK = 256 << 10 };

struct emu_warp_t {
	int W;     /* lanes of a warp */
	int base;  /* threadIdx.x of lane 0 */
	int cur;   /* the lane running */
	int nlive; /* lanes not yet returned */
	bool done[EMU_MAX_W];
	uint64_t slot[EMU_MAX_W];
	ucontext_t main, ctx[EMU_MAX_W];
	char *stack[EMU_MAX_W];
	std::function<void()> body;
};
static emu_warp_t emu_w;
static unsigned char *emu_smem_base;

#define GPU_WARP (emu_w.W)
typedef uint64_t gpu_lanemask_t;

static inline int emu_next_live(int me)
{
	int n = me;
	do n = (n + 1) % emu_w.W;
	while (emu_w.done[n] && n != me);
	return n;
}

/* Hands over to the next live lane; returns when the ring comes back to this one. */
static inline void emu_barrier(void)
{
	const int me = emu_w.cur, n = emu_next_live(me);
	if (n == me) return;
	emu_w.cur = n, threadIdx.x = (unsigned)(emu_w.base + n);
	swapcontext(&emu_w.ctx[me], &emu_w.ctx[n]);
	emu_w.cur = me, threadIdx.x = (unsigned)(emu_w.base + me);
}

static void emu_lane_entry(void)
{
	emu_w.body();
	const int me = emu_w.cur;
	emu_w.done[me] = true;
	if (--emu_w.nlive == 0) setcontext(&emu_w.main);
	const int n = emu_next_live(me);
	emu_w.cur = n, threadIdx.x = (unsigned)(emu_w.base + n);
	setcontext(&emu_w.ctx[n]);
}

template <typename T> static inline uint64_t emu_bits(T v)
{
	uint64_t u = 0;
	memcpy(&u, &v, sizeof v);
	return u;
}
template <typename T> static inline T emu_val(uint64_t u)
{
	T v;
	memcpy(&v, &u, sizeof v);
	return v;
}

/* One warp primitive: every lane publishes v, then takes pick(lane) from what the lanes published. */
template <typename T, typename F> static inline T emu_exchange(T v, F pick)
{
	emu_w.slot[emu_w.cur] = emu_bits(v);
	emu_barrier();
	const T r = pick(emu_w.cur);
	emu_barrier();
	return r;
}

/* CUDA's and HIP's semantics with a width w dividing the warp: lanes form segments of w; a source
 * outside the lane's segment (or below its start for shfl_up) leaves the lane its own value. */
template <typename T> static inline T gpu_shfl(T v, int src, int w)
{
	return emu_exchange(v, [&](int me) { return emu_val<T>(emu_w.slot[me / w * w + (src % w)]); });
}
template <typename T> static inline T gpu_shfl_up(T v, int d, int w)
{
	return emu_exchange(v, [&](int me) { return me % w >= d ? emu_val<T>(emu_w.slot[me - d]) : v; });
}
template <typename T> static inline T gpu_shfl_xor(T v, int m, int w)
{
	return emu_exchange(v, [&](int me) { return (me ^ m) / w == me / w ? emu_val<T>(emu_w.slot[me ^ m]) : v; });
}
static inline gpu_lanemask_t gpu_ballot(int p)
{
	return emu_exchange((uint64_t)(p != 0), [](int) {
		gpu_lanemask_t b = 0;
		for (int i = 0; i < emu_w.W; ++i)
			if (!emu_w.done[i] && emu_w.slot[i]) b |= (gpu_lanemask_t)1 << i;
		return b;
	});
}
static inline int gpu_reduce_max(int v)
{
	return emu_exchange(v, [](int) {
		int m = INT32_MIN;
		for (int i = 0; i < emu_w.W; ++i)
			if (!emu_w.done[i]) m = std::max(m, emu_val<int>(emu_w.slot[i]));
		return m;
	});
}
static inline void gpu_syncwarp(void) { emu_barrier(); }

static inline uint32_t gpu_smem_addr(const void *p) { return (uint32_t)((const unsigned char *)p - emu_smem_base); }
static inline void gpu_lds(uint32_t a, float4 &v) { memcpy(&v, emu_smem_base + a, sizeof v); }
static inline void gpu_lds(uint32_t a, double2 &v) { memcpy(&v, emu_smem_base + a, sizeof v); }

/* Runs body (a call of the kernel) for every thread of grid blocks of block threads, warps of W
 * lanes; block must be a multiple of W. */
static void emu_launch(unsigned grid, unsigned block, int W, std::function<void()> body)
{
	gridDim = {grid, 1, 1}, blockDim = {block, 1, 1};
	emu_w.W = W;
	emu_w.body = body;
	for (int i = 0; i < W; ++i)
		if (!emu_w.stack[i]) emu_w.stack[i] = (char *)malloc(EMU_STACK);
	for (unsigned b = 0; b < grid; ++b) {
		blockIdx = {b, 0, 0};
		for (int base = 0; base < (int)block; base += W) {
			emu_w.base = base, emu_w.cur = 0, emu_w.nlive = W;
			for (int i = 0; i < W; ++i) {
				emu_w.done[i] = false;
				getcontext(&emu_w.ctx[i]);
				emu_w.ctx[i].uc_stack.ss_sp = emu_w.stack[i];
				emu_w.ctx[i].uc_stack.ss_size = EMU_STACK;
				emu_w.ctx[i].uc_link = NULL;
				makecontext(&emu_w.ctx[i], emu_lane_entry, 0);
			}
			threadIdx = {(unsigned)base, 0, 0};
			swapcontext(&emu_w.main, &emu_w.ctx[0]);
		}
	}
}

#endif
