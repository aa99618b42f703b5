/* SPDX-License-Identifier: MIT */
/* LD's tensor-core kernel (ld_gpu.cu): plane products from binary MMAs (snp_gpu_bmma.cuh).
 * Included after snp_gpu_bmma.cuh and ld_gpu_kernels.cuh, whose shapes, types and epilogue it
 * shares; tests/snp/gpu_kernel_emu.cpp runs it on the CPU with its own bmma_and
 * (GVK_SNP_EMU_MMA). */
#ifndef GVK_LD_GPU_MMA_CUH
#define GVK_LD_GPU_MMA_CUH

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

#endif
