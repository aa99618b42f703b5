/* SPDX-License-Identifier: MIT */
/* FastID's tensor-core kernel (fastid_gpu.cu): scores from binary MMAs (snp_gpu_bmma.cuh).
 * Included after snp_gpu_bmma.cuh and fastid_gpu_kernels.cuh, whose shapes and types it shares;
 * tests/snp/gpu_kernel_emu.cpp runs it on the CPU with its own bmma_and / bmma_xor
 * (GVK_SNP_EMU_MMA). */
#ifndef GVK_FASTID_GPU_MMA_CUH
#define GVK_FASTID_GPU_MMA_CUH

/* Tensor cores: block (group, part) scores its FMMA_QB queries (the B operand, 8 per fragment)
 * against profiles part * per_part.. (the A operand); each warp takes tiles of 16 FMMA_MF profiles
 * in turn. A popcount sum does not depend on the order of the k bits as long as A and B share it,
 * so lane t feeds 64-bit word 4c + t of 256-bit chunk c to the ISA's words t (low half) and t + 4
 * (high half): each profile row is one 32-byte sector per chunk, read straight from global memory.
 * The queries sit in shared memory already in fragment order (one conflict-free 64-bit load per
 * lane), zero past the profile length and the last query. Mixture: popc(p AND NOT q) = popc(p) -
 * popc(p AND q), popc(p) summed over the 4 lanes of a row. The accumulator holds rows g, g + 8
 * and queries 2t, 2t + 1 of each fragment, so lane (g, t) of warp w keeps top-k lists for its
 * queries, list w * 8 + g of FMMA_LISTS per part (entry r at [r * FMMA_LISTS + list]); rows reach
 * a list in ascending order, so a score beats the list only when strictly below its k-th. The
 * query group is blockIdx.x, so the blocks of all groups of a part run together and read its
 * profiles once from memory, the other times from L2. */
