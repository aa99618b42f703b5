/* SPDX-License-Identifier: MIT */
/* FastID's CUDA-core kernels (fastid_gpu.cu): scores with per-thread top-k lists and threshold
 * hits, and the top-k selection. Block shapes are the enums below; fastid_gpu.cu launches with
 * them. Included after popgemm.h (pg_op_t) by fastid_gpu.cu and by tests/snp/gpu_kernel_emu.cpp,
 * which runs these kernels on the CPU, so this file includes nothing itself. */
#ifndef GVK_FASTID_GPU_KERNELS_CUH
#define GVK_FASTID_GPU_KERNELS_CUH

enum { FID_THREADS = 128, FID_QB = 32, FID_QB_LONG = 8, SEL_THREADS = 256 };
/* FastID on the tensor cores: warps of 16 FMMA_MF profiles x 8 FMMA_NF queries */
enum { FMMA_MF = 2, FMMA_NF = 4, FMMA_WARPS = 4, FMMA_THREADS = 32 * FMMA_WARPS, FMMA_QB = 8 * FMMA_NF, FMMA_LISTS = 8 * FMMA_WARPS };

/* A FastID threshold hit as the kernels record it. */
typedef struct {
	uint32_t q, score;
	int64_t d; /* index within the device block */
} dhit_t;

template <int OP>
__device__ __forceinline__ uint64_t fid_op(uint64_t q, uint64_t d)
{
	return OP == PG_XOR ? q ^ d : OP == PG_ANDNOT ? d & ~q : d & q;
}

/* Block (part, group): QB queries held in shared memory against database profiles
 * part * per_part + tid, + FID_THREADS, ... Each database word is used for QB queries (FID_QB =
 * 32: the popcounts, not the scattered profile loads, bound the loop; FID_QB_LONG = 8 for
 * profiles too long for 32 in shared memory). Each thread keeps, per query,
 * its k best keys score << 32 | index (ascending = the CPU's order: score, then smaller index) in
 * a sorted list in top, entry r of thread t at [r * FID_THREADS + t], which the host fills with
 * ~0 beforehand (above every key). Scores <= thresh go to hits. */
template <int OP, int QB>
__global__ void fid_score_kernel(const uint64_t *__restrict__ q, int nq, const uint64_t *__restrict__ db, int64_t nd,
                                 int stride, int64_t per_part, int nparts, int k, int64_t thresh,
                                 uint64_t *__restrict__ top, dhit_t *__restrict__ hits,
                                 unsigned long long *__restrict__ n_hits, unsigned long long hit_cap)
{
	extern __shared__ uint64_t qs[];
	const int q0 = blockIdx.y * QB, qn = nq - q0 < QB ? nq - q0 : QB;
	for (int e = threadIdx.x; e < qn * stride; e += blockDim.x) qs[e] = q[(size_t)q0 * stride + e];
	__syncthreads();
	const int part = blockIdx.x;
	const int64_t d0 = (int64_t)part * per_part, d1 = d0 + per_part < nd ? d0 + per_part : nd;
	uint64_t worst[QB];
#pragma unroll
	for (int x = 0; x < QB; ++x) worst[x] = ~0ull;
	for (int64_t d = d0 + threadIdx.x; d < d1; d += FID_THREADS) {
		const uint64_t *p = db + d * stride;
		uint32_t s[QB];
#pragma unroll
		for (int x = 0; x < QB; ++x) s[x] = 0;
		for (int w = 0; w < stride; ++w) {
			const uint64_t pw = p[w];
#pragma unroll
			for (int x = 0; x < QB; ++x)
				if (x < qn) s[x] += (uint32_t)__popcll(fid_op<OP>(qs[x * stride + w], pw));
		}
#pragma unroll
		for (int x = 0; x < QB; ++x) {
			if (x >= qn) continue;
			if (thresh >= 0 && (int64_t)s[x] <= thresh) {
				unsigned long long h = atomicAdd(n_hits, 1ull);
				if (h < hit_cap) hits[h] = dhit_t{(uint32_t)(q0 + x), s[x], d};
			}
			const uint64_t key = (uint64_t)s[x] << 32 | (uint64_t)d;
			if (k == 0 || key >= worst[x]) continue;
			uint64_t *t = top + ((size_t)(q0 + x) * nparts + part) * (size_t)k * FID_THREADS + threadIdx.x;
			int i = k - 1;
			while (i > 0 && key < t[(size_t)(i - 1) * FID_THREADS]) {
				t[(size_t)i * FID_THREADS] = t[(size_t)(i - 1) * FID_THREADS];
				--i;
			}
			t[(size_t)i * FID_THREADS] = key;
			worst[x] = t[(size_t)(k - 1) * FID_THREADS];
		}
	}
}

/* One block per query: the kout smallest keys among its len list entries (unused entries hold
 * ~0), found one rank at a time as the smallest key above the previous one (keys are unique). */
__global__ void fid_select_kernel(const uint64_t *__restrict__ top, size_t len, int kout, uint64_t *__restrict__ sel)
{
	__shared__ uint64_t red[SEL_THREADS];
	const uint64_t *t = top + (size_t)blockIdx.x * len;
	uint64_t last = 0;
	for (int r = 0; r < kout; ++r) {
		uint64_t m = ~0ull;
		for (size_t e = threadIdx.x; e < len; e += SEL_THREADS) {
			const uint64_t v = t[e];
			if ((r == 0 || v > last) && v < m) m = v;
		}
		red[threadIdx.x] = m;
		__syncthreads();
		for (int h = SEL_THREADS / 2; h > 0; h >>= 1) {
			if ((int)threadIdx.x < h && red[threadIdx.x + h] < red[threadIdx.x]) red[threadIdx.x] = red[threadIdx.x + h];
			__syncthreads();
		}
		last = red[0];
		if (threadIdx.x == 0) sel[(size_t)blockIdx.x * kout + r] = last;
		__syncthreads();
	}
}

#endif
