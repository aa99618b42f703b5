/* SPDX-License-Identifier: MIT */
/* The tensor-core kernels of the SNP GPU back end (snp_gpu.cu): LD plane products and FastID
 * scores from binary MMAs (snp_gpu_bmma.cuh). Included after snp_gpu_bmma.cuh and
 * snp_gpu_kernels.cuh, whose shapes, types and LD epilogue they share; tests/snp/gpu_kernel_emu.cpp
 * runs them on the CPU with its own bmma_and / bmma_xor (GVK_SNP_EMU_MMA). */
#ifndef GVK_SNP_GPU_MMA_CUH
#define GVK_SNP_GPU_MMA_CUH

/* Tensor cores: a block takes MMA_S row SNPs x MMA_S column SNPs. Each SNP contributes NP plane
 * rows (A, B, V; FULL: A, B) to a bit matrix, so one AND-popcount GEMM of the (MMA_S NP) x
 * (MMA_S NP) plane rows over all sample bits gives every product at once. Four warps in 2 x 2 each
 * own a quarter of that matrix; operands are staged MMA_KW 64-bit words at a time with a pitch
 * of MMA_KW + 2 words (36 32-bit words: lanes g, t hit banks 4g + t, conflict free). The plane
 * products then go through shared memory to the threads that assemble the pairs. */
template <int NP>
__global__ void __launch_bounds__(MMA_THREADS) ld_mma_kernel(ld_src_t src, int nw, int64_t i0, int nrows, int64_t cbase,
                                                             int64_t width, const int64_t *__restrict__ jlo,
                                                             const int64_t *__restrict__ jhi, int32_t nbits,
                                                             pg_ldcnt_t *__restrict__ out, double *__restrict__ val,
                                                             int r2, int single)
{
	enum { R = MMA_S * NP, WR = R / 2, MF = WR / 16, NF = WR / 8, P = MMA_KW + 2 };
	extern __shared__ uint64_t sm[];
	__shared__ int any;
	uint64_t *xs = sm, *ys = sm + R * P;
	const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, t = lane & 3;
	const int wm = warp >> 1, wn = warp & 1;
	const int64_t r0 = (int64_t)blockIdx.y * MMA_S, c0 = cbase + (int64_t)blockIdx.x * MMA_S;
	if (!ld_tile_any(&any, tid, jlo, jhi, r0, MMA_S, nrows, c0, MMA_S)) return; /* MMA_S <= MMA_THREADS rows checked */
	int32_t acc[MF][NF][4];
#pragma unroll
	for (int i = 0; i < MF; ++i)
#pragma unroll
		for (int j = 0; j < NF; ++j) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0;
	for (int w0 = 0; w0 < nw; w0 += MMA_KW) {
		const int kn = nw - w0 < MMA_KW ? nw - w0 : MMA_KW; /* a multiple of 4 words (nw is of 8) */
		for (int e = tid; e < R * kn; e += MMA_THREADS) {
			const int row = e / kn, k = e % kn, s = row / NP, p = row % NP;
			xs[row * P + k] = r0 + s < nrows ? src.wx[((i0 + r0 + s - src.xbase) * 3 + p) * nw + w0 + k] : 0;
			ys[row * P + k] = c0 + s < cbase + width ? src.wy[((c0 + s - src.ybase) * 3 + p) * nw + w0 + k] : 0;
		}
		__syncthreads();
		const uint32_t *x32 = (const uint32_t *)xs, *y32 = (const uint32_t *)ys;
		for (int kc = 0; kc < kn / 4; ++kc) { /* one 256-bit chunk = 8 32-bit words */
			uint32_t a[MF][4], b[NF][2];
#pragma unroll
			for (int i = 0; i < MF; ++i) {
				const uint32_t *p0 = x32 + (wm * WR + i * 16 + g) * 2 * P + kc * 8 + t, *p1 = p0 + 8 * 2 * P;
				a[i][0] = p0[0], a[i][1] = p1[0], a[i][2] = p0[4], a[i][3] = p1[4];
			}
#pragma unroll
			for (int j = 0; j < NF; ++j) {
				const uint32_t *q0 = y32 + (wn * WR + j * 8 + g) * 2 * P + kc * 8 + t;
				b[j][0] = q0[0], b[j][1] = q0[4];
			}
#pragma unroll
			for (int i = 0; i < MF; ++i)
#pragma unroll
				for (int j = 0; j < NF; ++j) bmma_and(acc[i][j], a[i], b[j]);
		}
		__syncthreads();
	}
	int32_t *cs = (int32_t *)sm; /* R x R plane products, reusing the staging buffer */
#pragma unroll
	for (int i = 0; i < MF; ++i)
#pragma unroll
		for (int j = 0; j < NF; ++j) {
			const int row = wm * WR + i * 16 + g, col = wn * WR + j * 8 + 2 * t;
			cs[row * R + col] = acc[i][j][0], cs[row * R + col + 1] = acc[i][j][1];
			cs[(row + 8) * R + col] = acc[i][j][2], cs[(row + 8) * R + col + 1] = acc[i][j][3];
		}
	__syncthreads();
	for (int e = tid; e < MMA_S * MMA_S; e += MMA_THREADS) {
		const int x = e / MMA_S, y = e % MMA_S;
		const int64_t row = r0 + x, col = c0 + y;
		if (row >= nrows || col < jlo[row] || col >= jhi[row] || col >= cbase + width) continue;
		const int32_t *cx = cs + x * NP * R + y * NP; /* cx[p * R + q] = plane p of x AND plane q of y */
		const int v = NP == 3;
		ld_put(ld_assemble(!v, cx[0] + cx[1] + cx[R] + cx[R + 1], v ? cx[2 * R + 2] : 0, v ? cx[2] : 0, v ? cx[R + 2] : 0,
		                   v ? cx[2 * R] : 0, v ? cx[2 * R + 1] : 0, src.totx + 2 * (i0 + row - src.xbase),
		                   src.toty + 2 * (col - src.ybase), nbits),
		       row * width + (col - cbase), out, val, r2, single);
	}
}

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