template <int OP>
__global__ void __launch_bounds__(FMMA_THREADS) fid_mma_kernel(const uint64_t *__restrict__ q, int nq,
                                                               const uint64_t *__restrict__ db, int64_t nd, int stride,
                                                               int64_t per_part, int nparts, int k, int64_t thresh,
                                                               uint64_t *__restrict__ top, dhit_t *__restrict__ hits,
                                                               unsigned long long *__restrict__ n_hits,
                                                               unsigned long long hit_cap)
{
	enum { MF = FMMA_MF, NF = FMMA_NF, TR = 16 * FMMA_MF };
	extern __shared__ uint64_t qf[];
	const int nc = (stride + 3) / 4, q0 = blockIdx.x * FMMA_QB, qn = nq - q0 < FMMA_QB ? nq - q0 : FMMA_QB;
	for (int e = threadIdx.x; e < nc * NF * 32; e += FMMA_THREADS) {
		const int l = e % 32, col = (e / 32) % NF * 8 + l / 4, w = e / (32 * NF) * 4 + l % 4;
		qf[e] = col < qn && w < stride ? q[(size_t)(q0 + col) * stride + w] : 0;
	}
	__syncthreads();
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
	const int64_t d0 = (int64_t)blockIdx.y * per_part, d1 = d0 + per_part < nd ? d0 + per_part : nd;
	uint32_t worst[NF][2];
#pragma unroll
	for (int j = 0; j < NF; ++j) worst[j][0] = worst[j][1] = ~0u;
	for (int64_t r0 = d0 + warp * TR; r0 < d1; r0 += FMMA_WARPS * TR) {
		int32_t acc[MF][NF][4];
		uint32_t pc[MF][2];
		const uint64_t *p[MF][2];
#pragma unroll
		for (int i = 0; i < MF; ++i) {
#pragma unroll
			for (int j = 0; j < NF; ++j) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0;
			for (int h = 0; h < 2; ++h) {
				const int64_t row = r0 + i * 16 + h * 8 + g;
				p[i][h] = row < d1 ? db + row * stride : NULL, pc[i][h] = 0;
			}
		}
		uint64_t xn[MF][2]; /* chunk c + 1's profile words, loaded while chunk c is multiplied */
#pragma unroll
		for (int i = 0; i < MF; ++i)
			for (int h = 0; h < 2; ++h) xn[i][h] = p[i][h] && t < stride ? p[i][h][t] : 0;
#pragma unroll 1
		for (int c = 0; c < nc; ++c) {
			const int w = 4 * c + 4 + t;
			uint32_t a[MF][4], b[NF][2];
#pragma unroll
			for (int i = 0; i < MF; ++i) {
				const uint64_t x0 = xn[i][0], x1 = xn[i][1];
				xn[i][0] = p[i][0] && w < stride ? p[i][0][w] : 0, xn[i][1] = p[i][1] && w < stride ? p[i][1][w] : 0;
				a[i][0] = (uint32_t)x0, a[i][1] = (uint32_t)x1, a[i][2] = (uint32_t)(x0 >> 32), a[i][3] = (uint32_t)(x1 >> 32);
				if (OP == PG_ANDNOT) pc[i][0] += (uint32_t)__popcll(x0), pc[i][1] += (uint32_t)__popcll(x1);
			}
#pragma unroll
			for (int j = 0; j < NF; ++j) {
				const uint64_t y = qf[(c * NF + j) * 32 + lane];
				b[j][0] = (uint32_t)y, b[j][1] = (uint32_t)(y >> 32);
			}
#pragma unroll
			for (int i = 0; i < MF; ++i)
#pragma unroll
				for (int j = 0; j < NF; ++j) {
					if (OP == PG_XOR) bmma_xor(acc[i][j], a[i], b[j]);
					else bmma_and(acc[i][j], a[i], b[j]);
				}
		}
		if (OP == PG_ANDNOT)
#pragma unroll
			for (int i = 0; i < MF; ++i)
				for (int h = 0; h < 2; ++h) {
					pc[i][h] += __shfl_xor_sync(0xffffffffu, pc[i][h], 1);
					pc[i][h] += __shfl_xor_sync(0xffffffffu, pc[i][h], 2);
				}
#pragma unroll
		for (int i = 0; i < MF; ++i)
#pragma unroll
			for (int h = 0; h < 2; ++h) {
				const int64_t row = r0 + i * 16 + h * 8 + g;
				if (row >= d1) continue;
#pragma unroll
				for (int j = 0; j < NF; ++j)
#pragma unroll
					for (int u = 0; u < 2; ++u) {
						const int x = j * 8 + 2 * t + u;
						const uint32_t s = OP == PG_ANDNOT ? pc[i][h] - (uint32_t)acc[i][j][2 * h + u] : (uint32_t)acc[i][j][2 * h + u];
						if (x >= qn) continue;
						if (thresh >= 0 && (int64_t)s <= thresh) {
							unsigned long long n = atomicAdd(n_hits, 1ull);
							if (n < hit_cap) hits[n] = dhit_t{(uint32_t)(q0 + x), s, row};
						}
						if (k == 0 || s >= worst[j][u]) continue;
						const uint64_t key = (uint64_t)s << 32 | (uint64_t)row;
						uint64_t *tl = top + ((size_t)(q0 + x) * nparts + blockIdx.y) * (size_t)k * FMMA_LISTS + warp * 8 + g;
						int r = k - 1;
						while (r > 0 && key < tl[(size_t)(r - 1) * FMMA_LISTS]) {
							tl[(size_t)r * FMMA_LISTS] = tl[(size_t)(r - 1) * FMMA_LISTS];
							--r;
						}
						tl[(size_t)r * FMMA_LISTS] = key;
						worst[j][u] = (uint32_t)(tl[(size_t)(k - 1) * FMMA_LISTS] >> 32);
					}
			}
	}
}

#endif
